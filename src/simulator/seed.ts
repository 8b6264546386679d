// Seed cloud beyond identity: flavors (one with resources:CUSTOM_* and trait:* extra specs), public images
// (one with architecture / hw_vif_model properties), an external network and a network + subnet per
// project, two volume types, a compute resource provider with inventory and traits, and two Ironic nodes
// (each with its resource provider). Ids are stable so tests and demos can refer to them.
import { stableUuid, uuid } from './ids.js';
import type { Sim } from './state.js';
import { createImage } from './glance/images.js';
import { projectIdOf, userIdOf } from './keystone/seed.js';
import { createNetwork, createSubnet } from './neutron/networks.js';
import { ensureDefaultSecurityGroup } from './neutron/security-groups.js';
import { COMPUTE_HOST } from './nova/lifecycle.js';
import type { Flavor } from './nova/model.js';
import { addProvider } from './placement/routes.js';

export const SEED = {
  images: { cirros: stableUuid('image:cirros'), ubuntu: stableUuid('image:ubuntu'), debian: stableUuid('image:debian') },
  computeRp: stableUuid('rp:sandbox'),
  ironicNodes: { gold: stableUuid('node:bm-0'), sgx: stableUuid('node:bm-1') },
  volumeTypes: { standard: stableUuid('voltype:standard'), ssd: stableUuid('voltype:ssd') },
  baremetalFlavor: 'bm.gold',
  /** The external network floating IPs come from (examples/region.yaml names it). */
  publicNetwork: stableUuid('network:public'),
  /** A shared network and subnet a workload cluster brings (examples/workload-cluster.yaml names the subnet). */
  workloadNetwork: stableUuid('network:workload'),
  workloadSubnet: stableUuid('subnet:workload'),
} as const;

function flavor(id: string, name: string, vcpus: number, ram: number, disk: number, extra: Partial<Flavor> = {}): Flavor {
  return { id, name, vcpus, ram, disk, ephemeral: 0, swap: 0, rxtxFactor: 1, isPublic: true, disabled: false, description: null, extraSpecs: {}, ...extra };
}

function seedFlavors(sim: Sim): void {
  const list = [
    flavor('1', 'm1.tiny', 1, 512, 1), flavor('2', 'm1.small', 1, 2048, 20), flavor('3', 'm1.medium', 2, 4096, 40),
    flavor('4', 'm1.large', 4, 8192, 80), flavor('5', 'm1.xlarge', 8, 16384, 160),
    flavor('c1', 'c1.pinned', 4, 8192, 40, { extraSpecs: { 'hw:cpu_policy': 'dedicated', 'hw:mem_page_size': 'large' } }),
    flavor('huge', 'x1.unplaceable', 8, 900000, 40, { description: 'inside quota but beyond every host: NoValidHost' }),
    flavor(SEED.baremetalFlavor, 'bm.gold', 32, 262144, 960, {
      description: 'Baremetal gold: scheduled by custom resource class and traits',
      extraSpecs: {
        'resources:CUSTOM_BAREMETAL_GOLD': '1', 'resources:VCPU': '0', 'resources:MEMORY_MB': '0', 'resources:DISK_GB': '0',
        'trait:CUSTOM_RAID1': 'required', 'trait:HW_CPU_X86_SGX': 'forbidden', 'capabilities:boot_mode': 'uefi',
      },
    }),
    flavor('private', 'm1.private', 2, 2048, 20, { isPublic: false }),
  ];
  for (const f of list) sim.nova.flavors.set(f.id, f);
}

