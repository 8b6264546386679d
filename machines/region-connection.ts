/**
 * A Region's connection to its cloud (openstack-provider.md, "OpenStack Region Registration";
 * issue 11, "The Region is the cloud"): Regent builds the region's service clients from the Region's
 * Keystone endpoint, region name and credentials Secret, and every pass records what connecting showed.
 * There is no effect: the pass connects (a token issue is a read) and the machine records the verdict,
 * so status, history and replay say when a Region became usable, why it stopped being usable, and on
 * which generation and Secret version that was decided.
 *
 *   C1 connected: Keystone issued a token for the region credentials (scope, managed domain recorded)
 *   C2 unusable: the Secret is missing or unreadable, disagrees with the Region's endpoint, Keystone
 *      refused the credentials, the cloud did not answer, or the managed domain is missing
 *   C3 deleting: the Region's deletion waits (its finalizer) while Identities still name it
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';

export const ConnectionProblem = t.keyof({
  SecretMissing: null,
  SecretInvalid: null,
  EndpointMismatch: null,
  CredentialsInvalid: null,
  Unreachable: null,
  DomainMissing: null,
});
export type ConnectionProblem = t.TypeOf<typeof ConnectionProblem>;

export const regionStimulus = () =>
  t.union([
    t.intersection([
      t.type({
        type: t.literal('connected'),
        source: t.literal('reconciler'),
        generation: t.number,
        /** The Secret version the credentials came from. */
        secretVersion: t.string,
        /** Who Regent is on this cloud (never a secret): the credential's project and user. */
        projectId: t.union([t.string, t.null]),
        userId: t.union([t.string, t.null]),
      }),
      /** The managed Keystone domain Identities are realized in; absent for an unmanaged region. */
      t.partial({ domainId: t.string }),
    ]),
    t.type({
      type: t.literal('unusable'),
      source: t.literal('reconciler'),
      generation: t.number,
      secretVersion: t.union([t.string, t.null]),
      problem: ConnectionProblem,
      /** User-safe: names the Secret, the endpoint, what Keystone said; never a credential. */
      message: t.string,
    }),
    t.type({ type: t.literal('specRejected'), source: t.literal('reconciler'), generation: t.number, problems: t.array(t.string) }),
    /** The Region is being deleted: what still names it (Identity/<name>); empty once it may go. */
    t.type({ type: t.literal('deleting'), source: t.literal('reconciler'), generation: t.number, dependents: t.array(t.string) }),
  ]);
export type RegionStimulus = t.TypeOf<ReturnType<typeof regionStimulus>>;

export interface RegionContext {
  decidedGeneration: number | null;
  secretVersion: string | null;
  /** Set while connected. */
  connection: { projectId: string | null; userId: string | null; domainId: string | null } | null;
  problem: { kind: ConnectionProblem; message: string } | null;
  specProblems: string[] | null;
  /** While deleting: the Identities that still name the Region. */
  dependents: string[] | null;
}

export const buildRegionMachine = () =>
  setup({
    types: {} as { context: RegionContext; events: RegionStimulus },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      recordConnected: assign(({ event }) =>
        event.type === 'connected'
          ? { decidedGeneration: event.generation, secretVersion: event.secretVersion, connection: { projectId: event.projectId, userId: event.userId, domainId: event.domainId ?? null }, problem: null, specProblems: null }
          : {},
      ),
      recordUnusable: assign(({ event }) =>
        event.type === 'unusable' ? { decidedGeneration: event.generation, secretVersion: event.secretVersion, connection: null, problem: { kind: event.problem, message: event.message }, specProblems: null } : {},
      ),
      recordSpecProblems: assign(({ event }) => (event.type === 'specRejected' ? { decidedGeneration: event.generation, specProblems: event.problems, connection: null } : {})),
      recordDeleting: assign(({ event }) => (event.type === 'deleting' ? { decidedGeneration: event.generation, dependents: [...event.dependents].sort() } : {})),
    },
  }).createMachine({
    id: 'regionConnection',
    context: { decidedGeneration: null, secretVersion: null, connection: null, problem: null, specProblems: null, dependents: null },
    initial: 'unverified',
    on: {
      connected: { target: '.connected', actions: ['recordConnected', outcome('connected')] }, // C1
      unusable: { target: '.unusable', actions: ['recordUnusable', outcome('unusable')] }, // C2
      specRejected: { target: '.unverified', actions: ['recordSpecProblems', outcome('specRejected')] },
      deleting: { target: '.deleting', actions: ['recordDeleting', outcome('deleting')] }, // C3
    },
    states: {
      unverified: {},
      connected: {},
      unusable: {},
      // deletion is one-way: only the record of what it waits for changes
      deleting: { on: { connected: { actions: [] }, unusable: { actions: [] }, specRejected: { actions: [] } } },
    },
  });

export const regionConnectionStream = (regionUid: string): string => `region-connection-${regionUid}`;

const regionAudit = (): MachineAudit => ({
  alphabet: (): Stimulus[] => [
    { type: 'connected', source: 'reconciler', generation: 1, secretVersion: '1', projectId: 'p', userId: 'u', domainId: 'd' },
    { type: 'connected', source: 'reconciler', generation: 2, secretVersion: '2', projectId: 'p', userId: 'u' },
    { type: 'unusable', source: 'reconciler', generation: 1, secretVersion: null, problem: 'SecretMissing', message: 'no Secret region-one-credentials' },
    { type: 'unusable', source: 'reconciler', generation: 1, secretVersion: '3', problem: 'CredentialsInvalid', message: 'Keystone refused the credentials' },
    { type: 'specRejected', source: 'reconciler', generation: 1, problems: ['spec.openstack.endpoint: invalid'] },
    { type: 'deleting', source: 'reconciler', generation: 2, dependents: ['Identity/acme-web'] },
    { type: 'deleting', source: 'reconciler', generation: 2, dependents: [] },
  ],
  stateKey: (snapshot) => JSON.stringify(snapshot.value),
  // a verdict on each pass's connection, never an intent: nothing here arms, clears or parks (the checks keep it so)
  intentOf: () => null,
  rank: () => 0,
});

export const regionConnectionDefinition: MachineDefinition<RegionContext> = {
  id: 'regionConnection',
  version: 1,
  schemaVersion: 1,
  streamPrefix: 'region-connection-',
  machine: buildRegionMachine(),
  stimulus: regionStimulus(),
  effects: [],
  input: () => ({}),
  description: "A Region's connection to its cloud: the verdict of each pass that built its clients from the Region and its credentials Secret (issue 11).",
  audit: regionAudit(),
};
