/**
 * The shared shape of a lifecycle reconcile pass for a kind with a create/delete machine: decode the
 * spec (a refusal is recorded as an event, nothing else happens), hold a finalizer while the resource
 * exists, resolve the desired request (a name that resolves to nothing or to two is recorded, nothing
 * else happens), observe the cloud by exact name, let the machine decide with the pass's clock, and
 * drop the finalizer once the machine has seen the cloud resource gone.
 */
import { contextOf, type Engine, type Decision } from '../engine/engine.js';
import type { MachineDefinition } from '../../machines/definition.js';
import type { ResourceSource } from '../kube/port.js';
import { isDeleting } from '../kube/object.js';
import type { KindName, ObjectOf } from '../resources/index.js';
import { deleteRetryDueAt, type LifecycleContext, type Observed } from '../../machines/lifecycle.js';
import { epochMs } from '../../machines/time.js';
import { lifecycleAvailability } from '../../projections/lifecycle-status.js';
import { DesiredUnresolvable } from '../provider/errors.js';
import { done, park, yieldFor, type Disposition } from './disposition.js';

export interface LifecyclePassInput<K extends KindName> {
  engine: Engine;
  source: ResourceSource;
  kind: K;
  object: ObjectOf<K>;
  /** The kind's lifecycle machine (machines/lifecycle.ts): its context is read typed. */
  definition: MachineDefinition<LifecycleContext>;
  stream: string;
  finalizer: string;
  /** What the cloud resource is called in status and park messages ("<Service> <noun>", e.g. "Nova server"). */
  what?: string;
  /** Field problems when the spec does not decode; empty when it does. */
  specProblems: readonly string[];
  observe: () => Promise<Observed>;
  /**
   * The create request for the machine (resolved ids; never secrets). Only called when not deleting.
   * Throws DesiredUnresolvable when the spec names something the cloud does not have exactly once.
   */
  desired: () => Promise<Record<string, unknown>>;
  /** The pass's clock (tests inject one); it reaches the machine as the stimulus's `at`. */
  now?: () => Date;
  /**
   * Runs once the machine has seen the cloud resource gone (`deleted`), before the finalizer is dropped, so
   * what the resource held elsewhere (a Network's VLAN id) is freed while the resource still exists: a crash
   * in between repeats it on the next pass (it must be idempotent), never skips it.
   */
  onDeleted?: () => Promise<unknown>;
}

export interface LifecyclePassResult {
  disposition: Disposition;
  /** The machine's state after the pass (`present`, `creating`, …). */
  state: string;
  context: LifecycleContext;
  decisions: Decision[];
  /** True when the desired request could not be resolved: nothing was observed or decided but the record. */
  unresolvable: boolean;
}

const RECHECK_MS = 2_000;
/** An image may be uploaded, or a duplicate removed, at any time: look again, without backoff growth. */
export const UNRESOLVABLE_RECHECK_MS = 30_000;
/** After a delete request, re-observe every RECHECK_MS this long: an accepted delete usually finishes within it. */
export const DELETE_CONFIRM_WINDOW_MS = 10_000;

/**
 * When to look again while a delete is standing (deleting, recreating): every RECHECK_MS while the last
 * request is recent (to confirm absence promptly), then not before L8's next retry is due, so a
 * dropped or refused delete is neither hammered nor forgotten.
 */
export const deleteRequeueMs = (context: LifecycleContext, now: Date): number => {
  const due = deleteRetryDueAt(context);
  const last = epochMs(context.lastDeleteAt);
  if (due === null || last === null) return RECHECK_MS;
  const untilDue = due - now.getTime();
  if (untilDue <= 0) return RECHECK_MS;
  if (now.getTime() - last < DELETE_CONFIRM_WINDOW_MS) return Math.min(RECHECK_MS, untilDue);
  return untilDue;
};

export const runLifecyclePass = async <K extends KindName>(input: LifecyclePassInput<K>): Promise<LifecyclePassResult> => {
  const { engine, source, kind, object, stream, finalizer } = input;
  const meta = object.metadata as { namespace?: string; name: string; generation?: number; finalizers?: string[]; deletionTimestamp?: string };
  const namespace = meta.namespace ?? 'default';
  const generation = meta.generation ?? 1;
  const actor = `reconciler/${kind.toLowerCase()}`;
  const what = input.what ?? 'cloud resource';
  const now = (input.now ?? (() => new Date()))();
  if (input.specProblems.length > 0 && !isDeleting({ metadata: meta })) {
    const decision = await engine.decide(stream, { stimulus: { type: 'specRejected', source: 'reconciler', generation, problems: [...input.specProblems] }, actor });
    return { disposition: done('spec refused; waiting for a valid spec'), state: String(decision.snapshot.value), context: contextOf(input.definition, decision.snapshot), decisions: [decision], unresolvable: false };
  }
  const deletionRequested = isDeleting({ metadata: meta });
  if (!deletionRequested && !(meta.finalizers ?? []).includes(finalizer)) await source.addFinalizer(kind, namespace, meta.name, finalizer);
  let desired: Record<string, unknown> = {};
  if (!deletionRequested) {
    try {
      desired = await input.desired();
    } catch (error) {
      if (!(error instanceof DesiredUnresolvable)) throw error;
      // L9: recorded (once per cause), nothing else happens to the cloud
      const stimulus = { type: 'desiredUnresolvable', source: 'reconciler', generation, reason: error.reason, message: error.message } as const;
      const decision = await engine.decide(stream, { stimulus, actor });
      return {
        disposition: yieldFor(UNRESOLVABLE_RECHECK_MS, `${error.reason}: ${error.message}`),
        state: String(decision.snapshot.value),
        context: contextOf(input.definition, decision.snapshot),
        decisions: [decision],
        unresolvable: true,
      };
    }
  }
  const observed = await input.observe();
  const stimulus = { type: 'reconcile', source: 'reconciler', generation, deletionRequested, observed, desired, at: now.toISOString() } as const;
  const decisions = await engine.dispatch(stream, { stimulus, actor });
  const last = decisions[decisions.length - 1] as Decision;
  const state = String(last.snapshot.value);
  const context = contextOf(input.definition, last.snapshot);
  const result = (disposition: Disposition): LifecyclePassResult => ({ disposition, state, context, decisions, unresolvable: false });
  if (state === 'deleted') {
    await input.onDeleted?.();
    if ((meta.finalizers ?? []).includes(finalizer)) await source.removeFinalizer(kind, namespace, meta.name, finalizer);
    return result(done('cloud resource gone; finalizer removed'));
  }
  if (state === 'failed') {
    // the park says what the status says
    const available = lifecycleAvailability({ state, context }, what)?.available;
    return result(park(available?.reason ?? 'CreateFailed', available?.message ?? `the cloud refused to create it: ${context.lastError ?? 'unknown'}`));
  }
  if (state === 'present') return result(done('present'));
  // A write-ahead arm: the next pass reads it back before deleting.
  if (state === 'deleteArmed' || state === 'recreateArmed') return result(yieldFor(500, `${state}: the next pass reads the intent back`));
  if (state === 'deleting' || state === 'recreating') return result(yieldFor(deleteRequeueMs(context, now), `${state}: waiting for the cloud (delete request ${context.deleteAttempts})`));
  return result(yieldFor(RECHECK_MS, `${state}: waiting for the cloud`));
};