function seedImages(sim: Sim): void {
  const admin = projectIdOf('admin');
  const img = (id: string, name: string, props: Record<string, string>, extra: { minDisk?: number; minRam?: number } = {}) =>
    createImage(sim, { id, name, owner: admin, visibility: 'public', containerFormat: 'bare', diskFormat: 'qcow2', properties: props, data: Buffer.from(`simulated image ${name}\n`), ...extra });
  img(SEED.images.cirros, 'cirros-0.6.2-x86_64-disk', { architecture: 'x86_64', hw_vif_model: 'virtio', hw_disk_bus: 'virtio', os_distro: 'cirros', os_version: '0.6.2', os_type: 'linux' });
  img(SEED.images.ubuntu, 'ubuntu-22.04', { architecture: 'x86_64', hw_firmware_type: 'uefi', os_distro: 'ubuntu', os_version: '22.04', os_type: 'linux' }, { minDisk: 10, minRam: 512 });
  img(SEED.images.debian, 'debian-12', { architecture: 'aarch64', os_distro: 'debian', os_version: '12', os_type: 'linux' }, { minDisk: 5 });
}

function seedNetworks(sim: Sim): void {
  const admin = projectIdOf('admin');
  const pub = createNetwork(sim, { id: SEED.publicNetwork, name: 'public', projectId: admin, external: true, mtu: 1500 });
  createSubnet(sim, { networkId: pub.id, cidr: '172.24.4.0/24', projectId: admin, name: 'public-subnet', enableDhcp: false });
  const ranges: Record<string, string> = { admin: '10.10.0.0/16', demo: '10.20.0.0/16', other: '10.30.0.0/16' };
  for (const [name, cidr] of Object.entries(ranges)) {
    const pid = projectIdOf(name);
    const net = createNetwork(sim, { name: `${name}-net`, projectId: pid });
    createSubnet(sim, { networkId: net.id, cidr, projectId: pid, name: `${name}-subnet`, dns: ['192.0.2.53'] });
    ensureDefaultSecurityGroup(sim, pid);
  }
}

function seedVolumeTypes(sim: Sim): void {
  sim.cinder.types.set(SEED.volumeTypes.standard, { id: SEED.volumeTypes.standard, name: 'standard', description: 'Default volume type', isPublic: true, extraSpecs: { volume_backend_name: 'fake' } });
  sim.cinder.types.set(SEED.volumeTypes.ssd, { id: SEED.volumeTypes.ssd, name: 'ssd', description: 'Fast volumes', isPublic: true, extraSpecs: { volume_backend_name: 'fake-ssd', 'capabilities:storage_protocol': 'iSCSI' } });
  sim.cinder.defaultTypeId = SEED.volumeTypes.standard;
}

