/**
 * The region benchmark's results as table rows: each figure, the baseline measured beside it in the same run, their
 * ratio and the goal. Pure: the result in, rows out.
 */
import type { MonitorCycleResult } from './monitor-cycle.js';
import type { MassRebuildResult } from './mass-rebuild.js';
import type { VolumesResult } from './volumes.js';
import type { LoadBalancersResult } from './load-balancers.js';
import type { ProjectionLagResult } from './projection-lag.js';
import type { ReplayResult } from './replay.js';
import { ms, num, spread, times, type Row } from './table.js';

export interface RowsInput {
  monitor?: MonitorCycleResult;
  poll?: MonitorCycleResult;
  fleet?: { servers: number; createMs: number };
  rebuild?: MassRebuildResult;
  volumes?: VolumesResult;
  loadBalancers?: LoadBalancersResult;
  projectionLag?: ProjectionLagResult;
  replay?: ReplayResult;
}

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

const monitorRows = (m: MonitorCycleResult): Row[] => [
  { figure: `monitor steady cycle, ${m.servers} servers / ${m.projects} projects (min/med/max)`, value: spread(m.steadyMs, ms), baseline: `raw paged list ${spread(m.rawListMs, ms)}`, ratio: times(m.ratio), goal: '≤ 2×' },
  { figure: 'monitor OpenStack calls per steady cycle', value: `${m.callsPerSteadyCycle} (${m.listPagesPerSteadyCycle} list pages)`, baseline: `raw list ${m.rawListPages} pages`, ratio: times(m.callsPerSteadyCycle / m.rawListPages), goal: 'O(pages)' },
  { figure: 'monitor first poll (every stream new)', value: ms(m.firstPollMs), baseline: `raw list ${ms(m.rawListMs.median)}`, ratio: times(m.firstPollMs / m.rawListMs.median), goal: '' },
  { figure: 'memory per idle server (monitor heap)', value: kib(m.heapPerIdleServerBytes), baseline: `simulator RSS ${kib(m.simulatorRssBytes / m.servers)}/server`, ratio: '', goal: '' },
];

const pollRows = (p: MonitorCycleResult): Row[] => [
  { figure: `one poll, ${p.servers} servers, first poll (every stream new)`, value: ms(p.firstPollMs), baseline: `raw list ${ms(p.rawListMs.median)}`, ratio: times(p.firstPollMs / p.rawListMs.median), goal: '≤ 60 s' },
  { figure: `one poll, ${p.servers} servers, next poll`, value: ms(p.steadyMs.median), baseline: `raw list ${ms(p.rawListMs.median)}`, ratio: times(p.ratio), goal: '≤ 60 s' },
  { figure: `memory per idle server at ${p.servers}`, value: kib(p.heapPerIdleServerBytes), baseline: `simulator RSS ${kib(p.simulatorRssBytes / p.servers)}/server`, ratio: '', goal: '' },
];

export const regionRows = (r: RowsInput): Row[] => [
  ...(r.monitor ? monitorRows(r.monitor) : []),
  ...(r.poll ? pollRows(r.poll) : []),
  ...(r.fleet ? [{ figure: `fleet: ${r.fleet.servers} Servers created (applied at once)`, value: ms(r.fleet.createMs), baseline: '', ratio: '', goal: '' }] : []),
  ...(r.rebuild
    ? [
      { figure: `mass rebuild: ${r.rebuild.servers} images at once, until all settle`, value: ms(r.rebuild.settleMs), baseline: `raw client ${ms(r.rebuild.rawSettleMs)}`, ratio: times(r.rebuild.ratio), goal: '' },
      { figure: 'reconciler decisions to reach Nova per rebuild (min/med/max)', value: spread(r.rebuild.decisionsToReachNova), baseline: 'protocol: 2 (armed, submitted)', ratio: '', goal: '2' },
      { figure: 'reconciler decisions per rebuild, change to clear (min/med/max)', value: spread(r.rebuild.decisionsToSettle), baseline: 'protocol: 3 (armed, submitted, cleared)', ratio: '', goal: '' },
      { figure: 'Server passes per rebuild (mean, from the plane\'s metrics)', value: num(r.rebuild.serverPassesPerRebuild), baseline: '', ratio: '', goal: '' },
      { figure: 'OpenStack calls per rebuild (min/med/max)', value: spread(r.rebuild.callsPerRebuild), baseline: `raw client: 1 POST + list share; of these ${num(r.rebuild.sharedCallsPerRebuild)} shared`, ratio: '', goal: '' },
      { figure: 'accepted rebuilds', value: String(r.rebuild.acceptedRebuilds), baseline: `${r.rebuild.servers} servers`, ratio: '', goal: '1 per server' },
    ]
    : []),
  ...(r.volumes ? [{ figure: `volumes: ${r.volumes.volumes} created and attached`, value: ms(r.volumes.settleMs), baseline: `raw client ${ms(r.volumes.rawSettleMs)}`, ratio: times(r.volumes.ratio), goal: `${r.volumes.attachPosts} attach POSTs, ${r.volumes.volumeCreates} creates` }] : []),
  ...(r.loadBalancers ? [{ figure: `load balancers: ${r.loadBalancers.loadBalancers} with 2 listeners`, value: ms(r.loadBalancers.settleMs), baseline: `raw client ${ms(r.loadBalancers.rawSettleMs)}`, ratio: times(r.loadBalancers.ratio), goal: `${r.loadBalancers.octaviaMutations} Octavia mutations` }] : []),
  ...(r.projectionLag
    ? [{ figure: `projection lag append → status, p50 / p99 (${r.projectionLag.events} events)`, value: `${ms(r.projectionLag.p50Ms)} / ${ms(r.projectionLag.p99Ms)}`, baseline: `store delivery ${ms(r.projectionLag.deliveryP50Ms)} / ${ms(r.projectionLag.deliveryP99Ms)}`, ratio: '', goal: 'p99 ≤ 50 ms' }]
    : []),
  ...(r.replay
    ? [{ figure: `replay: ${r.replay.streams} streams, ${r.replay.events} events`, value: `${Math.round(r.replay.replayPerSecond)} events/s`, baseline: `raw transition() ${Math.round(r.replay.rawPerSecond)} events/s`, ratio: times(r.replay.ratio), goal: '≥ 0.7' }]
    : []),
];
