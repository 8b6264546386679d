// /v2/lbaas/loadbalancers: create with vip_subnet_id / vip_network_id / vip_port_id (a real VIP port in
// the simulator's Neutron), PENDING_CREATE → ACTIVE, update, cascade delete, status tree, stats, failover.
// A create with `listeners` (and/or `pools`) is Octavia's fully populated create (full.ts).
import { noContent, ok } from '../http.js';
import { uuid } from '../ids.js';
import type { Ctx, Registrar } from '../router.js';
import { member, optBool, optStr, optStrList } from '../validate.js';
import { createPort } from '../neutron/ports.js';
import { beginLbUpdate, checkLbPending, findLb, lbView, listOf, oerr, oneOf, requireLbRole, scheduleLbCreate, scheduleLbDelete, validation } from './common.js';
import { buildGraph, fullLbView, parseFullCreate, storeGraph } from './full.js';
import type { LoadBalancer } from './model.js';

function vipPort(ctx: Ctx, b: Record<string, unknown>, lbId: string, projectId: string) {
  const nt = ctx.sim.neutron;
  const visibleNet = (id: string) => {
    const n = nt.networks.get(id);
    return n && (ctx.auth.isAdmin || n.projectId === projectId || n.shared) ? n : undefined;
  };
  const portId = optStr(b, 'vip_port_id');
  if (portId) {
    const p = nt.ports.get(portId);
    if (!p || (!ctx.auth.isAdmin && p.projectId !== projectId)) throw validation(`Port ${portId} not found.`);
    const f = p.fixedIps[0];
    if (!f) throw validation(`Port ${portId} has no fixed IP.`);
    return { port: p, subnetId: f.subnet_id, address: f.ip_address };
  }
  const subnetId = optStr(b, 'vip_subnet_id');
  const networkId = optStr(b, 'vip_network_id');
  let subnet = subnetId ? nt.subnets.get(subnetId) : undefined;
  if (subnetId && (!subnet || !visibleNet(subnet.networkId))) throw validation(`Subnet ${subnetId} not found.`);
  if (!subnet && networkId) {
    const net = visibleNet(networkId);
    if (!net) throw validation(`Network ${networkId} not found.`);
    subnet = net.subnetIds.map((id) => nt.subnets.get(id)).find((s) => s?.ipVersion === 4) ?? nt.subnets.get(net.subnetIds[0] ?? '');
    if (!subnet) throw validation(`Supplied network does not contain a subnet.`);
  }
  if (!subnet) throw validation('VIP must contain one of: vip_port_id, vip_network_id, vip_subnet_id.');
  const address = optStr(b, 'vip_address');
  const port = createPort(ctx.sim, {
    networkId: subnet.networkId, projectId, name: `octavia-lb-${lbId}`, deviceId: `lb-${lbId}`, deviceOwner: 'Octavia',
    fixedIps: [{ subnet_id: subnet.id, ...(address ? { ip_address: address } : {}) }],
  });
  return { port, subnetId: subnet.id, address: port.fixedIps[0]?.ip_address ?? '' };
}

function statusTree(ctx: Ctx, lb: LoadBalancer): unknown {
  const o = ctx.sim.octavia;
  const st = (c: { id: string; name: string; provisioningStatus: string; operatingStatus: string }) => ({ id: c.id, name: c.name, provisioning_status: c.provisioningStatus, operating_status: c.operatingStatus });
  return {
    statuses: {
      loadbalancer: {
        ...st(lb),
        listeners: [...o.listeners.values()].filter((l) => l.lbId === lb.id).map((l) => ({
          ...st(l),
          pools: [...o.pools.values()].filter((p) => p.listenerIds.includes(l.id)).map((p) => {
            const hm = p.healthmonitorId ? o.healthmonitors.get(p.healthmonitorId) : undefined;
            return {
              ...st(p), ...(hm ? { health_monitor: { ...st(hm), type: hm.type } } : {}),
              members: [...o.members.values()].filter((m) => m.poolId === p.id).map((m) => ({ ...st(m), address: m.address, protocol_port: m.protocolPort })),
            };
          }),
        })),
      },
    },
  };
}

