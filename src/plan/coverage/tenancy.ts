/**
 * The plan of the tenancy kinds — what a Region, an Identity, a Network, a SecurityGroup or an SSH certificate
 * authority of the manifests would make Regent decide next:
 * - Region: its connection's verdict (machines/region-connection.ts, C1–C3); no effect, connecting is a read.
 * - Identity: its Keystone project, user, roles, keypair, credential and quotas, and their write-ahead delete
 *   (machines/identity-lifecycle.ts, I1–I7, I3s, U, D1–D4, W2).
 * - Network: its lifecycle (machines/network-lifecycle.ts, the lifecycle factory's L1–L10 and W1–W5: ./lifecycle.ts)
 *   and, on a Region with provider networks, its VLAN id (machines/vlan-allocation.ts, V1–V7).
 * - SecurityGroup: its lifecycle (machines/security-group-lifecycle.ts, the factory's rows too).
 * - scopeReachability (machines/scope-reachability.ts, R1–R3): decided by the Network's and SecurityGroup's passes
 *   here, and by the Server's, Volume's and LoadBalancer's: one table, kept with the tenancy it is about.
 * - SSHCertificateAuthority: no machine, no stream and no pass (src/controllers/ssh-certificate-authority/wiring.ts):
 *   planned all the same, its plan says there is nothing to decide — and `apply`'s refusals (immutable
 *   organizationID, projectID) are shown as for every kind.
 */
import { r, type RuleRow } from './rule-row.js';
import type { PlanCoverage } from './coverage.js';
import { LIFECYCLE_RULES } from './lifecycle.js';

/** machines/region-connection.ts: C1–C3 (the header's list; each transition's comment). */
export const REGION_CONNECTION_RULES: readonly RuleRow[] = [
  { outcome: 'connected', rule: r('C1', 'connected: Keystone issued a token for the region credentials') },
  { outcome: 'unusable', rule: r('C2', 'unusable: the Secret, its endpoint, the credentials, the cloud or the managed domain') },
  { outcome: 'deleting', rule: r('C3', 'deleting: waits while Identities still name the Region') },
];

/** machines/identity-lifecycle.ts: I1–I7, I3s, U (realize), D1–D4 (delete), W2 (each part only while observed). */
export const IDENTITY_LIFECYCLE_RULES: readonly RuleRow[] = [
  { outcome: 'projectRequested', rule: r('I1', 'create the project: absent in the managed domain') },
  { outcome: 'userRequested', rule: r('I2', 'create the user: absent (its password into the Secret first)') },
  { outcome: 'rolesRequested', rule: r('I3', 'grant the managed roles the user lacks on the project') },
  { outcome: 'serviceRolesRequested', rule: r('I3s', "grant the region user's service roles on the project") },
  { outcome: 'keypairRequested', rule: r('I7', "import the identity's Nova keypair: absent") },
  { outcome: 'keypairReplaced', rule: r('I7', 'replace the keypair: the Secret cannot hand out its private key') },
  { outcome: 'credentialRequested', rule: r('I4', 'issue the application credential: none, or Keystone refused it') },
  { outcome: 'credentialRotating', rule: r('I4', 'rotate the application credential: Keystone refuses it now') },
  { outcome: 'quotasRequested', rule: r('I6', 'set the quota keys that differ from what the Region applies') },
  { outcome: 'realized', rule: r('I5', 'realized: every part present, quotas verified') },
  { outcome: 'regionProject', rule: r('U', "stand on the region credentials' own project (no managed domain): nothing created") },
  { outcome: 'waitingForDependents', rule: r('D1', 'wait: resources of this identity remain') },
  { outcome: 'deleteArmed', rule: r('D2', 'arm the delete (write-ahead, nothing deleted yet)') },
  { outcome: 'keypairDeleteRequested', rule: r('D3', 'delete the keypair: armed, read back, observed present (W2)') },
  { outcome: 'credentialDeleteRequested', rule: r('D3', 'delete the application credential: armed, read back, observed present (W2)') },
  { outcome: 'userDeleteRequested', rule: r('D3', 'delete the user: armed, read back, observed present (W2)') },
  { outcome: 'projectDeleteRequested', rule: r('D3', 'delete the project: armed, read back, observed present (W2)') },
  { outcome: 'deleted', rule: r('D4', 'deleted: nothing Regent created remains') },
];

/** machines/scope-reachability.ts: R1–R3 (R3 is the rule that the same verdict again stores nothing). */
export const SCOPE_REACHABILITY_RULES: readonly RuleRow[] = [
  { outcome: 'reachable', rule: r('R1', 'reachable: the scope resolved and the cloud answered') },
  { outcome: 'unreachable', rule: r('R2', 'unreachable: the scope did not resolve, or the cloud did not answer') },
  { outcome: 'stillUnreachable', rule: r('R2', 'still unreachable, for another reason (since kept: R3)') },
];

