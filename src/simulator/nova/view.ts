// How Nova renders a server: status derived from vm_state + task_state (nova/api/openstack/common.py's
// state map), fields gated by microversion, admin-only attributes, and the knob that hides task_state.
import type { Ctx } from '../router.js';
import { isoMicros, isoSeconds, sha224 } from '../ids.js';
import { atLeast } from '../microversion.js';
import type { Sim } from '../state.js';
import type { Server } from './model.js';

const REBUILD = { rebuilding: 'REBUILD', rebuild_block_device_mapping: 'REBUILD', rebuild_spawning: 'REBUILD' };
const RESIZE = { resize_prep: 'RESIZE', resize_migrating: 'RESIZE', resize_migrated: 'RESIZE', resize_finish: 'RESIZE' };
const STATE_MAP: Record<string, Record<string, string>> = {
  active: {
    default: 'ACTIVE', rebooting: 'REBOOT', reboot_pending: 'REBOOT', reboot_started: 'REBOOT', rebooting_hard: 'HARD_REBOOT',
    reboot_pending_hard: 'HARD_REBOOT', reboot_started_hard: 'HARD_REBOOT', updating_password: 'PASSWORD', migrating: 'MIGRATING',
    ...REBUILD, ...RESIZE,
  },
  building: { default: 'BUILD' },
  stopped: { default: 'SHUTOFF', ...REBUILD, ...RESIZE },
  resized: { default: 'VERIFY_RESIZE', resize_reverting: 'REVERT_RESIZE' },
  paused: { default: 'PAUSED', migrating: 'MIGRATING' },
  suspended: { default: 'SUSPENDED' },
  rescued: { default: 'RESCUE' },
  error: { default: 'ERROR', ...REBUILD },
  deleted: { default: 'DELETED' },
  soft_deleted: { default: 'SOFT_DELETED' },
  shelved: { default: 'SHELVED' },
  shelved_offloaded: { default: 'SHELVED_OFFLOADED' },
};

export function serverStatus(vmState: string, taskState: string | null): string {
  const m = STATE_MAP[vmState];
  if (!m) return 'UNKNOWN';
  return (taskState !== null ? m[taskState] : undefined) ?? m.default ?? 'UNKNOWN';
}

/** Status → the vm_states it may come from, for the `status=` filter. */
export function statusMatches(s: Server, wanted: string[]): boolean {
  const st = serverStatus(s.vmState, s.taskState);
  return wanted.some((w) => w.toUpperCase() === st);
}

const hostIds = new Map<string, string>();
/** Nova's hostId: sha224(project + host); memoised because list views render thousands of servers. */
function hostId(projectId: string, host: string): string {
  const key = `${projectId}${host}`;
  let v = hostIds.get(key);
  if (v === undefined) {
    v = sha224(key);
    if (hostIds.size > 10_000) hostIds.clear();
    hostIds.set(key, v);
  }
  return v;
}

const PROGRESS = new Set(['ACTIVE', 'BUILD', 'REBUILD', 'RESIZE', 'VERIFY_RESIZE', 'MIGRATING']);

export function serverLinks(sim: Sim, id: string): unknown[] {
  return [{ rel: 'self', href: sim.url(`/compute/v2.1/servers/${id}`) }, { rel: 'bookmark', href: sim.url(`/compute/servers/${id}`) }];
}

/** Network name → addresses, from the server's Neutron ports (Nova's network info cache). */
export function addresses(sim: Sim, s: Server, extended: boolean): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  // The info cache is filled when networking finishes; until then Nova shows no addresses.
  if (s.vmState === 'building' && s.taskState !== 'spawning') return out;
  const nt = sim.neutron;
  for (const pid of s.portIds) {
    const port = nt.ports.get(pid);
    if (!port) continue;
    const net = nt.networks.get(port.networkId);
    const list = out[net?.name ?? port.networkId] ?? (out[net?.name ?? port.networkId] = []);
    for (const f of port.fixedIps) {
      const version = f.ip_address.includes(':') ? 6 : 4;
      list.push(extended ? { version, addr: f.ip_address, 'OS-EXT-IPS:type': 'fixed', 'OS-EXT-IPS-MAC:mac_addr': port.macAddress } : { version, addr: f.ip_address });
    }
    if (nt.floatingIps.size === 0) continue;
    for (const fip of nt.floatingIps.values()) {
      if (fip.portId !== port.id) continue;
      list.push(extended ? { version: 4, addr: fip.floatingIpAddress, 'OS-EXT-IPS:type': 'floating', 'OS-EXT-IPS-MAC:mac_addr': port.macAddress } : { version: 4, addr: fip.floatingIpAddress });
    }
  }
  return out;
}

