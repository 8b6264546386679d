/**
 * A Nova rig: the embedded resource store (with its secret table), an engine over a memory event store with the
 * Nova effect handlers, the local JobRunner running real child processes, and a status runner rendering the
 * Nova as `npm start` does. The provisioner and the workloads are the caller's: the SQL adapter against a real
 * MariaDB in the real-cloud suite, a recording fake where no MariaDB runs (npm test).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import winston from 'winston';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../../src/kube/embedded/store.js';
import { MemoryEventStore } from '../../../src/store/memory.js';
import { Engine } from '../../../src/engine/engine.js';
import { createProductRegistry } from '../../../machines/index.js';
import { StatusRunner } from '../../../src/status/runner.js';
import { MemoryCheckpoint } from '../../../src/status/checkpoint.js';
import { reconcileNova, type NovaControllerDeps } from '../../../src/controllers/nova/reconcile.js';
import { FINALIZER_ADDED } from '../../../src/controllers/nova/finalizer.js';
import { novaEffectHandlers } from '../../../src/controllers/nova/effects.js';
import { LocalJobRunner } from '../../../src/nova/jobs/local.js';
import type { WorkloadPort } from '../../../src/nova/workloads/port.js';
import { LocalWorkloads } from '../../../src/nova/workloads/local.js';
import { novaLauncher } from '../../../src/nova/workloads/nova-launcher.js';
import { LocalConfigStore } from '../../../src/nova/config/local.js';
import type { NovaConfigSettings } from '../../../src/nova/config/settings.js';
import { writeFakeNovaPython } from './fake-nova-roles.js';
import type { DatabaseProvisioner } from '../../../src/nova/database/port.js';
import type { DatabaseEndpoint } from '../../../src/nova/connection-secrets.js';
import type { Disposition } from '../../../src/controllers/disposition.js';
import type { NovaSpec } from '../../../src/resources/nova.js';
import { statusRunnerParts } from '../../../src/app/kinds.js';
import type { NovaMetrics } from '../../../src/observability/nova-metrics.js';
import type { TargetClusters } from '../../../src/nova/target-clusters.js';

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
export interface NovaStatusView {
  installedRelease?: string;
  endpoint?: string;
  upgradePhase?: string;
  cells?: Array<{ name: string; uuid: string }>;
  phase?: string;
  conditions?: Condition[];
}

export interface NovaRig {
  source: EmbeddedResourceSource;
  engine: Engine;
  store: MemoryEventStore;
  jobs: LocalJobRunner;
  dir: string;
  logLines: string[];
  /** The local workloads when the rig runs them (no `workloads` option). */
  roles: LocalWorkloads | undefined;
  /** `<role> <pid>` per start of a stand-in role. */
  roleStarts(): string[];
  /** Creates or replaces the Nova `name` with this spec. */
  apply(spec: NovaSpec): Promise<void>;
  pass(): Promise<Disposition>;
  status(): Promise<NovaStatusView>;
  condition(type: string): Promise<Condition | undefined>;
  /** Passes (waiting `pollMs` between them) until `done` holds for the status, bounded by `maxPasses`. */
  until(done: (status: NovaStatusView) => boolean, options?: { maxPasses?: number; pollMs?: number }): Promise<NovaStatusView>;
  close(): Promise<void>;
  /** The controller's deps (a test that drives reconcileNova with its own clock). */
  deps: NovaControllerDeps;
}