/** machines/vlan-allocation.ts: V1–V7 (V6, a release of nothing, decides nothing and stores nothing). */
export const VLAN_ALLOCATION_RULES: readonly RuleRow[] = [
  { outcome: 'allocated', rule: r('V1', "allocate the lowest free VLAN id of the Region's range") },
  { outcome: 'alreadyAllocated', rule: r('V2', 'keep the id the network holds') },
  { outcome: 'exhausted', rule: r('V3', 'exhausted: every id of the range is held') },
  { outcome: 'keptAfterFailedCreate', rule: r('V4', 'keep the id after a failed create') },
  { outcome: 'released', rule: r('V5', 'release: the network is gone') },
  { outcome: 'wrongPhysicalNetwork', rule: r('V7', 'refuse: another physical network than this ledger keys') },
];

/** The factory's decisions that have no label in machines/lifecycle.ts, for each machine it builds here. */
const lifecycleUnlabelled = (noun: string): Readonly<Record<string, string>> => ({
  present: `the pass on a ${noun} that is there, recorded (notePass), nothing decided`,
  vanished: `the ${noun} is gone without a deletion (no label in the source)`,
  created: "the create's answer (an effect result)",
  createRejected: "the create's refusal (an effect result)",
  deleteAccepted: "the delete's answer (an effect result, W5's ledger)",
  deleteRejected: "the delete's refusal (an effect result, W5's ledger)",
  specRejected: 'a spec that does not decode, recorded',
});

const prefixed = (machine: string, reasons: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(reasons).map(([outcome, why]) => [`${machine}.${outcome}`, why]));

/** What a lifecycle-factory kind waits for after each decision, in the words of its service and noun. */
const lifecycleWaits = (service: string, noun: string, then: { created: string; deleted: string }): Record<string, string> => ({
  createSubmitted: `after ${service} accepts the ${noun} create: ${then.created}`,
  createResubmitted: `after ${service} accepts the ${noun} create: ${then.created}`,
  recreateSubmitted: `after ${service} accepts the ${noun} create: ${then.created}`,
  deleteArmed: `the next pass reads the deletion back and deletes the ${noun} it observes then`,
  recreateArmed: `the next pass reads the intent back and deletes the errored ${noun} if it is still in ERROR`,
  deleteSubmitted: `after ${service} accepts the ${noun} delete: ${then.deleted}`,
  deleteResubmitted: `after ${service} accepts the ${noun} delete: ${then.deleted}`,
  recreateDeleteSubmitted: `after ${service} accepts the ${noun} delete: waits for it to be gone, then creates it again`,
  recreateDeleteResubmitted: `after ${service} accepts the ${noun} delete: waits for it to be gone, then creates it again`,
  deleteInProgress: `waits for the ${noun} to be gone (the delete is sent again only after its backoff)`,
  recreateDeleteInProgress: `waits for the errored ${noun} to be gone (the delete is sent again only after its backoff)`,
  adopted: `nothing: the ${noun} exists under its name and is adopted`,
  observedCreated: `nothing: the ${noun} exists under its name`,
  deleted: `nothing: the ${noun} is gone; the finalizer is dropped`,
  nothingToDelete: `nothing: no ${noun} exists; the finalizer is dropped`,
  deletionWithdrawn: `nothing: the deletion is no longer asked for; the ${noun} stays`,
  createExhausted: 'waits for a new generation: the create attempts are spent',
  createFailed: 'waits for a new generation',
  specRejected: 'waits for a valid spec',
});

