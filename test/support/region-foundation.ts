/**
 * The foundation every whole-plane run stands on (the chaos suite, the region benchmark): Region `region-one` on a
 * simulator (or any Keystone) with its credentials Secret `region-one-credentials`, the `ssd` volume class, Identity
 * `acme` and Network `net-a`. One place, so the chaos runs and the benchmark measure the same region.
 */
import { SEED } from '../../src/simulator/index.js';

export interface RegionFoundation {
  /** The cloud's root URL (the simulator's `sim.url`): Keystone is `<url>/identity/v3`. */
  cloudUrl: string;
  /** The external network for floating IPs. */
  externalNetworkId: string;
  /** net-a's prefix (default 10.0.0.0/24). */
  prefix?: string;
}

/** The volume class the foundation's Region offers. */
export const FOUNDATION_VOLUME_CLASS = SEED.volumeTypes.ssd;

export const regionFoundation = ({ cloudUrl, externalNetworkId, prefix = '10.0.0.0/24' }: RegionFoundation): string => `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec:
  provider: openstack
  openstack:
    endpoint: ${cloudUrl}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: region-one-credentials }
    network: { externalNetworkID: ${externalNetworkId} }
    blockStorage:
      volumeClasses:
        selector: { ids: [${FOUNDATION_VOLUME_CLASS}] }
        metadata:
          - { id: ${FOUNDATION_VOLUME_CLASS}, minCapacityGiB: 1, maxCapacityGiB: 100, media: ssd }
---
apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: acme }
spec: { regionRef: { name: region-one }, organizationID: acme, projectID: web }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-a }
spec: { identityRef: { name: acme }, prefix: ${prefix} }
`;
