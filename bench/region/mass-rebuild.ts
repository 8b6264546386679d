/**
 * The fleet and its mass rebuild (issue 31): `count` Server CRs applied at once through the control plane (embedded
 * resource store) are created and settle; then every image is changed at once, and the bench measures the time until
 * all settle again (provisioned at generation 2, no rebuild pending), the reconcile passes and OpenStack calls per
 * rebuild (min/median/max) and the reconciler decisions each rebuild took to reach Nova (the protocol: armed, then
 * submitted — two passes). Correct means exactly one accepted (202) rebuild POST per server. The baseline is a bare
 * client rebuilding as many servers seeded in another project (./raw-client.ts).
 */
import type { ControlPlane } from '../../src/app/control-plane.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { SEED } from '../../src/simulator/index.js';
import type { BenchSimulator } from './simulator.js';
import { applyAll, conditionOf, listWithStatus, passesOf, serverManifest, type StatusView } from './plane.js';
import { now, spreadOf, waitFor, type Spread } from './measure.js';
import { rawRebuild } from './raw-client.js';

export const serverName = (i: number): string => `web-${i}`;

export interface FleetResult {
  servers: number;
  createMs: number;
  /** Nova server id by Server name. */
  serverIds: Map<string, string>;
}

export interface MassRebuildResult {
  servers: number;
  settleMs: number;
  rawSettleMs: number;
  ratio: number;
  serverPassesPerRebuild: number;
  decisionsToReachNova: Spread;
  /** Reconciler decisions on the rebuild stream from the change to the clear (armed, submitted, cleared). */
  decisionsToSettle: Spread;
  /** Calls naming no one server (list pages, tokens), per rebuild; included in callsPerRebuild. */
  sharedCallsPerRebuild: number;
  callsPerRebuild: Spread;
  acceptedRebuilds: number;
  problems: string[];
}

const settledServer = (s: { generation: number; status: StatusView | undefined }): boolean =>
  s.status?.provisioningStatus === 'provisioned' && s.status.observedGeneration === s.generation && s.status.rebuild === undefined && conditionOf(s.status, 'Available')?.status === 'True';

/** Waits until every Server is settled at `generation`; the names of those that are not when it gives up. */
const waitForServers = async (plane: ControlPlane, count: number, generation: number, timeoutMs: number): Promise<string[]> => {
  let unsettled: string[] = [];
  await waitFor(async () => {
    const servers = await listWithStatus(plane, 'Server');
    unsettled = servers.filter((s) => s.generation !== generation || !settledServer(s)).map((s) => s.name);
    return servers.length === count && unsettled.length === 0;
  }, timeoutMs, 500);
  return unsettled;
};

/** Applies `count` Servers on cirros at once and waits until all are provisioned. */
export const createFleet = async (plane: ControlPlane, count: number, timeoutMs: number, problems: string[]): Promise<FleetResult> => {
  const start = now();
  await applyAll(plane, Array.from({ length: count }, (_, i) => serverManifest(serverName(i + 1), SEED.images.cirros)));
  const unsettled = await waitForServers(plane, count, 1, timeoutMs);
  const createMs = now() - start;
  if (unsettled.length > 0) problems.push(`fleet: ${unsettled.length} of ${count} servers not provisioned after ${timeoutMs} ms (e.g. ${unsettled.slice(0, 3).join(', ')})`);
  const serverIds = new Map((await listWithStatus(plane, 'Server')).map((s) => [s.name, s.status?.serverID ?? ''] as const));
  return { servers: count, createMs, serverIds };
};

/** True when a call's query is Nova's exact-name lookup of `name` (`name=^web\-1$`, URL-encoded). */
const namesServer = (query: string, name: string): boolean => {
  const decoded = decodeURIComponent(query.replace(/\+/g, ' ')).replace(/\\/g, '');
  return decoded.includes(`name=^${name}$`);
};

/** Reconciler events of a rebuild stream up to and including its `submitted`: the passes that decided on the way to Nova. */
const decisionsToSubmit = (types: ReadonlyArray<{ type: string; source: string }>): number => {
  const submitted = types.findIndex((t) => t.type === 'serverRebuild.submitted');
  return types.slice(0, submitted + 1).filter((t) => t.source === 'reconciler').length;
};

export const benchMassRebuild = async (
  plane: ControlPlane, sim: BenchSimulator, fleet: FleetResult, raw: { session: OpenStackSession; serverIds: readonly string[] }, timeoutMs: number,
): Promise<MassRebuildResult> => {
  const problems: string[] = [];
  const image = SEED.images.ubuntu;
  await sim.clearCalls();
  const passesBefore = await passesOf(plane, 'Server');
  const positionBefore = await plane.engine.lastPosition();
  const start = now();
  await applyAll(plane, Array.from({ length: fleet.servers }, (_, i) => serverManifest(serverName(i + 1), image)));
  const unsettled = await waitForServers(plane, fleet.servers, 2, timeoutMs);
  const settleMs = now() - start;
  if (unsettled.length > 0) problems.push(`rebuild: ${unsettled.length} of ${fleet.servers} servers not settled after ${timeoutMs} ms (e.g. ${unsettled.slice(0, 3).join(', ')})`);
  const passes = (await passesOf(plane, 'Server')) - passesBefore;
  const calls = await sim.calls();

  const accepted = calls.filter((c) => c.method === 'POST' && c.action === 'rebuild' && c.status === 202);
  const decisions: number[] = [];
  const decisionsToSettle: number[] = [];
  const perServerCalls: number[] = [];
  const attributed = new Set<number>();
  const events = await plane.store.readAll({ after: positionBefore, filter: { streamPrefixes: ['server-rebuild-'] } });
  for (const [name, id] of fleet.serverIds) {
    const acceptedHere = accepted.filter((c) => c.path.includes(id)).length;
    if (acceptedHere !== 1) problems.push(`rebuild: ${name} (${id}) had ${acceptedHere} accepted rebuilds, not 1`);
    const mine = calls.filter((c) => c.path.includes(id) || namesServer(c.query, name));
    for (const c of mine) attributed.add(c.seq);
    perServerCalls.push(mine.length);
    const stream = events.filter((e) => e.stream === `server-rebuild-${id}`).map((e) => ({ type: e.type, source: e.metadata.source }));
    decisions.push(decisionsToSubmit(stream));
    decisionsToSettle.push(stream.filter((t) => t.source === 'reconciler').length);
  }
  // list pages and token requests serve every server at once: shared out evenly
  const shared = calls.filter((c) => !attributed.has(c.seq)).length / fleet.servers;
  const rawSettleMs = await rawRebuild(raw.session, raw.serverIds, image, timeoutMs);
  return {
    servers: fleet.servers,
    settleMs,
    rawSettleMs,
    ratio: settleMs / rawSettleMs,
    serverPassesPerRebuild: passes / fleet.servers,
    decisionsToReachNova: spreadOf(decisions),
    decisionsToSettle: spreadOf(decisionsToSettle),
    sharedCallsPerRebuild: shared,
    callsPerRebuild: spreadOf(perServerCalls.map((n) => n + shared)),
    acceptedRebuilds: accepted.length,
    problems,
  };
};
