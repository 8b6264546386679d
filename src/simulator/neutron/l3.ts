// Floating IPs and routers. Floating IPs associate through port_id; their status stays DOWN because
// there is no L3 agent (as in the sandbox). Routers are API objects only.
import { noContent, ok } from '../http.js';
import { uuid } from '../ids.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { isObj, member, optBool, optNullableStr, optStr, reqStr } from '../validate.js';
import { listResponse, nerr, oneResponse, registerTags, requireMember, stdView, touch, visible } from './common.js';
import type { FloatingIp, Port, Router } from './model.js';
import { allocateIp, findNetwork, findSubnet, releaseIp } from './networks.js';
import { createPort, deletePort, findPort } from './ports.js';
import { checkNeutronQuota } from './quotas.js';

function fipView(sim: Sim, f: FloatingIp): Record<string, unknown> {
  const port = f.portId ? sim.neutron.ports.get(f.portId) : undefined;
  return {
    ...stdView(f), floating_ip_address: f.floatingIpAddress, floating_network_id: f.floatingNetworkId, router_id: f.routerId,
    port_id: f.portId, fixed_ip_address: f.fixedIpAddress, status: f.status, dns_domain: '', dns_name: '', qos_policy_id: null,
    port_forwardings: [],
    port_details: port ? { name: port.name, network_id: port.networkId, mac_address: port.macAddress, admin_state_up: port.adminStateUp,
      status: port.status, device_id: port.deviceId, device_owner: port.deviceOwner } : null,
  };
}

export function findFloatingIp(ctx: Ctx, id: string): FloatingIp {
  const f = ctx.sim.neutron.floatingIps.get(id);
  if (!f || !visible(ctx.auth, f.projectId)) throw nerr(404, 'FloatingIPNotFound', `Floating IP ${id} could not be found`);
  return f;
}

function routerFor(sim: Sim, externalNetId: string, port: Port): string | null {
  const subnets = new Set(port.fixedIps.map((f) => f.subnet_id));
  for (const r of sim.neutron.routers.values()) {
    if (r.externalNetworkId !== externalNetId) continue;
    for (const pid of r.interfacePortIds) {
      const ip = sim.neutron.ports.get(pid);
      if (ip?.fixedIps.some((f) => subnets.has(f.subnet_id))) return r.id;
    }
  }
  return null;
}

function associate(ctx: Ctx, f: FloatingIp, portId: string | null, fixedIp: string | undefined): void {
  if (portId === null) {
    f.portId = null;
    f.fixedIpAddress = null;
    f.routerId = null;
    return;
  }
  const port = findPort(ctx, portId);
  const v4 = port.fixedIps.filter((x) => !x.ip_address.includes(':'));
  const chosen = fixedIp !== undefined ? v4.find((x) => x.ip_address === fixedIp) : v4[0];
  if (!chosen) throw nerr(400, 'BadRequest', `Bad floatingip request: Port ${port.id} does not have fixed ip ${fixedIp ?? '(IPv4)'}.`);
  const taken = [...ctx.sim.neutron.floatingIps.values()].find((x) => x.id !== f.id && x.portId === port.id && x.fixedIpAddress === chosen.ip_address);
  if (taken) throw nerr(409, 'FloatingIPPortAlreadyAssociated', `Cannot associate floating IP ${f.floatingIpAddress} (${f.id}) with port ${port.id} using fixed IP ${chosen.ip_address}, as that fixed IP already has a floating IP on external network ${f.floatingNetworkId}.`);
  f.portId = port.id;
  f.fixedIpAddress = chosen.ip_address;
  f.routerId = routerFor(ctx.sim, f.floatingNetworkId, port);
}

function routerView(sim: Sim, r: Router): Record<string, unknown> {
  const gw = r.externalNetworkId ? [...sim.neutron.ports.values()].find((p) => p.deviceId === r.id && p.deviceOwner === 'network:router_gateway') : undefined;
  return {
    ...stdView(r), status: r.status, admin_state_up: r.adminStateUp, routes: [], distributed: false, ha: false,
    availability_zone_hints: [], availability_zones: ['nova'], flavor_id: null,
    external_gateway_info: r.externalNetworkId ? { network_id: r.externalNetworkId, enable_snat: true, external_fixed_ips: gw?.fixedIps ?? [] } : null,
  };
}

function findRouter(ctx: Ctx, id: string): Router {
  const r = ctx.sim.neutron.routers.get(id);
  if (!r || !visible(ctx.auth, r.projectId)) throw nerr(404, 'RouterNotFound', `Router ${id} could not be found`);
  return r;
}

