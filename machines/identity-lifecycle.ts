/**
 * An Identity's lifecycle: its OpenStack project, user, managed role assignments and application
 * credential in the Region's managed Keystone domain (openstack-provider.md, Intention: "once that
 * scaffolding exists, most OpenStack operations deliberately context switch into the specific project
 * provisioned for one … identity"; "OpenstackIdentity is the remaining persisted provider-state
 * anchor"; issue 11, "Identity scoping").
 *
 * Every pass brings a fresh exact-name observation of each part. The machine decides one step per
 * pass, in order, and records what OpenStack cannot give back (the ids, and a reference and digest of
 * the credential whose secret lives in a Secret — never in an event):
 *
 *   I1 project absent → create it          I2 user absent → create it (password into the Secret)
 *   I3 managed roles missing → grant them  I4 no credential, or Keystone refused it → issue one
 *   I3s the region credentials' own user lacks its service roles on the project → grant them (so region
 *       credentials can be bound to the project for privileged project-scoped work: pinned creates)
 *   I6 a quota of the project differs from what the Region applies → set the drifted keys
 *   I5 everything present, quotas verified → realized (a credential Keystone refuses later is re-issued,
 *      a quota changed behind Regent's back is set again: I4/I6 again)
 *
 * Deletion (finalizer-gated, write-ahead like every delete here):
 *   D1 dependents remain (Networks, Servers, Volumes, LoadBalancers of this identity) → wait, naming them
 *   D2 none, something Regent created exists → arm (the next pass reads the arm back)
 *   D3 armed, read back → delete the credential, then the user, then the project, one per pass
 *   D4 nothing Regent created exists → deleted (a never-realized identity deletes as a no-op)
 *
 * U In a Region without a managed domain the identity stands on the region credentials' own project:
 *   nothing is created, so nothing is ever deleted (that project is not Regent's).
 *
 * Results: the effect handlers answer `stepDone` (with the new id) or `stepRefused` (status, reason and
 * the cloud's user-safe message). A refused create parks the identity (Errored) until the spec changes;
 * an answer that never came is thrown by the handler, and the next pass observes by exact name, so a
 * create that landed is adopted, never duplicated.
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import type { AnyMachineSnapshot } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';

/** A part of the identity as a fresh exact-name lookup found it. */
export const Part = t.union([t.type({ kind: t.literal('absent') }), t.type({ kind: t.literal('present'), id: t.string })]);
export type Part = t.TypeOf<typeof Part>;

/** The application credential as this pass found it: none recorded, accepted by Keystone, or refused (revoked, expired, deleted). */
export const CredentialState = t.union([
  t.type({ kind: t.literal('absent') }),
  t.type({ kind: t.literal('valid'), id: t.string }),
  t.type({ kind: t.literal('refused'), id: t.string }),
]);
export type CredentialState = t.TypeOf<typeof CredentialState>;

/** One quota key whose value on the project differs from what the Region applies (src/provider/identity/quotas.ts). */
export const QuotaDriftEntry = t.intersection([
  t.type({ service: t.keyof({ compute: null, network: null, volume: null }), key: t.string, want: t.number }),
  t.partial({ have: t.number }),
]);
export type QuotaDriftEntry = t.TypeOf<typeof QuotaDriftEntry>;

export const IdentityObservation = t.intersection([
  t.type({
    project: Part,
    user: Part,
    /** Managed role names the user does not hold on the project (empty when project or user is absent). */
    missingRoles: t.array(t.string),
    credential: CredentialState,
  }),
  t.partial({
    /** Service role names the region credentials' own user does not hold on the project (absent: none, or no project). */
    missingServiceRoles: t.array(t.string),
    /** The project's quota keys that differ from the Region's (absent: none, or no project). */
    quotaDrift: t.array(QuotaDriftEntry),
  }),
]);
export type IdentityObservation = t.TypeOf<typeof IdentityObservation>;

export const IdentityStep = t.keyof({ project: null, user: null, roles: null, serviceRoles: null, credential: null, quotas: null, deleteCredential: null, deleteUser: null, deleteProject: null });
export type IdentityStep = t.TypeOf<typeof IdentityStep>;

