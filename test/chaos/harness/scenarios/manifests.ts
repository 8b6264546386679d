/** The manifests the chaos scenarios apply: a Region on the simulator, Identity acme, Network net-a, and the kinds under test. */
import { SEED } from '../../../../src/simulator/index.js';
import { FOUNDATION_VOLUME_CLASS, regionFoundation } from '../../../support/region-foundation.js';

export const IMAGES = { cirros: SEED.images.cirros, ubuntu: SEED.images.ubuntu } as const;
export const SSD = FOUNDATION_VOLUME_CLASS;

export const foundation = (simUrl: string, publicNetworkId: string): string => regionFoundation({ cloudUrl: simUrl, externalNetworkId: publicNetworkId });

export const server = (name: string, image: string, extra = '') => `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: ${name} }
spec:
  name: ${name}
  image: { id: ${image} }
  flavor: { name: m1.small }
  networkID: net-a
  sshInjection: none
${extra}`;

export const volume = (name: string, size: number) => `apiVersion: regent.dev/v1alpha1
kind: Volume
metadata: { name: ${name} }
spec:
  networkID: net-a
  size: ${size}
  volumeClassID: ${SSD}
`;

export const loadBalancer = (allowed: string) => `apiVersion: regent.dev/v1alpha1
kind: LoadBalancer
metadata: { name: web-lb }
spec:
  networkID: net-a
  floatingIP: true
  listeners:
    - name: https
      protocol: TCP
      port: 443
      allowedCIDRs: [${allowed}]
      pool:
        members:
          - address: 10.0.0.2
            port: 8443
        healthMonitor:
          delaySeconds: 5
          timeoutSeconds: 3
          maxRetries: 3
`;

export const securityGroup = (port: number) => `apiVersion: regent.dev/v1alpha1
kind: SecurityGroup
metadata:
  name: web-sg
  labels: { regent.dev/network: net-a }
spec:
  networkID: net-a
  description: web tier
  rules:
    - direction: ingress
      protocol: tcp
      portRangeMin: ${port}
      portRangeMax: ${port}
`;

/** Region region-two: the admin's credentials and a managed domain, so its Identities get their own Keystone project, user, roles and application credential. */
export const managedRegion = (simUrl: string, domainId: string, vlans = false) => `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-two }
spec:
  provider: openstack
  openstack:
    endpoint: ${simUrl}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: region-two-credentials }
    domainID: ${domainId}
${vlans ? '    network: { providerNetworks: { physicalNetwork: physnet1, vlan: { minID: 100, maxID: 103 } } }\n' : ''}`;

/** A Network of an Identity (on region-two: a VLAN provider network when the Region has providerNetworks). */
export const networkOf = (name: string, identityName: string, prefix: string) => `apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: ${name} }
spec: { identityRef: { name: ${identityName} }, prefix: ${prefix} }
`;

export const identity = (name: string, region = 'region-two') => `apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: ${name} }
spec: { regionRef: { name: ${region} }, organizationID: ${name}, projectID: chaos }
`;
