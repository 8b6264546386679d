/**
 * A plan rig for the tenancy kinds over real HTTP: the OpenStack simulator (manual clock) on 127.0.0.1, a managed
 * Keystone domain made by the simulator's admin, two Regions on it — `region-one` (plain networks) and `region-vlan`
 * (VLAN provider networks on physnet1, ids 100–103) — whose credentials Secret holds the admin's clouds.yaml, the
 * embedded resource store and a sqlite event store in a temporary folder, and the control plane's own Region,
 * Identity, Network and SecurityGroup passes (their wirings, built from src/plan/plane.ts's services over the REAL
 * store, source and cloud, with their real effect handlers): to bring resources up and to run the real pass a plan
 * is compared with.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../../src/simulator/index.js';
import { connect, type OpenStackSession } from '../../../src/openstack/session.js';
import { cloudFromYaml, type CloudConfig } from '../../../src/openstack/keystone/clouds-config.js';
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

export const PHYSNET = 'physnet1';
export const VLAN_RANGE = { minID: 100, maxID: 103 } as const;
export const REGION_SECRET = 'region-credentials';

/** The kinds the rig runs real passes of. */
export type TenancyKind = 'Region' | 'Identity' | 'Network' | 'SecurityGroup';

export const regionManifest = (name: string, o: { endpoint: string; domainId?: string; vlan?: boolean; secret?: string }) => `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: ${name} }
spec:
  provider: openstack
  openstack:
    endpoint: ${o.endpoint}
    region: RegionOne
    credentialsSecretRef: { name: ${o.secret ?? REGION_SECRET} }
${o.domainId ? `    domainID: ${o.domainId}\n` : ''}${o.vlan ? `    network: { providerNetworks: { physicalNetwork: ${PHYSNET}, vlan: { minID: ${VLAN_RANGE.minID}, maxID: ${VLAN_RANGE.maxID} } } }\n` : ''}`;

export const identityManifest = (name: string, region: string, o: { organization?: string; project?: string; tag?: string } = {}) => `apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: ${name} }
spec:
  regionRef: { name: ${region} }
  organizationID: ${o.organization ?? 'acme'}
  projectID: ${o.project ?? name}
${o.tag ? `  tags: { note: "${o.tag}" }\n` : ''}`;

export const networkManifest = (name: string, identity: string, o: { prefix?: string; dns?: readonly string[] } = {}) => `apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: ${name} }
spec:
  identityRef: { name: ${identity} }
  prefix: ${o.prefix ?? '10.0.0.0/24'}
${o.dns && o.dns.length > 0 ? `  dnsNameservers: [${o.dns.join(', ')}]\n` : ''}`;

export interface Rule {
  direction: 'ingress' | 'egress';
  protocol: 'tcp' | 'udp' | 'icmp' | 'any';
  port?: number;
  remoteIPPrefix?: string;
}

export const securityGroupManifest = (name: string, network: string, rules: readonly Rule[], description?: string) => `apiVersion: regent.dev/v1alpha1
kind: SecurityGroup
metadata: { name: ${name} }
spec:
  networkID: ${network}
${description !== undefined ? `  description: "${description}"\n` : ''}  rules:${rules.length === 0 ? ' []' : ''}
${rules
  .map((r) => `    - { direction: ${r.direction}, protocol: ${r.protocol}${r.port !== undefined ? `, portRangeMin: ${r.port}, portRangeMax: ${r.port}` : ''}${r.remoteIPPrefix ? `, remoteIPPrefix: ${r.remoteIPPrefix}` : ''} }`)
  .join('\n')}
`;

export const CA_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBf0Vr1k8mZXJ4S8b0m3v8x2Q1q2WmXl0w8p4r8e6x0N user-ca';

export const sshCaManifest = (name: string, o: { organization?: string; project?: string; description?: string } = {}) => `apiVersion: regent.dev/v1alpha1
kind: SSHCertificateAuthority
metadata: { name: ${name} }
spec:
  organizationID: ${o.organization ?? 'acme'}
  projectID: ${o.project ?? 'web'}
  publicKey: ${CA_KEY}
${o.description !== undefined ? `  description: "${o.description}"\n` : ''}`;

