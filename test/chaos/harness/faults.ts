/**
 * Cloud faults for chaos runs, every class the simulator offers through /_sim, chosen from the run's seeded RNG:
 *   409, 5xx, timeout (the request hangs until the client's timeout), latency, duplicate (a second record with the
 *   same exact name), unknown-status (a status no service documents, for a moment), hidden-task-state (Nova hides
 *   OS-EXT-STS:task_state for 5 s, then the operator restores the policy), pending-forever (an Octavia PENDING_* that does not end until the harness ends it).
 * A plan names each fault, the step it lands in and its delay; `injectFault` applies one against the simulator
 * process and answers what it did (or why it could not: nothing to duplicate yet).
 */
import type { Rng } from './rng.js';
import type { SimulatorProcess } from './simulator-process.js';
import { adminToken, type CloudState } from './cloud-state.js';
import { sleep } from './wait.js';

export const FAULT_CLASSES = ['409', '5xx', 'timeout', 'latency', 'duplicate', 'unknown-status', 'hidden-task-state', 'pending-forever'] as const;
export type FaultClass = (typeof FAULT_CLASSES)[number];

/** Where a scenario's calls go, and which of its objects faults may touch. */
export interface FaultTarget {
  /** Regex on the path of the scenario's mutating calls. */
  mutationPath: string;
  /** The cloud object kind for /_sim/duplicate and forced states, and how to find Regent's object in the cloud. */
  object?: { kind: 'server' | 'volume' | 'loadbalancer' | 'network'; find(cloud: CloudState): { id: string; status?: string } | undefined };
  classes: readonly FaultClass[];
}

export interface PlannedFault {
  cls: FaultClass;
  step: number;
  delayMs: number;
  method: string;
  status: number;
}

export interface InjectedFault {
  cls: FaultClass;
  step: number;
  detail: string;
  /** False when the fault could not land (no object yet): not counted. */
  landed: boolean;
  /** Ids of records the simulator made up (duplicates): not Regent's doing. */
  madeUpIds: string[];
}

/** 0–`max` faults for a run over `steps` steps, from `target.classes`. */
export const planFaults = (rng: Rng, target: FaultTarget, steps: number, max: number): PlannedFault[] =>
  Array.from({ length: rng.int(0, max) }, () => ({
    cls: rng.pick(target.classes),
    step: rng.int(0, steps - 1),
    delayMs: rng.int(0, 1_500),
    method: rng.pick(['POST', 'PUT', 'DELETE']),
    status: rng.pick([500, 502, 503]),
  }));

/** How long Nova hides task_state before the operator restores the policy. */
const HIDDEN_TASK_STATE_MS = 5_000;

const settledStatus: Record<string, string> = { server: 'ACTIVE', volume: 'available', loadbalancer: 'ACTIVE' };

