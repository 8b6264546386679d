/**
 * A Region's status from its connection record (machines/region-connection.ts).
 *
 * | record | Available | phase |
 * |---|---|---|
 * | no verdict yet | False / Provisioning | Pending |
 * | connected, managed domain | True / Provisioned: who Regent is and the domain Identities are realized in | Ready |
 * | connected, no managed domain | True / Provisioned, saying Identities use the region credentials' own project | Ready |
 * | SecretMissing, SecretInvalid, EndpointMismatch, CredentialsInvalid | False / CredentialsInvalid (what is wrong, never a value) | Error |
 * | Unreachable, DomainMissing | False / Errored | Error |
 * | spec refused | False / InvalidSpec | Error |
 * | deleting | False / Deleting (the Identities that still name it) | Deleting |
 *
 * | SpecRealized | True / AllFieldsRealized; False / FieldsNotImplemented naming each set field Regent does not act on yet |
 *
 * The inventory settings (issue 16): defaultArchitecture, compute.flavorSelector, compute.flavorMetadata and images
 * are read by the Region's flavor and image exports (`regent get flavors`, `regent get images`), and
 * compute.baremetalFlavorIDs by the monitor too (Queued/Building from Ironic); compute.placementPreflight and
 * compute.requiredTraits by the pinned create's Placement preflight (src/controllers/server/pinned-create.ts);
 * serviceRoles and quotas by every Identity pass (docs/identity.md)
 * (network.providerNetworks is acted on: the Network controller allocates a VLAN id from it for every Network of
 * the Region and creates a VLAN provider network, docs/network.md): SpecRealized names each of those that is set, so they are never silently dropped behind Available=True. blockStorage is acted on since issue 12 (the VolumeClass allowlist decides which
 * classes a Volume may use, and their capacity bounds its size), except a class's `supportedFlavors`:
 * exported (`regent get volumeclasses`), not enforced when a Server attaches a Volume — named when set.
 *
 * observedGeneration is the generation the last pass decided on.
 */
import type { RegionContext } from '../machines/region-connection.js';
import { mergeConditions, type Condition, type ConditionInput } from './conditions.js';

export interface RegionResourceStatus {
  observedGeneration: number;
  phase: string;
  conditions: Condition[];
}

const CREDENTIAL_PROBLEMS = new Set(['SecretMissing', 'SecretInvalid', 'EndpointMismatch', 'CredentialsInvalid']);

const availability = (context: RegionContext | undefined, endpoint: string): { condition: ConditionInput; phase: string } => {
  const available = (status: ConditionInput['status'], reason: string, message: string, phase: string) => ({ condition: { type: 'Available', status, reason, message }, phase });
  if (!context || context.decidedGeneration === null) return available('False', 'Provisioning', 'not connected yet', 'Pending');
  if (context.dependents !== null) {
    return available('False', 'Deleting', context.dependents.length > 0 ? `waiting for ${context.dependents.join(', ')} to be deleted first` : 'deleting', 'Deleting');
  }
  if (context.specProblems) return available('False', 'InvalidSpec', `the spec is invalid: ${context.specProblems.join('; ')}`, 'Error');
  if (context.problem) {
    return CREDENTIAL_PROBLEMS.has(context.problem.kind)
      ? available('False', 'CredentialsInvalid', context.problem.message, 'Error')
      : available('False', 'Errored', context.problem.message, 'Error');
  }
  const c = context.connection;
  if (!c) return available('False', 'Provisioning', 'not connected yet', 'Pending');
  const who = `connected to Keystone ${endpoint}${c.userId ? ` as user ${c.userId}` : ''}${c.projectId ? ` in project ${c.projectId}` : ''}`;
  return c.domainId
    ? available('True', 'Provisioned', `${who}; Identities are realized in the managed domain ${c.domainId}`, 'Ready')
    : available('True', 'Provisioned', `${who}; no managed domain: Identities use the region credentials' own project (regent region register creates one)`, 'Ready');
};

/** The spec.openstack.compute settings nothing acts on yet, and what does not happen. */
const COMPUTE_NOT_ACTED_ON: ReadonlyArray<[string, string]> = [
  // placementPreflight and requiredTraits: the pinned create's preflight (issue 16) acts on both
];

interface UnrealizedRegionField {
  field: string;
  why: string;
}

const unrealized = (openstack: Readonly<Record<string, unknown>> | undefined): UnrealizedRegionField[] => {
  const compute = openstack?.compute as Readonly<Record<string, unknown>> | undefined;
  const out: UnrealizedRegionField[] = COMPUTE_NOT_ACTED_ON.filter(([key]) => compute?.[key] !== undefined && !(Array.isArray(compute[key]) && (compute[key] as unknown[]).length === 0) && compute[key] !== false).map(([key, why]) => ({ field: `spec.openstack.compute.${key}`, why }));
  // network.externalNetworkID (a LoadBalancer's floating IP, issue 13) and providerNetworks (the VLAN segment of every Network, issue 16) are acted on
  const metadata = ((openstack?.blockStorage as { volumeClasses?: { metadata?: unknown } } | undefined)?.volumeClasses?.metadata ?? []) as Array<{ supportedFlavors?: { ids?: unknown[] } }>;
  metadata.forEach((m, i) => {
    if (Array.isArray(m?.supportedFlavors?.ids) && m.supportedFlavors.ids.length > 0) {
      out.push({ field: `spec.openstack.blockStorage.volumeClasses.metadata[${i}].supportedFlavors`, why: 'exported with the VolumeClass, not enforced when a Server attaches a Volume' });
    }
  });
  return out;
};

export const unrealizedRegionFields = (openstack: Readonly<Record<string, unknown>> | undefined): string[] => unrealized(openstack).map((u) => u.field);

const specRealized = (fields: readonly UnrealizedRegionField[]): ConditionInput =>
  fields.length === 0
    ? { type: 'SpecRealized', status: 'True', reason: 'AllFieldsRealized', message: 'Regent acts on every field of the spec' }
    : { type: 'SpecRealized', status: 'False', reason: 'FieldsNotImplemented', message: fields.map((f) => `${f.field}: ${f.why}`).join('; ') };

export const renderRegionResource = (input: {
  context: RegionContext | undefined;
  endpoint: string;
  /** The Region's spec.openstack, for the settings Regent does not act on yet. */
  openstack?: Readonly<Record<string, unknown>>;
  at: string;
  previous?: RegionResourceStatus;
}): RegionResourceStatus => {
  const { condition, phase } = availability(input.context, input.endpoint);
  const observedGeneration = input.context?.decidedGeneration ?? 0;
  const conditions = [condition, specRealized(unrealized(input.openstack))];
  return { observedGeneration, phase, conditions: mergeConditions(input.previous?.conditions, conditions, observedGeneration, input.at) };
};