export const TENANCY: PlanCoverage = {
  kinds: ['Region', 'Identity', 'Network', 'SecurityGroup', 'SSHCertificateAuthority'],
  rules: {
    regionConnection: REGION_CONNECTION_RULES,
    identityLifecycle: IDENTITY_LIFECYCLE_RULES,
    scopeReachability: SCOPE_REACHABILITY_RULES,
    networkLifecycle: LIFECYCLE_RULES,
    securityGroupLifecycle: LIFECYCLE_RULES,
    vlanAllocation: VLAN_ALLOCATION_RULES,
  },
  waits: {
    regionConnection: {
      connected: 'nothing: the Region is usable; its connection is checked again in a minute',
      unusable: 'looks again in 15 s: nothing is realized in this Region until its Secret, endpoint or credentials are fixed',
      deleting: 'waits for the Identities that name the Region to be gone, then drops its finalizer',
      specRejected: 'waits for a valid spec',
    },
    identityLifecycle: {
      projectRequested: 'after Keystone accepts the project create: the next pass creates the user',
      userRequested: "after Keystone accepts the user create (its password stored in the identity's Secret first): the next pass grants the managed roles",
      rolesRequested: "after Keystone accepts the role grants: the next pass grants the region user's service roles",
      serviceRolesRequested: "after Keystone accepts the service role grants: the next pass imports the identity's keypair",
      keypairRequested: "after Nova accepts the keypair import (its private key stored in the identity's Secret first): the next pass issues the application credential",
      keypairReplaced: 'after Nova accepts the new keypair (the unusable one deleted first): the next pass looks again',
      credentialRequested: "after Keystone issues the application credential (its secret into the identity's Secret): the next pass verifies the quotas",
      credentialRotating: 'after Keystone issues the new application credential (the refused one deleted once it is stored): Networks and Servers use it on their next call',
      quotasRequested: 'after the services accept the quota update: the next pass verifies it',
      realized: 'nothing: the identity is realized; it is looked at again in 5 minutes',
      regionProject: "nothing: the identity stands on the region credentials' own project (no managed domain: nothing is created)",
      waiting: 'waits for the Region to name what to create',
      refused: 'waits for a new generation: Keystone refused a step of this one',
      retrying: 'the next pass realizes the new generation from its first missing part',
      waitingForDependents: 'waits for its Networks, Servers, Volumes, LoadBalancers and SecurityGroups to be gone (looks again in 5 s)',
      deleteArmed: 'the next pass reads the deletion back and deletes the first part it still observes (keypair, credential, user, project)',
      keypairDeleteRequested: 'after Nova accepts the keypair delete: the next pass deletes the application credential',
      credentialDeleteRequested: 'after Keystone accepts the credential delete: the next pass deletes the user',
      userDeleteRequested: 'after Keystone accepts the user delete: the next pass deletes the project',
      projectDeleteRequested: 'after Keystone accepts the project delete: the next pass confirms nothing Regent created remains and drops the finalizer',
      deleted: 'nothing: nothing Regent created remains; the finalizer is dropped',
      deletionWithdrawn: 'nothing: the deletion is no longer asked for; the next pass realizes the identity again',
      regionUnavailable: 'looks again in 15 s: the Region cannot be used',
      specRejected: 'waits for a valid spec',
    },
    scopeReachability: {
      reachable: 'nothing: the pass could see the resource in its cloud',
      unreachable: 'its status says it cannot be observed (naming what) until a pass can see it again',
      stillUnreachable: 'its status says it cannot be observed (naming what) until a pass can see it again',
    },
    networkLifecycle: {
      ...lifecycleWaits('Neutron', 'network', {
        created: 'the next pass adopts the network and its subnet by exact name',
        deleted: 'waits for the network to be gone, then releases its VLAN id (if any) and drops the finalizer',
      }),
      desiredUnresolvable: "looks again in 30 s; nothing is created until a VLAN id is free in the Region's range",
      present: 'nothing: the network is there (a changed dnsNameservers is not applied to an existing network)',
    },
    securityGroupLifecycle: {
      ...lifecycleWaits('Neutron', 'security group', {
        created: "the next pass adopts the group by exact name (the create made its rules exactly the spec's)",
        deleted: 'waits for the group to be gone, then drops the finalizer (Neutron refuses while a port still uses it)',
      }),
      present: 'nothing: the group is there (a changed rule list is not applied to an existing group: only a create makes its rules)',
    },
    vlanAllocation: {
      allocated: "the same pass decides the network's create with this VLAN id in its request",
      alreadyAllocated: 'the network keeps its id',
      keptAfterFailedCreate: 'the id stays with the network; it waits for a new generation',
      released: 'nothing: the id is free for the next network',
    },
  },
  unlabelled: {
    regionConnection: {
      'regionConnection.specRejected': 'a spec that does not decode, recorded (no label in the source)',
    },
    identityLifecycle: {
      'identityLifecycle.specRejected': 'a spec that does not decode, recorded (no label in the source)',
      'identityLifecycle.regionUnavailable': 'the Region cannot be used, recorded (no label in the source)',
      'identityLifecycle.waiting': 'a managed pass that cannot name what to create decides nothing (no label in the source)',
      'identityLifecycle.refused': 'a refused create waits for a new generation (no label in the source)',
      'identityLifecycle.retrying': 'a new generation is the retry of a refused create (no label in the source)',
      'identityLifecycle.deletionWithdrawn': 'the deletion is no longer asked for (the withdraw has no label in the source)',
      'identityLifecycle.stepDone': "a step's answer (an effect result)",
      'identityLifecycle.stepRefused': "a create step's refusal (an effect result)",
      'identityLifecycle.deleteRefused': "a delete step's refusal (an effect result)",
    },
    networkLifecycle: prefixed('networkLifecycle', lifecycleUnlabelled('network')),
    securityGroupLifecycle: prefixed('securityGroupLifecycle', lifecycleUnlabelled('security group')),
  },
};
