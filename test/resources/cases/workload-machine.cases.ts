import { IMAGE_ID, condition, objectOf, variant, type AgreementCase, type Json } from './case.js';

const SERVER = '4d5e6f70-8192-4a0b-9c1d-2e3f4a5b6c7d';
const PORT = '5e6f7081-92a3-4b1c-8d2e-3f4a5b6c7d8e';

const base = objectOf('WorkloadMachine', {
  clusterRef: { name: 'demo' },
  role: 'ControlPlane',
  image: { id: IMAGE_ID },
  flavorName: 'm1.large',
  userData: '#cloud-config\nruncmd: [kubeadm init]\n',
  availabilityZone: 'az1',
  additionalTags: { cost: 'k8s' },
});
const s = (edit: (spec: Json) => void): Json => variant(base, (o) => edit(o.spec as Json));

export const workloadMachineCases: AgreementCase[] = [
  { title: 'a control-plane machine by image id, with user data, a zone and tags is valid', object: base, expect: 'valid' },
  { title: 'a worker by image name, with only the required fields, is valid', object: objectOf('WorkloadMachine', { clusterRef: { name: 'demo' }, role: 'Worker', image: { name: 'ubuntu-2404-kube-v1.33.1' }, flavorName: 'm1.large' }), expect: 'valid' },
  { title: 'clusterRef is required', object: s((x) => delete x.clusterRef), expect: ['spec.clusterRef'] },
  { title: 'the role is required', object: s((x) => delete x.role), expect: ['spec.role'] },
  { title: 'the role is ControlPlane or Worker', object: s((x) => (x.role = 'Etcd')), expect: ['spec.role'] },
  { title: 'the image is required', object: s((x) => delete x.image), expect: ['spec.image'] },
  { title: 'the flavor is required (no default)', object: s((x) => delete x.flavorName), expect: ['spec.flavorName'] },
  { title: 'the flavor name is not empty', object: s((x) => (x.flavorName = '')), expect: ['spec.flavorName'] },
  { title: 'an image by id and by name: refused', object: s((x) => (x.image = { id: IMAGE_ID, name: 'ubuntu' })), expect: ['spec.image'] },
  { title: 'an image by neither: refused', object: s((x) => (x.image = {})), expect: ['spec.image'] },
  { title: 'an image id is a uuid', object: s((x) => (x.image = { id: 'ubuntu' })), expect: ['spec.image.id'] },
  { title: 'an image name is at most 255 characters', object: s((x) => (x.image = { name: 'i'.repeat(256) })), expect: ['spec.image.name'] },
  { title: 'user data of 65535 bytes is valid', object: s((x) => (x.userData = 'u'.repeat(65535))), expect: 'valid' },
  { title: 'user data over 65535 characters is refused', object: s((x) => (x.userData = 'u'.repeat(65536))), expect: ['spec.userData'] },
  { title: 'user data over 65535 bytes once UTF-8 encoded is refused', object: s((x) => (x.userData = 'é'.repeat(40000))), expect: ['spec.userData'] },
  { title: 'the zone is not empty', object: s((x) => (x.availabilityZone = '')), expect: ['spec.availabilityZone'] },
  { title: 'an additional tag key is at most 128 characters', object: s((x) => (x.additionalTags = { ['k'.repeat(129)]: 'x' })), expect: ['spec.additionalTags'] },
  { title: 'the image, flavor, user data and zone may change', object: s((x) => ((x.image = { name: 'ubuntu' }), (x.flavorName = 'm1.xlarge'), (x.userData = 'x'), (x.availabilityZone = 'az2'))), old: base, expect: 'valid' },
  { title: 'clusterRef.name is immutable', object: s((x) => (x.clusterRef = { name: 'other' })), old: base, expect: ['spec.clusterRef.name'] },
  { title: 'the role is immutable', object: s((x) => (x.role = 'Worker')), old: base, expect: ['spec.role'] },
  {
    title: 'a status with the server, port, address, image and pool memberships is valid',
    object: {
      ...base,
      status: {
        observedGeneration: 1,
        phase: 'Running',
        conditions: [condition('Ready')],
        serverID: SERVER,
        portID: PORT,
        address: '10.0.0.12',
        imageID: IMAGE_ID,
        pools: [
          { name: 'kube_apiserver', member: true },
          { name: 'rke2_supervisor', member: false },
        ],
      },
    },
    expect: 'valid',
  },
  { title: 'an IPv6 address is valid', object: { ...base, status: { address: '2001:db8::12' } }, expect: 'valid' },
  { title: 'the address is an IP address', object: { ...base, status: { address: 'node-1.example.com' } }, expect: ['status.address'] },
  { title: 'pools are unique by name', object: { ...base, status: { pools: [{ name: 'kube_apiserver', member: true }, { name: 'kube_apiserver', member: false }] } }, expect: ['status.pools[1]'] },
  { title: 'a pool says whether the machine is a member', object: { ...base, status: { pools: [{ name: 'kube_apiserver' }] } }, expect: ['status.pools[0].member'] },
];
