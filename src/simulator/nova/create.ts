// Server creation: request validation in Nova's order and wording, ports in Neutron, boot volumes in
// Cinder, quota accounting. createServer() is shared with the programmatic seeding API.
import type { AuthContext } from '../auth.js';
import { SimError } from '../http.js';
import { uuid } from '../ids.js';
import { atLeast } from '../microversion.js';
import type { Ctx } from '../router.js';
import type { Sim } from '../state.js';
import { isObj, optArray, optBool, optInt, optStr, optStrList, optStrMap } from '../validate.js';
import { checkMetadataKeys } from './metadata.js';
import type { Json } from '../validate.js';
import { imageVisible } from '../glance/images.js';
import { reserve } from '../cinder/attachments.js';
import { createVolume } from '../cinder/volumes.js';
import { createPort } from '../neutron/ports.js';
import { ensureDefaultSecurityGroup } from '../neutron/security-groups.js';
import { COMPUTE_HOST, usageOf } from './lifecycle.js';
import { DEFAULT_QUOTAS, POWER, keypairKey } from './model.js';
import type { Bdm, Flavor, FlavorSnapshot, Server } from './model.js';

export interface NetRequest { uuid?: string; port?: string; fixedIp?: string }
export interface BdmRequest { volumeId: string; bootIndex: number | null; deleteOnTermination: boolean; device: string; tag: string | null }

export interface NewServer {
  name: string; projectId: string; userId: string; flavor: Flavor; imageId: string; keyName?: string | null;
  userData?: string | null; metadata?: Record<string, string>; securityGroups?: string[]; networks?: NetRequest[];
  bdms?: BdmRequest[]; description?: string | null; tags?: string[]; serverGroupId?: string | null; accessIPv4?: string;
  accessIPv6?: string; configDrive?: string; reservationId?: string; requestedHost?: string | null; requestedNode?: string | null;
  /** Programmatic seeding only: create already ACTIVE (launched) instead of walking BUILD. */
  active?: boolean;
}

export const snapshotFlavor = (f: Flavor): FlavorSnapshot => ({
  id: f.id, name: f.name, vcpus: f.vcpus, ram: f.ram, disk: f.disk, ephemeral: f.ephemeral, swap: f.swap, extraSpecs: { ...f.extraSpecs },
});

export function createServer(sim: Sim, o: NewServer): Server {
  const now = sim.now();
  const s: Server = {
    id: uuid(), seq: sim.nova.nextSeq++, name: o.name, projectId: o.projectId, userId: o.userId, created: now, updated: now, gen: 0,
    vmState: o.active ? 'active' : 'building', taskState: o.active ? null : 'scheduling', powerState: o.active ? POWER.RUNNING : POWER.NOSTATE,
    launchedAt: o.active ? now : null, imageId: o.imageId, flavor: snapshotFlavor(o.flavor), keyName: o.keyName ?? null,
    userData: o.userData ?? null, metadata: o.metadata ?? {}, tags: o.tags ?? [], description: o.description ?? null,
    host: o.active ? COMPUTE_HOST : null, nodeName: o.active ? COMPUTE_HOST : null, az: 'nova', configDrive: o.configDrive ?? '',
    securityGroups: o.securityGroups ?? ['default'], portIds: [], ownedPortIds: [], bdms: [], fault: null, locked: false,
    lockedReason: null, accessIPv4: o.accessIPv4 ?? '', accessIPv6: o.accessIPv6 ?? '', serverGroupId: o.serverGroupId ?? null,
    reservationId: o.reservationId ?? `r-${uuid().slice(0, 8)}`, actions: [], rpUuid: null,
    requestedHost: o.requestedHost ?? null, requestedNode: o.requestedNode ?? null,
  };
  const sgIds = (o.securityGroups ?? ['default']).map((name) => securityGroupId(sim, o.projectId, name));
  const created: string[] = [];
  try {
    for (const n of o.networks ?? []) {
      if (n.port) {
        const p = sim.neutron.ports.get(n.port);
        if (p) { p.deviceId = s.id; p.deviceOwner = 'compute:nova'; }
        s.portIds.push(n.port);
        continue;
      }
      const p = createPort(sim, {
        networkId: n.uuid ?? '', projectId: o.projectId, fixedIps: n.fixedIp ? [{ ip_address: n.fixedIp }] : undefined,
        deviceId: s.id, deviceOwner: 'compute:nova', securityGroups: sgIds, hostId: o.active ? COMPUTE_HOST : undefined,
      });
      created.push(p.id);
      s.portIds.push(p.id);
      s.ownedPortIds.push(p.id);
    }
  } catch (e) {
    for (const id of created) sim.neutron.ports.delete(id);
    throw e;
  }
  for (const b of o.bdms ?? []) {
    const v = sim.cinder.volumes.get(b.volumeId);
    if (!v) continue;
    const a = reserve(sim, v, s.id);
    const bdm: Bdm = { id: uuid(), volumeId: v.id, device: b.device, bootIndex: b.bootIndex, deleteOnTermination: b.deleteOnTermination, tag: b.tag, attachmentId: a.id };
    s.bdms.push(bdm);
  }
  sim.nova.servers.set(s.id, s);
  if (s.serverGroupId) sim.nova.serverGroups.get(s.serverGroupId)?.members.push(s.id);
  const u = usageOf(sim, s.projectId);
  u.instances++;
  u.cores += s.flavor.vcpus;
  u.ram += s.flavor.ram;
  return s;
}

