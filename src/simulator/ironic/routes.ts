// Ironic nodes: list/detail/get with the instance_uuid filter a control plane uses to tell "queued for
// hardware" from "deploying", and the provision-state walk Nova drives when it builds on a node.
import { requireAdmin } from '../auth.js';
import { SimError, ok } from '../http.js';
import { isoSeconds } from '../ids.js';
import { isFullPage, page, parseLimit, withMarker } from '../paging.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import type { Node } from './model.js';

function links(ctx: Ctx, n: Node): unknown[] {
  return [{ href: ctx.sim.url(`/baremetal/v1/nodes/${n.uuid}`), rel: 'self' }, { href: ctx.sim.url(`/baremetal/nodes/${n.uuid}`), rel: 'bookmark' }];
}

function summary(ctx: Ctx, n: Node): Record<string, unknown> {
  return { uuid: n.uuid, name: n.name, instance_uuid: n.instanceUuid, power_state: n.powerState, provision_state: n.provisionState, maintenance: n.maintenance, links: links(ctx, n) };
}

function detail(ctx: Ctx, n: Node): Record<string, unknown> {
  return {
    ...summary(ctx, n), driver: n.driver, driver_info: {}, properties: { ...n.properties }, instance_info: { ...n.instanceInfo },
    extra: { ...n.extra }, target_provision_state: n.targetProvisionState, target_power_state: n.targetPowerState,
    last_error: n.lastError, resource_class: n.resourceClass, created_at: isoSeconds(n.created),
    updated_at: n.updated === null ? null : isoSeconds(n.updated), provision_updated_at: n.provisionUpdated === null ? null : isoSeconds(n.provisionUpdated),
    console_enabled: false, conductor_group: '', conductor: 'sandbox', owner: n.owner, lessee: null, maintenance_reason: null,
    fault: null, inspection_started_at: null, inspection_finished_at: null, reservation: null, protected: false, retired: false,
    allocation_uuid: null, automated_clean: null, description: null, chassis_uuid: null,
  };
}

function project(v: Record<string, unknown>, fields: string | undefined): Record<string, unknown> {
  if (!fields) return v;
  const keep = fields.split(',');
  return Object.fromEntries(Object.entries(v).filter(([k]) => keep.includes(k)));
}

function findNode(ctx: Ctx, ident: string): Node {
  const nodes = ctx.sim.ironic.nodes;
  const n = nodes.get(ident) ?? [...nodes.values()].find((x) => x.name === ident);
  if (!n) throw new SimError(404, `Node ${ident} could not be found.`);
  return n;
}

function list(ctx: Ctx, forceDetail: boolean) {
  requireAdmin(ctx.auth, 'baremetal:node:list');
  const q = (k: string) => ctx.q(k);
  const wantDetail = forceDetail || q('detail') === 'true' || q('detail') === 'True';
  const rows = [...ctx.sim.ironic.nodes.values()].filter((n) =>
    (q('instance_uuid') === undefined || n.instanceUuid === q('instance_uuid')) &&
    (q('associated') === undefined || (n.instanceUuid !== null) === (q('associated')?.toLowerCase() === 'true')) &&
    (q('provision_state') === undefined || n.provisionState === q('provision_state')) &&
    (q('maintenance') === undefined || String(n.maintenance) === q('maintenance')?.toLowerCase()) &&
    (q('resource_class') === undefined || n.resourceClass === q('resource_class')) &&
    (q('driver') === undefined || n.driver === q('driver')) &&
    (q('owner') === undefined || n.owner === q('owner')));
  const limit = parseLimit(q('limit'), 1000, 'Invalid limit') ?? 1000;
  const pg = page(rows, (n) => n.uuid, limit, q('marker'), (m) => new SimError(400, `Invalid marker ${m}`));
  const body: Record<string, unknown> = { nodes: pg.items.map((n) => project(wantDetail ? detail(ctx, n) : summary(ctx, n), q('fields'))) };
  const last = pg.items[pg.items.length - 1];
  if (isFullPage(pg.items, limit) && last) body.next = ctx.sim.url(`/baremetal/v1/nodes${forceDetail ? '/detail' : ''}?${withMarker(ctx.req.query, last.uuid, limit)}`);
  return ok(body);
}

export function registerIronic(r: Registrar): void {
  r.get('/v1/nodes', (ctx) => list(ctx, false));
  r.get('/v1/nodes/detail', (ctx) => list(ctx, true));
  r.get('/v1/nodes/:ident', (ctx) => {
    requireAdmin(ctx.auth, 'baremetal:node:get');
    return ok(project(detail(ctx, findNode(ctx, ctx.p('ident'))), ctx.q('fields')));
  });
  r.get('/v1/nodes/:ident/states', (ctx) => {
    requireAdmin(ctx.auth, 'baremetal:node:get_states');
    const n = findNode(ctx, ctx.p('ident'));
    return ok({ power_state: n.powerState, target_power_state: n.targetPowerState, provision_state: n.provisionState,
      target_provision_state: n.targetProvisionState, last_error: n.lastError, console_enabled: false,
      provision_updated_at: n.provisionUpdated === null ? null : isoSeconds(n.provisionUpdated), raid_config: {}, target_raid_config: {} });
  });
}

function setProvision(sim: Sim, n: Node, state: string, target: string | null): void {
  n.provisionState = state;
  n.targetProvisionState = target;
  n.provisionUpdated = sim.now();
  n.updated = sim.now();
}

/** Nova's ironic driver: the node is claimed for the instance (still `available`: queued for hardware). */
export function claimNode(sim: Sim, uuid: string, instanceId: string): void {
  const n = sim.ironic.nodes.get(uuid);
  if (!n) return;
  n.instanceUuid = instanceId;
  n.gen++;
  n.updated = sim.now();
}

/** deploying, then (after `ms`) wait call-back: Ironic actively deploying, as opposed to queued. */
export function deployNode(sim: Sim, uuid: string, ms: number): void {
  const n = sim.ironic.nodes.get(uuid);
  if (!n) return;
  setProvision(sim, n, 'deploying', 'active');
  const gen = n.gen;
  sim.after(ms, () => { if (n.gen === gen && n.provisionState === 'deploying') setProvision(sim, n, 'wait call-back', 'active'); });
}

export function activateNode(sim: Sim, uuid: string): void {
  const n = sim.ironic.nodes.get(uuid);
  if (!n) return;
  setProvision(sim, n, 'active', null);
  n.powerState = 'power on';
}

export function failNode(sim: Sim, uuid: string, message: string): void {
  const n = sim.ironic.nodes.get(uuid);
  if (!n) return;
  setProvision(sim, n, 'deploy failed', 'active');
  n.lastError = message;
}

/** Teardown on server delete: deleting → cleaning → available, instance released. */
export function releaseNode(sim: Sim, uuid: string, delayMs: number): void {
  const n = sim.ironic.nodes.get(uuid);
  if (!n) return;
  setProvision(sim, n, 'deleting', 'available');
  n.powerState = 'power off';
  n.instanceUuid = null;
  const gen = ++n.gen;
  sim.after(delayMs / 2, () => { if (n.gen === gen) setProvision(sim, n, 'cleaning', 'available'); });
  sim.after(delayMs, () => { if (n.gen === gen) setProvision(sim, n, 'available', null); });
}
