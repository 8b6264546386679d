/**
 * The shared shape of a lifecycle reconcile pass for a kind with a create/delete machine: decode the
 * spec (a refusal is recorded as an event, nothing else happens), hold a finalizer while the resource
 * exists, observe the cloud by exact name, let the machine decide, and drop the finalizer once the
 * machine has seen the cloud resource gone.
 */
import type { Engine, Decision } from '../engine/engine.js';
import type { ResourceSource } from '../kube/port.js';
import { isDeleting } from '../kube/object.js';
import type { KindName, ObjectOf } from '../resources/index.js';
import type { LifecycleContext, Observed } from '../../machines/lifecycle.js';
import { done, park, yieldFor, type Disposition } from './disposition.js';

export interface LifecyclePassInput<K extends KindName> {
  engine: Engine;
  source: ResourceSource;
  kind: K;
  object: ObjectOf<K>;
  stream: string;
  finalizer: string;
  /** Field problems when the spec does not decode; empty when it does. */
  specProblems: readonly string[];
  observe: () => Promise<Observed>;
  /** The create request for the machine (resolved ids; never secrets). Only called when not deleting. */
  desired: () => Promise<Record<string, unknown>>;
}

export interface LifecyclePassResult {
  disposition: Disposition;
  /** The machine's state after the pass (`present`, `creating`, …). */
  state: string;
  context: LifecycleContext;
  decisions: Decision[];
}

const RECHECK_MS = 2_000;

export const runLifecyclePass = async <K extends KindName>(input: LifecyclePassInput<K>): Promise<LifecyclePassResult> => {
  const { engine, source, kind, object, stream, finalizer } = input;
  const meta = object.metadata as { namespace?: string; name: string; generation?: number; finalizers?: string[]; deletionTimestamp?: string };
  const namespace = meta.namespace ?? 'default';
  const generation = meta.generation ?? 1;
  const actor = `reconciler/${kind.toLowerCase()}`;
  if (input.specProblems.length > 0 && !isDeleting({ metadata: meta })) {
    const decision = await engine.decide(stream, { stimulus: { type: 'specRejected', source: 'reconciler', generation, problems: [...input.specProblems] }, actor });
    return { disposition: done('spec refused; waiting for a valid spec'), state: String(decision.snapshot.value), context: decision.snapshot.context as LifecycleContext, decisions: [decision] };
  }
  const deletionRequested = isDeleting({ metadata: meta });
  if (!deletionRequested && !(meta.finalizers ?? []).includes(finalizer)) await source.addFinalizer(kind, namespace, meta.name, finalizer);
  const observed = await input.observe();
  const desired = deletionRequested ? {} : await input.desired();
  const decisions = await engine.dispatch(stream, { stimulus: { type: 'reconcile', source: 'reconciler', generation, deletionRequested, observed, desired }, actor });
  const last = decisions[decisions.length - 1] as Decision;
  const state = String(last.snapshot.value);
  const context = last.snapshot.context as LifecycleContext;
  if (state === 'deleted') {
    if ((meta.finalizers ?? []).includes(finalizer)) await source.removeFinalizer(kind, namespace, meta.name, finalizer);
    return { disposition: done('cloud resource gone; finalizer removed'), state, context, decisions };
  }
  if (state === 'failed') return { disposition: park('CreateFailed', `the cloud refused to create it: ${context.lastError ?? 'unknown'}`), state, context, decisions };
  if (state === 'present') return { disposition: done('present'), state, context, decisions };
  // A write-ahead arm: the next pass reads it back before deleting.
  if (state === 'deleteArmed' || state === 'recreateArmed') return { disposition: yieldFor(500, `${state}: the next pass reads the intent back`), state, context, decisions };
  return { disposition: yieldFor(RECHECK_MS, `${state}: waiting for the cloud`), state, context, decisions };
};
