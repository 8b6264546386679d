/**
 * A Region + Identity rig over real HTTP: the OpenStack simulator on 127.0.0.1, the embedded resource
 * store (with its secret table), an engine with the identity step handlers, and helpers to run one
 * Region or Identity pass at a time and render their status as the status runner does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import winston from 'winston';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { connect, connectAsUser, type OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { Engine } from '../../src/engine/engine.js';
import { createProductRegistry } from '../../machines/index.js';
import { RegionConnections } from '../../src/provider/regions/connections.js';
import { identityHandlers } from '../../src/provider/identity/handlers.js';
import { reconcileRegion } from '../../src/controllers/region/reconcile.js';
import { reconcileIdentity } from '../../src/controllers/identity/reconcile.js';
import { StatusRunner } from '../../src/status/runner.js';
import { MemoryCheckpoint } from '../../src/status/checkpoint.js';
import type { Disposition } from '../../src/controllers/disposition.js';
import { statusRunnerParts } from '../../src/app/kinds.js';

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

export interface IdentityRig {
  sim: RunningSimulator;
  /** The simulator's admin, for checking what exists in Keystone. */
  admin: OpenStackSession;
  engine: Engine;
  store: MemoryEventStore;
  source: EmbeddedResourceSource;
  connections: RegionConnections;
  /** Every log line the rig's logger wrote (JSON). */
  logLines: string[];
  /** The managed domain created for the rig's Region. */
  domainId: string;
  /** Applies Region region-one on the simulator with the admin credentials in its Secret (and the managed domain unless `unmanaged`). */
  applyRegion(options?: { unmanaged?: boolean; cloud?: string; managedRoles?: readonly string[]; /** more lines under spec.openstack (4-space indented YAML) */ openstackYaml?: string }): Promise<void>;
  applyIdentity(name?: string): Promise<void>;
  regionPass(): Promise<Disposition>;
  identityPass(name?: string): Promise<Disposition>;
  /** A fresh, empty event history on the same cloud and stores (as after losing the event store). */
  forgetHistory(): void;
  /** Passes until the identity's pass says realized (bounded). */
  realize(name?: string): Promise<Disposition[]>;
  status(kind: 'Region' | 'Identity', name: string): Promise<Record<string, unknown> & { conditions?: Condition[] }>;
  available(kind: 'Region' | 'Identity', name: string): Promise<Condition | undefined>;
  close(): Promise<void>;
}

export const startIdentityRig = async (): Promise<IdentityRig> => {
  const sim = await startSimulator({ clock: 'real' });
  const dir = mkdtempSync(join(tmpdir(), 'regent-identity-'));
  const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  const store = new MemoryEventStore();
  const logLines: string[] = [];
  const logger = winston.createLogger({ level: 'debug', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: new Writable({ write: (c: Buffer, _e, done) => (logLines.push(c.toString()), done()) }) })] });
  const options = { logger, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } };
  const admin = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'), options);
  const domain = await admin.identityAdmin.createDomain({ name: 'regent-rig', description: 'managed domain of the rig' });
  const connections = new RegionConnections({ source, connect: (cloud) => connect(cloud, options) });
  const newEngine = (events: MemoryEventStore) =>
    new Engine({ store: events, registry: createProductRegistry(), logger, handlers: identityHandlers({ connections, secrets: source.secrets, connectAsUser: (cloud, login) => connectAsUser(cloud, login, options) }) });
  const engine = newEngine(store);
  let status = new StatusRunner({ store, engine, source, checkpoint: new MemoryCheckpoint(), logger, ...statusRunnerParts(['Region', 'Identity']) });
  const deps = { engine, source, connections, logger };
  const render = async (kind: 'Region' | 'Identity', name: string) => {
    const object = await source.get(kind, 'default', name);
    if (object) status.noteResource(kind, object);
    await status.render({ kind, namespace: 'default', name });
    return ((await source.get(kind, 'default', name))?.status ?? {}) as Record<string, unknown> & { conditions?: Condition[] };
  };
  const rig: IdentityRig = {
    sim,
    admin,
    engine,
    store,
    source,
    connections,
    logLines,
    domainId: domain.id,
    applyRegion: async (o = {}) => {
      await source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: o.cloud ?? 'sim-admin' });
      await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec:
  provider: openstack
  openstack:
    endpoint: ${sim.url}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: region-one-credentials }
${o.unmanaged ? '' : `    domainID: ${domain.id}\n`}${o.managedRoles ? `    managedRoles: [${o.managedRoles.join(', ')}]\n` : ''}${o.openstackYaml ?? ''}`);
    },
    applyIdentity: async (name = 'acme-web') => {
      await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: ${name} }
spec: { regionRef: { name: region-one }, organizationID: acme, projectID: web }
`);
    },
    forgetHistory: () => {
      rig.store = new MemoryEventStore();
      rig.engine = newEngine(rig.store);
      deps.engine = rig.engine;
      status = new StatusRunner({ store: rig.store, engine: rig.engine, source, checkpoint: new MemoryCheckpoint(), logger, ...statusRunnerParts(['Region', 'Identity']) });
    },
    regionPass: () => reconcileRegion(deps, 'default', 'region-one'),
    identityPass: (name = 'acme-web') => reconcileIdentity(deps, 'default', name),
    realize: async (name = 'acme-web') => {
      const seen: Disposition[] = [];
      for (let i = 0; i < 12; i++) {
        const d = await reconcileIdentity(deps, 'default', name);
        seen.push(d);
        if (d.kind !== 'yield' || d.why === 'realized' || d.why.startsWith('waiting')) break;
      }
      return seen;
    },
    status: render,
    available: async (kind, name) => (await render(kind, name)).conditions?.find((c) => c.type === 'Available'),
    close: async () => {
      await source.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return rig;
};