function securityGroupId(sim: Sim, projectId: string, name: string): string {
  if (name === 'default') return ensureDefaultSecurityGroup(sim, projectId).id;
  const byId = sim.neutron.securityGroups.get(name);
  if (byId && byId.projectId === projectId) return byId.id;
  const matches = [...sim.neutron.securityGroups.values()].filter((g) => g.projectId === projectId && g.name === name);
  if (matches.length > 1) throw new SimError(409, `Multiple security groups found matching '${name}'. Use an ID to be more specific.`);
  const g = matches[0];
  if (!g) throw new SimError(400, `Security group ${name} not found.`);
  return g.id;
}

export function quotaOf(sim: Sim, projectId: string): Record<string, number> {
  return { ...DEFAULT_QUOTAS, ...(sim.nova.quotas.get(projectId) ?? {}) };
}

export function checkQuota(sim: Sim, projectId: string, flavor: Flavor, count: number): void {
  const q = quotaOf(sim, projectId);
  const u = usageOf(sim, projectId);
  const checks: Array<[string, number, number, number]> = [
    ['instances', count, u.instances, q.instances ?? -1], ['cores', flavor.vcpus * count, u.cores, q.cores ?? -1], ['ram', flavor.ram * count, u.ram, q.ram ?? -1],
  ];
  for (const [res, want, used, limit] of checks) {
    if (limit >= 0 && used + want > limit) {
      throw new SimError(403, `Quota exceeded for ${res}: Requested ${want}, but already used ${used} of ${limit} ${res}`);
    }
  }
}

function resolveNetworks(ctx: Ctx, raw: unknown, projectId: string): NetRequest[] {
  const nt = ctx.sim.neutron;
  const mine = () => [...nt.networks.values()].filter((n) => !n.external && (n.projectId === projectId || n.shared));
  if (raw === 'none') return [];
  if (raw === undefined || raw === 'auto') {
    const nets = mine();
    if (nets.length > 1) throw new SimError(409, 'Multiple possible networks found, use a Network ID to be more specific.');
    const only = nets[0];
    if (!only) {
      if (raw === 'auto') throw new SimError(400, `Unable to automatically allocate a network for project ${projectId}`);
      return [];
    }
    return [{ uuid: only.id }];
  }
  if (!Array.isArray(raw)) throw new SimError(400, `Invalid input for field/attribute networks. Value: ${JSON.stringify(raw)}. ${JSON.stringify(raw)} is not valid under any of the given schemas`);
  return raw.map((n) => {
    if (!isObj(n)) throw new SimError(400, 'Bad networks format');
    if (typeof n.port === 'string') {
      const p = nt.ports.get(n.port);
      if (!p || (!ctx.auth.isAdmin && p.projectId !== projectId)) throw new SimError(400, `Port id ${n.port} could not be found.`);
      if (p.deviceId) throw new SimError(409, `Port ${n.port} is still in use.`);
      return { port: p.id };
    }
    if (typeof n.uuid !== 'string') throw new SimError(400, 'Bad networks format: network uuid is not in proper format');
    const net = nt.networks.get(n.uuid);
    if (!net || !(ctx.auth.isAdmin || net.projectId === projectId || net.shared)) throw new SimError(400, `Network ${n.uuid} could not be found.`);
    return { uuid: net.id, ...(typeof n.fixed_ip === 'string' ? { fixedIp: n.fixed_ip } : {}) };
  });
}

