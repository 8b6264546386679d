/**
 * Server status rendered from the server-rebuild stream (server-api.md: "while a rebuild is pending
 * … the v2 read reports provisioningStatus=provisioning …; a parked rebuild still surfaces as error").
 *
 * | condition | True | False / Unknown |
 * |---|---|---|
 * | Available | Provisioned: settled — the last pass decided on the current generation, no rebuild intent or unanswered request stands, the server has booted and Nova does not report it building or in ERROR, and every spec field is realized | Provisioning: not settled yet (a newer generation not yet decided on, a rebuild intent pending — naming OS-EXT-STS:task_state when Nova hides it, since the rebuild is then never seen to settle —, not booted yet, building); RebuildOutcomeUnknown: Nova's answer to a rebuild never came and no evidence can settle it; Errored: a parked rebuild, or Nova reports the booted server in ERROR; PartiallyRealized: runs its desired image but some spec fields are not acted on (SpecRealized names them) |
 * | Healthy | Healthy: Nova reports ACTIVE | Provisioning (BUILD/REBUILD), Errored (ERROR), Unknown/Stopped (SHUTOFF), Unknown/Transitioning, Unknown/NotObserved |
 * | Active | Running | Building, Stopped, Errored, Transitioning, Unknown/NotObserved |
 * | SpecRealized | AllFieldsRealized | False/FieldsNotImplemented: names each field Regent does not act on yet |
 *
 * observedGeneration is the generation the last reconciler pass decided from, as the stream records it
 * — never the object's current generation (status written just after a spec change used to claim it).
 *
 * Pure: the same events give the same status, times included (transition times are event times).
 */
import { UNKNOWN_OUTCOME_WINDOW_MS, type ServerRebuildContext } from '../machines/server-rebuild.js';
import { mergeConditions, type Condition, type ConditionInput } from './conditions.js';
import type { UnrealizedField } from './server-unrealized.js';

export type ProvisioningStatus = 'provisioning' | 'provisioned' | 'error';

export interface ServerStatus {
  observedGeneration: number;
  phase: string;
  provisioningStatus: ProvisioningStatus;
  conditions: Condition[];
  /** The standing rebuild intent; absent when none. */
  rebuild?: { targetImageID: string; state: string };
  provisionedAt?: string;
  macAddress?: string;
  ipAddresses?: string[];
}

/** The condition types of a Server, in the order they are rendered: the single source. */
export const SERVER_CONDITION_TYPES = ['Available', 'Healthy', 'Active', 'SpecRealized'] as const;

export const PARKED_MESSAGE =
  'The rebuild to the requested image failed; the root disk was recreated and its data is gone. Choose another image or replace the server.';

/** Why an unanswered rebuild request still stands, for people. */
const unanswered = (context: ServerRebuildContext): string => {
  const o = context.outstanding;
  if (!o) return '';
  const answer = o.answer === 'unknown' ? `Nova's answer never came (${o.reason ?? 'unknown'})` : 'no answer was recorded (Regent stopped during the request)';
  const since = o.decidedAt ?? o.waitingSince;
  const window = since ? `; Regent waits ${UNKNOWN_OUTCOME_WINDOW_MS / 1000} s from ${since} for evidence before deciding again` : '';
  return `the rebuild request for image ${o.imageId}: ${answer}${window}`;
};

/**
 * Why a standing rebuild is never seen to settle: the monitor's last observation of it could not read
 * `OS-EXT-STS:task_state`, and convergence (R8) needs it empty — an absent field never reads as at rest. Not for a
 * Failed marker: the park does not wait on task_state.
 */
const taskStateUnseen = (context: ServerRebuildContext): string => {
  if (!context.marker || context.marker.state === 'Failed') return '';
  switch (context.taskStateUnknown) {
    case 'hidden':
      return "Nova's answer does not include OS-EXT-STS:task_state (hidden by policy?), so Regent cannot see the rebuild settle; it waits until the field is visible";
    case 'unreadable':
      return "Nova's answer carries an OS-EXT-STS:task_state Regent cannot read, so Regent cannot see the rebuild settle; it waits until the field reads empty";
    default:
      return '';
  }
};

/**
 * Available, in the order of what keeps a server from being settled. "provisioned means settled": a
 * new generation not yet decided on, a pending rebuild or unanswered request, a server Nova is still
 * building or has never booted is provisioning, never provisioned.
 */