export interface TenancyRig {
  dir: string;
  sim: RunningSimulator;
  /** The simulator's admin (what the Regions' Secret names), for looking at and changing the cloud behind Regent. */
  admin: OpenStackSession;
  adminCloud: CloudConfig;
  domainId: string;
  store: EventStore;
  source: EmbeddedResourceSource;
  engine: Engine;
  /** A Region manifest on the rig's cloud (managed, or `unmanaged`; `vlan`: provider networks). */
  region(name: string, o?: { unmanaged?: boolean; vlan?: boolean; secret?: string }): string;
  /** The real pass of a kind (the control plane's wiring, with its real effect handlers), over the real store, source and cloud. */
  pass(kind: TenancyKind, name: string): Promise<Disposition>;
  /** Real passes (the simulator's clock moved 1 s between them) until `settled` says so; the dispositions seen. */
  settle(kind: TenancyKind, name: string, settled: (d: Disposition) => boolean, max?: number): Promise<Disposition[]>;
  /** A plan of manifest text over the rig's stores and cloud. */
  plan(text: string, extra?: Partial<PlanOptions>): Promise<Plan>;
  close(): Promise<void>;
}

/** A realized identity's pass yields with `realized`; a network's and a group's end `present`. */
export const realized = (d: Disposition): boolean => d.kind === 'yield' && d.why === 'realized';
export const present = (d: Disposition): boolean => d.kind === 'done' && d.why === 'present';
export const connected = (d: Disposition): boolean => d.kind === 'yield' && d.why.startsWith('connected');
export const gone = (d: Disposition): boolean => d.kind === 'done';

export const startTenancyRig = async (): Promise<TenancyRig> => {
  const sim = await startSimulator({ clock: 'manual' });
  const adminCloud = cloudFromYaml(sim.cloudsYaml(), 'sim-admin');
  const connectOptions = { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 5_000 };
  const admin = await connect(adminCloud, connectOptions);
  const domain = await admin.identityAdmin.createDomain({ name: 'regent-plan', description: 'managed domain of the plan rig' });
  const dir = mkdtempSync(join(tmpdir(), 'regent-plan-tenancy-'));
  const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  const store = await openStore(`sqlite:${join(dir, 'regent.db')}`);
  const logger = silentLogger();
  const engine = new Engine({ store, registry: createProductRegistry(), logger });
  const table = kindTable();
  const plane = await assemblePlane({ engine, store, source, logger, table, connect: (c) => connect(c, connectOptions) });
  const runtimes = new Map<string, KindRuntime>();
  for (const wiring of table) {
    if (!['Region', 'Identity', 'Network', 'SecurityGroup'].includes(wiring.kind)) continue;
    const runtime = wiring.build?.(plane.services) as KindRuntime;
    runtimes.set(wiring.kind, runtime);
    for (const [type, handler] of Object.entries(runtime.handlers ?? {})) engine.handle(type, handler);
  }
  await source.secrets.put('default', REGION_SECRET, { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-admin' });
  const endpoint = `${sim.url}/identity/v3`;
  const pass = async (kind: TenancyKind, name: string): Promise<Disposition> => {
    await plane.refresh();
    const runtime = runtimes.get(kind) as KindRuntime;
    for (const object of plane.services.lookups.list(kind)) runtime.onObject?.(object);
    return (runtime.reconcile as (key: string) => Promise<Disposition>)(`default/${name}`);
  };
  const rig: TenancyRig = {
    dir,
    sim,
    admin,
    adminCloud,
    domainId: domain.id,
    store,
    source,
    engine,
    region: (name, o = {}) => regionManifest(name, { endpoint, ...(o.unmanaged ? {} : { domainId: domain.id }), ...(o.vlan ? { vlan: true } : {}), ...(o.secret ? { secret: o.secret } : {}) }),
    pass,
    settle: async (kind, name, settled, max = 16) => {
      const seen: Disposition[] = [];
      for (let i = 0; i < max; i++) {
        const d = await pass(kind, name);
        seen.push(d);
        if (settled(d)) return seen;
        sim.clock.advance(1_000);
      }
      throw new Error(`${kind} ${name} did not settle: ${seen.map((d) => `${d.kind} ${'why' in d ? d.why : ''}`).join('; ')}`);
    },
    plan: async (text, extra = {}) =>
      plan({ store, source, documents: parseManifestFiles([{ file: 'plan.yaml', text }]), connect: (c) => connect(c, connectOptions), ...extra }),
    close: async () => {
      await source.close();
      await store.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return rig;
};

/** Applies manifest text to the rig's store (as `regent apply` does). */
export const apply = (rig: TenancyRig, text: string) => applyManifests(rig.source, text);