export const identityStimulus = () =>
  t.union([
    t.intersection([
      t.type({
        type: t.literal('reconcile'),
        source: t.literal('reconciler'),
        generation: t.number,
        deletionRequested: t.boolean,
        /**
         * managed: the Region has a managed domain and the identity gets its own project, user and
         * credential there. unmanaged: the Region has none, so the identity uses the region
         * credentials' own project — Regent creates nothing and therefore never deletes anything.
         */
        mode: t.keyof({ managed: null, unmanaged: null }),
        observed: IdentityObservation,
        /** Resources of this identity that must be gone before it is (kind/name). */
        dependents: t.array(t.string),
      }),
      t.partial({
        at: t.string,
        /** What to create (managed mode): deterministic names in the managed domain, and the managed role names. */
        desired: t.type({
          domainId: t.string,
          projectName: t.string,
          userName: t.string,
          roles: t.array(t.string),
          /** `<namespace>/<name>` of the Region whose credentials do the work, and of the identity's Secret. */
          region: t.string,
          secret: t.string,
        }),
        /** The region credentials' own user: it is granted the service roles on the project (I3s). */
        service: t.type({ userId: t.string, roles: t.array(t.string) }),
      }),
    ]),
    t.type({ type: t.literal('specRejected'), source: t.literal('reconciler'), generation: t.number, problems: t.array(t.string) }),
    /** The Region it names is not usable (missing, invalid, its credentials refused): nothing is done. */
    t.type({ type: t.literal('regionUnavailable'), source: t.literal('reconciler'), generation: t.number, reason: t.string, message: t.string }),
    t.intersection([
      t.type({ type: t.literal('stepDone'), source: t.literal('effect'), step: IdentityStep }),
      /** The new id; for the credential also the reference to its Secret and a digest of the secret (never the secret). */
      t.partial({ id: t.string, secretRef: t.string, digest: t.string }),
    ]),
    t.type({ type: t.literal('stepRefused'), source: t.literal('effect'), step: IdentityStep, status: t.number, reason: t.string, message: t.string }),
  ]);
export type IdentityStimulus = t.TypeOf<ReturnType<typeof identityStimulus>>;

export interface IdentityContext {
  projectId: string | null;
  userId: string | null;
  /** The credential issued last: its id, the Secret holding it and a digest of its secret. */
  credential: { id: string; secretRef: string; digest: string } | null;
  /** How many credentials were issued (a rotation after Keystone refused one counts). */
  credentialsIssued: number;
  /** Why the identity is parked (a refused create), for the generation it was refused for. */
  refusal: { step: IdentityStep; status: number; reason: string; message: string; generation: number } | null;
  specProblems: { generation: number; problems: string[] } | null;
  regionProblem: { generation: number; reason: string; message: string } | null;
  /** What still depends on the identity while its deletion waits. */
  dependents: string[];
  decidedGeneration: number | null;
}

type Reconcile = Extract<IdentityStimulus, { type: 'reconcile' }>;
const pass = (event: IdentityStimulus): Reconcile => event as Reconcile;
const observedOf = (event: IdentityStimulus): IdentityObservation => pass(event).observed;
const idOf = (part: Part): string | null => (part.kind === 'present' ? part.id : null);
const anythingExists = (o: IdentityObservation): boolean => o.project.kind === 'present' || o.user.kind === 'present' || o.credential.kind !== 'absent';
/** Only a managed identity has parts Regent created; an unmanaged one stands on the region's own project. */
const createdByRegent = (event: IdentityStimulus): boolean => pass(event).mode === 'managed' && anythingExists(observedOf(event));

/** The effect each step declares (the handler registered for it does the Keystone calls). */
export const STEP_EFFECT = {
  project: 'keystone.createProject',
  user: 'keystone.createUser',
  roles: 'keystone.grantRoles',
  serviceRoles: 'keystone.grantServiceRoles',
  quotas: 'quotas.apply',
  credential: 'keystone.issueCredential',
  deleteCredential: 'keystone.deleteCredential',
  deleteUser: 'keystone.deleteUser',
  deleteProject: 'keystone.deleteProject',
} as const satisfies Record<IdentityStep, string>;

const step = (name: IdentityStep) => ({ type: STEP_EFFECT[name], params: ({ context, event }: { context: IdentityContext; event: IdentityStimulus }) => stepParams(name, context, event) });

/** What each step's handler needs: ids only (names are derived by the handler from the stream's resource). */
const stepParams = (name: IdentityStep, context: IdentityContext, event: IdentityStimulus): Record<string, unknown> => {
  const o = observedOf(event);
  const projectId = idOf(o.project) ?? context.projectId;
  const userId = idOf(o.user) ?? context.userId;
  const desired = pass(event).desired;
  // every step names the Region that does it and the identity's Secret (references, never secrets)
  const where = { region: desired?.region ?? null, secret: desired?.secret ?? null };
  return { ...where, ...stepSpecifics(name, o, context, projectId, userId, desired, pass(event).service) };
};

