/**
 * The monitor cycle (issue 31): `servers` servers seeded through `/_sim/servers` into `projects` projects, observed by
 * the server monitor as the control plane builds it (src/controllers/server-monitor/monitor.ts over an Engine on the
 * embedded sqlite store, every server managed), with the projects' Nova clients given (the control plane's per-Identity
 * scopes are not part of this measure). The first poll (every stream new) is timed apart; then steady cycles, each
 * beside the raw paged detail list of the same servers with the same clients, alternated so that load from other
 * processes hits both alike. OpenStack calls of one steady cycle come from the simulator's call log. Memory per idle
 * server is the heap (after a forced collection) the monitor's process holds more after the steady cycles than before
 * the servers existed, per server.
 */
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/store/sqlite/store.js';
import { Engine } from '../../src/engine/engine.js';
import { MachineRegistry } from '../../machines/registry.js';
import { serverRebuildDefinition } from '../../machines/server-rebuild.js';
import { ServerMonitor, type PollResult } from '../../src/controllers/server-monitor/monitor.js';
import { silentLogger } from '../../src/log/logger.js';
import type { BenchSimulator } from './simulator.js';
import { makeProjects, type BenchProject } from './projects.js';
import { heapAfterGc, median, now, spreadOf, timed, type Spread } from './measure.js';

export interface MonitorCycleOptions {
  servers: number;
  projects: number;
  steadyCycles: number;
  pageSize: number;
  /** Distinguishes this part's projects and store from another part's in the same simulator. */
  label: string;
}

export interface MonitorCycleResult {
  servers: number;
  projects: number;
  pageSize: number;
  firstPollMs: number;
  firstPoll: PollResult;
  steadyMs: Spread;
  rawListMs: Spread;
  /** Median steady cycle over median raw list. */
  ratio: number;
  /** OpenStack calls of one steady cycle (all services, token requests included), and the Nova list pages in them. */
  callsPerSteadyCycle: number;
  listPagesPerSteadyCycle: number;
  /** Pages the raw list of the same servers took. */
  rawListPages: number;
  lastSteadyPoll: PollResult;
  heapPerIdleServerBytes: number;
  simulatorRssBytes: number;
  problems: string[];
}

/** Seeds `perProject` servers into each project, in batches the simulator answers quickly. */
const seedServers = async (sim: BenchSimulator, projects: readonly BenchProject[], total: number): Promise<number> => {
  let seeded = 0;
  for (const [i, project] of projects.entries()) {
    const count = Math.floor(total / projects.length) + (i < total % projects.length ? 1 : 0);
    for (let done = 0; done < count; done += 5_000) {
      const ids = await sim.createServers({ project: project.name, count: Math.min(5_000, count - done), namePrefix: `${project.name}-s${done}-` });
      seeded += ids.length;
    }
  }
  return seeded;
};

const rawList = async (projects: readonly BenchProject[], pageSize: number): Promise<number> =>
  (await Promise.all(projects.map((p) => p.session.nova.listServers({}, { pageSize })))).reduce((n, list) => n + list.length, 0);

const listPages = (calls: ReadonlyArray<{ method: string; path: string }>): number => calls.filter((c) => c.method === 'GET' && c.path.endsWith('/servers/detail')).length;

export const benchMonitorCycle = async (sim: BenchSimulator, dir: string, options: MonitorCycleOptions): Promise<MonitorCycleResult> => {
  const problems: string[] = [];
  const projects = await makeProjects(sim.cloudsYaml, `${options.label}-p`, options.projects);
  const store = new SqliteEventStore(join(dir, `${options.label}.db`));
  try {
    const engine = new Engine({ store, registry: new MachineRegistry([serverRebuildDefinition]), logger: silentLogger() });
    const monitor = new ServerMonitor({ engine, novas: async () => projects.map((p) => p.session.nova), logger: silentLogger(), isManaged: () => true, pageSize: options.pageSize });
    const heapBefore = heapAfterGc();
    const seeded = await seedServers(sim, projects, options.servers);
    if (seeded !== options.servers) problems.push(`monitor: seeded ${seeded} servers, not ${options.servers}`);

    const first = await timed(() => monitor.pollOnce());
    if (first.value.listed !== options.servers) problems.push(`monitor: the first poll listed ${first.value.listed} of ${options.servers} servers`);
    if (first.value.changed !== options.servers) problems.push(`monitor: the first poll recorded ${first.value.changed} new streams, not ${options.servers}`);
    if (first.value.errors > 0) problems.push(`monitor: ${first.value.errors} observations failed in the first poll`);

    const steady: number[] = [];
    const raw: number[] = [];
    let lastSteady = first.value;
    let rawListPages = 0;
    let callsPerSteadyCycle = 0;
    let listPagesPerSteadyCycle = 0;
    for (let i = 0; i < options.steadyCycles; i++) {
      await sim.clearCalls();
      const started = now();
      lastSteady = await monitor.pollOnce();
      steady.push(now() - started);
      const calls = await sim.calls();
      callsPerSteadyCycle = calls.length;
      listPagesPerSteadyCycle = listPages(calls);
      if (lastSteady.changed !== 0) problems.push(`monitor: steady cycle ${i + 1} recorded ${lastSteady.changed} events (expected none: nothing changed)`);
      if (lastSteady.listed !== options.servers) problems.push(`monitor: steady cycle ${i + 1} listed ${lastSteady.listed} of ${options.servers}`);

      await sim.clearCalls();
      const rawStarted = now();
      const listed = await rawList(projects, options.pageSize);
      raw.push(now() - rawStarted);
      rawListPages = listPages(await sim.calls());
      if (listed !== options.servers) problems.push(`monitor: the raw list saw ${listed} of ${options.servers}`);
    }
    const heapPerIdleServerBytes = (heapAfterGc() - heapBefore) / options.servers;
    const steadyMs = spreadOf(steady);
    const rawListMs = spreadOf(raw);
    return {
      servers: options.servers,
      projects: options.projects,
      pageSize: options.pageSize,
      firstPollMs: first.ms,
      firstPoll: first.value,
      steadyMs,
      rawListMs,
      ratio: median(steady) / median(raw),
      callsPerSteadyCycle,
      listPagesPerSteadyCycle,
      rawListPages,
      lastSteadyPoll: lastSteady,
      heapPerIdleServerBytes,
      simulatorRssBytes: (await sim.memory()).rss,
      problems,
    };
  } finally {
    await store.close();
  }
};
