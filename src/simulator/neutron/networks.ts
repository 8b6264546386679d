// Networks and subnets, plus address allocation on a subnet (used by ports, Nova and Octavia).
import { noContent } from '../http.js';
import { uuid } from '../ids.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { isObj, member, optArray, optBool, optInt, optNullableStr, optStr, optStrList, reqStr } from '../validate.js';
import { listResponse, nerr, oneResponse, registerTags, requireMember, stdView, touch, visible } from './common.js';
import { allocate, cidrString, contains, defaultPool, formatIp, parseCidr, parseIp } from './ip.js';
import type { Network, Subnet } from './model.js';

export function networkView(sim: Sim, n: Network, admin: boolean): Record<string, unknown> {
  return {
    ...stdView(n), admin_state_up: n.adminStateUp, status: 'ACTIVE', subnets: [...n.subnetIds], shared: n.shared,
    'router:external': n.external, mtu: n.mtu, availability_zone_hints: [], availability_zones: ['nova'],
    ipv4_address_scope: null, ipv6_address_scope: null, port_security_enabled: n.portSecurity, qos_policy_id: null,
    is_default: n.isDefault, l2_adjacency: true, dns_domain: '',
    ...(admin ? { 'provider:network_type': n.providerType, 'provider:physical_network': n.providerPhysnet, 'provider:segmentation_id': n.providerSegment } : {}),
  };
}

export function subnetView(s: Subnet): Record<string, unknown> {
  return {
    ...stdView(s), network_id: s.networkId, cidr: s.cidr, ip_version: s.ipVersion, gateway_ip: s.gatewayIp,
    allocation_pools: s.pools.map((p) => ({ ...p })), enable_dhcp: s.enableDhcp, dns_nameservers: [...s.dnsNameservers],
    host_routes: s.hostRoutes.map((h) => ({ ...h })), ipv6_ra_mode: null, ipv6_address_mode: null, subnetpool_id: null,
    service_types: [], segment_id: null, dns_publish_fixed_ip: false,
  };
}

/** Visible to its project, admins, and everyone when shared or external. */
export const networkVisible = (ctx: Ctx, n: Network): boolean => visible(ctx.auth, n.projectId) || n.shared || n.external;

export function findNetwork(ctx: Ctx, id: string): Network {
  const n = ctx.sim.neutron.networks.get(id);
  if (!n || !networkVisible(ctx, n)) throw nerr(404, 'NetworkNotFound', `Network ${id} could not be found.`);
  return n;
}

export function findSubnet(ctx: Ctx, id: string): Subnet {
  const s = ctx.sim.neutron.subnets.get(id);
  const n = s ? ctx.sim.neutron.networks.get(s.networkId) : undefined;
  if (!s || !n || !(visible(ctx.auth, s.projectId) || n.shared || n.external)) throw nerr(404, 'SubnetNotFound', `Subnet ${id} could not be found.`);
  return s;
}

function ownedForWrite(ctx: Ctx, projectId: string, kind: string, id: string): void {
  if (!visible(ctx.auth, projectId)) throw nerr(404, `${kind}NotFound`, `${kind} ${id} could not be found.`);
  requireMember(ctx.auth);
}

export interface NewNetwork {
  name: string; projectId: string; shared?: boolean; external?: boolean; mtu?: number; description?: string;
  /** A fixed id (the seed's public network, which the examples name). */
  id?: string;
  providerType?: string; physnet?: string | null; segment?: number | null; portSecurity?: boolean; adminStateUp?: boolean;
}

export function createNetwork(sim: Sim, o: NewNetwork): Network {
  const now = sim.now();
  const n: Network = {
    id: o.id ?? uuid(), name: o.name, description: o.description ?? '', projectId: o.projectId, tags: [], created: now, updated: now,
    revision: 1, adminStateUp: o.adminStateUp ?? true, shared: o.shared ?? false, external: o.external ?? false,
    mtu: o.mtu ?? 1450, portSecurity: o.portSecurity ?? true, providerType: o.providerType ?? (o.external ? 'flat' : 'vxlan'),
    providerPhysnet: o.physnet ?? (o.external ? 'public' : null), providerSegment: o.segment ?? (o.external ? null : 1000 + sim.neutron.networks.size),
    subnetIds: [], isDefault: false,
  };
  sim.neutron.networks.set(n.id, n);
  return n;
}