const stepSpecifics = (
  name: IdentityStep,
  o: IdentityObservation,
  context: IdentityContext,
  projectId: string | null,
  userId: string | null,
  desired: Reconcile['desired'],
  service: Reconcile['service'],
): Record<string, unknown> => {
  switch (name) {
    case 'project':
      return { domainId: desired?.domainId ?? null, name: desired?.projectName ?? null };
    case 'user':
      return { domainId: desired?.domainId ?? null, name: desired?.userName ?? null, projectId };
    case 'roles':
      return { projectId, userId, roles: o.missingRoles };
    case 'serviceRoles':
      return { projectId, userId: service?.userId ?? null, roles: o.missingServiceRoles ?? [] };
    case 'quotas':
      // only the drifted keys, with what the Region wants (numbers, never credentials)
      return { projectId, drift: (o.quotaDrift ?? []).map((d) => ({ service: d.service, key: d.key, want: d.want })) };
    case 'credential':
      // rotation: the refused credential is deleted by the handler once the new one is stored; the
      // sequence number keeps every credential's name new (Keystone names are unique per user)
      return { domainId: desired?.domainId ?? null, projectId, userId, sequence: context.credentialsIssued + 1, replaces: o.credential.kind === 'refused' ? o.credential.id : null };
    case 'deleteCredential':
      return { userId, credentialId: o.credential.kind === 'absent' ? null : o.credential.id };
    case 'deleteUser':
      return { userId };
    case 'deleteProject':
      return { projectId };
    default:
      return {};
  }
};

/** Entering deletion from any live state, decided on this same pass (D1, D2, D4). */
const DELETION = [
  { guard: 'deletionWithDependents', target: '#identityLifecycle.deleting.waiting', actions: ['notePass', 'noteDependents', outcome('waitingForDependents')] }, // D1
  { guard: 'deletionOfNothing', target: '#identityLifecycle.deleted', actions: ['notePass', 'clearRefusal', outcome('deleted')] }, // D4
  { guard: 'deletionRequested', target: '#identityLifecycle.deleting.armed', actions: ['notePass', outcome('deleteArmed')] }, // D2: write-ahead
] as const;

