// Ports: address allocation, MACs, security groups, and the device binding Nova and Octavia use.
import { noContent } from '../http.js';
import { macAddress, uuid } from '../ids.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { isObj, member, optArray, optBool, optStr, optStrList, reqStr } from '../validate.js';
import { listResponse, nerr, oneResponse, registerTags, requireMember, stdView, touch, visible } from './common.js';
import type { Port } from './model.js';
import { contains, parseCidr, parseIp } from './ip.js';
import { allocateIp, findNetwork, releaseIp } from './networks.js';
import { ensureDefaultSecurityGroup } from './security-groups.js';

export function portView(p: Port, admin: boolean): Record<string, unknown> {
  return {
    ...stdView(p), network_id: p.networkId, mac_address: p.macAddress, fixed_ips: p.fixedIps.map((f) => ({ ...f })),
    device_id: p.deviceId, device_owner: p.deviceOwner, admin_state_up: p.adminStateUp, status: p.status,
    security_groups: [...p.securityGroups], allowed_address_pairs: p.allowedAddressPairs.map((a) => ({ ...a })),
    port_security_enabled: p.portSecurity, 'binding:vnic_type': p.vnicType, extra_dhcp_opts: [], dns_name: '',
    ip_allocation: 'immediate', qos_policy_id: null, qos_network_policy_id: null, propagate_uplink_status: false,
    resource_request: null,
    ...(admin ? {
      'binding:host_id': p.hostId, 'binding:profile': {}, 'binding:vif_type': p.hostId ? 'ovs' : 'unbound',
      'binding:vif_details': p.hostId ? { port_filter: true, connectivity: 'l2' } : {},
    } : {}),
  };
}

export function findPort(ctx: Ctx, id: string): Port {
  const p = ctx.sim.neutron.ports.get(id);
  if (!p || !visible(ctx.auth, p.projectId)) throw nerr(404, 'PortNotFound', `Port ${id} could not be found.`);
  return p;
}

export interface NewPort {
  networkId: string; projectId: string; name?: string; description?: string;
  fixedIps?: Array<{ subnet_id?: string; ip_address?: string }>; macAddress?: string; deviceId?: string;
  deviceOwner?: string; securityGroups?: string[]; portSecurity?: boolean; adminStateUp?: boolean; vnicType?: string;
  allowedAddressPairs?: Array<{ ip_address: string; mac_address: string }>; hostId?: string;
}

function allocateAll(sim: Sim, networkId: string, wanted: NewPort['fixedIps']): Array<{ subnet_id: string; ip_address: string }> {
  const nt = sim.neutron;
  const net = nt.networks.get(networkId);
  if (!net) throw nerr(404, 'NetworkNotFound', `Network ${networkId} could not be found.`);
  const out: Array<{ subnet_id: string; ip_address: string }> = [];
  try {
    if (wanted === undefined) {
      const seen = new Set<number>();
      for (const sid of net.subnetIds) {
        const s = nt.subnets.get(sid);
        if (!s || seen.has(s.ipVersion)) continue;
        seen.add(s.ipVersion);
        out.push({ subnet_id: s.id, ip_address: allocateIp(sim, s) });
      }
      return out;
    }
    for (const w of wanted) {
      let s = w.subnet_id !== undefined ? nt.subnets.get(w.subnet_id) : undefined;
      if (w.subnet_id !== undefined && (!s || s.networkId !== networkId)) throw nerr(400, 'InvalidInput', `Invalid input for operation: Failed to create port on network ${networkId}, because fixed_ips included invalid subnet ${w.subnet_id}.`);
      if (!s && w.ip_address !== undefined) {
        const ip = parseIp(w.ip_address);
        s = ip ? net.subnetIds.map((id) => nt.subnets.get(id)).find((x) => x !== undefined && contains(parseCidr(x.cidr), ip.value) && parseCidr(x.cidr).version === ip.version) : undefined;
        if (!s) throw nerr(400, 'InvalidIpForNetwork', `IP address ${w.ip_address} is not a valid IP for any of the subnets on the specified network.`);
      }
      if (!s) throw nerr(400, 'InvalidInput', 'Invalid input for operation: fixed_ips entries need subnet_id or ip_address.');
      out.push({ subnet_id: s.id, ip_address: allocateIp(sim, s, w.ip_address) });
    }
    return out;
  } catch (e) {
    for (const f of out) releaseIp(sim, f.subnet_id, f.ip_address);
    throw e;
  }
}