export function registerLoadBalancers(r: Registrar): void {
  const view = (ctx: Ctx, lb: LoadBalancer) => lbView(ctx.sim, lb);
  r.get('/lbaas/loadbalancers', (ctx) => listOf(ctx, 'loadbalancers', 'lbaas/loadbalancers', ctx.sim.octavia.lbs.values(), (lb) => view(ctx, lb)));
  r.get('/lbaas/loadbalancers/:id', (ctx) => oneOf(ctx, 'loadbalancer', view(ctx, findLb(ctx, ctx.p('id')))));
  r.post('/lbaas/loadbalancers', (ctx) => {
    requireLbRole(ctx);
    const b = member(ctx.req.body, 'loadbalancer');
    const projectId = (ctx.auth.isAdmin ? optStr(b, 'project_id') : undefined) ?? ctx.auth.projectId ?? '';
    const provider = optStr(b, 'provider') ?? 'amphora';
    if (provider !== 'amphora' && provider !== 'octavia') throw oerr(400, `Provider '${provider}' is not enabled.`);
    const full = parseFullCreate(ctx, b);
    const id = uuid();
    const vip = vipPort(ctx, b, id, projectId);
    const now = ctx.sim.now();
    const lb: LoadBalancer = {
      id, name: optStr(b, 'name', 255) ?? '', description: optStr(b, 'description', 255) ?? '', projectId, provisioningStatus: 'PENDING_CREATE',
      operatingStatus: 'OFFLINE', adminStateUp: optBool(b, 'admin_state_up') ?? true, tags: optStrList(b, 'tags') ?? [], created: now,
      updated: null, vipAddress: vip.address, vipPortId: vip.port.id, vipSubnetId: vip.subnetId, vipNetworkId: vip.port.networkId, provider: 'amphora',
      flavorId: optStr(b, 'flavor_id') ?? null, az: optStr(b, 'availability_zone') ?? null, gen: 0,
    };
    // A refused graph leaves the VIP port created above behind, as Zed's rollback does.
    const graph = full ? buildGraph(ctx, lb, full) : undefined;
    ctx.sim.octavia.lbs.set(lb.id, lb);
    if (graph) storeGraph(ctx.sim, graph);
    scheduleLbCreate(ctx.sim, lb);
    return oneOf(ctx, 'loadbalancer', fullLbView(ctx.sim, lb), 201);
  });
  r.put('/lbaas/loadbalancers/:id', (ctx) => {
    const lb = findLb(ctx, ctx.p('id'));
    requireLbRole(ctx);
    const b = member(ctx.req.body, 'loadbalancer');
    checkLbPending(lb);
    lb.name = optStr(b, 'name', 255) ?? lb.name;
    lb.description = optStr(b, 'description', 255) ?? lb.description;
    lb.adminStateUp = optBool(b, 'admin_state_up') ?? lb.adminStateUp;
    lb.tags = optStrList(b, 'tags') ?? lb.tags;
    beginLbUpdate(ctx.sim, lb);
    return oneOf(ctx, 'loadbalancer', view(ctx, lb));
  });
  r.del('/lbaas/loadbalancers/:id', (ctx) => {
    const lb = findLb(ctx, ctx.p('id'));
    requireLbRole(ctx);
    const o = ctx.sim.octavia;
    const hasChildren = [...o.listeners.values()].some((l) => l.lbId === lb.id) || [...o.pools.values()].some((p) => p.lbId === lb.id);
    const cascade = ['true', 'True', '1'].includes(ctx.q('cascade') ?? '');
    if (hasChildren && !cascade) throw validation(`Cannot delete Load Balancer ${lb.id} - it has children`);
    checkLbPending(lb, true);
    scheduleLbDelete(ctx.sim, lb);
    return noContent();
  });
  r.get('/lbaas/loadbalancers/:id/status', (ctx) => ok(statusTree(ctx, findLb(ctx, ctx.p('id')))));
  r.get('/lbaas/loadbalancers/:id/stats', (ctx) => {
    findLb(ctx, ctx.p('id'));
    return ok({ stats: { bytes_in: 0, bytes_out: 0, active_connections: 0, total_connections: 0, request_errors: 0 } });
  });
  r.put('/lbaas/loadbalancers/:id/failover', (ctx) => {
    const lb = findLb(ctx, ctx.p('id'));
    if (!ctx.auth.isAdmin) throw oerr(403, 'Policy does not allow this request to be performed.');
    beginLbUpdate(ctx.sim, lb);
    return { status: 202 };
  });
  r.get('/lbaas/providers', () => ok({ providers: [{ name: 'amphora', description: 'The Octavia Amphora driver.' }, { name: 'octavia', description: 'Deprecated alias of the Octavia Amphora driver.' }] }));
}