export const buildIdentityMachine = () =>
  setup({
    types: {} as { context: IdentityContext; events: IdentityStimulus },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      'keystone.createProject': declaredAction<Record<string, unknown>>(),
      'keystone.createUser': declaredAction<Record<string, unknown>>(),
      'keystone.grantRoles': declaredAction<Record<string, unknown>>(),
      'keystone.grantServiceRoles': declaredAction<Record<string, unknown>>(),
      'quotas.apply': declaredAction<Record<string, unknown>>(),
      'keystone.issueCredential': declaredAction<Record<string, unknown>>(),
      'keystone.deleteCredential': declaredAction<Record<string, unknown>>(),
      'keystone.deleteUser': declaredAction<Record<string, unknown>>(),
      'keystone.deleteProject': declaredAction<Record<string, unknown>>(),
      // Every pass records the generation it decided from, adopts the ids it saw and clears old problems.
      notePass: assign(({ context, event }) => {
        const o = observedOf(event);
        return {
          decidedGeneration: pass(event).generation,
          projectId: idOf(o.project) ?? (o.project.kind === 'absent' ? null : context.projectId),
          userId: idOf(o.user) ?? (o.user.kind === 'absent' ? null : context.userId),
          credential: o.credential.kind === 'absent' ? null : context.credential,
          specProblems: null,
          regionProblem: null,
          dependents: [],
        };
      }),
      noteDependents: assign(({ event }) => ({ dependents: [...pass(event).dependents].sort() })),
      recordSpecProblems: assign(({ event }) => (event.type === 'specRejected' ? { specProblems: { generation: event.generation, problems: event.problems }, decidedGeneration: event.generation } : {})),
      recordRegionProblem: assign(({ event }) =>
        event.type === 'regionUnavailable' ? { regionProblem: { generation: event.generation, reason: event.reason, message: event.message }, decidedGeneration: event.generation } : {},
      ),
      recordStep: assign(({ context, event }) => {
        if (event.type !== 'stepDone') return {};
        switch (event.step) {
          case 'project':
            return { projectId: event.id ?? context.projectId };
          case 'user':
            return { userId: event.id ?? context.userId };
          case 'credential':
            return event.id && event.secretRef && event.digest
              ? { credential: { id: event.id, secretRef: event.secretRef, digest: event.digest }, credentialsIssued: context.credentialsIssued + 1 }
              : {};
          case 'deleteCredential':
            return { credential: null };
          case 'deleteUser':
            return { userId: null };
          case 'deleteProject':
            return { projectId: null };
          default:
            return {};
        }
      }),
      recordRefusal: assign(({ context, event }) =>
        event.type === 'stepRefused' ? { refusal: { step: event.step, status: event.status, reason: event.reason, message: event.message, generation: context.decidedGeneration ?? 0 } } : {},
      ),
      clearRefusal: assign({ refusal: null }),
    },
    guards: {
      deletionRequested: ({ event }) => pass(event).deletionRequested,
      deletionWithdrawn: ({ event }) => !pass(event).deletionRequested,
      deletionOfNothing: ({ event }) => pass(event).deletionRequested && !createdByRegent(event),
      deletionWithDependents: ({ event }) => pass(event).deletionRequested && pass(event).dependents.length > 0,
      // D1: "a finalizer holds it while any Server, Network, Volume or LoadBalancer of that identity remains"
      dependentsRemain: ({ event }) => pass(event).dependents.length > 0,
      // D4: "an identity that was never realized deletes as a no-op"
      nothingExists: ({ event }) => !createdByRegent(event),
      // U: an unmanaged region — the region credentials' own project, nothing to create
      unmanaged: ({ event }) => pass(event).mode === 'unmanaged',
      credentialExists: ({ event }) => observedOf(event).credential.kind !== 'absent',
      // a managed pass that cannot name what to create (no desired request) decides nothing
      nothingToCreateWith: ({ event }) => pass(event).mode === 'managed' && pass(event).desired === undefined,
      userExists: ({ event }) => observedOf(event).user.kind === 'present',
      projectExists: ({ event }) => observedOf(event).project.kind === 'present',
      projectAbsent: ({ event }) => observedOf(event).project.kind === 'absent',
      userAbsent: ({ event }) => observedOf(event).user.kind === 'absent',
      rolesMissing: ({ event }) => observedOf(event).missingRoles.length > 0,
      // I3s: without the service roles the region credentials cannot be bound to the project
      serviceRolesMissing: ({ event }) => (observedOf(event).missingServiceRoles ?? []).length > 0,
      // I6: "the quota the Region applies to each identity project … applied and verified"
      quotasDrifted: ({ event }) => (observedOf(event).quotaDrift ?? []).length > 0,
      credentialMissingOrRefused: ({ event }) => observedOf(event).credential.kind !== 'valid',
      // A refused create waits for a new generation: retrying as-is would be refused again.
      refusedForThisGeneration: ({ context, event }) => context.refusal !== null && pass(event).generation <= context.refusal.generation,
      createRefused: ({ event }) => event.type === 'stepRefused' && ['project', 'user', 'roles', 'serviceRoles', 'credential', 'quotas'].includes(event.step),
    },
  }).createMachine({
    id: 'identityLifecycle',
    context: {
      projectId: null,
      userId: null,
      credential: null,
      credentialsIssued: 0,
      refusal: null,
      specProblems: null,
      regionProblem: null,
      dependents: [],
      decidedGeneration: null,
    },
    on: {
      // Any state: a spec that does not decode, or a Region that cannot be used, is recorded; nothing else happens.
      specRejected: { actions: ['recordSpecProblems', outcome('specRejected')] },
      regionUnavailable: { actions: ['recordRegionProblem', outcome('regionUnavailable')] },
      stepDone: { actions: ['recordStep', outcome('stepDone')] },
      stepRefused: [
        // a refused create parks until the spec changes; a refused delete is decided again by a later pass
        { guard: 'createRefused', target: '.failed', actions: ['recordRefusal', outcome('stepRefused')] },
        { actions: ['recordRefusal', outcome('deleteRefused')] },
      ],
    },
    initial: 'realizing',
    states: {
      realizing: {
        on: {
          reconcile: [
            ...DELETION,
            { guard: 'unmanaged', target: 'realized', actions: ['notePass', 'clearRefusal', outcome('regionProject')] }, // U
            { guard: 'nothingToCreateWith', actions: ['notePass', outcome('waiting')] },
            { guard: 'refusedForThisGeneration', target: 'failed', actions: ['notePass', outcome('refused')] },
            { guard: 'projectAbsent', actions: ['notePass', 'clearRefusal', step('project'), outcome('projectRequested')] }, // I1
            { guard: 'userAbsent', actions: ['notePass', 'clearRefusal', step('user'), outcome('userRequested')] }, // I2
            { guard: 'rolesMissing', actions: ['notePass', 'clearRefusal', step('roles'), outcome('rolesRequested')] }, // I3
            { guard: 'serviceRolesMissing', actions: ['notePass', 'clearRefusal', step('serviceRoles'), outcome('serviceRolesRequested')] }, // I3s
            { guard: 'credentialMissingOrRefused', actions: ['notePass', 'clearRefusal', step('credential'), outcome('credentialRequested')] }, // I4
            { guard: 'quotasDrifted', actions: ['notePass', 'clearRefusal', step('quotas'), outcome('quotasRequested')] }, // I6
            { target: 'realized', actions: ['notePass', 'clearRefusal', outcome('realized')] }, // I5
          ],
        },
      },
      realized: {
        on: {
          reconcile: [
            ...DELETION,
            { guard: 'unmanaged', actions: ['notePass', outcome('regionProject')] }, // U
            { guard: 'nothingToCreateWith', target: 'realizing', actions: ['notePass', outcome('waiting')] },
            // something went missing, or Keystone refuses the credential now: converge again (I1–I4)
            { guard: 'projectAbsent', target: 'realizing', actions: ['notePass', step('project'), outcome('projectRequested')] },
            { guard: 'userAbsent', target: 'realizing', actions: ['notePass', step('user'), outcome('userRequested')] },
            { guard: 'rolesMissing', target: 'realizing', actions: ['notePass', step('roles'), outcome('rolesRequested')] },
            { guard: 'serviceRolesMissing', target: 'realizing', actions: ['notePass', step('serviceRoles'), outcome('serviceRolesRequested')] },
            { guard: 'credentialMissingOrRefused', target: 'realizing', actions: ['notePass', step('credential'), outcome('credentialRotating')] },
            // a quota changed behind Regent's back, or the Region's quotas changed: set it again
            { guard: 'quotasDrifted', target: 'realizing', actions: ['notePass', step('quotas'), outcome('quotasRequested')] },
            { actions: ['notePass', outcome('realized')] },
          ],
        },
      },
      failed: {
        on: {
          reconcile: [
            ...DELETION,
            { guard: 'refusedForThisGeneration', actions: ['notePass', outcome('refused')] },
            // a new generation is the retry
            { target: 'realizing', actions: ['notePass', 'clearRefusal', outcome('retrying')] },
          ],
        },
      },
      deleting: {
        initial: 'waiting',
        states: {
          // D1/D2: not yet armed; waits while dependents remain
          waiting: {
            on: {
              reconcile: [
                // a delete is decided only under a deletion request read on this pass
                { guard: 'deletionWithdrawn', target: '#identityLifecycle.realizing', actions: ['notePass', outcome('deletionWithdrawn')] },
                { guard: 'dependentsRemain', actions: ['notePass', 'noteDependents', outcome('waitingForDependents')] }, // D1
                { guard: 'nothingExists', target: '#identityLifecycle.deleted', actions: ['notePass', outcome('deleted')] }, // D4
                { target: 'armed', actions: ['notePass', outcome('deleteArmed')] }, // D2: write-ahead
              ],
            },
          },
          // D3: read back; one delete per pass, credential → user → project
          armed: {
            on: {
              reconcile: [
                { guard: 'deletionWithdrawn', target: '#identityLifecycle.realizing', actions: ['notePass', outcome('deletionWithdrawn')] },
                { guard: 'dependentsRemain', target: 'waiting', actions: ['notePass', 'noteDependents', outcome('waitingForDependents')] }, // a dependent appeared: disarm
                { guard: 'nothingExists', target: '#identityLifecycle.deleted', actions: ['notePass', 'clearRefusal', outcome('deleted')] }, // D4
                { guard: 'credentialExists', actions: ['notePass', step('deleteCredential'), outcome('credentialDeleteRequested')] },
                { guard: 'userExists', actions: ['notePass', step('deleteUser'), outcome('userDeleteRequested')] },
                { guard: 'projectExists', actions: ['notePass', step('deleteProject'), outcome('projectDeleteRequested')] },
              ],
            },
          },
        },
      },
      deleted: { type: 'final' },
    },
  });

