/**
 * An Identity's status from its lifecycle (machines/identity-lifecycle.ts).
 *
 * | lifecycle | Available | phase |
 * |---|---|---|
 * | no pass yet, or realizing | False / Provisioning (the step in progress) | Provisioning |
 * | realized, managed domain | True / Provisioned: its project, user and credential (by id and digest) | Ready |
 * | realized, unmanaged region | True / Provisioned, saying it uses the region's own project (no isolation) | Ready |
 * | Region missing or unusable | False / CredentialsInvalid or Errored (what the Region said) | Error |
 * | a refused step | False / Errored (the cloud's message) | Error |
 * | spec refused | False / InvalidSpec | Error |
 * | deleting | False / Deleting (which dependents it waits for) | Deleting |
 *
 * `status.openstack` carries the ids Regent created; `status.credentialsSecretRef` names the Secret that
 * holds the credential (never its content).
 */
import type { IdentityContext } from '../machines/identity-lifecycle.js';
import { mergeConditions, type Condition, type ConditionInput } from './conditions.js';

export interface IdentityResourceStatus {
  observedGeneration: number;
  phase: string;
  conditions: Condition[];
  openstack?: { projectID?: string; userID?: string; applicationCredentialID?: string };
  credentialsSecretRef?: { name: string };
}

export interface IdentityView {
  state: unknown;
  context: IdentityContext;
}

const STATE_MESSAGES: Record<string, string> = {
  project: 'creating its Keystone project',
  user: 'creating its Keystone user',
  roles: "granting its managed roles and the region user's service roles, and setting its quotas",
  credential: 'issuing its application credential',
};

/** What refused a step, in the words of the service that refused it. */
const refusedTo = (step: string): string => {
  switch (step) {
    case 'roles':
      return 'Keystone refused to grant its roles';
    case 'serviceRoles':
      return "Keystone refused to grant the region credentials' user its service roles on the project";
    case 'quotas':
      return "the services' quota APIs refused to set its quotas";
    default:
      return `Keystone refused to create its ${step}`;
  }
};

const availability = (view: IdentityView | undefined): { condition: ConditionInput; phase: string } => {
  const available = (status: ConditionInput['status'], reason: string, message: string, phase: string) => ({ condition: { type: 'Available', status, reason, message }, phase });
  if (!view) return available('False', 'Provisioning', 'not reconciled yet', 'Provisioning');
  const c = view.context;
  const state = typeof view.state === 'string' ? view.state : 'deleting';
  if (state === 'deleting' || state === 'deleted') {
    return available('False', 'Deleting', c.dependents.length > 0 ? `waiting for ${c.dependents.join(', ')} to be deleted first` : 'deleting its application credential, user and project', 'Deleting');
  }
  if (c.specProblems) return available('False', 'InvalidSpec', `the spec is invalid: ${c.specProblems.problems.join('; ')}`, 'Error');
  if (c.regionProblem) return available('False', c.regionProblem.reason === 'CredentialsInvalid' ? 'CredentialsInvalid' : 'Errored', c.regionProblem.message, 'Error');
  if (state === 'failed' && c.refusal) return available('False', 'Errored', `${refusedTo(c.refusal.step)}: ${c.refusal.message} (HTTP ${c.refusal.status})`, 'Error');
  if (state === 'realized') {
    if (c.userId === null && c.credential === null) {
      return available('True', 'Provisioned', `uses the region credentials' own project ${c.projectId ?? '?'}: the Region has no managed domain, so this identity is not isolated from others in it`, 'Ready');
    }
    return available('True', 'Provisioned', `project ${c.projectId}, user ${c.userId}, application credential ${c.credential?.id} (${c.credential?.digest}); roles and quotas verified`, 'Ready');
  }
  const next = c.projectId === null ? 'project' : c.userId === null ? 'user' : c.credential === null ? 'credential' : 'roles';
  return available('False', 'Provisioning', STATE_MESSAGES[next] ?? 'provisioning', 'Provisioning');
};

/** Spec fields Regent does not act on yet (issue 10's rule: named in status, never dropped silently). */
const specRealized = (tags: Readonly<Record<string, string>> | undefined): ConditionInput =>
  tags && Object.keys(tags).length > 0
    ? { type: 'SpecRealized', status: 'False', reason: 'FieldsNotImplemented', message: 'spec.tags: not written to the Keystone project yet' }
    : { type: 'SpecRealized', status: 'True', reason: 'AllFieldsRealized', message: 'Regent acts on every field of the spec' };

export const renderIdentityResource = (input: { lifecycle: IdentityView | undefined; tags?: Readonly<Record<string, string>>; at: string; previous?: IdentityResourceStatus }): IdentityResourceStatus => {
  const { condition, phase } = availability(input.lifecycle);
  const c = input.lifecycle?.context;
  const observedGeneration = c?.decidedGeneration ?? 0;
  const status: IdentityResourceStatus = { observedGeneration, phase, conditions: mergeConditions(input.previous?.conditions, [condition, specRealized(input.tags)], observedGeneration, input.at) };
  if (c && (c.projectId || c.userId || c.credential)) {
    status.openstack = {
      ...(c.projectId ? { projectID: c.projectId } : {}),
      ...(c.userId ? { userID: c.userId } : {}),
      ...(c.credential ? { applicationCredentialID: c.credential.id } : {}),
    };
  }
  if (c?.credential) status.credentialsSecretRef = { name: c.credential.secretRef.slice(c.credential.secretRef.indexOf('/') + 1) };
  return status;
};