function setGateway(ctx: Ctx, r: Router, info: unknown): void {
  for (const p of [...ctx.sim.neutron.ports.values()]) if (p.deviceId === r.id && p.deviceOwner === 'network:router_gateway') deletePort(ctx.sim, p.id);
  r.externalNetworkId = null;
  if (!isObj(info) || typeof info.network_id !== 'string') return;
  const net = findNetwork(ctx, info.network_id);
  if (!net.external) throw nerr(400, 'BadRequest', `Bad router request: Network ${net.id} is not an external network.`);
  createPort(ctx.sim, { networkId: net.id, projectId: '', deviceId: r.id, deviceOwner: 'network:router_gateway', portSecurity: false });
  r.externalNetworkId = net.id;
}

export function registerL3(r: Registrar): void {
  r.get('/floatingips', (ctx) => listResponse(ctx, 'floatingips', [...ctx.sim.neutron.floatingIps.values()].filter((f) => visible(ctx.auth, f.projectId)), (f) => fipView(ctx.sim, f)));
  r.get('/floatingips/:id', (ctx) => oneResponse(ctx, 'floatingip', fipView(ctx.sim, findFloatingIp(ctx, ctx.p('id')))));
  r.post('/floatingips', (ctx) => {
    requireMember(ctx.auth);
    const b = member(ctx.req.body, 'floatingip');
    const net = findNetwork(ctx, reqStr(b, 'floating_network_id'));
    if (!net.external) throw nerr(400, 'BadRequest', `Bad floatingip request: Network ${net.id} is not a valid external network.`);
    const subnetId = optStr(b, 'subnet_id');
    const subnet = subnetId ? findSubnet(ctx, subnetId) : net.subnetIds.map((id) => ctx.sim.neutron.subnets.get(id)).find((s) => s?.ipVersion === 4);
    if (!subnet) throw nerr(400, 'BadRequest', `Bad floatingip request: Network ${net.id} has no IPv4 subnet.`);
    const requested = optStr(b, 'floating_ip_address');
    if (requested !== undefined && !ctx.auth.isAdmin) throw nerr(403, 'PolicyNotAuthorized', 'rule:create_floatingip:floating_ip_address is disallowed by policy');
    checkNeutronQuota(ctx.sim, (ctx.auth.isAdmin ? optStr(b, 'project_id') : undefined) ?? ctx.auth.projectId ?? '', 'floatingip');
    const address = allocateIp(ctx.sim, subnet, requested);
    const now = ctx.sim.now();
    const f: FloatingIp = {
      id: uuid(), name: '', description: optStr(b, 'description', 255) ?? '', projectId: (ctx.auth.isAdmin ? optStr(b, 'project_id') : undefined) ?? ctx.auth.projectId ?? '',
      tags: [], created: now, updated: now, revision: 0, floatingNetworkId: net.id, floatingIpAddress: address, portId: null,
      fixedIpAddress: null, routerId: null, status: 'DOWN',
    };
    try {
      const portId = optNullableStr(b, 'port_id');
      if (portId) associate(ctx, f, portId, optStr(b, 'fixed_ip_address'));
    } catch (e) {
      releaseIp(ctx.sim, subnet.id, address);
      throw e;
    }
    ctx.sim.neutron.floatingIps.set(f.id, f);
    return oneResponse(ctx, 'floatingip', fipView(ctx.sim, f), 201);
  });
  r.put('/floatingips/:id', (ctx) => {
    const f = findFloatingIp(ctx, ctx.p('id'));
    requireMember(ctx.auth);
    const b = member(ctx.req.body, 'floatingip');
    if ('port_id' in b) associate(ctx, f, optNullableStr(b, 'port_id') ?? null, optStr(b, 'fixed_ip_address'));
    f.description = optStr(b, 'description', 255) ?? f.description;
    touch(ctx.sim, f);
    return oneResponse(ctx, 'floatingip', fipView(ctx.sim, f));
  });
  r.del('/floatingips/:id', (ctx) => {
    const f = findFloatingIp(ctx, ctx.p('id'));
    requireMember(ctx.auth);
    const net = ctx.sim.neutron.networks.get(f.floatingNetworkId);
    for (const sid of net?.subnetIds ?? []) releaseIp(ctx.sim, sid, f.floatingIpAddress);
    ctx.sim.neutron.floatingIps.delete(f.id);
    return noContent();
  });
  registerTags(r, 'floatingips', findFloatingIp);

  r.get('/routers', (ctx) => listResponse(ctx, 'routers', [...ctx.sim.neutron.routers.values()].filter((x) => visible(ctx.auth, x.projectId)), (x) => routerView(ctx.sim, x)));
  r.get('/routers/:id', (ctx) => oneResponse(ctx, 'router', routerView(ctx.sim, findRouter(ctx, ctx.p('id')))));
  r.post('/routers', (ctx) => {
    requireMember(ctx.auth);
    const b = member(ctx.req.body, 'router');
    checkNeutronQuota(ctx.sim, ctx.auth.projectId ?? '', 'router');
    const now = ctx.sim.now();
    const router: Router = {
      id: uuid(), name: optStr(b, 'name', 255) ?? '', description: optStr(b, 'description', 255) ?? '', projectId: ctx.auth.projectId ?? '',
      tags: [], created: now, updated: now, revision: 1, adminStateUp: optBool(b, 'admin_state_up') ?? true, externalNetworkId: null,
      interfacePortIds: [], status: 'ACTIVE',
    };
    setGateway(ctx, router, b.external_gateway_info);
    ctx.sim.neutron.routers.set(router.id, router);
    return oneResponse(ctx, 'router', routerView(ctx.sim, router), 201);
  });
  r.put('/routers/:id', (ctx) => {
    const router = findRouter(ctx, ctx.p('id'));
    requireMember(ctx.auth);
    const b = member(ctx.req.body, 'router');
    router.name = optStr(b, 'name', 255) ?? router.name;
    router.description = optStr(b, 'description', 255) ?? router.description;
    router.adminStateUp = optBool(b, 'admin_state_up') ?? router.adminStateUp;
    if ('external_gateway_info' in b) setGateway(ctx, router, b.external_gateway_info);
    touch(ctx.sim, router);
    return oneResponse(ctx, 'router', routerView(ctx.sim, router));
  });
  r.del('/routers/:id', (ctx) => {
    const router = findRouter(ctx, ctx.p('id'));
    requireMember(ctx.auth);
    if (router.interfacePortIds.length) throw nerr(409, 'RouterInUse', `Router ${router.id} still has ports`);
    setGateway(ctx, router, null);
    ctx.sim.neutron.routers.delete(router.id);
    return noContent();
  });
  r.put('/routers/:id/add_router_interface', (ctx) => {
    const router = findRouter(ctx, ctx.p('id'));
    requireMember(ctx.auth);
    const b = isObj(ctx.req.body) ? ctx.req.body : {};
    let port: Port;
    if (typeof b.port_id === 'string') {
      port = findPort(ctx, b.port_id);
      if (port.deviceId) throw nerr(409, 'PortInUse', `Unable to complete operation on port ${port.id} for network ${port.networkId}. Port already has an attached device ${port.deviceId}.`);
      port.deviceId = router.id;
      port.deviceOwner = 'network:router_interface';
      port.status = 'ACTIVE';
    } else if (typeof b.subnet_id === 'string') {
      const s = findSubnet(ctx, b.subnet_id);
      if (!s.gatewayIp) throw nerr(400, 'BadRequest', `Bad router request: Subnet for router interface must have a gateway IP.`);
      port = createPort(ctx.sim, { networkId: s.networkId, projectId: router.projectId, fixedIps: [{ subnet_id: s.id, ip_address: s.gatewayIp }],
        deviceId: router.id, deviceOwner: 'network:router_interface', portSecurity: false });
      port.status = 'ACTIVE';
    } else {
      throw nerr(400, 'BadRequest', 'Bad router request: Either subnet_id or port_id must be specified.');
    }
    router.interfacePortIds.push(port.id);
    touch(ctx.sim, router);
    return ok({ id: router.id, tenant_id: router.projectId, project_id: router.projectId, port_id: port.id, network_id: port.networkId,
      subnet_id: port.fixedIps[0]?.subnet_id ?? null, subnet_ids: port.fixedIps.map((f) => f.subnet_id), tags: [] });
  });
  r.put('/routers/:id/remove_router_interface', (ctx) => {
    const router = findRouter(ctx, ctx.p('id'));
    requireMember(ctx.auth);
    const b = isObj(ctx.req.body) ? ctx.req.body : {};
    const port = router.interfacePortIds.map((id) => ctx.sim.neutron.ports.get(id)).find((p) =>
      p && (p.id === b.port_id || p.fixedIps.some((f) => f.subnet_id === b.subnet_id)));
    if (!port) throw nerr(404, 'RouterInterfaceNotFound', `Router ${router.id} does not have an interface with id ${String(b.port_id ?? b.subnet_id)}`);
    router.interfacePortIds = router.interfacePortIds.filter((x) => x !== port.id);
    deletePort(ctx.sim, port.id);
    touch(ctx.sim, router);
    return ok({ id: router.id, tenant_id: router.projectId, project_id: router.projectId, port_id: port.id, network_id: port.networkId,
      subnet_id: port.fixedIps[0]?.subnet_id ?? null, subnet_ids: port.fixedIps.map((f) => f.subnet_id), tags: [] });
  });
  registerTags(r, 'routers', findRouter);
}
