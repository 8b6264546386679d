import { condition, objectOf, variant, type AgreementCase, type Json } from './case.js';

const SUBNET = '6f0c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f';
const NETWORK = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const POOL = '2b3c4d5e-6f70-4b8c-9d0e-1f2a3b4c5d6e';
const GROUP = '3c4d5e6f-7081-4c9d-8e1f-2a3b4c5d6e7f';

const base = objectOf('WorkloadCluster', {
  identityRef: { name: 'acme-web' },
  subnetID: SUBNET,
  distribution: 'rke2',
  apiServerPort: 6443,
  apiEndpoint: { public: true, floatingIPPool: 'public', allowedCIDRs: ['203.0.113.0/24', '2001:db8::/32'], provider: 'amphora' },
  providerIDFormat: 'regional',
  serverGroupPolicy: 'soft-anti-affinity',
  nodeAllowedAddressCIDRs: ['10.244.0.0/16', 'fd00:10:244::/56'],
  additionalTags: { 'team.example.com/owner': 'web', cost: 'k8s' },
});
const s = (edit: (spec: Json) => void): Json => variant(base, (o) => edit(o.spec as Json));
const endpoint = (edit: (apiEndpoint: Json) => void): Json => s((x) => edit(x.apiEndpoint as Json));

export const exportsOf = (api: unknown = { host: '203.0.113.10', port: 6443, pools: { kube_apiserver: { id: POOL, port: 6443 }, rke2_supervisor: { id: POOL, port: 9345 } } }): Json => ({
  schema: 'captf.io/openstack-cluster/v1',
  region: 'RegionOne',
  network_id: NETWORK,
  subnet_id: SUBNET,
  failure_domains: { az1: {}, az2: {} },
  distribution: 'rke2',
  provider_id_format: 'regional',
  security_group_ids: { control_plane: [GROUP, POOL], worker: [POOL] },
  control_plane_server_group_id: GROUP,
  node_allowed_address_cidrs: ['10.244.0.0/16'],
  api,
});
const withStatus = (status: Json): Json => ({ ...base, status });

