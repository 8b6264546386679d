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
  {
    title: 'issue 16 quotas and service roles: per-service quota keys, -1 unlimited',
    object: os((o) => {
      o.serviceRoles = ['manager', 'admin'];
      o.quotas = { compute: { instances: -1, cores: 64 }, network: { floatingip: 3 }, volume: { gigabytes: 2000 } };
    }),
    expect: 'valid',
  },
  { title: 'a quota below -1 is invalid (-1 means unlimited)', object: os((o) => (o.quotas = { compute: { cores: -2 } })), expect: ['spec.openstack.quotas.compute[cores]'] },
  { title: 'a quota is an integer', object: os((o) => (o.quotas = { volume: { gigabytes: 'lots' } })), expect: ['spec.openstack.quotas.volume[gigabytes]'] },
  { title: 'service roles do not repeat and are not empty', object: os((o) => (o.serviceRoles = [])), expect: ['spec.openstack.serviceRoles'] },
  {
    title: 'issue 16 inventory settings: requiredTraits, per-flavor metadata, the image signing key and cache',
    object: os((o) => {
      o.compute = { requiredTraits: ['CUSTOM_RAID1', 'HW_CPU_X86_AVX2'], flavorMetadata: [{ id: 'g1', cpu: { architecture: 'aarch64' }, gpu: { vendor: 'NVIDIA', model: 'A100', count: 2 } }, { id: 'm1.small' }] };
      o.images = { signingKey: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----', cache: { enabled: true, refreshAfterSeconds: 60, staleAfterSeconds: 300 } };
    }),
    expect: 'valid',
  },
  { title: 'a required trait is an upper-case Placement trait name', object: os((o) => (o.compute = { requiredTraits: ['custom_raid'] })), expect: ['spec.openstack.compute.requiredTraits[0]'] },
  { title: 'required traits do not repeat (a set)', object: os((o) => (o.compute = { requiredTraits: ['CUSTOM_A', 'CUSTOM_A'] })), expect: ['spec.openstack.compute.requiredTraits[1]'] },
  { title: 'flavor metadata: an architecture of the enum, a known GPU vendor, a count of at least 1', object: os((o) => (o.compute = { flavorMetadata: [{ id: 'g1', cpu: { architecture: 'riscv' }, gpu: { vendor: 'Matrox', count: 0 } }] })), expect: ['spec.openstack.compute.flavorMetadata[0].cpu.architecture', 'spec.openstack.compute.flavorMetadata[0].gpu.vendor', 'spec.openstack.compute.flavorMetadata[0].gpu.count'] },
  { title: 'flavor metadata is keyed by id: an id is required', object: os((o) => (o.compute = { flavorMetadata: [{ cpu: { architecture: 'x86_64' } }] })), expect: ['spec.openstack.compute.flavorMetadata[0].id'] },
  { title: 'the image cache goes stale only after it refreshes', object: os((o) => (o.images = { cache: { refreshAfterSeconds: 300, staleAfterSeconds: 300 } })), expect: ['spec.openstack.images.cache.staleAfterSeconds'] },
  { title: 'an empty signing key is refused', object: os((o) => (o.images = { signingKey: '' })), expect: ['spec.openstack.images.signingKey'] },
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
