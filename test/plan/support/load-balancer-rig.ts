/**
 * A plan rig for LoadBalancers over real HTTP: the OpenStack simulator (manual clock) on 127.0.0.1, a Region
 * `region-one` resource without a managed domain (its Secret holds the simulator's demo cloud, its external network is
 * the simulator's `public`, so a floating IP can be asked for), Identity `acme` and Network `net-a` on it, the
 * embedded resource store and a sqlite event store in a temporary folder, and the control plane's own Network and
 * LoadBalancer passes (their wirings, built from src/plan/plane.ts's services over the REAL store, source and cloud,
 * with their real effect handlers) to bring a LoadBalancer to a state and to run the real pass a plan is compared with.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../../src/simulator/index.js';
import { connect, type OpenStackSession } from '../../../src/openstack/session.js';
import { cloudFromYaml } from '../../../src/openstack/keystone/clouds-config.js';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../../src/kube/embedded/store.js';
import { applyManifests, parseManifestFiles } from '../../../src/kube/cli/manifests.js';
import { openStore } from '../../../src/store/open.js';
import type { EventStore } from '../../../src/store/port.js';
import { Engine } from '../../../src/engine/engine.js';
import { createProductRegistry } from '../../../machines/index.js';
import { silentLogger } from '../../../src/log/logger.js';
import { kindTable } from '../../../src/app/kinds.js';
import type { KindRuntime } from '../../../src/controllers/kind.js';
import type { Disposition } from '../../../src/controllers/disposition.js';
import { assemblePlane } from '../../../src/plan/plane.js';
import { plan, type PlanOptions } from '../../../src/plan/planner.js';
import type { Plan } from '../../../src/plan/report.js';
import { loadBalancerDefinition, loadBalancerStream, type LoadBalancerContext } from '../../../machines/load-balancer.js';

/** One listener of a LoadBalancer spec, as the manifest writes it (members on net-a: 10.0.0.x). */
export interface ListenerSpec {
  name: string;
  protocol: 'TCP' | 'UDP';
  port: number;
  members: Array<{ address: string; port: number }>;
  allowedCIDRs?: string[];
  monitor?: { delaySeconds: number; timeoutSeconds: number; maxRetries: number };
  idleTimeouts?: { clientDataSeconds?: number; memberDataSeconds?: number };
}

export interface LoadBalancerSpecInput {
  listeners: ListenerSpec[];
  floatingIP?: boolean;
  vipAddress?: string;
  networkID?: string;
}

const listenerYaml = (l: ListenerSpec): string => {
  const lines = [`    - name: ${l.name}`, `      protocol: ${l.protocol}`, `      port: ${l.port}`];
  if (l.allowedCIDRs) lines.push(`      allowedCIDRs: [${l.allowedCIDRs.join(', ')}]`);
  if (l.idleTimeouts) lines.push(`      idleTimeouts: ${JSON.stringify(l.idleTimeouts)}`);
  lines.push('      pool:', `        members: [${l.members.map((m) => `{ address: ${m.address}, port: ${m.port} }`).join(', ')}]`);
  if (l.monitor) lines.push(`        healthMonitor: ${JSON.stringify(l.monitor)}`);
  return lines.join('\n');
};

/** A LoadBalancer manifest on net-a. */
export const loadBalancerManifest = (name: string, spec: LoadBalancerSpecInput): string => `apiVersion: regent.dev/v1alpha1
kind: LoadBalancer
metadata: { name: ${name} }
spec:
  networkID: ${spec.networkID ?? 'net-a'}
${spec.vipAddress ? `  vipAddress: ${spec.vipAddress}\n` : ''}${spec.floatingIP ? '  floatingIP: true\n' : ''}  listeners:
${spec.listeners.map(listenerYaml).join('\n')}
`;

/** A TCP listener on `port` to web servers at 10.0.0.11 and 10.0.0.12. */
export const tcpListener = (name: string, port: number, extra: Partial<ListenerSpec> = {}): ListenerSpec => ({
  name,
  protocol: 'TCP',
  port,
  members: [
    { address: '10.0.0.11', port: 8000 + (port % 1000) },
    { address: '10.0.0.12', port: 8000 + (port % 1000) },
  ],
  ...extra,
});