function seedComputeInventory(sim: Sim): void {
  addProvider(sim, {
    uuid: SEED.computeRp, name: COMPUTE_HOST,
    inventories: {
      VCPU: { total: 1000, allocation_ratio: 16, max_unit: 1000 }, MEMORY_MB: { total: 800000, reserved: 512, allocation_ratio: 1.5, max_unit: 800000 },
      DISK_GB: { total: 10000, max_unit: 10000 },
    },
    traits: ['COMPUTE_NODE', 'HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE42', 'COMPUTE_VOLUME_MULTI_ATTACH', 'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'STORAGE_DISK_SSD'],
  });
  sim.placement.resourceClasses.add('CUSTOM_BAREMETAL_GOLD');
  for (const t of ['CUSTOM_RAID1', 'CUSTOM_BAREMETAL']) sim.placement.traits.add(t);
  const nodes: Array<[string, string, string[]]> = [[SEED.ironicNodes.gold, 'bm-0', ['CUSTOM_RAID1', 'CUSTOM_BAREMETAL']], [SEED.ironicNodes.sgx, 'bm-1', ['CUSTOM_RAID1', 'CUSTOM_BAREMETAL', 'HW_CPU_X86_SGX']]];
  const now = sim.now();
  for (const [id, name, traits] of nodes) {
    addProvider(sim, { uuid: id, name: id, inventories: { CUSTOM_BAREMETAL_GOLD: { total: 1, max_unit: 1 } }, traits });
    sim.ironic.nodes.set(id, {
      uuid: id, name, instanceUuid: null, provisionState: 'available', targetProvisionState: null, powerState: 'power off', targetPowerState: null,
      maintenance: false, resourceClass: 'baremetal.gold', driver: 'fake-hardware', properties: { cpus: 32, memory_mb: 262144, local_gb: 960, cpu_arch: 'x86_64', capabilities: 'boot_mode:uefi' },
      instanceInfo: {}, extra: {}, lastError: null, created: now, updated: null, provisionUpdated: null, owner: null, gen: 0,
    });
  }
  const svc = (binary: string, host: string, zone: string, legacyId: number) => {
    const id = stableUuid(`service:${binary}:${host}`);
    sim.nova.services.set(id, { id, legacyId, binary, host, zone, status: 'enabled', state: 'up', disabledReason: null, forcedDown: false });
    return id;
  };
  svc('nova-scheduler', COMPUTE_HOST, 'internal', 1);
  svc('nova-conductor', COMPUTE_HOST, 'internal', 2);
  const computeSvc = svc('nova-compute', COMPUTE_HOST, 'nova', 3);
  const ironicSvc = svc('nova-compute', 'ironic-compute', 'nova', 4);
  sim.nova.hypervisors.set(SEED.computeRp, { id: SEED.computeRp, legacyId: 1, hostname: COMPUTE_HOST, host: COMPUTE_HOST, type: 'QEMU', hostIp: '127.0.0.1', serviceId: computeSvc, vcpus: 1000, memoryMb: 800000, localGb: 10000 });
  nodes.forEach(([id], i) => sim.nova.hypervisors.set(id, { id, legacyId: 2 + i, hostname: id, host: 'ironic-compute', type: 'ironic', hostIp: '127.0.0.1', serviceId: ironicSvc, vcpus: 32, memoryMb: 262144, localGb: 960 }));
}

function seedKeypairs(sim: Sim): void {
  const pk = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHNpbXVsYXRvci1kZW1vLWtleS0wMDAwMDAwMDAwMDAw demo@sim';
  sim.nova.keypairs.set(`${userIdOf('demo')}/demo-key`, { name: 'demo-key', userId: userIdOf('demo'), publicKey: pk, fingerprint: '3d:5a:9f:2c:11:0b:7e:41:aa:52:6c:90:14:d2:e3:77', type: 'ssh', created: sim.now(), id: sim.nova.nextKeypairId++ });
}

export function seedCloud(sim: Sim): void {
  seedFlavors(sim);
  seedImages(sim);
  seedNetworks(sim);
  seedVolumeTypes(sim);
  seedComputeInventory(sim);
  seedKeypairs(sim);
}

/**
 * The demo's shared network and subnet (the built-in simulator of `regent start`): a network the operators share with
 * every project, as a workload cluster brings one (openstack-cluster-modules.md; examples/workload-cluster.yaml names
 * the subnet by its stable id). Not in the default seed: a second network every project sees would make a server
 * create without networks ambiguous ("Multiple possible networks found"), as it is in Nova.
 */
export function seedWorkloadNetwork(sim: Sim): void {
  const admin = projectIdOf('admin');
  const workload = createNetwork(sim, { id: SEED.workloadNetwork, name: 'workload-net', projectId: admin, shared: true, mtu: 1500 });
  createSubnet(sim, { id: SEED.workloadSubnet, networkId: workload.id, cidr: '10.50.0.0/24', projectId: admin, name: 'workload-subnet', dns: ['192.0.2.53'] });
}

/** For identity-only simulators (seed: false): Cinder still needs a default type to create volumes. */
export function seedMinimal(sim: Sim): void {
  const id = uuid();
  sim.cinder.types.set(id, { id, name: '__DEFAULT__', description: 'Default Volume Type', isPublic: true, extraSpecs: {} });
  sim.cinder.defaultTypeId = id;
}