export interface NewSubnet {
  networkId: string; cidr: string; projectId: string; name?: string; ipVersion?: 4 | 6; gatewayIp?: string | null; id?: string;
  pools?: Array<{ start: string; end: string }>; enableDhcp?: boolean; dns?: string[]; description?: string;
}

export function createSubnet(sim: Sim, o: NewSubnet): Subnet {
  const net = sim.neutron.networks.get(o.networkId);
  if (!net) throw nerr(404, 'NetworkNotFound', `Network ${o.networkId} could not be found.`);
  const c = parseCidr(o.cidr);
  if (o.ipVersion !== undefined && o.ipVersion !== c.version) throw nerr(400, 'InvalidInput', `Invalid input for operation: Cidr ${o.cidr} does not match ip_version ${o.ipVersion}.`);
  for (const sid of net.subnetIds) {
    const other = sim.neutron.subnets.get(sid);
    if (!other) continue;
    const oc = parseCidr(other.cidr);
    if (oc.version === c.version && (contains(oc, c.base) || contains(c, oc.base))) {
      throw nerr(400, 'InvalidInput', `Invalid input for operation: Requested subnet with cidr: ${cidrString(c)} for network: ${net.id} overlaps with another subnet.`);
    }
  }
  let gw: bigint | null = c.base + 1n;
  if (o.gatewayIp === null) gw = null;
  else if (o.gatewayIp !== undefined) {
    const g = parseIp(o.gatewayIp);
    if (!g || g.version !== c.version || !contains(c, g.value)) throw nerr(400, 'InvalidInput', `Invalid input for operation: Gateway IP ${o.gatewayIp} conflicts with the subnet ${cidrString(c)}.`);
    gw = g.value;
  }
  const pools = o.pools ?? defaultPool(c, gw);
  for (const p of pools) {
    const s = parseIp(p.start);
    const e = parseIp(p.end);
    if (!s || !e || !contains(c, s.value) || !contains(c, e.value) || e.value < s.value) {
      throw nerr(400, 'InvalidAllocationPool', `The allocation pool ${p.start}-${p.end} spans beyond the subnet cidr ${cidrString(c)}.`);
    }
  }
  const now = sim.now();
  const s: Subnet = {
    id: o.id ?? uuid(), name: o.name ?? '', description: o.description ?? '', projectId: o.projectId, tags: [], created: now, updated: now,
    revision: 0, networkId: net.id, cidr: cidrString(c), ipVersion: c.version, gatewayIp: gw === null ? null : formatIp(c.version, gw),
    pools, enableDhcp: o.enableDhcp ?? true, dnsNameservers: o.dns ?? [], hostRoutes: [], used: new Set(), cursor: 0,
  };
  sim.neutron.subnets.set(s.id, s);
  net.subnetIds.push(s.id);
  touch(sim, net);
  return s;
}

/** Takes `requested` (409 if taken) or the next free address (409 IpAddressGenerationFailure when full). */
export function allocateIp(sim: Sim, s: Subnet, requested?: string): string {
  if (requested !== undefined) {
    const ip = parseIp(requested);
    if (!ip || ip.version !== s.ipVersion || !contains(parseCidr(s.cidr), ip.value)) {
      throw nerr(400, 'InvalidIpForSubnet', `IP address ${requested} is not a valid IP for the specified subnet.`);
    }
    const norm = formatIp(ip.version, ip.value);
    if (s.used.has(norm)) throw nerr(409, 'IpAddressAlreadyAllocated', `IP address ${norm} already allocated in subnet ${s.id}`);
    s.used.add(norm);
    return norm;
  }
  const a = allocate(s.ipVersion, s.pools, s.used, s.cursor);
  if (!a) throw nerr(409, 'IpAddressGenerationFailure', `No more IP addresses available on network ${s.networkId}.`);
  s.used.add(a.ip);
  s.cursor = a.cursor;
  return a.ip;
}

export function releaseIp(sim: Sim, subnetId: string, ip: string): void {
  sim.neutron.subnets.get(subnetId)?.used.delete(ip);
}