export function serverView(ctx: Ctx, s: Server, opts: { withGroups?: boolean } = {}): Record<string, unknown> {
  const sim = ctx.sim;
  const mv = ctx.mv;
  const admin = ctx.auth.isAdmin;
  const status = serverStatus(s.vmState, s.taskState);
  const f = s.flavor;
  const v: Record<string, unknown> = {
    id: s.id, name: s.name, status, tenant_id: s.projectId, user_id: s.userId, metadata: { ...s.metadata },
    hostId: s.host ? hostId(s.projectId, s.host) : '',
    image: s.imageId === '' ? '' : { id: s.imageId, links: [{ rel: 'bookmark', href: sim.url(`/compute/images/${s.imageId}`) }] },
    flavor: atLeast(mv, '2.47')
      ? { vcpus: f.vcpus, ram: f.ram, disk: f.disk, ephemeral: f.ephemeral, swap: f.swap, original_name: f.name, extra_specs: { ...f.extraSpecs } }
      : { id: f.id, links: [{ rel: 'bookmark', href: sim.url(`/compute/flavors/${f.id}`) }] },
    created: isoSeconds(s.created), updated: isoSeconds(s.updated), addresses: addresses(sim, s, true),
    accessIPv4: s.accessIPv4, accessIPv6: s.accessIPv6, links: serverLinks(sim, s.id), 'OS-DCF:diskConfig': 'MANUAL',
    'OS-EXT-AZ:availability_zone': s.vmState === 'building' && s.host === null ? '' : s.az, config_drive: s.configDrive, key_name: s.keyName,
    'OS-SRV-USG:launched_at': s.launchedAt === null ? null : isoMicros(s.launchedAt), 'OS-SRV-USG:terminated_at': null,
    'OS-EXT-STS:task_state': s.taskState, 'OS-EXT-STS:vm_state': s.vmState, 'OS-EXT-STS:power_state': s.powerState,
    'os-extended-volumes:volumes_attached': s.bdms.map((b) => (atLeast(mv, '2.3') ? { id: b.volumeId, delete_on_termination: b.deleteOnTermination } : { id: b.volumeId })),
    security_groups: s.securityGroups.map((name) => ({ name })),
  };
  if (sim.config.nova.hideTaskState) delete v['OS-EXT-STS:task_state'];
  if (PROGRESS.has(status)) v.progress = 0;
  if ((status === 'ERROR' || status === 'DELETED') && s.fault) {
    v.fault = { code: s.fault.code, created: isoSeconds(s.fault.created), message: s.fault.message, ...(admin ? { details: 'Traceback (most recent call last): (simulated)' } : {}) };
  }
  if (admin) {
    v['OS-EXT-SRV-ATTR:host'] = s.host;
    v['OS-EXT-SRV-ATTR:hypervisor_hostname'] = s.nodeName;
    v['OS-EXT-SRV-ATTR:instance_name'] = `instance-${s.seq.toString(16).padStart(8, '0')}`;
    if (atLeast(mv, '2.3')) {
      Object.assign(v, {
        'OS-EXT-SRV-ATTR:reservation_id': s.reservationId, 'OS-EXT-SRV-ATTR:launch_index': 0, 'OS-EXT-SRV-ATTR:kernel_id': '',
        'OS-EXT-SRV-ATTR:ramdisk_id': '', 'OS-EXT-SRV-ATTR:hostname': s.name.toLowerCase().replace(/[^a-z0-9-]/g, '-'),
        'OS-EXT-SRV-ATTR:root_device_name': '/dev/sda', 'OS-EXT-SRV-ATTR:user_data': s.userData,
      });
    }
  }
  if (atLeast(mv, '2.9')) v.locked = s.locked;
  if (atLeast(mv, '2.16') && admin) v.host_status = s.host ? 'UP' : '';
  if (atLeast(mv, '2.19')) v.description = s.description;
  if (atLeast(mv, '2.26')) v.tags = [...s.tags];
  if (atLeast(mv, '2.63')) v.trusted_image_certificates = null;
  if (atLeast(mv, '2.71') && opts.withGroups) v.server_groups = s.serverGroupId ? [s.serverGroupId] : [];
  if (atLeast(mv, '2.73')) v.locked_reason = s.lockedReason;
  if (atLeast(mv, '2.96')) v.pinned_availability_zone = null;
  return v;
}
