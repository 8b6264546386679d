/**
 * Between API bodies and Server resources: the labels that carry tenancy and API version, the
 * deterministic v2 name, and the read view (from the resource's status).
 */
import { v5 as uuidv5 } from 'uuid';
import type { Server, ServerSpec } from '../resources/server.js';
import { resolveSshInjection } from '../resources/server.js';

export const LABELS = {
  apiVersion: 'regent.dev/api-version',
  organization: 'regent.dev/organization',
  project: 'regent.dev/project',
  identity: 'regent.dev/identity',
  network: 'regent.dev/network',
} as const;

/** The UUIDv5 namespace of v2 server names. */
export const SERVER_NAME_NAMESPACE = uuidv5('https://regent.dev/api/v2/servers', uuidv5.URL);

/** The v2 resource name: a UUIDv5 of (networkID, serverName), so a duplicate create collides. */
export const serverResourceName = (networkID: string, serverName: string): string => uuidv5(`${networkID}/${serverName}`, SERVER_NAME_NAMESPACE);

export interface Tenancy {
  organizationId: string;
  projectId: string;
  identityId: string;
}

export const tenancyOf = (server: Server): Tenancy | undefined => {
  const labels = server.metadata.labels ?? {};
  const organizationId = labels[LABELS.organization];
  const projectId = labels[LABELS.project];
  const identityId = labels[LABELS.identity];
  return organizationId && projectId && identityId ? { organizationId, projectId, identityId } : undefined;
};

export const apiVersionOf = (server: Server): string | undefined => server.metadata.labels?.[LABELS.apiVersion];

export type ProvisioningStatus = 'unknown' | 'pending' | 'provisioning' | 'provisioned' | 'deprovisioning' | 'error';

/**
 * provisioningStatus as the v2 read reports it, from the status the projection wrote
 * (projections/server-resource-status.ts), never better than it: `deprovisioning` once deletion began;
 * `error` when parked (a Failed rebuild marker, or the projection's error); `provisioning` while any
 * rebuild intent stands — the marker in status.rebuild, armed-only (Initiated) included — or while
 * the current generation is not decided on yet (an image change just accepted); `provisioned` only
 * when the projection says settled on this generation with no intent standing; `unknown` instead while the
 * server cannot be observed (Available Unknown/DependencyUnavailable: its last observation said provisioned).
 */
export const provisioningStatusOf = (server: Server): ProvisioningStatus => {
  if (server.metadata.deletionTimestamp) return 'deprovisioning';
  const status = server.status;
  if (!status || status.provisioningStatus === undefined) return 'pending';
  if (status.provisioningStatus === 'error' || status.rebuild?.state === 'Failed') return 'error';
  if (status.rebuild !== undefined) return 'provisioning';
  if (status.provisioningStatus === 'provisioned') {
    // provisioned means settled, as last observed: while the server cannot be observed (its Identity or Region
    // unusable, its cloud silent: projections/scope-reachability-status.ts) nobody knows that it still is
    if (status.conditions?.some((c) => c.type === 'Available' && c.reason === 'DependencyUnavailable')) return 'unknown';
    const decided = status.observedGeneration ?? 0;
    return decided >= server.metadata.generation ? 'provisioned' : 'provisioning';
  }
  return status.provisioningStatus;
};

const idOrName = (ref: { id?: string; name?: string }): string => ref.id ?? ref.name ?? '';

/** The gates not yet satisfied: the status's list when the controller wrote one, else from the per-gate records. */
export const remainingGates = (server: Server): string[] => {
  const status = server.status;
  if (status?.remainingProviderCreateGates) return [...status.remainingProviderCreateGates];
  const satisfied = new Set((status?.providerCreateGates ?? []).filter((g) => g.satisfied).map((g) => g.name));
  return (server.spec.providerCreateGates ?? []).map((g) => g.name).filter((n) => !satisfied.has(n));
};

const readStatus = (server: Server) => {
  const s = server.status;
  return {
    ...(s?.serverID ? { serverId: s.serverID } : {}),
    ...(s?.imageID ? { imageId: s.imageID } : {}),
    ...(s?.flavorID ? { flavorId: s.flavorID } : {}),
    ...(s?.phase ? { phase: s.phase } : {}),
    ...(s?.ipAddresses ? { ipAddresses: [...s.ipAddresses] } : {}),
    ...(s?.infrastructureRef ?? server.spec.infrastructureRef ? { infrastructureRef: { ...(s?.infrastructureRef ?? server.spec.infrastructureRef) } } : {}),
    ...(s?.rebuild ? { rebuild: { targetImageId: s.rebuild.targetImageID, state: s.rebuild.state } } : {}),
    remainingProviderCreateGates: remainingGates(server),
  };
};

const readMetadata = (server: Server) => {
  const tenancy = tenancyOf(server);
  return {
    id: server.metadata.name,
    name: server.spec.name,
    organizationId: tenancy?.organizationId ?? '',
    projectId: tenancy?.projectId ?? '',
    ...(tenancy ? { identityId: tenancy.identityId } : {}),
    creationTime: server.metadata.creationTimestamp,
    ...(server.metadata.deletionTimestamp ? { deletionTime: server.metadata.deletionTimestamp } : {}),
    provisioningStatus: provisioningStatusOf(server),
  };
};

export const toV2Read = (server: Server) => {
  const spec: ServerSpec = server.spec;
  return {
    metadata: readMetadata(server),
    spec: {
      networkId: spec.networkID,
      flavorId: idOrName(spec.flavor),
      imageId: idOrName(spec.image),
      ...(spec.userData !== undefined ? { userData: spec.userData } : {}),
      sshInjection: resolveSshInjection(spec),
      ...(spec.sshCertificateAuthorityId !== undefined ? { sshCertificateAuthorityId: spec.sshCertificateAuthorityId } : {}),
      ...(spec.securityGroups !== undefined ? { securityGroups: [...spec.securityGroups] } : {}),
      ...(spec.infrastructureRef !== undefined ? { infrastructureRef: { ...spec.infrastructureRef } } : {}),
      ...(spec.providerCreateGates !== undefined ? { providerCreateGates: spec.providerCreateGates.map((g) => ({ ...g })) } : {}),
    },
    status: readStatus(server),
  };
};

export const toV1Read = (server: Server) => {
  const spec = server.spec;
  return {
    metadata: readMetadata(server),
    spec: {
      networkId: spec.networkID,
      flavorId: idOrName(spec.flavor),
      imageId: idOrName(spec.image),
      ...(spec.userData !== undefined ? { userData: spec.userData } : {}),
      ...(spec.securityGroups !== undefined ? { securityGroups: [...spec.securityGroups] } : {}),
    },
    status: readStatus(server),
  };
};

/** The flavor a write names, compared with the stored reference (by id, or by name for a legacy object). */
export const sameFlavor = (stored: { id?: string; name?: string }, requested: string): boolean => stored.id === requested || (stored.id === undefined && stored.name === requested);
export const sameImage = sameFlavor;