function parsePools(b: Record<string, unknown>): Array<{ start: string; end: string }> | undefined {
  const raw = optArray(b, 'allocation_pools');
  if (!raw) return undefined;
  return raw.map((p) => {
    if (!isObj(p) || typeof p.start !== 'string' || typeof p.end !== 'string') throw nerr(400, 'InvalidInput', 'Invalid input for allocation_pools.');
    return { start: p.start, end: p.end };
  });
}

export function registerNetworks(r: Registrar): void {
  r.get('/networks', (ctx) => listResponse(ctx, 'networks', [...ctx.sim.neutron.networks.values()].filter((n) => networkVisible(ctx, n)),
    (n) => networkView(ctx.sim, n, ctx.auth.isAdmin)));
  r.get('/networks/:id', (ctx) => oneResponse(ctx, 'network', networkView(ctx.sim, findNetwork(ctx, ctx.p('id')), ctx.auth.isAdmin)));
  r.post('/networks', (ctx) => {
    requireMember(ctx.auth);
    const b = member(ctx.req.body, 'network');
    const privileged = ['shared', 'router:external', 'provider:network_type', 'provider:physical_network', 'provider:segmentation_id', 'tenant_id', 'project_id']
      .filter((k) => b[k] !== undefined && !(k.endsWith('_id') && b[k] === ctx.auth.projectId));
    if (!ctx.auth.isAdmin && privileged.length) throw nerr(403, 'PolicyNotAuthorized', `(rule:create_network and rule:create_network:${privileged[0] ?? ''}) is disallowed by policy`);
    const projectId = optStr(b, 'project_id') ?? optStr(b, 'tenant_id') ?? ctx.auth.projectId ?? '';
    const providerType = optStr(b, 'provider:network_type');
    const physnet = optNullableStr(b, 'provider:physical_network');
    const segment = optInt(b, 'provider:segmentation_id');
    if (providerType === 'vlan' && segment !== undefined) {
      // ML2's type_vlan: one network per (physical network, VLAN id); a taken one is a 409 (docs/simulator-differences.md §18)
      if (segment < 1 || segment > 4094) throw nerr(400, 'InvalidInput', `Invalid input for operation: segmentation_id out of range (1 through 4094).`);
      const taken = [...ctx.sim.neutron.networks.values()].some((o) => o.providerType === 'vlan' && o.providerPhysnet === physnet && o.providerSegment === segment);
      if (taken) throw nerr(409, 'VlanIdInUse', `Unable to create the network. The VLAN ${segment} on physical network ${physnet ?? ''} is in use.`);
    }
    const n = createNetwork(ctx.sim, {
      name: optStr(b, 'name', 255) ?? '', projectId, shared: optBool(b, 'shared'), external: optBool(b, 'router:external'),
      mtu: optInt(b, 'mtu', 68), description: optStr(b, 'description', 255), providerType,
      physnet, segment,
      portSecurity: optBool(b, 'port_security_enabled'), adminStateUp: optBool(b, 'admin_state_up'),
    });
    return oneResponse(ctx, 'network', networkView(ctx.sim, n, ctx.auth.isAdmin), 201);
  });
  r.put('/networks/:id', (ctx) => {
    const n = findNetwork(ctx, ctx.p('id'));
    ownedForWrite(ctx, n.projectId, 'Network', n.id);
    const b = member(ctx.req.body, 'network');
    if (!ctx.auth.isAdmin && (b.shared !== undefined || b['router:external'] !== undefined)) throw nerr(403, 'PolicyNotAuthorized', 'rule:update_network:shared is disallowed by policy');
    n.name = optStr(b, 'name', 255) ?? n.name;
    n.description = optStr(b, 'description', 255) ?? n.description;
    n.adminStateUp = optBool(b, 'admin_state_up') ?? n.adminStateUp;
    n.shared = optBool(b, 'shared') ?? n.shared;
    n.external = optBool(b, 'router:external') ?? n.external;
    n.mtu = optInt(b, 'mtu', 68) ?? n.mtu;
    n.portSecurity = optBool(b, 'port_security_enabled') ?? n.portSecurity;
    touch(ctx.sim, n);
    return oneResponse(ctx, 'network', networkView(ctx.sim, n, ctx.auth.isAdmin));
  });
  r.del('/networks/:id', (ctx) => {
    const nt = ctx.sim.neutron;
    const n = findNetwork(ctx, ctx.p('id'));
    ownedForWrite(ctx, n.projectId, 'Network', n.id);
    const inUse = [...nt.ports.values()].some((p) => p.networkId === n.id && p.deviceOwner !== 'network:dhcp');
    if (inUse) throw nerr(409, 'NetworkInUse', `Unable to complete operation on network ${n.id}. There are one or more ports still in use on the network.`);
    for (const sid of n.subnetIds) nt.subnets.delete(sid);
    nt.networks.delete(n.id);
    return noContent();
  });
  registerTags(r, 'networks', findNetwork);

  r.get('/subnets', (ctx) => listResponse(ctx, 'subnets', [...ctx.sim.neutron.subnets.values()].filter((s) => {
    const n = ctx.sim.neutron.networks.get(s.networkId);
    return visible(ctx.auth, s.projectId) || (n !== undefined && (n.shared || n.external));
  }), subnetView));
  r.get('/subnets/:id', (ctx) => oneResponse(ctx, 'subnet', subnetView(findSubnet(ctx, ctx.p('id')))));
  r.post('/subnets', (ctx) => {
    requireMember(ctx.auth);
    const b = member(ctx.req.body, 'subnet');
    const net = findNetwork(ctx, reqStr(b, 'network_id'));
    if (!ctx.auth.isAdmin && net.projectId !== ctx.auth.projectId) throw nerr(403, 'PolicyNotAuthorized', 'rule:create_subnet is disallowed by policy');
    const ipv = optInt(b, 'ip_version');
    if (ipv !== undefined && ipv !== 4 && ipv !== 6) throw nerr(400, 'InvalidInput', `Invalid input for ip_version. Reason: '${ipv}' is not in [4, 6].`);
    const s = createSubnet(ctx.sim, {
      networkId: net.id, cidr: reqStr(b, 'cidr'), projectId: optStr(b, 'project_id') ?? ctx.auth.projectId ?? net.projectId,
      name: optStr(b, 'name', 255), ipVersion: ipv as 4 | 6 | undefined,
      gatewayIp: b.gateway_ip === null ? null : optStr(b, 'gateway_ip'), pools: parsePools(b), enableDhcp: optBool(b, 'enable_dhcp'),
      dns: optStrList(b, 'dns_nameservers'), description: optStr(b, 'description', 255),
    });
    return oneResponse(ctx, 'subnet', subnetView(s), 201);
  });
  r.put('/subnets/:id', (ctx) => {
    const s = findSubnet(ctx, ctx.p('id'));
    ownedForWrite(ctx, s.projectId, 'Subnet', s.id);
    const b = member(ctx.req.body, 'subnet');
    s.name = optStr(b, 'name', 255) ?? s.name;
    s.description = optStr(b, 'description', 255) ?? s.description;
    s.enableDhcp = optBool(b, 'enable_dhcp') ?? s.enableDhcp;
    s.dnsNameservers = optStrList(b, 'dns_nameservers') ?? s.dnsNameservers;
    if (b.gateway_ip === null) s.gatewayIp = null;
    else s.gatewayIp = optStr(b, 'gateway_ip') ?? s.gatewayIp;
    s.pools = parsePools(b) ?? s.pools;
    touch(ctx.sim, s);
    return oneResponse(ctx, 'subnet', subnetView(s));
  });
  r.del('/subnets/:id', (ctx) => {
    const nt = ctx.sim.neutron;
    const s = findSubnet(ctx, ctx.p('id'));
    ownedForWrite(ctx, s.projectId, 'Subnet', s.id);
    const inUse = [...nt.ports.values()].some((p) => p.deviceOwner !== 'network:dhcp' && p.fixedIps.some((f) => f.subnet_id === s.id));
    if (inUse) throw nerr(409, 'SubnetInUse', `Unable to complete operation on subnet ${s.id}: One or more ports have an IP allocation from this subnet.`);
    nt.subnets.delete(s.id);
    const n = nt.networks.get(s.networkId);
    if (n) {
      n.subnetIds = n.subnetIds.filter((x) => x !== s.id);
      touch(ctx.sim, n);
    }
    return noContent();
  });
  registerTags(r, 'subnets', findSubnet);
}
