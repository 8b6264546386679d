/**
 * The region benchmark (issue 31): `npm run bench:region [-- --quick] [--json <file>]`. Against the simulator in a
 * child process on 127.0.0.1 (real clock, short transition delays) with the embedded stores, in one run: the monitor
 * cycle, one poll over many servers, a mass change (rebuild, volumes, load balancers) through the control plane,
 * projection lag and replay — each figure beside a baseline measured in the same run. Prints a table and writes JSON;
 * exits 1 when something did not settle or a count is wrong, never on timing. Parts live in bench/region/.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cloudFromYaml } from '../src/openstack/keystone/clouds-config.js';
import { connect } from '../src/openstack/session.js';
import { spawnSimulator } from './region/simulator.js';
import { parseOptions } from './region/options.js';
import { benchMonitorCycle, type MonitorCycleResult } from './region/monitor-cycle.js';
import { startPlane } from './region/plane.js';
import { makeProjects } from './region/projects.js';
import { benchMassRebuild, createFleet, type FleetResult, type MassRebuildResult } from './region/mass-rebuild.js';
import { benchVolumes, type VolumesResult } from './region/volumes.js';
import { benchLoadBalancers, type LoadBalancersResult } from './region/load-balancers.js';
import { projectionLag, recordLag, type ProjectionLagResult } from './region/projection-lag.js';
import { benchReplay, type ReplayResult } from './region/replay.js';
import { renderMarkdown, renderTable } from './region/table.js';
import { regionRows } from './region/rows.js';
import { SEED } from '../src/simulator/index.js';

/** Short transition delays on the simulator's real clock: the cloud is fast, so what is measured is Regent. */
const SIM_DELAYS = {
  serverBuild: 100, serverDelete: 100, serverAction: 100, rebuildStep: 100, rebuildRefLag: 100,
  volumeCreate: 100, volumeDelete: 100, volumeAttach: 100, volumeDetach: 100, volumeAction: 100,
  lbCreate: 100, lbUpdate: 100, lbDelete: 100,
};

export interface RegionBenchResult {
  options: Record<string, unknown>;
  environment: { node: string; cpus: number; simulator: string; startedAt: string; totalMs: number };
  monitor?: MonitorCycleResult;
  poll?: MonitorCycleResult;
  fleet?: Omit<FleetResult, 'serverIds'>;
  rebuild?: MassRebuildResult;
  volumes?: VolumesResult;
  loadBalancers?: LoadBalancersResult;
  projectionLag?: ProjectionLagResult;
  replay?: ReplayResult;
  problems: string[];
}

const log = (line: string): void => void process.stderr.write(`[bench:region ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

const main = async (): Promise<number> => {
  const options = parseOptions(process.argv.slice(2));
  const startedAt = new Date();
  const sim = await spawnSimulator(SIM_DELAYS);
  const dir = mkdtempSync(join(tmpdir(), 'regent-bench-region-'));
  const result: RegionBenchResult = {
    options: { ...options, skip: [...options.skip] },
    environment: { node: process.version, cpus: cpus().length, simulator: `child process pid ${sim.pid}, real clock, ${JSON.stringify(SIM_DELAYS)} ms`, startedAt: startedAt.toISOString(), totalMs: 0 },
    problems: [],
  };
  try {
    if (!options.skip.has('monitor')) {
      log(`monitor cycle: ${options.servers} servers in ${options.projects} projects, ${options.steadyCycles} steady cycles`);
      result.monitor = await benchMonitorCycle(sim, dir, { servers: options.servers, projects: options.projects, steadyCycles: options.steadyCycles, pageSize: 1000, label: 'monitor' });
      result.problems.push(...result.monitor.problems);
    }
    if (!options.skip.has('poll')) {
      log(`one poll: ${options.pollServers} servers in ${options.projects} projects`);
      result.poll = await benchMonitorCycle(sim, dir, { servers: options.pollServers, projects: options.projects, steadyCycles: 1, pageSize: 1000, label: 'poll' });
      result.problems.push(...result.poll.problems);
    }
    if (!options.skip.has('fleet')) {
      const raw = (await makeProjects(sim.cloudsYaml, 'raw-p', 1))[0];
      if (!raw) throw new Error('no raw project');
      const rawServerIds = await sim.createServers({ project: raw.name, count: options.rebuild, namePrefix: 'raw-' });
      const demo = await connect(cloudFromYaml(sim.cloudsYaml, 'sim-demo'));
      const demoSubnet = (await demo.neutron.listSubnets({ name: 'demo-subnet' }))[0]?.id;
      if (!demoSubnet) throw new Error('the simulator has no demo-subnet');
      log('control plane: starting on embedded stores');
      const plane = await startPlane(sim, dir, 1_000);
      try {
        const lag = await recordLag(plane);
        const lagFrom = await plane.engine.lastPosition();
        log(`fleet: ${options.rebuild} Servers applied at once`);
        const fleet = await createFleet(plane, options.rebuild, options.settleTimeoutMs, result.problems);
        result.fleet = { servers: fleet.servers, createMs: fleet.createMs };
        log(`mass rebuild: ${options.rebuild} images changed at once`);
        result.rebuild = await benchMassRebuild(plane, sim, fleet, { session: raw.session, serverIds: rawServerIds }, options.settleTimeoutMs);
        result.problems.push(...result.rebuild.problems);
        if (options.volumes > 0) {
          log(`volumes: ${options.volumes} created and attached`);
          result.volumes = await benchVolumes(plane, sim, options.volumes, SEED.images.ubuntu, { session: raw.session, serverIds: rawServerIds }, options.settleTimeoutMs);
          result.problems.push(...result.volumes.problems);
        }
        if (options.loadBalancers > 0 && !options.skip.has('lb')) {
          log(`load balancers: ${options.loadBalancers} with two listeners each`);
          result.loadBalancers = await benchLoadBalancers(plane, sim, options.loadBalancers, { session: demo, subnetId: demoSubnet }, options.settleTimeoutMs);
          result.problems.push(...result.loadBalancers.problems);
        }
        await lag.stop();
        result.projectionLag = projectionLag(await plane.store.readAll({ after: lagFrom }), lag);
        if (!options.skip.has('replay')) {
          log('replay: every stream of the run');
          result.replay = await benchReplay(plane.store, plane.engine.registry);
          result.problems.push(...result.replay.problems);
        }
      } finally {
        await plane.stop().catch((error: unknown) => log(`control plane stop: ${String(error)}`));
      }
    }
  } catch (error) {
    result.problems.push(`the run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  result.environment.totalMs = Date.now() - startedAt.getTime();
  const rows = regionRows(result);
  console.log(renderTable(rows));
  console.log(`\nsimulator: ${result.environment.simulator}; total ${(result.environment.totalMs / 1000).toFixed(1)} s`);
  if (options.json) writeFileSync(options.json, `${JSON.stringify(result, null, 2)}\n`);
  if (options.markdown) writeFileSync(options.markdown, `${renderMarkdown(rows)}\n`);
  if (result.problems.length > 0) {
    console.log(`\nNOT CORRECT (${result.problems.length}):\n${result.problems.slice(0, 50).map((p) => `  - ${p}`).join('\n')}`);
    return 1;
  }
  console.log('\ncorrect: everything settled and every count is as expected (timings are reported, never asserted)');
  return 0;
};

process.exitCode = await main();
