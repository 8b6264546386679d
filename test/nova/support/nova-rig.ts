/**
 * A Nova rig: the embedded resource store (with its secret table), an engine over a memory event store with the
 * Nova effect handlers, the local JobRunner running real child processes, and a status runner rendering the
 * Nova as `npm start` does. The provisioner and the workloads are the caller's: the SQL adapter against a real
 * MariaDB in the real-cloud suite, a recording fake where no MariaDB runs (npm test).
 */
import { mkdtempSync, rmSync } from 'node:fs';
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
import { novaEffectHandlers } from '../../../src/controllers/nova/effects.js';
import { LocalJobRunner } from '../../../src/nova/jobs/local.js';
import { noWorkloads, type WorkloadPort } from '../../../src/nova/workloads/port.js';
import type { DatabaseProvisioner } from '../../../src/nova/database/port.js';
import type { DatabaseEndpoint } from '../../../src/nova/connection-secrets.js';
import type { Disposition } from '../../../src/controllers/disposition.js';
import type { NovaSpec } from '../../../src/resources/nova.js';
import { statusRunnerParts } from '../../../src/app/kinds.js';

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
export interface NovaStatusView {
  installedRelease?: string;
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
  /** Creates or replaces the Nova `name` with this spec. */
  apply(spec: NovaSpec): Promise<void>;
  pass(): Promise<Disposition>;
  status(): Promise<NovaStatusView>;
  condition(type: string): Promise<Condition | undefined>;
  /** Passes (waiting `pollMs` between them) until `done` holds for the status, bounded by `maxPasses`. */
  until(done: (status: NovaStatusView) => boolean, options?: { maxPasses?: number; pollMs?: number }): Promise<NovaStatusView>;
  close(): Promise<void>;
}

export interface NovaRigOptions {
  name: string;
  namespace?: string;
  provisioner: DatabaseProvisioner;
  databaseEndpoint: (namespace: string, clusterRef: string) => Promise<DatabaseEndpoint | undefined>;
  /** Where nova-manage and nova-status are (a scripted fake, or the sandbox's real ones). */
  binDir: string;
  workloads?: WorkloadPort;
  jobsUnavailable?: () => string | null;
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
  const deps: NovaControllerDeps = {
    engine,
    source,
    secrets: source.secrets,
    logger,
    provisioner: options.provisioner,
    databaseEndpoint: options.databaseEndpoint,
    jobs,
    workloads: options.workloads ?? noWorkloads,
    ...(options.jobsUnavailable ? { jobsUnavailable: options.jobsUnavailable } : {}),
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
    source,
    engine,
    store,
    jobs,
    dir,
    logLines,
    async apply(spec) {
      const current = await source.get('Nova', namespace, options.name);
      const object = { apiVersion: 'regent.dev/v1alpha1', kind: 'Nova', metadata: { name: options.name, namespace }, spec } as never;
      if (current) await source.update({ ...(object as object), metadata: { ...current.metadata } } as never);
      else await source.create(object);
    },
    pass: () => reconcileNova(deps, namespace, options.name),
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
      await jobs.close?.();
      await options.provisioner.close?.();
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return rig;
};