const availability = (context: ServerRebuildContext, settlement: Settlement): ConditionInput & { provisioning: ProvisioningStatus } => {
  const { generation, decided, unrealized } = settlement;
  const state = (status: ConditionInput['status'], reason: string, message: string, provisioning: ProvisioningStatus) => ({ type: 'Available', status, reason, message, provisioning });
  if (context.parked) return state('False', 'Errored', `${PARKED_MESSAGE} (image ${context.marker?.targetImageID ?? '?'})`, 'error');
  if (context.outstanding?.unresolvable && context.marker) {
    return state('False', 'RebuildOutcomeUnknown', `Regent cannot tell whether Nova accepted ${unanswered(context)}: ${context.outstanding.unresolvable}. It will not submit again; choose another image or replace the server.`, 'provisioning');
  }
  if (decided === null || decided < generation) {
    return state('False', 'Provisioning', `generation ${generation} is not reconciled yet (${decided === null ? 'no pass has decided on this server yet' : `the last pass decided from generation ${decided}`})`, 'provisioning');
  }
  if (context.marker) {
    const unseen = taskStateUnseen(context);
    const why = unseen ? `: ${unseen}` : '';
    const wait = context.outstanding ? `; ${unanswered(context)}` : '';
    return state('False', 'Provisioning', `rebuild to image ${context.marker.targetImageID} is pending (${context.marker.state})${why}${wait}`, 'provisioning');
  }
  if (context.outstanding) return state('False', 'Provisioning', `the server runs its desired image, but ${unanswered(context)}; it may still land`, 'provisioning');
  const phase = context.health?.phase;
  if (!context.health || phase === 'Unknown') return state('False', 'Provisioning', 'waiting for Nova to report the server', 'provisioning');
  if (phase === 'Building') return state('False', 'Provisioning', 'Nova is building the server', 'provisioning');
  if (context.provisionedAt === null && !settlement.bootedByPass) return state('False', 'Provisioning', 'the server has not booted yet', 'provisioning');
  if (phase === 'Error') return state('False', 'Errored', 'Nova reports the server in ERROR', 'error');
  if (unrealized.length > 0) {
    return state('False', 'PartiallyRealized', `the server runs its desired image, but the spec is not fully realized: ${unrealized.map((u) => u.field).join(', ')} (see SpecRealized)`, 'provisioning');
  }
  return state('True', 'Provisioned', 'the server runs its desired image', 'provisioned');
};

/** What settlement is judged against: the object's generation, the one decided on, the fields not acted on. */
export interface Settlement {
  generation: number;
  /** The generation the last reconciler pass decided from (null: none recorded yet). */
  decided: number | null;
  unrealized: readonly UnrealizedField[];
  /**
   * A pass saw this Nova server booted (launched_at read fresh; the lifecycle's L10 latch, `bootedIds`), also when
   * the monitor never latched provisionedAt: such a server read in ERROR is a booted server in ERROR, not one
   * that "has not booted yet".
   */
  bootedByPass?: boolean;
}

/** SpecRealized: names every spec field Regent does not act on yet. */
export const specRealized = (unrealized: readonly UnrealizedField[]): ConditionInput =>
  unrealized.length === 0
    ? { type: 'SpecRealized', status: 'True', reason: 'AllFieldsRealized', message: 'Regent acts on every field of the spec' }
    : { type: 'SpecRealized', status: 'False', reason: 'FieldsNotImplemented', message: unrealized.map((u) => `${u.field}: ${u.why}`).join('; ') };

/** Healthy or Active from the observed health (Unknown/NotObserved before the monitor has seen the server). */
export const observedCondition = (type: 'Healthy' | 'Active', context: ServerRebuildContext | undefined): ConditionInput => {
  const judgement = context?.health ? (type === 'Healthy' ? context.health.healthy : context.health.active) : undefined;
  if (!judgement) return { type, status: 'Unknown', reason: 'NotObserved', message: 'Nova has not been observed yet' };
  const by = context?.health?.writtenBy === 'reconciler' ? 'recorded by the reconciler' : 'observed by the monitor';
  return { type, status: judgement.status, reason: judgement.reason, message: `${judgement.reason} (${by})` };
};

export const renderServerStatus = (input: {
  context: ServerRebuildContext;
  /** The object's current generation. */
  generation: number;
  /** The generation the last pass decided from, when known better than the rebuild stream (defaults to its record). */
  decidedGeneration?: number | null;
  unrealized?: readonly UnrealizedField[];
  /** Settlement.bootedByPass. */
  bootedByPass?: boolean;
  /** Time of the last event folded in: the transition time of any condition that changed. */
  at: string;
  previous?: ServerStatus;
}): ServerStatus => {
  const { context, generation, at, previous } = input;
  const decided = input.decidedGeneration !== undefined ? input.decidedGeneration : context.decidedGeneration;
  const unrealized = input.unrealized ?? [];
  const { provisioning, ...available } = availability(context, { generation, decided, unrealized, ...(input.bootedByPass ? { bootedByPass: true } : {}) });
  const observedGeneration = decided ?? 0;
  const status: ServerStatus = {
    observedGeneration,
    phase: context.health?.phase ?? 'Pending',
    provisioningStatus: provisioning,
    conditions: mergeConditions(previous?.conditions, [available, observedCondition('Healthy', context), observedCondition('Active', context), specRealized(unrealized)], observedGeneration, at),
  };
  if (context.marker) status.rebuild = { targetImageID: context.marker.targetImageID, state: context.marker.state };
  if (context.provisionedAt) status.provisionedAt = context.provisionedAt;
  if (context.macAddress) status.macAddress = context.macAddress;
  if (context.ipAddresses && context.ipAddresses.length > 0) status.ipAddresses = [...context.ipAddresses];
  return status;
};
