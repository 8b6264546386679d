/**
 * The four answers of a workload effect (machines/workload-cluster/observation.ts, `EffectAnswer`), mapped from one
 * OpenStack call the way the load-balancer handlers map theirs (src/provider/load-balancers.ts):
 * - 2xx: `accepted`, with `ids` for what was created; a 2xx whose body cannot be read is still `accepted` (the
 *   service took it), without ids — the next observation finds the object by its exact name;
 * - 404 on a delete: `accepted` (gone is done); 409: `conflict` (a rule that exists, a group in use, a port in use);
 * - any other refusal: `rejected` with the HTTP status and Regent's closed reason (`badRequest`, `forbidden`,
 *   `unauthorized`, `overLimit`, `notFound`, `unexpectedStatus`); a refusal Regent makes itself before sending
 *   anything (a malformed effect, user data that changed since the decision) is `rejected` with status 0;
 * - no answer (timeout, reset, 5xx, cancelled): `outcomeUnknown` with a reason Regent words itself.
 * The service's own text goes to `context.logger` only, never into an event. A POST is sent once per decision and
 * never retried here (the HTTP client retries only GETs).
 */
import type { EffectContext, EffectHandler } from '../../engine/engine.js';
import type { Effect } from '../../events/envelope.js';
import { Conflict, NotFound, UnreadableResponse } from '../../openstack/errors.js';
import type { OpenStackError } from '../../openstack/errors.js';
import { refusalReason, unansweredReason } from '../load-balancers.js';
import type { EffectAnswer } from '../../../machines/workload-cluster/observation.js';

/** A refusal Regent makes itself: nothing (more) is sent; `rejected` with status 0 and this reason. */
export class RegentRefusal extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** A parameter the machine always sends: a missing one is `rejected` (`invalidEffect`), nothing is sent. */
const missing = (key: string): RegentRefusal => new RegentRefusal('invalidEffect', `effect parameter ${key} is missing or malformed`);

export const str = (params: Readonly<Record<string, unknown>>, key: string): string => {
  const v = params[key];
  if (typeof v !== 'string' || v === '') throw missing(key);
  return v;
};
export const strOrNull = (params: Readonly<Record<string, unknown>>, key: string): string | null => {
  const v = params[key];
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string' || v === '') throw missing(key);
  return v;
};
export const strings = (params: Readonly<Record<string, unknown>>, key: string): string[] => {
  const v = params[key];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw missing(key);
  return [...(v as string[])];
};
export const stringRecord = (params: Readonly<Record<string, unknown>>, key: string): Record<string, string> => {
  const v = params[key];
  if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.values(v).every((x) => typeof x === 'string')) throw missing(key);
  return { ...(v as Record<string, string>) };
};
export const record = (params: Readonly<Record<string, unknown>>, key: string): Record<string, unknown> => {
  const v = params[key];
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw missing(key);
  return v as Record<string, unknown>;
};

export interface Call {
  /** 'Neutron' or 'Nova': the service named in a Regent-written reason. */
  service: string;
  /** A delete: a 404 is the deletion done. */
  del: boolean;
  /** Log text, e.g. "the security-group create". */
  what: string;
  /** The call; what it created, as `{ id }`, or nothing. */
  run: (effect: Effect, context: EffectContext) => Promise<{ ids?: Record<string, string> } | undefined>;
}

const logFields = (error: OpenStackError) => ({ status: error.status, reason: error.reason, fault: error.fault, requestId: error.requestId });

/** One handler: one call (or a create and its tags), its answer mapped to the four outcomes. */
export const answering = (call: Call): EffectHandler => async (effect, context) => {
  const subject = typeof effect.subject === 'string' ? effect.subject : '';
  const base = { source: 'effect' as const, effect: effect.type, subject };
  const where = { effect: effect.type, subject };
  const service = call.service.toLowerCase();
  try {
    str(effect, 'subject');
    const done = await call.run(effect, context);
    const ids = done?.ids;
    context.logger.info(`${service} accepted ${call.what}`, { ...where, ...(ids ? { ids } : {}) });
    const answer: EffectAnswer = { type: 'accepted', ...base, ...(ids && Object.keys(ids).length > 0 ? { ids } : {}) };
    return answer;
  } catch (error) {
    if (error instanceof RegentRefusal) {
      context.logger.error(`${call.what} was not sent: ${error.message}`, { ...where, reason: error.reason });
      const answer: EffectAnswer = { type: 'rejected', ...base, status: 0, reason: error.reason };
      return answer;
    }
    if (error instanceof UnreadableResponse) {
      context.logger.warn(`${service} accepted ${call.what} with an unreadable answer`, { ...where, problems: error.problems });
      const answer: EffectAnswer = { type: 'accepted', ...base };
      return answer;
    }
    if (error instanceof NotFound && call.del) {
      context.logger.info(`${call.what}: already gone`, where);
      const answer: EffectAnswer = { type: 'accepted', ...base };
      return answer;
    }
    if (error instanceof Conflict) {
      context.logger.info(`${service} answered ${call.what} with a conflict`, { ...where, ...logFields(error) });
      const answer: EffectAnswer = { type: 'conflict', ...base };
      return answer;
    }
    const refused = refusalReason(error);
    if (refused !== undefined) {
      context.logger.warn(`${service} refused ${call.what}`, { ...where, ...logFields(error as OpenStackError) });
      const answer: EffectAnswer = { type: 'rejected', ...base, status: (error as OpenStackError).status ?? 0, reason: refused };
      return answer;
    }
    const unknown = unansweredReason(call.service, error);
    if (unknown !== undefined) {
      context.logger.warn(`${call.what} went unanswered`, { ...where, ...logFields(error as OpenStackError) });
      const answer: EffectAnswer = { type: 'outcomeUnknown', ...base, reason: unknown };
      return answer;
    }
    throw error;
  }
};

type Lookup<P> = { kind: 'absent' } | ({ kind: 'present' } & P) | { kind: 'duplicate'; ids: string[] };
/** An exact-name lookup's answer: none, one (its facts), several (their ids, sorted; never picked from). */
export const lookupOf = <T extends { id: string }, P>(matches: readonly T[], facts: (x: T) => P): Lookup<P> => {
  if (matches.length === 0) return { kind: 'absent' };
  if (matches.length > 1) return { kind: 'duplicate', ids: matches.map((m) => m.id).sort() };
  return { kind: 'present', ...facts(matches[0] as T) };
};