/** Applies one planned fault (after its delay); resolves once any temporary state it forced is restored. */
export const injectFault = async (sim: SimulatorProcess, target: FaultTarget, fault: PlannedFault, cloud: () => Promise<CloudState>): Promise<InjectedFault> => {
  await sleep(fault.delayMs);
  const base = { cls: fault.cls, step: fault.step, madeUpIds: [] as string[] };
  switch (fault.cls) {
    case '409':
      await sim.sim('POST', '/_sim/faults', { method: fault.method, path: target.mutationPath, status: 409, count: 1 });
      return { ...base, landed: true, detail: `409 on the next ${fault.method} ${target.mutationPath}` };
    case '5xx':
      await sim.sim('POST', '/_sim/faults', { method: fault.method, path: target.mutationPath, status: fault.status, count: 1 });
      return { ...base, landed: true, detail: `${fault.status} on the next ${fault.method} ${target.mutationPath}` };
    case 'timeout':
      await sim.sim('POST', '/_sim/faults', { method: fault.method, path: target.mutationPath, timeout: true, count: 1 });
      return { ...base, landed: true, detail: `the next ${fault.method} ${target.mutationPath} hangs past the client timeout` };
    case 'latency':
      await sim.sim('POST', '/_sim/latency', { ms: 200 + fault.delayMs, path: target.mutationPath, count: 3 });
      return { ...base, landed: true, detail: `${200 + fault.delayMs} ms on the next 3 calls to ${target.mutationPath}` };
    case 'hidden-task-state':
      // Without task_state Regent cannot tell a settled rebuild from one in flight (spec: convergence needs task_state
      // empty; a hidden field must never read as "at rest"), so it keeps the rebuild pending — by design, and forever
      // while the policy hides it. An operator restores the policy after a while, as the harness does; meanwhile no
      // settle may be claimed (no-false-provisioned), and afterwards the rebuild must settle (no-lost-decision).
      await sim.sim('POST', '/_sim/config', { nova: { hideTaskState: true } });
      await sleep(HIDDEN_TASK_STATE_MS);
      await sim.sim('POST', '/_sim/config', { nova: { hideTaskState: false } });
      return { ...base, landed: true, detail: `nova.hideTaskState for ${HIDDEN_TASK_STATE_MS / 1000} s` };
    case 'duplicate': {
      const found = target.object?.find(await cloud());
      if (!target.object || !found) return { ...base, landed: false, detail: 'nothing to duplicate yet' };
      const made = (await sim.sim('POST', '/_sim/duplicate', { kind: target.object.kind, id: found.id })) as { id?: string } | string | undefined;
      const madeId = typeof made === 'string' ? made : made?.id;
      // Regent stops at an exact-name ambiguity by design (it cannot tell which is its own); an operator removes the
      // stray record, as the harness does after a while, and Regent must carry on from there.
      await sleep(2_000);
      const removed = madeId ? await deleteMadeUp(sim, target.object.kind, madeId) : 'no id answered';
      return { ...base, landed: true, detail: `a second ${target.object.kind} named as ${found.id} for 2 s (${removed})`, madeUpIds: madeId ? [madeId] : [] };
    }
    case 'unknown-status':
    case 'pending-forever': {
      const object = target.object;
      const found = object?.find(await cloud());
      if (!object || !found || found.status !== settledStatus[object.kind]) return { ...base, landed: false, detail: 'no settled object to disturb' };
      const path = object.kind === 'server' ? `/_sim/servers/${found.id}/state` : object.kind === 'volume' ? `/_sim/volumes/${found.id}/state` : `/_sim/loadbalancers/${found.id}/state`;
      const odd = fault.cls === 'pending-forever' ? { provisioning_status: 'PENDING_UPDATE' } : object.kind === 'server' ? { vm_state: 'chaos-unknown' } : object.kind === 'volume' ? { status: 'chaos-unknown' } : { provisioning_status: 'CHAOS_UNKNOWN' };
      const back = object.kind === 'server' ? { vm_state: 'active' } : object.kind === 'volume' ? { status: 'available' } : { provisioning_status: 'ACTIVE' };
      await sim.sim('POST', path, { ...odd, keepPending: true });
      await sleep(fault.cls === 'pending-forever' ? 2_000 : 600);
      await sim.sim('POST', path, { ...back, keepPending: true }).catch(() => undefined);
      return { ...base, landed: true, detail: `${object.kind} ${found.id} showed ${JSON.stringify(odd)} for a while` };
    }
  }
};

/**
 * Deletes a record the simulator made up, as the admin would (the call is left out of the invariants by its id),
 * retrying while the service refuses (an Octavia load balancer is immutable while PENDING_*): answers how it went.
 */
const deleteMadeUp = async (sim: SimulatorProcess, kind: string, id: string): Promise<string> => {
  const auth = await adminToken(sim.url, sim.passwords[0] ?? '');
  // a copy keeps the status it was copied with (a volume deleting or in-use, a load balancer PENDING_CREATE), which the
  // service's delete refuses: the operator resets its state first (`cinder reset-state --state available`, Octavia's
  // provisioning status in its database), as volume:1100043 and load-balancer:1000101 showed
  if (kind === 'volume') await sim.sim('POST', `/_sim/volumes/${id}/state`, { status: 'available', keepPending: true }).catch(() => undefined);
  if (kind === 'loadbalancer') await sim.sim('POST', `/_sim/loadbalancers/${id}/state`, { provisioning_status: 'ACTIVE', keepPending: true }).catch(() => undefined);
  const path = kind === 'server' ? `/compute/v2.1/servers/${id}` : kind === 'volume' ? `/volume/v3/${auth.projectId}/volumes/${id}` : kind === 'loadbalancer' ? `/load-balancer/v2/lbaas/loadbalancers/${id}?cascade=true` : `/network/v2.0/networks/${id}`;
  let last = '';
  for (let attempt = 1; attempt <= 60; attempt++) {
    // bounded: a `timeout` fault planned for Regent's deletes hangs this call as well (it uses up that fault)
    const response = await fetch(`${sim.url}${path}`, { method: 'DELETE', headers: { 'x-auth-token': auth.token }, signal: AbortSignal.timeout(3_000) }).catch((e: unknown) => e as Error);
    if (response instanceof Error) {
      last = response.message;
      continue;
    }
    if (response.status < 300 || response.status === 404) return `removed after ${attempt} attempt(s)`;
    last = `${response.status} ${await response.text()}`;
    await sleep(500);
  }
  return `still there after 30 s: ${last}`;
};