export interface NovaRigOptions {
  name: string;
  namespace?: string;
  provisioner: DatabaseProvisioner;
  databaseEndpoint: (namespace: string, clusterRef: string) => Promise<DatabaseEndpoint | undefined>;
  /** Where nova-manage and nova-status are (a scripted fake, or the sandbox's real ones). */
  binDir: string;
  /**
   * Where the roles run: the caller's port, else the local workloads with the stand-in roles of ./fake-nova-roles.ts
   * (`python` names another interpreter, e.g. /usr/bin/python3 for the installed Nova in the real suite).
   */
  workloads?: WorkloadPort;
  python?: string;
  /** The cloud the rendered config names (keystoneURL, regionName). */
  settings?: Partial<NovaConfigSettings>;
  jobsUnavailable?: () => string | null;
  /** The nova_operator_* series the controller records (absent: none, as before). */
  metrics?: NovaMetrics;
  /** The registry of target clusters (absent: none registered, as on the embedded default). */
  targetClusters?: TargetClusters;
  /** The ports on a resolved target cluster (absent: a resolving target is TargetClusterNotSupported). */
  forTarget?: NovaControllerDeps['forTarget'];
  /** The runtime watches the children (Kubernetes): the passes poll no rollout or Job. */
  childrenWatched?: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const openNovaRig = async (options: NovaRigOptions): Promise<NovaRig> => {
  const namespace = options.namespace ?? 'default';
  const dir = mkdtempSync(join(tmpdir(), 'regent-nova-'));
  const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  const store = new MemoryEventStore();
  const logLines: string[] = [];
  const logger = winston.createLogger({ level: 'debug', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: new Writable({ write: (c: Buffer, _e, done) => (logLines.push(c.toString()), done()) }) })] });
  const jobs = new LocalJobRunner({ dir: join(dir, 'jobs'), binDir: options.binDir, readSecret: async (ns, name, key) => (await source.secrets.get(ns, name))?.data[key] });
  const engine = new Engine({ store, registry: createProductRegistry(), logger });
  const starts = join(dir, 'role-starts');
  const local = options.workloads
    ? undefined
    : new LocalWorkloads({
        dir: join(dir, 'nova'),
        readSecret: async (ns, name, key) => (await source.secrets.get(ns, name))?.data[key],
        launcher: novaLauncher({ python: options.python ?? writeFakeNovaPython(dir, { startsFile: starts }) }),
        readyAfterMs: options.python ? 5_000 : 200,
        probeIntervalMs: options.python ? 1_000 : 100,
        graceMs: 3_000,
      });
  const configs = new LocalConfigStore({ dir: join(dir, 'nova'), ...(options.settings ? { settings: options.settings } : {}), ...(local ? { liveConfig: (ns, name) => local.liveConfig(ns, name) } : {}) });
  const deps: NovaControllerDeps = {
    engine,
    source,
    secrets: source.secrets,
    logger,
    provisioner: options.provisioner,
    databaseEndpoint: options.databaseEndpoint,
    jobs,
    workloads: options.workloads ?? local!,
    configs,
    ...(local ? { released: (ns: string, name: string) => local.removeAll(ns, name) } : {}),
    ...(options.jobsUnavailable ? { jobsUnavailable: options.jobsUnavailable } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.targetClusters ? { targetClusters: options.targetClusters } : {}),
    ...(options.forTarget ? { forTarget: options.forTarget } : {}),
    ...(options.childrenWatched ? { childrenWatched: true } : {}),
  };
  for (const [type, handler] of Object.entries(novaEffectHandlers(deps))) engine.handle(type, handler);
  const status = new StatusRunner({ store, engine, source, checkpoint: new MemoryCheckpoint(), logger, ...statusRunnerParts(['Nova']) });
  const render = async (): Promise<NovaStatusView> => {
    const object = await source.get('Nova', namespace, options.name);
    if (!object) return {};
    status.noteResource('Nova', object);
    await status.render({ kind: 'Nova', namespace, name: options.name });
    return ((await source.get('Nova', namespace, options.name))?.status ?? {}) as NovaStatusView;
  };
  const rig: NovaRig = {
    deps,
    source,
    engine,
    store,
    jobs,
    dir,
    logLines,
    roles: local,
    roleStarts: () => (existsSync(starts) ? readFileSync(starts, 'utf8').trim().split('\n').filter(Boolean) : []),
    async apply(spec) {
      const current = await source.get('Nova', namespace, options.name);
      const object = { apiVersion: 'regent.dev/v1alpha1', kind: 'Nova', metadata: { name: options.name, namespace }, spec } as never;
      if (current) await source.update({ ...(object as object), metadata: { ...current.metadata } } as never);
      else await source.create(object);
    },
    // the controller comes back 1 s after adding its finalizer; the rig runs that pass at once
    pass: async () => {
      const first = await reconcileNova(deps, namespace, options.name);
      return first.kind === 'yield' && first.why === FINALIZER_ADDED ? reconcileNova(deps, namespace, options.name) : first;
    },
    status: render,
    condition: async (type) => (await render()).conditions?.find((c) => c.type === type),
    async until(done, { maxPasses = 200, pollMs = 250 } = {}) {
      let last: NovaStatusView = {};
      for (let i = 0; i < maxPasses; i++) {
        await rig.pass();
        last = await render();
        if (done(last)) return last;
        await sleep(pollMs);
      }
      throw new Error(`not reached after ${maxPasses} passes; last status: ${JSON.stringify(last)}`);
    },
    async close() {
      jobs.stop();
      await local?.close();
      await jobs.close?.();
      await options.provisioner.close?.();
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return rig;
};
