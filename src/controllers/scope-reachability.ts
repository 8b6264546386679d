/**
 * Each pass's verdict on whether it could see its resource in the cloud (machines/scope-reachability.ts;
 * issue 24, item 2). A pass of a kind worked with through a Network's Identity (Server, Network, Volume,
 * LoadBalancer, SecurityGroup) runs with a `ScopeNote`; resolving the scope notes success or the link that
 * failed, and the pass's own errors are classified. When the pass ends, its verdict is decided on the
 * resource's `scope-reachability-<uid>` stream (the same verdict again stores nothing).
 *
 * What counts as "cannot see": the scope does not resolve (IdentityNotReady names the Network, Identity or
 * Region), Keystone refuses the credentials (401), or the cloud does not answer (connection refused or reset,
 * a timeout, a 5xx). Anything else a pass fails with (a 400, a 409, a quota) was an answer: the cloud was seen.
 */
import type { Engine } from '../engine/engine.js';
import { IdentityNotReady } from '../provider/identity/sessions.js';
import { RequestFailed, ServerError, Timeout, Unauthorized, type OpenStackError } from '../openstack/errors.js';
import { scopeReachabilityStream, type ReachProblem, type ScopeReachabilityStimulus } from '../../machines/scope-reachability.js';
import type { Logger } from '../log/logger.js';
import { describeError } from '../log/logger.js';
import type { Disposition } from './disposition.js';

export type ReachVerdict = { kind: 'reachable' } | { kind: 'unreachable'; dependency: { kind: 'Network' | 'Identity' | 'Region' | 'Cloud'; name: string }; problem: ReachProblem; message: string };

const PROBLEM_OF_LINK: Record<'Network' | 'Identity' | 'Region', ReachProblem> = { Network: 'NetworkMissing', Identity: 'IdentityNotReady', Region: 'RegionUnusable' };

/** The verdict an error carries, or undefined when it says nothing about reachability (the cloud answered). */
export const verdictOf = (error: unknown): ReachVerdict | undefined => {
  if (error instanceof IdentityNotReady) {
    const link = error.link;
    return { kind: 'unreachable', dependency: { kind: link.kind, name: link.name }, problem: PROBLEM_OF_LINK[link.kind], message: link.why };
  }
  const cloud = (problem: ReachProblem, e: OpenStackError): ReachVerdict => ({ kind: 'unreachable', dependency: { kind: 'Cloud', name: e.service ?? 'OpenStack' }, problem, message: e.message });
  if (error instanceof Unauthorized) return cloud('CredentialsRefused', error);
  if (error instanceof Timeout || error instanceof RequestFailed) return cloud('CloudUnreachable', error);
  // 5xx other than 504 (a Timeout): 502 and 503 are a service that is down; a 500 is an answer about the request
  if (error instanceof ServerError && (error.status === 502 || error.status === 503)) return cloud('CloudUnreachable', error);
  return undefined;
};

/** Pass-local: what resolving the scope and the pass's own calls showed. */
export class ScopeNote {
  private resolved = false;
  private blocked: ReachVerdict | undefined;

  /** The scope resolved: the pass works with its Identity's credentials now. */
  scopeResolved(): void {
    this.resolved = true;
  }

  /** The scope did not resolve (or a call failed): recorded when the error says the cloud could not be seen. */
  failed(error: unknown): void {
    const verdict = verdictOf(error);
    if (verdict) this.blocked = verdict;
  }

  /** What the pass learned: unreachable, reachable (the scope resolved and nothing said otherwise), or nothing. */
  verdict(): ReachVerdict | undefined {
    return this.blocked ?? (this.resolved ? { kind: 'reachable' } : undefined);
  }
}

export interface ScopeReachabilityRecorder {
  /** Runs one pass with a note, then records its verdict for the resource `uidOf(key)` (when it is known). */
  track(uidOf: (key: string) => string | undefined, pass: (key: string, note: ScopeNote) => Promise<Disposition>): (key: string) => Promise<Disposition>;
}

export const scopeReachabilityRecorder = (deps: { engine: Engine; logger: Logger; now?: () => Date }): ScopeReachabilityRecorder => {
  const now = deps.now ?? (() => new Date());
  const record = async (uid: string, verdict: ReachVerdict): Promise<void> => {
    const at = now().toISOString();
    const stimulus: ScopeReachabilityStimulus =
      verdict.kind === 'reachable'
        ? { type: 'reachable', source: 'reconciler', at }
        : { type: 'unreachable', source: 'reconciler', at, dependency: verdict.dependency, problem: verdict.problem, message: verdict.message };
    try {
      await deps.engine.decide(scopeReachabilityStream(uid), { stimulus, actor: 'reconciler/scope' });
    } catch (error) {
      // the verdict is the next pass's to record again; the pass's own outcome stands
      deps.logger.warn('could not record whether the resource can be observed', { uid, verdict: verdict.kind, ...describeError(error) });
    }
  };
  return {
    track: (uidOf, pass) => async (key) => {
      const note = new ScopeNote();
      let disposition: Disposition;
      try {
        disposition = await pass(key, note);
      } catch (error) {
        note.failed(error);
        const verdict = note.verdict();
        const uid = uidOf(key);
        if (verdict && uid) await record(uid, verdict);
        throw error;
      }
      const verdict = note.verdict();
      const uid = uidOf(key);
      if (verdict && uid) await record(uid, verdict);
      return disposition;
    },
  };
};
