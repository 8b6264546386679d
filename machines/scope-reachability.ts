/**
 * Whether Regent can see a resource in its cloud (issue 24, item 2: "a control plane that cannot see a
 * resource must not keep saying it is fine"). A Server, Volume, LoadBalancer, SecurityGroup or Network is
 * worked with through its scope — its Network's Identity's project, in that Identity's Region — and observed
 * with that scope's credentials. When the scope cannot be resolved (the Network is gone, the Identity is not
 * realized, the Region cannot be used) or the cloud does not answer (connection refused, timeout, 5xx) or
 * refuses the credentials, every status fact Regent holds about the resource is only as old as the last pass
 * that could look. Each pass records its verdict here; the status projection then says so.
 *
 *   unverified ──reachable──► reachable ◄──reachable── unreachable
 *        └────────unreachable──────┴──────unreachable──────►┘ ⟲ (a changed why: recorded, `since` kept)
 *
 * R1 a pass that resolved the scope and whose cloud calls answered records `reachable`.
 * R2 a pass that could not resolve the scope, or whose cloud did not answer or refused the credentials,
 *    records `unreachable` naming the dependency (Network, Identity, Region or the cloud endpoint) and why.
 * R3 `since` is when the verdict last changed (the pass's clock, carried on the stimulus: machines read none);
 *    the same verdict again changes nothing, so a stream holds transitions only, never one event per pass.
 *
 * There is no effect: observing is the pass's, deciding what to do about it is the lifecycle machines'. This
 * machine never authorizes anything; it only records what the pass could see.
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';

/** What could not be used: the closed set a status reason is taken from. */
export const ReachProblem = t.keyof({
  /** The resource's Network does not exist (or names no Identity). */
  NetworkMissing: null,
  /** The Identity does not exist or is not realized yet (no project, no application credential). */
  IdentityNotReady: null,
  /** The Identity's Region cannot be used: missing, its credentials refused, its Keystone silent. */
  RegionUnusable: null,
  /** Keystone refused the credentials the pass worked with (401). */
  CredentialsRefused: null,
  /** The cloud did not answer: connection refused or reset, a timeout, a 5xx. */
  CloudUnreachable: null,
});
export type ReachProblem = t.TypeOf<typeof ReachProblem>;

export const DependencyKind = t.keyof({ Network: null, Identity: null, Region: null, Cloud: null });
export type DependencyKind = t.TypeOf<typeof DependencyKind>;

export const scopeReachabilityStimulus = () =>
  t.union([
    t.type({ type: t.literal('reachable'), source: t.literal('reconciler'), at: t.string }),
    t.type({
      type: t.literal('unreachable'),
      source: t.literal('reconciler'),
      at: t.string,
      /** The dependency that could not be used: `Region default/region-one`, `Cloud compute` (the service). */
      dependency: t.type({ kind: DependencyKind, name: t.string }),
      problem: ReachProblem,
      /** User-safe: what Regent saw (never a credential). */
      message: t.string,
    }),
  ]);
export type ScopeReachabilityStimulus = t.TypeOf<ReturnType<typeof scopeReachabilityStimulus>>;

export interface ScopeReachabilityContext {
  /** When the current verdict began (RFC 3339, the pass's clock); null before the first. */
  since: string | null;
  /** While unreachable: what could not be used, and why. */
  blocked: { dependency: { kind: DependencyKind; name: string }; problem: ReachProblem; message: string } | null;
}

const blockedBy = (event: ScopeReachabilityStimulus) => (event.type === 'unreachable' ? { dependency: { ...event.dependency }, problem: event.problem, message: event.message } : null);

export const buildScopeReachabilityMachine = () =>
  setup({
    types: {} as { context: ScopeReachabilityContext; events: ScopeReachabilityStimulus },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      /** R3: a new verdict starts now. */
      begin: assign(({ event }) => ({ since: event.at, blocked: blockedBy(event) })),
      /** R3: still unreachable, for another reason: the why changes, `since` does not. */
      rewordWhy: assign(({ event }) => ({ blocked: blockedBy(event) })),
    },
    guards: {
      /** R3: the same dependency, problem and message as recorded: nothing new was learned. */
      sameWhy: ({ context, event }) =>
        event.type === 'unreachable' &&
        context.blocked !== null &&
        context.blocked.dependency.kind === event.dependency.kind &&
        context.blocked.dependency.name === event.dependency.name &&
        context.blocked.problem === event.problem &&
        context.blocked.message === event.message,
    },
  }).createMachine({
    id: 'scopeReachability',
    context: { since: null, blocked: null },
    initial: 'unverified',
    states: {
      unverified: {
        on: {
          reachable: { target: 'reachable', actions: ['begin', outcome('reachable')] }, // R1
          unreachable: { target: 'unreachable', actions: ['begin', outcome('unreachable')] }, // R2
        },
      },
      reachable: {
        on: {
          // R3: reachable again is not news
          unreachable: { target: 'unreachable', actions: ['begin', outcome('unreachable')] }, // R2
        },
      },
      unreachable: {
        on: {
          reachable: { target: 'reachable', actions: ['begin', outcome('reachable')] }, // R1: recovered
          unreachable: [
            { guard: 'sameWhy', actions: [] }, // R3
            { actions: ['rewordWhy', outcome('stillUnreachable')] }, // R2, R3
          ],
        },
      },
    },
  });

export const SCOPE_REACHABILITY_PREFIX = 'scope-reachability-';

/** One stream per resource, by its uid (the resource's kind is known from the uid's owner). */
export const scopeReachabilityStream = (resourceUid: string): string => `${SCOPE_REACHABILITY_PREFIX}${resourceUid}`;

const audit = (): MachineAudit => ({
  alphabet: (): Stimulus[] => [
    { type: 'reachable', source: 'reconciler', at: '2026-01-01T00:00:00Z' },
    { type: 'unreachable', source: 'reconciler', at: '2026-01-01T00:01:00Z', dependency: { kind: 'Region', name: 'default/region-one' }, problem: 'RegionUnusable', message: 'Keystone refused the credentials' },
    { type: 'unreachable', source: 'reconciler', at: '2026-01-01T00:02:00Z', dependency: { kind: 'Cloud', name: 'compute' }, problem: 'CloudUnreachable', message: 'connection refused' },
  ],
  // `since` is data: fold it out so the explored graph stays finite
  stateKey: (snapshot) => JSON.stringify([snapshot.value, (snapshot.context as ScopeReachabilityContext).blocked?.problem ?? null]),
  // a verdict, never an intent: nothing here arms, clears or parks anything (the checks prove it stays so)
  intentOf: () => null,
  rank: () => 0,
});

export const scopeReachabilityDefinition: MachineDefinition<ScopeReachabilityContext> = {
  id: 'scopeReachability',
  version: 1,
  schemaVersion: 1,
  streamPrefix: SCOPE_REACHABILITY_PREFIX,
  machine: buildScopeReachabilityMachine(),
  stimulus: scopeReachabilityStimulus(),
  effects: [],
  input: () => ({}),
  description: "Whether Regent can see a resource in its cloud: each pass's verdict on the resource's scope (its Network, Identity and Region) and on the cloud answering (issue 24, item 2).",
  audit: audit(),
};