export interface LoadBalancerRig {
  dir: string;
  sim: RunningSimulator;
  os: OpenStackSession;
  store: EventStore;
  source: EmbeddedResourceSource;
  engine: Engine;
  /** The real LoadBalancer pass (the control plane's wiring), over the real store, source and cloud. */
  pass(name: string): Promise<Disposition>;
  /** Real passes, advancing the simulator's clock between them, until the machine is Provisioned (bounded). */
  bringUp(name: string, spec: LoadBalancerSpecInput): Promise<void>;
  /** The machine's recorded state and context (undefined before its first decision). */
  machine(name: string): Promise<{ state: string; context: LoadBalancerContext } | undefined>;
  /** A plan of manifest text over the rig's stores and cloud. */
  plan(text: string, extra?: Partial<PlanOptions>): Promise<Plan>;
  close(): Promise<void>;
}

export const startLoadBalancerRig = async (): Promise<LoadBalancerRig> => {
  const sim = await startSimulator({ clock: 'manual' });
  const cloud = cloudFromYaml(sim.cloudsYaml(), 'sim-demo');
  const connectOptions = { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 5_000 };
  const os = await connect(cloud, connectOptions);
  const dir = mkdtempSync(join(tmpdir(), 'regent-plan-lb-'));
  const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  const store = await openStore(`sqlite:${join(dir, 'regent.db')}`);
  const logger = silentLogger();
  const engine = new Engine({ store, registry: createProductRegistry(), logger });
  const table = kindTable();
  const plane = await assemblePlane({ engine, store, source, logger, table, connect: (c) => connect(c, connectOptions) });
  const runtimes = new Map<string, KindRuntime>();
  for (const wiring of table) {
    if (wiring.kind !== 'Network' && wiring.kind !== 'LoadBalancer') continue;
    const runtime = wiring.build?.(plane.services) as KindRuntime;
    runtimes.set(wiring.kind, runtime);
    for (const [type, handler] of Object.entries(runtime.handlers ?? {})) engine.handle(type, handler);
  }
  const run = async (kind: 'Network' | 'LoadBalancer', name: string): Promise<Disposition> => {
    await plane.refresh();
    const runtime = runtimes.get(kind) as KindRuntime;
    for (const object of plane.services.lookups.list(kind)) runtime.onObject?.(object);
    return (runtime.reconcile as (key: string) => Promise<Disposition>)(`default/${name}`);
  };

  const publicId = (await os.neutron.listNetworks({ name: 'public' }))[0]?.id;
  if (!publicId) throw new Error('the simulator has no public network');
  await source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-demo' });
  await applyManifests(
    source,
    `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec:
  provider: openstack
  openstack:
    endpoint: ${sim.url}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: region-one-credentials }
    network: { externalNetworkID: ${publicId} }
---
apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: acme }
spec: { regionRef: { name: region-one }, organizationID: acme, projectID: web }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-a }
spec: { identityRef: { name: acme }, prefix: 10.0.0.0/24 }
`,
  );
  for (let i = 0; i < 5 && (await run('Network', 'net-a')).kind !== 'done'; i++) sim.clock.advance(1_000);

  const machine = async (name: string) => {
    const object = await source.get('LoadBalancer', 'default', name);
    if (!object) return undefined;
    const stream = loadBalancerStream(object.metadata.uid);
    if ((await store.streamHead(stream)) === undefined) return undefined;
    const loaded = await engine.load(loadBalancerDefinition, stream);
    return { state: typeof loaded.value === 'string' ? loaded.value : JSON.stringify(loaded.value), context: loaded.context };
  };
  return {
    dir,
    sim,
    os,
    store,
    source,
    engine,
    pass: (name) => run('LoadBalancer', name),
    bringUp: async (name, spec) => {
      await applyManifests(source, loadBalancerManifest(name, spec));
      for (let i = 0; i < 30; i++) {
        await run('LoadBalancer', name);
        sim.clock.advance(1_000);
        if ((await machine(name))?.state === 'provisioned') return;
      }
      throw new Error(`LoadBalancer ${name} was not Provisioned after 30 passes (${JSON.stringify(await machine(name))})`);
    },
    machine,
    plan: async (text, extra = {}) =>
      plan({
        store,
        source,
        documents: parseManifestFiles([{ file: 'plan.yaml', text }]),
        connect: (c) => connect(c, connectOptions),
        ...extra,
      }),
    close: async () => {
      await source.close();
      await store.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
