/**
 * The Cinder metadata of a Volume (openstack-provider.md, "Cinder Volume create/delete is a
 * project-scoped lifecycle slice": "user tags are translated with the package's normal namespaced
 * metadata convention; namespaced system linkage keys are written last so user input cannot override
 * identity, organization, project, region, network, or Volume IDs; Volume metadata does not emit the
 * legacy camelCase compatibility keys retained by older resource types").
 *
 * The convention is Regent's one namespace for keys it writes into OpenStack metadata, `regent.dev:`
 * (the same as the servers' ownership key `regent.dev:uid`, src/provider/servers.ts OWNER_KEY; a ':'
 * rather than a '/', because Nova refuses '/' in metadata keys and one convention serves both).
 *
 * - M1 a user tag `k` is written as `regent.dev:k`; a tag whose key already carries the namespace is
 *   written as it is (never `regent.dev:regent.dev:k`).
 * - M2 the linkage keys are written after every user tag, so a tag that names one (`identity-id`, or
 *   `regent.dev:identity-id`, or `uid`) is overwritten by the system value, never the reverse.
 * - M3 every key is namespaced: no bare key, and none of the legacy camelCase keys (`identityID`,
 *   `organizationID`, …) older resource kinds carried.
 *
 * Pure (no I/O, no clock): the volume machine computes it in the create decision, so the exact metadata
 * sent to Cinder is part of the recorded event.
 */

/** The namespace of every key Regent writes into OpenStack metadata. */
export const METADATA_NAMESPACE = 'regent.dev:';

/** The system linkage keys (M2), by what they link. `owner` equals the servers' OWNER_KEY. */
export const LINKAGE_KEYS = {
  identity: 'regent.dev:identity-id',
  organization: 'regent.dev:organization-id',
  project: 'regent.dev:project-id',
  region: 'regent.dev:region-id',
  network: 'regent.dev:network-id',
  volume: 'regent.dev:volume-id',
  owner: 'regent.dev:uid',
} as const;

/** The ids the linkage keys carry (Regent's ids, not OpenStack's: the Volume's is its UID). */
export interface VolumeLinkage {
  identityID: string;
  organizationID: string;
  projectID: string;
  regionID: string;
  networkID: string;
}

/** M1: the metadata key a user tag is written under. */
export const tagMetadataKey = (tag: string): string => (tag.startsWith(METADATA_NAMESPACE) ? tag : `${METADATA_NAMESPACE}${tag}`);

/** The metadata a Volume's Cinder volume is created with: user tags first (M1), linkage last (M2). */
export const volumeMetadata = (input: { volumeUid: string; linkage: VolumeLinkage; tags?: Readonly<Record<string, string>> }): Record<string, string> => {
  const metadata: Record<string, string> = {};
  // sorted, so the recorded decision does not depend on the order the tags were read in
  for (const [tag, value] of Object.entries(input.tags ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) metadata[tagMetadataKey(tag)] = value;
  // M2: written last — user input cannot override them
  metadata[LINKAGE_KEYS.identity] = input.linkage.identityID;
  metadata[LINKAGE_KEYS.organization] = input.linkage.organizationID;
  metadata[LINKAGE_KEYS.project] = input.linkage.projectID;
  metadata[LINKAGE_KEYS.region] = input.linkage.regionID;
  metadata[LINKAGE_KEYS.network] = input.linkage.networkID;
  metadata[LINKAGE_KEYS.volume] = input.volumeUid;
  metadata[LINKAGE_KEYS.owner] = input.volumeUid;
  return metadata;
};