export function createPort(sim: Sim, o: NewPort): Port {
  const nt = sim.neutron;
  const net = nt.networks.get(o.networkId);
  if (!net) throw nerr(404, 'NetworkNotFound', `Network ${o.networkId} could not be found.`);
  let mac = o.macAddress;
  if (mac !== undefined && nt.macs.has(mac.toLowerCase())) throw nerr(409, 'MacAddressInUse', `Unable to complete operation for network ${net.id}. The mac address ${mac} is in use.`);
  while (mac === undefined || nt.macs.has(mac)) mac = macAddress();
  const portSecurity = o.portSecurity ?? net.portSecurity;
  const fixedIps = allocateAll(sim, net.id, o.fixedIps);
  const now = sim.now();
  const p: Port = {
    id: uuid(), name: o.name ?? '', description: o.description ?? '', projectId: o.projectId, tags: [], created: now, updated: now,
    revision: 1, networkId: net.id, macAddress: mac.toLowerCase(), fixedIps, deviceId: o.deviceId ?? '', deviceOwner: o.deviceOwner ?? '',
    adminStateUp: o.adminStateUp ?? true,
    securityGroups: portSecurity ? (o.securityGroups ?? [ensureDefaultSecurityGroup(sim, o.projectId).id]) : [],
    allowedAddressPairs: o.allowedAddressPairs ?? [], portSecurity, vnicType: o.vnicType ?? 'normal', hostId: o.hostId ?? '',
    status: o.hostId ? 'ACTIVE' : 'DOWN',
  };
  nt.macs.add(p.macAddress);
  nt.ports.set(p.id, p);
  return p;
}

export function deletePort(sim: Sim, id: string): void {
  const nt = sim.neutron;
  const p = nt.ports.get(id);
  if (!p) return;
  for (const f of p.fixedIps) releaseIp(sim, f.subnet_id, f.ip_address);
  for (const fip of nt.floatingIps.values()) {
    if (fip.portId === id) {
      fip.portId = null;
      fip.fixedIpAddress = null;
      fip.routerId = null;
      touch(sim, fip);
    }
  }
  nt.macs.delete(p.macAddress);
  nt.ports.delete(id);
}

/** Nova's port binding: the port becomes ACTIVE on the host (the sandbox's no-agent driver binds everything). */
export function bindPort(sim: Sim, id: string, deviceId: string, host: string): void {
  const p = sim.neutron.ports.get(id);
  if (!p) return;
  p.deviceId = deviceId;
  p.deviceOwner = 'compute:nova';
  p.hostId = host;
  p.status = 'ACTIVE';
  touch(sim, p);
}

export function unbindPort(sim: Sim, id: string): void {
  const p = sim.neutron.ports.get(id);
  if (!p) return;
  p.deviceId = '';
  p.deviceOwner = '';
  p.hostId = '';
  p.status = 'DOWN';
  touch(sim, p);
}

function securityGroupsFor(ctx: Ctx, ids: string[] | undefined, projectId: string): string[] | undefined {
  if (ids === undefined) return undefined;
  for (const id of ids) {
    const sg = ctx.sim.neutron.securityGroups.get(id);
    if (!sg || (sg.projectId !== projectId && !ctx.auth.isAdmin)) throw nerr(404, 'SecurityGroupNotFound', `Security group ${id} does not exist`);
  }
  return ids;
}

function pairs(b: Record<string, unknown>, mac: string): Array<{ ip_address: string; mac_address: string }> | undefined {
  const raw = optArray(b, 'allowed_address_pairs');
  return raw?.map((x) => {
    if (!isObj(x) || typeof x.ip_address !== 'string') throw nerr(400, 'InvalidInput', 'Invalid input for allowed_address_pairs.');
    return { ip_address: x.ip_address, mac_address: typeof x.mac_address === 'string' ? x.mac_address : mac };
  });
}

function fixedIpsOf(b: Record<string, unknown>): NewPort['fixedIps'] {
  const raw = optArray(b, 'fixed_ips');
  return raw?.map((x) => {
    if (!isObj(x)) throw nerr(400, 'InvalidInput', 'Invalid input for fixed_ips.');
    return { ...(typeof x.subnet_id === 'string' ? { subnet_id: x.subnet_id } : {}), ...(typeof x.ip_address === 'string' ? { ip_address: x.ip_address } : {}) };
  });
}

