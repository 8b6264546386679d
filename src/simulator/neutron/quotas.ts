// Neutron quotas (GET/PUT/DELETE /v2.0/quotas/{project_id}), as Zed answers them (measured on the sandbox,
// docs/simulator-differences.md §19): `{"quota": {...}}` with singular names and no `id`; a member may show its
// own project's quota (another's is a 403 "rule:get_quota is disallowed by policy"), update and delete are
// admin-only; an unknown key is 400 "Unrecognized attribute(s) 'foo'"; a value is an integer (a numeric
// string or a float is converted, 1.5 → 1) of at least -1; any project id is accepted (Neutron does not ask
// Keystone) and a lower limit than the usage is not refused. `/quotas/{id}/details` shows {limit, used,
// reserved}. Floating IP and router creates are refused over the limit (409 OverQuota, "Quota exceeded for
// resources: ['floatingip']."), for projects whose quota was set by PUT only (docs/simulator-differences.md §19).
import { SimError, noContent, ok } from '../http.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { isObj } from '../validate.js';
import { nerr } from './common.js';

/** Neutron's defaults (neutron.conf [quotas]), in the order Zed lists them. */
export const NEUTRON_DEFAULT_QUOTAS: Readonly<Record<string, number>> = Object.freeze({
  network: 100, subnet: 100, subnetpool: -1, port: 500, router: 10, floatingip: 50, rbac_policy: 10, security_group: 10, security_group_rule: 100,
});

/** A state file saved before quotas existed has none. */
const quotaMap = (sim: Sim): Map<string, Record<string, number>> => (sim.neutron.quotas ??= new Map());

export const neutronQuotaOf = (sim: Sim, projectId: string): Record<string, number> => ({ ...NEUTRON_DEFAULT_QUOTAS, ...(quotaMap(sim).get(projectId) ?? {}) });

/** What the project holds of each counted resource. */
function usage(sim: Sim, projectId: string): Record<string, number> {
  const n = sim.neutron;
  const count = (items: Iterable<{ projectId: string }>): number => { let c = 0; for (const i of items) if (i.projectId === projectId) c++; return c; };
  return {
    network: count(n.networks.values()), subnet: count(n.subnets.values()), port: count(n.ports.values()), router: count(n.routers.values()),
    floatingip: count(n.floatingIps.values()), security_group: count(n.securityGroups.values()), security_group_rule: count(n.rules.values()),
  };
}

/** Neutron's admission of one more `resource`, for projects whose quota was set (see above). */
export function checkNeutronQuota(sim: Sim, projectId: string, resource: string): void {
  if (!quotaMap(sim).has(projectId)) return;
  const limit = neutronQuotaOf(sim, projectId)[resource] ?? -1;
  if (limit >= 0 && (usage(sim, projectId)[resource] ?? 0) + 1 > limit) throw nerr(409, 'OverQuota', `Quota exceeded for resources: ['${resource}'].`);
}

function quotaValue(key: string, v: unknown): number {
  const n = typeof v === 'number' ? Math.trunc(v) : typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Math.trunc(Number(v)) : NaN;
  if (Number.isNaN(n)) throw new SimError(400, `Invalid input for ${key}. Reason: '${String(v)}' is not an integer.`);
  if (n < -1) throw new SimError(400, `Invalid input for ${key}. Reason: '${n}' is too small - must be at least '-1'.`);
  return n;
}

const mayShow = (ctx: Ctx, pid: string): void => {
  if (!ctx.auth.isAdmin && ctx.auth.projectId !== pid) throw nerr(403, 'PolicyNotAuthorized', 'rule:get_quota is disallowed by policy');
};
const mayChange = (ctx: Ctx, rule: string): void => {
  if (!ctx.auth.isAdmin) throw nerr(403, 'PolicyNotAuthorized', `rule:${rule} is disallowed by policy`);
};

export function registerQuotas(r: Registrar): void {
  r.get('/quotas/:project/default', (ctx) => {
    mayShow(ctx, ctx.p('project'));
    return ok({ quota: { ...NEUTRON_DEFAULT_QUOTAS } });
  });
  r.get('/quotas/:project/details', (ctx) => {
    const pid = ctx.p('project');
    mayShow(ctx, pid);
    const used = usage(ctx.sim, pid);
    return ok({ quota: Object.fromEntries(Object.entries(neutronQuotaOf(ctx.sim, pid)).map(([k, limit]) => [k, { limit, used: used[k] ?? 0, reserved: 0 }])) });
  });
  r.get('/quotas/:project', (ctx) => {
    mayShow(ctx, ctx.p('project'));
    return ok({ quota: neutronQuotaOf(ctx.sim, ctx.p('project')) });
  });
  r.put('/quotas/:project', (ctx) => {
    mayChange(ctx, 'update_quota');
    const body = isObj(ctx.req.body) ? ctx.req.body : undefined;
    if (!body || !isObj(body.quota)) throw new SimError(400, 'Resource body required');
    const unknown = Object.keys(body.quota).filter((k) => !(k in NEUTRON_DEFAULT_QUOTAS));
    if (unknown.length > 0) throw new SimError(400, `Unrecognized attribute(s) '${unknown.join(', ')}'`);
    const values: Record<string, number> = {};
    for (const [k, v] of Object.entries(body.quota)) values[k] = quotaValue(k, v);
    const pid = ctx.p('project');
    quotaMap(ctx.sim).set(pid, { ...(quotaMap(ctx.sim).get(pid) ?? {}), ...values });
    return ok({ quota: neutronQuotaOf(ctx.sim, pid) });
  });
  r.del('/quotas/:project', (ctx) => {
    mayChange(ctx, 'delete_quota');
    quotaMap(ctx.sim).delete(ctx.p('project'));
    return noContent();
  });
}