export const workloadClusterCases: AgreementCase[] = [
  { title: 'a public rke2 cluster with allowed CIDRs, a provider, node CIDRs and tags is valid', object: base, expect: 'valid' },
  { title: 'only identityRef and subnetID are required', object: objectOf('WorkloadCluster', { identityRef: { name: 'acme-web' }, subnetID: SUBNET }), expect: 'valid' },
  { title: 'identityRef is required', object: s((x) => delete x.identityRef), expect: ['spec.identityRef'] },
  { title: 'subnetID is required', object: s((x) => delete x.subnetID), expect: ['spec.subnetID'] },
  { title: 'subnetID is a uuid', object: s((x) => (x.subnetID = 'subnet-a')), expect: ['spec.subnetID'] },
  { title: 'the distribution is kubeadm or rke2', object: s((x) => (x.distribution = 'k3s')), expect: ['spec.distribution'] },
  { title: 'the API server port is at most 65535', object: s((x) => (x.apiServerPort = 70000)), expect: ['spec.apiServerPort'] },
  { title: 'the API server port is at least 1', object: s((x) => (x.apiServerPort = 0)), expect: ['spec.apiServerPort'] },
  { title: 'an allowed CIDR is a CIDR', object: endpoint((e) => (e.allowedCIDRs = ['203.0.113.7'])), expect: ['spec.apiEndpoint.allowedCIDRs[0]'] },
  { title: 'allowed CIDRs are a set', object: endpoint((e) => (e.allowedCIDRs = ['203.0.113.0/24', '203.0.113.0/24'])), expect: ['spec.apiEndpoint.allowedCIDRs[1]'] },
  { title: 'at most 32 allowed CIDRs', object: endpoint((e) => (e.allowedCIDRs = Array.from({ length: 33 }, (_, i) => `10.0.${i}.0/24`))), expect: ['spec.apiEndpoint.allowedCIDRs'] },
  { title: 'the floating-IP pool is not empty', object: endpoint((e) => (e.floatingIPPool = '')), expect: ['spec.apiEndpoint.floatingIPPool'] },
  { title: 'the provider is at most 64 characters', object: endpoint((e) => (e.provider = 'p'.repeat(65))), expect: ['spec.apiEndpoint.provider'] },
  { title: 'provider and cloudDefaultProvider: refused together', object: endpoint((e) => (e.cloudDefaultProvider = true)), expect: ['spec.apiEndpoint'] },
  { title: 'cloudDefaultProvider false with a provider is valid', object: endpoint((e) => (e.cloudDefaultProvider = false)), expect: 'valid' },
  { title: 'cloudDefaultProvider alone is valid', object: endpoint((e) => ((e.cloudDefaultProvider = true), delete e.provider)), expect: 'valid' },
  { title: 'a public endpoint without allowed CIDRs or a pool is stored (the machine refuses it with a condition)', object: endpoint((e) => (delete e.allowedCIDRs, delete e.floatingIPPool)), expect: 'valid' },
  { title: 'a supplied endpoint is valid', object: s((x) => (delete x.apiEndpoint, (x.controlPlaneEndpoint = { host: 'api.example.com', port: 6443 }))), expect: 'valid' },
  { title: 'a supplied endpoint may be an IPv6 address', object: s((x) => (delete x.apiEndpoint, (x.controlPlaneEndpoint = { host: '2001:db8::10', port: 443 }))), expect: 'valid' },
  { title: 'a supplied endpoint host is a host name or an address', object: s((x) => (delete x.apiEndpoint, (x.controlPlaneEndpoint = { host: 'not a host', port: 6443 }))), expect: ['spec.controlPlaneEndpoint.host'] },
  { title: 'a supplied endpoint names its port', object: s((x) => (delete x.apiEndpoint, (x.controlPlaneEndpoint = { host: 'api.example.com' }))), expect: ['spec.controlPlaneEndpoint.port'] },
  { title: 'apiEndpoint and controlPlaneEndpoint: refused together', object: s((x) => (x.controlPlaneEndpoint = { host: 'api.example.com', port: 6443 })), expect: ['spec'] },
  { title: 'the provider ID format is default or regional', object: s((x) => (x.providerIDFormat = 'global')), expect: ['spec.providerIDFormat'] },
  { title: 'the server group policy may be None', object: s((x) => (x.serverGroupPolicy = 'None')), expect: 'valid' },
  { title: 'the server group policy is one of three', object: s((x) => (x.serverGroupPolicy = 'affinity')), expect: ['spec.serverGroupPolicy'] },
  { title: 'a node allowed address CIDR is a CIDR', object: s((x) => (x.nodeAllowedAddressCIDRs = ['10.244.0.0/33'])), expect: ['spec.nodeAllowedAddressCIDRs[0]'] },
  { title: 'at most 32 node allowed address CIDRs', object: s((x) => (x.nodeAllowedAddressCIDRs = Array.from({ length: 33 }, (_, i) => `10.${i}.0.0/16`))), expect: ['spec.nodeAllowedAddressCIDRs'] },
  { title: 'at most 50 additional tags', object: s((x) => (x.additionalTags = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`tag-${i}`, 'x'])))), expect: ['spec.additionalTags'] },
  { title: 'an additional tag key is at most 128 characters', object: s((x) => (x.additionalTags = { ['k'.repeat(129)]: 'x' })), expect: ['spec.additionalTags'] },
  { title: 'an additional tag key is not empty', object: s((x) => (x.additionalTags = { '': 'x' })), expect: ['spec.additionalTags'] },
  { title: 'an additional tag value is a string', object: s((x) => (x.additionalTags = { cost: 7 })), expect: ['spec.additionalTags[cost]'] },
  { title: 'a tag pair over 255 characters is stored (the machine refuses it with a condition)', object: s((x) => (x.additionalTags = { ['k'.repeat(128)]: 'v'.repeat(200) })), expect: 'valid' },
  { title: 'the subnet, port, endpoint and distribution may change (the machine guards them)', object: s((x) => ((x.subnetID = '7f0c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f'), (x.apiServerPort = 443), (x.distribution = 'kubeadm'), ((x.apiEndpoint as Json).public = false))), old: base, expect: 'valid' },
  { title: 'a supplied endpoint cannot be added after creation', object: s((x) => { delete x.apiEndpoint; x.controlPlaneEndpoint = { host: 'api.example.test', port: 6443 }; }), old: base, expect: ['spec.controlPlaneEndpoint'] },
  { title: 'identityRef.name is immutable', object: s((x) => (x.identityRef = { name: 'other' })), old: base, expect: ['spec.identityRef.name'] },
  {
    title: 'a status with the endpoint, the ids, the guard, the exports and their ConfigMap is valid',
    object: withStatus({
      observedGeneration: 1,
      phase: 'Ready',
      conditions: [condition('Ready')],
      endpoint: { host: '203.0.113.10', port: 6443 },
      loadBalancerID: POOL,
      securityGroupIDs: { controlPlane: GROUP, node: POOL },
      serverGroupID: GROUP,
      guard: { subnetID: SUBNET, public: true, floatingIPPool: 'public', apiServerPort: 6443, provider: 'amphora' },
      exports: exportsOf(),
      exportsConfigMap: 'example-openstack-exports',
    }),
    expect: 'valid',
  },
  { title: 'exports of a supplied endpoint: api and the server group null', object: withStatus({ exports: { ...exportsOf(null), control_plane_server_group_id: null } }), expect: 'valid' },
  { title: 'exports of kubeadm: no rke2 supervisor pool', object: withStatus({ exports: exportsOf({ host: '10.0.0.5', port: 6443, pools: { kube_apiserver: { id: POOL, port: 6443 }, rke2_supervisor: null } }) }), expect: 'valid' },
  { title: 'the exports schema is captf.io/openstack-cluster/v1', object: withStatus({ exports: { ...exportsOf(), schema: 'captf.io/openstack-cluster/v2' } }), expect: ['status.exports.schema'] },
  { title: 'the exports name their subnet', object: withStatus({ exports: variant(exportsOf(), (e) => delete e.subnet_id) }), expect: ['status.exports.subnet_id'] },
  { title: 'an exported pool has an id', object: withStatus({ exports: exportsOf({ host: '10.0.0.5', port: 6443, pools: { kube_apiserver: { port: 6443 } } }) }), expect: ['status.exports.api.pools.kube_apiserver.id'] },
  { title: 'the exported security group ids are uuids', object: withStatus({ exports: { ...exportsOf(), security_group_ids: { control_plane: ['sg-a'], worker: [] } } }), expect: ['status.exports.security_group_ids.control_plane[0]'] },
  { title: 'the guard records the subnet, the public flag and the port', object: withStatus({ guard: { subnetID: SUBNET, public: false } }), expect: ['status.guard.apiServerPort'] },
  { title: 'the exports ConfigMap is an object name', object: withStatus({ exportsConfigMap: 'Not_A_Name' }), expect: ['status.exportsConfigMap'] },
];