export const identityLifecycleStream = (identityUid: string): string => `identity-lifecycle-${identityUid}`;

/** The deletion intent: armed (1) and read back; the destructive steps need it. */
const intentOf = (snapshot: AnyMachineSnapshot) => {
  const value = snapshot.value as unknown;
  return typeof value === 'object' && value !== null && (value as { deleting?: string }).deleting === 'armed' ? { target: 'identity', state: 'deleteArmed' } : null;
};

const parts = (project: boolean, user: boolean, credential: CredentialState['kind'], missingRoles: string[] = [], extra: Partial<IdentityObservation> = {}): IdentityObservation => ({
  project: project ? { kind: 'present', id: 'p' } : { kind: 'absent' },
  user: user ? { kind: 'present', id: 'u' } : { kind: 'absent' },
  missingRoles: project && user ? missingRoles : [],
  credential: credential === 'absent' ? { kind: 'absent' } : { kind: credential, id: 'c' },
  ...(project ? extra : {}),
});

const identityAudit = (): MachineAudit => ({
  alphabet: () => {
    const observations: IdentityObservation[] = [];
    for (const project of [false, true])
      for (const user of [false, true])
        for (const credential of ['absent', 'valid', 'refused'] as const)
          for (const missing of [[], ['member']]) observations.push(parts(project, user, credential, missing));
    // the service roles and the quotas, on an otherwise complete identity and on one still issuing its credential
    for (const credential of ['absent', 'valid'] as const) {
      observations.push(parts(true, true, credential, [], { missingServiceRoles: ['manager'] }));
      observations.push(parts(true, true, credential, [], { quotaDrift: [{ service: 'compute', key: 'cores', want: -1, have: 20 }] }));
    }
    const passes: Stimulus[] = [];
    for (const observed of observations)
      for (const deletionRequested of [false, true])
        for (const dependents of [[], ['Network/net-a']])
          for (const generation of [1, 2]) {
            passes.push({ type: 'reconcile', source: 'reconciler', generation, deletionRequested, mode: 'managed', observed, dependents, desired: { domainId: 'd', projectName: 'regent-x', userName: 'regent-x', roles: ['member'], region: 'default/region-one', secret: 'default/regent-identity-x' }, service: { userId: 'region-user', roles: ['manager'] } });
            if (!observed.user.kind.startsWith('p') && observed.credential.kind === 'absent') passes.push({ type: 'reconcile', source: 'reconciler', generation, deletionRequested, mode: 'unmanaged', observed, dependents });
          }
    const steps: IdentityStep[] = ['project', 'user', 'roles', 'serviceRoles', 'credential', 'quotas', 'deleteCredential', 'deleteUser', 'deleteProject'];
    return [
      ...passes,
      { type: 'specRejected', source: 'reconciler', generation: 1, problems: ['spec.x: invalid'] },
      { type: 'regionUnavailable', source: 'reconciler', generation: 1, reason: 'CredentialsInvalid', message: 'Keystone refused the region credentials' },
      ...steps.map((s): Stimulus => ({ type: 'stepDone', source: 'effect', step: s, id: 'x', secretRef: 'identity-x', digest: 'sha256:abc' })),
      { type: 'stepRefused', source: 'effect', step: 'project', status: 403, reason: 'forbidden', message: 'policy' },
      { type: 'stepRefused', source: 'effect', step: 'quotas', status: 403, reason: 'forbidden', message: "Policy doesn't allow os_compute_api:os-quota-sets:update to be performed." },
    ];
  },
  // ids, counters and messages are data
  stateKey: (snapshot) => {
    const c = snapshot.context as IdentityContext;
    return JSON.stringify([snapshot.value, c.refusal?.generation ?? null, c.dependents.length > 0]);
  },
  intentOf,
  rank: (snapshot) => (intentOf(snapshot) ? 1 : 0),
  parked: (snapshot) => snapshot.value === 'failed',
});

export const identityLifecycleDefinition: MachineDefinition = {
  id: 'identityLifecycle',
  version: 1,
  schemaVersion: 1,
  streamPrefix: 'identity-lifecycle-',
  machine: buildIdentityMachine(),
  stimulus: identityStimulus(),
  effects: Object.values(STEP_EFFECT),
  destructiveEffects: ['keystone.deleteCredential', 'keystone.deleteUser', 'keystone.deleteProject'],
  input: () => ({}),
  description: "An Identity's Keystone project, user, managed roles, the region user's service roles, application credential and quotas in the Region's managed domain (issues 11, 16).",
  audit: identityAudit(),
};