export function registerPorts(r: Registrar): void {
  r.get('/ports', (ctx) => listResponse(ctx, 'ports', [...ctx.sim.neutron.ports.values()].filter((p) => visible(ctx.auth, p.projectId)),
    (p) => portView(p, ctx.auth.isAdmin)));
  r.get('/ports/:id', (ctx) => oneResponse(ctx, 'port', portView(findPort(ctx, ctx.p('id')), ctx.auth.isAdmin)));
  r.post('/ports', (ctx) => {
    requireMember(ctx.auth);
    const b = member(ctx.req.body, 'port');
    const net = findNetwork(ctx, reqStr(b, 'network_id'));
    if (!ctx.auth.isAdmin && net.projectId !== ctx.auth.projectId && !net.shared) throw nerr(403, 'PolicyNotAuthorized', 'rule:create_port is disallowed by policy');
    const projectId = (ctx.auth.isAdmin ? optStr(b, 'project_id') ?? optStr(b, 'tenant_id') : undefined) ?? ctx.auth.projectId ?? net.projectId;
    const p = createPort(ctx.sim, {
      networkId: net.id, projectId, name: optStr(b, 'name', 255), description: optStr(b, 'description', 255), fixedIps: fixedIpsOf(b),
      macAddress: optStr(b, 'mac_address'), deviceId: optStr(b, 'device_id'), deviceOwner: optStr(b, 'device_owner'),
      securityGroups: securityGroupsFor(ctx, optStrList(b, 'security_groups'), projectId), portSecurity: optBool(b, 'port_security_enabled'),
      adminStateUp: optBool(b, 'admin_state_up'), vnicType: optStr(b, 'binding:vnic_type'), allowedAddressPairs: pairs(b, ''),
      hostId: ctx.auth.isAdmin ? optStr(b, 'binding:host_id') : undefined,
    });
    for (const a of p.allowedAddressPairs) if (!a.mac_address) a.mac_address = p.macAddress;
    return oneResponse(ctx, 'port', portView(p, ctx.auth.isAdmin), 201);
  });
  r.put('/ports/:id', (ctx) => {
    const p = findPort(ctx, ctx.p('id'));
    requireMember(ctx.auth);
    const b = member(ctx.req.body, 'port');
    const wanted = fixedIpsOf(b);
    if (wanted !== undefined) {
      for (const f of p.fixedIps) releaseIp(ctx.sim, f.subnet_id, f.ip_address);
      const old = p.fixedIps;
      try {
        p.fixedIps = allocateAll(ctx.sim, p.networkId, wanted);
      } catch (e) {
        for (const f of old) ctx.sim.neutron.subnets.get(f.subnet_id)?.used.add(f.ip_address);
        throw e;
      }
    }
    p.name = optStr(b, 'name', 255) ?? p.name;
    p.description = optStr(b, 'description', 255) ?? p.description;
    p.deviceId = optStr(b, 'device_id') ?? p.deviceId;
    p.deviceOwner = optStr(b, 'device_owner') ?? p.deviceOwner;
    p.adminStateUp = optBool(b, 'admin_state_up') ?? p.adminStateUp;
    p.portSecurity = optBool(b, 'port_security_enabled') ?? p.portSecurity;
    p.securityGroups = securityGroupsFor(ctx, optStrList(b, 'security_groups'), p.projectId) ?? p.securityGroups;
    p.allowedAddressPairs = pairs(b, p.macAddress) ?? p.allowedAddressPairs;
    if (ctx.auth.isAdmin && typeof b['binding:host_id'] === 'string') {
      p.hostId = b['binding:host_id'];
      p.status = p.hostId ? 'ACTIVE' : 'DOWN';
    }
    touch(ctx.sim, p);
    return oneResponse(ctx, 'port', portView(p, ctx.auth.isAdmin));
  });
  r.del('/ports/:id', (ctx) => {
    const p = findPort(ctx, ctx.p('id'));
    requireMember(ctx.auth);
    deletePort(ctx.sim, p.id);
    return noContent();
  });
  registerTags(r, 'ports', findPort);
}