function resolveBdms(ctx: Ctx, raw: unknown[] | undefined, projectId: string): { bdms: BdmRequest[]; bootImage: string | null; bootFromVolume: boolean } {
  const out: BdmRequest[] = [];
  let bootImage: string | null = null;
  let bfv = false;
  let letter = 0;
  for (const x of raw ?? []) {
    if (!isObj(x)) throw new SimError(400, 'Block Device Mapping is Invalid: malformed entry.');
    const bootIndex = optInt(x, 'boot_index') ?? null;
    const source = optStr(x, 'source_type') ?? 'volume';
    const dest = optStr(x, 'destination_type') ?? (source === 'image' && bootIndex === 0 ? 'local' : 'volume');
    const id = optStr(x, 'uuid');
    const dot = optBool(x, 'delete_on_termination') ?? false;
    if (source === 'image' && dest === 'local') { bootImage = id ?? null; continue; }
    let volumeId: string;
    if (source === 'volume') {
      const v = id ? ctx.sim.cinder.volumes.get(id) : undefined;
      if (!v || (!ctx.auth.isAdmin && v.projectId !== projectId)) throw new SimError(400, `Block Device Mapping is Invalid: failed to get volume ${id ?? ''}.`);
      volumeId = v.id;
    } else if (source === 'image' || source === 'blank') {
      const size = optInt(x, 'volume_size', 1);
      if (size === undefined) throw new SimError(400, 'Block Device Mapping is Invalid: You specified more local devices than the limit allows');
      if (source === 'image') {
        const img = id ? ctx.sim.glance.images.get(id) : undefined;
        if (!img || !imageVisible(ctx.auth, img)) throw new SimError(400, `Block Device Mapping is Invalid: failed to get image ${id ?? ''}.`);
      }
      volumeId = createVolume(ctx.sim, { projectId, userId: ctx.auth.userId, size, name: '', imageId: source === 'image' ? id ?? null : null, status: 'available' }).id;
      if (source === 'image') { const v = ctx.sim.cinder.volumes.get(volumeId); if (v) v.bootable = true; }
    } else {
      throw new SimError(400, `Block Device Mapping is Invalid: source_type ${source} is not supported by the simulator.`);
    }
    if (bootIndex === 0) bfv = true;
    out.push({ volumeId, bootIndex, deleteOnTermination: dot, device: bootIndex === 0 ? '/dev/sda' : `/dev/sd${String.fromCharCode(98 + letter++)}`, tag: optStr(x, 'tag') ?? null });
  }
  return { bdms: out, bootImage, bootFromVolume: bfv };
}

const SERVER_KEYS = new Set(['name', 'imageRef', 'flavorRef', 'networks', 'key_name', 'user_data', 'metadata', 'security_groups',
  'block_device_mapping_v2', 'availability_zone', 'min_count', 'max_count', 'return_reservation_id', 'description', 'tags', 'config_drive',
  'accessIPv4', 'accessIPv6', 'adminPass', 'OS-DCF:diskConfig', 'personality', 'trusted_image_certificates', 'host', 'hypervisor_hostname', 'hostname']);

/** 2.74 `host` / `hypervisor_hostname` (and the legacy `availability_zone: "nova:host:node"`): admin only. */
function requestedDestination(ctx: Ctx, b: Json): { host: string | null; node: string | null } {
  let host = atLeast(ctx.mv, '2.74') ? optStr(b, 'host') ?? null : null;
  let node = atLeast(ctx.mv, '2.74') ? optStr(b, 'hypervisor_hostname') ?? null : null;
  const az = optStr(b, 'availability_zone');
  if (az?.includes(':')) {
    const [, h, n] = az.split(':');
    host = h || host;
    node = n || node;
  }
  if (host === null && node === null) return { host, node };
  if (!ctx.auth.isAdmin) throw new SimError(403, "Policy doesn't allow compute:servers:create:requested_destination to be performed.");
  const nova = ctx.sim.nova;
  if (host !== null && ![...nova.services.values()].some((s) => s.binary === 'nova-compute' && s.host === host)) throw new SimError(400, `Compute host ${host} could not be found.`);
  if (node !== null && ![...nova.hypervisors.values()].some((h) => h.hostname === node)) throw new SimError(400, `Compute host node ${node} could not be found.`);
  return { host, node };
}

export interface CreateResult { servers: Server[]; adminPass: string; reservationId: string; returnReservationId: boolean }

