import { condition, IMAGE_ID, objectOf, variant, type AgreementCase, type Json } from './case.js';

const base = objectOf('Region', {
  provider: 'openstack',
  openstack: {
    endpoint: 'https://keystone.example.com:5000/v3',
    region: 'RegionOne',
    credentialsSecretRef: { name: 'region-one-credentials' },
    defaultArchitecture: 'x86_64',
    compute: { placementPreflight: true, flavorSelector: { ids: ['m1.small', 'm1.large'] } },
    network: { externalNetworkID: IMAGE_ID, providerNetworks: { physicalNetwork: 'physnet1', vlan: { minID: 100, maxID: 200 } } },
    blockStorage: { volumeClasses: { selector: { ids: [IMAGE_ID] }, metadata: [{ id: IMAGE_ID, minCapacityGiB: 1, maxCapacityGiB: 100, media: 'ssd' }] } },
  },
});
const os = (edit: (o: Json) => void): Json => variant(base, (x) => edit((x.spec as Json).openstack as Json));

export const regionCases: AgreementCase[] = [
  { title: 'a fully configured OpenStack region is valid', object: base, expect: 'valid' },
  { title: 'only the openstack provider exists', object: variant(base, (x) => ((x.spec as Json).provider = 'aws')), expect: ['spec.provider'] },
  { title: 'the Keystone endpoint is an http(s) URL', object: os((o) => (o.endpoint = 'keystone:5000')), expect: ['spec.openstack.endpoint'] },
  { title: 'the credentials secret is required', object: os((o) => delete o.credentialsSecretRef), expect: ['spec.openstack.credentialsSecretRef'] },
  { title: 'the architecture is x86_64 or aarch64', object: os((o) => (o.defaultArchitecture = 'riscv')), expect: ['spec.openstack.defaultArchitecture'] },
  { title: 'a VLAN ID is between 1 and 4094', object: os((o) => (o.network = { providerNetworks: { physicalNetwork: 'p', vlan: { minID: 0, maxID: 4095 } } })), expect: ['spec.openstack.network.providerNetworks.vlan.minID', 'spec.openstack.network.providerNetworks.vlan.maxID'] },
  { title: 'a VLAN range must not be inverted', object: os((o) => (o.network = { providerNetworks: { physicalNetwork: 'p', vlan: { minID: 300, maxID: 200 } } })), expect: ['spec.openstack.network.providerNetworks.vlan.maxID'] },
  { title: 'VolumeClass capacity bounds must not be inverted', object: os((o) => (o.blockStorage = { volumeClasses: { metadata: [{ id: IMAGE_ID, minCapacityGiB: 10, maxCapacityGiB: 5 }] } })), expect: ['spec.openstack.blockStorage.volumeClasses.metadata[0].maxCapacityGiB'] },
  { title: 'VolumeClass capacity bounds are positive whole GiB', object: os((o) => (o.blockStorage = { volumeClasses: { metadata: [{ id: IMAGE_ID, minCapacityGiB: 0 }] } })), expect: ['spec.openstack.blockStorage.volumeClasses.metadata[0].minCapacityGiB'] },
  { title: 'one bound alone is valid', object: os((o) => (o.blockStorage = { volumeClasses: { metadata: [{ id: IMAGE_ID, maxCapacityGiB: 5 }] } })), expect: 'valid' },
  { title: 'volume class selector IDs are Cinder volume type UUIDs', object: os((o) => (o.blockStorage = { volumeClasses: { selector: { ids: ['fast'] } } })), expect: ['spec.openstack.blockStorage.volumeClasses.selector.ids[0]'] },
  { title: 'a capacity given as a string is a type error', object: os((o) => (o.blockStorage = { volumeClasses: { metadata: [{ id: IMAGE_ID, maxCapacityGiB: '5' }] } })), expect: ['spec.openstack.blockStorage.volumeClasses.metadata[0].maxCapacityGiB'] },
  {
    title: 'VolumeClass metadata may restrict supported flavors and state performance caps and encryption',
    object: os((o) => (o.blockStorage = { volumeClasses: { selector: { ids: [IMAGE_ID] }, metadata: [{ id: IMAGE_ID, supportedFlavors: { ids: ['m1.small', 'c1'] }, maxIOPS: 3000, maxThroughputMiBps: 125, encrypted: true }] } })),
    expect: 'valid',
  },
  { title: 'an empty supportedFlavors selector (unrestricted) is valid', object: os((o) => (o.blockStorage = { volumeClasses: { metadata: [{ id: IMAGE_ID, supportedFlavors: {} }] } })), expect: 'valid' },
  { title: 'supported flavor IDs do not repeat (a set)', object: os((o) => (o.blockStorage = { volumeClasses: { metadata: [{ id: IMAGE_ID, supportedFlavors: { ids: ['m1.small', 'm1.small'] } }] } })), expect: ['spec.openstack.blockStorage.volumeClasses.metadata[0].supportedFlavors.ids[1]'] },
  { title: 'a supported flavor ID is not empty', object: os((o) => (o.blockStorage = { volumeClasses: { metadata: [{ id: IMAGE_ID, supportedFlavors: { ids: [''] } }] } })), expect: ['spec.openstack.blockStorage.volumeClasses.metadata[0].supportedFlavors.ids[0]'] },
  {
    title: 'performance caps are positive whole numbers',
    object: os((o) => (o.blockStorage = { volumeClasses: { metadata: [{ id: IMAGE_ID, maxIOPS: 0, maxThroughputMiBps: 12.5 }] } })),
    expect: ['spec.openstack.blockStorage.volumeClasses.metadata[0].maxIOPS', 'spec.openstack.blockStorage.volumeClasses.metadata[0].maxThroughputMiBps'],
  },
  { title: 'VolumeClass media is hdd, ssd or nvme', object: os((o) => (o.blockStorage = { volumeClasses: { metadata: [{ id: IMAGE_ID, media: 'tape' }] } })), expect: ['spec.openstack.blockStorage.volumeClasses.metadata[0].media'] },
  { title: 'managed roles name at least one role', object: os((o) => (o.managedRoles = [])), expect: ['spec.openstack.managedRoles'] },
  { title: 'managed roles do not repeat (a set)', object: os((o) => (o.managedRoles = ['member', 'member'])), expect: ['spec.openstack.managedRoles[1]'] },
  { title: 'managed roles override the defaults', object: os((o) => (o.managedRoles = ['member', 'creator'])), expect: 'valid' },
  { title: 'a status with conditions is valid', object: { ...base, status: { phase: 'Ready', conditions: [condition('Available')] } }, expect: 'valid' },
];