export function createFromRequest(ctx: Ctx, b: Json): CreateResult {
  const sim = ctx.sim;
  const auth: AuthContext = ctx.auth;
  const projectId = auth.projectId ?? '';
  for (const k of Object.keys(b)) {
    if (!SERVER_KEYS.has(k)) throw new SimError(400, `Invalid input for field/attribute server. Value: ${JSON.stringify(b)}. Additional properties are not allowed ('${k}' was unexpected)`);
  }
  const name = optStr(b, 'name', 255);
  if (!name || !name.trim()) throw new SimError(400, `Invalid input for field/attribute name. Value: ${JSON.stringify(name ?? null)}. ${name === undefined ? "'name' is a required property" : "'' is too short"}`);
  const flavorRef = optStr(b, 'flavorRef');
  if (flavorRef === undefined) throw new SimError(400, "Invalid input for field/attribute server. Value: {...}. 'flavorRef' is a required property");
  if (atLeast(ctx.mv, '2.37') && b.networks === undefined) throw new SimError(400, "Invalid input for field/attribute server. Value: {...}. 'networks' is a required property");
  const flavorId = flavorRef.split('/').pop() ?? '';
  const flavor = sim.nova.flavors.get(flavorId);
  if (!flavor) throw new SimError(400, 'Invalid flavorRef provided.');
  const { bdms, bootImage, bootFromVolume } = resolveBdms(ctx, optArray(b, 'block_device_mapping_v2'), projectId);
  let imageId = optStr(b, 'imageRef')?.split('/').pop() ?? bootImage ?? '';
  if (bootFromVolume) imageId = '';
  if (!bootFromVolume) {
    if (!imageId) throw new SimError(400, 'Missing imageRef attribute');
    const img = sim.glance.images.get(imageId);
    if (!img || !imageVisible(auth, img)) throw new SimError(400, `Image ${imageId} could not be found.`);
    if (img.status !== 'active') throw new SimError(400, `Image ${imageId} is not active.`);
  }
  const keyName = optStr(b, 'key_name');
  if (keyName !== undefined && !sim.nova.keypairs.has(keypairKey(auth.userId, keyName))) throw new SimError(400, 'Invalid key_name provided.');
  const userData = optStr(b, 'user_data');
  if (userData !== undefined && !/^[A-Za-z0-9+/=\s]*$/.test(userData)) throw new SimError(400, 'Invalid input for field/attribute user_data. Value: ... is not a \'base64\'');
  const networks = resolveNetworks(ctx, b.networks, projectId);
  const sgs = optArray(b, 'security_groups')?.map((x) => (isObj(x) && typeof x.name === 'string' ? x.name : '')) ?? ['default'];
  const az = optStr(b, 'availability_zone');
  if (az !== undefined && az.split(':')[0] !== 'nova') throw new SimError(400, `The requested availability zone is not available`);
  const minCount = optInt(b, 'min_count', 1) ?? 1;
  const maxCount = optInt(b, 'max_count', 1) ?? minCount;
  if (maxCount < minCount) throw new SimError(400, 'min_count must be <= max_count');
  if (maxCount > 1 && networks.some((n) => n.port)) throw new SimError(400, 'Unable to launch multiple instances with a single configured port ID. Please launch your instance one by one with different ports.');
  // Nova takes the hints under either key (`OS-SCH-HNT:scheduler_hints` is the one Regent's client sends)
  const body = isObj(ctx.req.body) ? ctx.req.body : {};
  const hintsOf = (key: string) => (isObj(body[key]) ? (body[key] as Json) : undefined);
  const hints = hintsOf('os:scheduler_hints') ?? hintsOf('OS-SCH-HNT:scheduler_hints') ?? {};
  const groupId = typeof hints.group === 'string' ? hints.group : null;
  if (groupId && !sim.nova.serverGroups.has(groupId)) throw new SimError(400, `Invalid server group ${groupId}`);
  const { host, node } = requestedDestination(ctx, b);
  const metadata = optStrMap(b, 'metadata');
  if (metadata) checkMetadataKeys('metadata', metadata);
  checkQuota(sim, projectId, flavor, maxCount);
  const reservationId = `r-${uuid().slice(0, 8)}`;
  const servers: Server[] = [];
  for (let i = 1; i <= maxCount; i++) {
    servers.push(createServer(sim, {
      name: maxCount > 1 ? `${name}-${i}` : name, projectId, userId: auth.userId, flavor, imageId, keyName: keyName ?? null,
      userData: userData ?? null, metadata, securityGroups: sgs, networks,
      bdms: i === 1 ? bdms : [], description: atLeast(ctx.mv, '2.19') ? optStr(b, 'description') ?? null : null,
      tags: atLeast(ctx.mv, '2.52') ? optStrList(b, 'tags') : undefined, serverGroupId: groupId, accessIPv4: optStr(b, 'accessIPv4'),
      accessIPv6: optStr(b, 'accessIPv6'), configDrive: b.config_drive === true ? 'True' : '', reservationId,
      requestedHost: host, requestedNode: node,
    }));
  }
  return { servers, adminPass: optStr(b, 'adminPass') ?? uuid().replace(/-/g, '').slice(0, 12), reservationId, returnReservationId: b.return_reservation_id === true };
}
