// Nova quota sets (os-quota-sets), as Zed answers them at the pinned microversions (measured on the sandbox,
// docs/simulator-differences.md §19): show for one's own project (members) or any (admin), update and delete
// admin-only. The keys depend on the microversion: from 2.57 the injected_file* quotas are gone (a PUT naming
// one is a 400 like any unknown key). Values are integers or integer strings ("7" is accepted), at least -1; a
// limit below what the project already uses is refused unless `force` is true; the project must exist in
// Keystone. What PUT stores is what checkQuota (create.ts) enforces.
import { requireAdmin } from '../auth.js';
import { SimError, ok } from '../http.js';
import { atLeast } from '../microversion.js';
import type { Ctx, Registrar } from '../router.js';
import { isObj } from '../validate.js';
import { quotaOf } from './create.js';
import { usageOf } from './lifecycle.js';
import { DEFAULT_QUOTAS } from './model.js';

const INJECTED = ['injected_files', 'injected_file_content_bytes', 'injected_file_path_bytes'];

/** The quota keys this microversion shows and accepts, in Nova's order. */
const keysAt = (ctx: Ctx): string[] => Object.keys(DEFAULT_QUOTAS).filter((k) => !atLeast(ctx.mv, '2.57') || !INJECTED.includes(k)).sort();

function validProject(ctx: Ctx, pid: string): void {
  if (!ctx.sim.keystone.projects.has(pid)) throw new SimError(400, `Project ID ${pid} is not a valid project.`);
}

const view = (ctx: Ctx, values: Record<string, number>): Record<string, number> =>
  Object.fromEntries(keysAt(ctx).map((k) => [k, values[k] ?? -1]));

const py = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** Python's repr of a JSON value, as Nova's schema errors quote the body (`{'foo': 1}`). */
const pyRepr = (v: unknown): string => {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return `'${v}'`;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (isObj(v)) return `{${Object.entries(v).map(([k, x]) => `'${k}': ${pyRepr(x)}`).join(', ')}}`;
  return String(v);
};

/** The value a PUT sets, validated like Nova's JSON schema (integer or /^-?[0-9]+$/ string, minimum -1). */
function quotaValue(key: string, v: unknown): number {
  if (typeof v === 'number' && !Number.isInteger(v) || (typeof v !== 'number' && typeof v !== 'string')) {
    throw new SimError(400, `Invalid input for field/attribute ${key}. Value: ${py(v)}. ${py(v)} is not of type 'integer', 'string'`);
  }
  if (typeof v === 'string' && !/^-?[0-9]+$/.test(v)) throw new SimError(400, `Invalid input for field/attribute ${key}. Value: ${v}. '${v}' does not match '^-?[0-9]+$'`);
  const n = Number(v);
  if (n < -1) throw new SimError(400, `Invalid input for field/attribute ${key}. Value: ${py(v)}. ${py(v)} is less than the minimum of -1`);
  return n;
}

/** What the project already uses of a quota (what Nova's settable minimum is). */
function inUse(ctx: Ctx, pid: string, key: string): number {
  const u = usageOf(ctx.sim, pid);
  if (key === 'instances' || key === 'cores' || key === 'ram') return u[key];
  if (key === 'server_groups') return [...ctx.sim.nova.serverGroups.values()].filter((g) => g.projectId === pid).length;
  return 0;
}

export function registerQuotas(r: Registrar): void {
  r.get('/os-quota-sets/:project', (ctx) => {
    const pid = ctx.p('project');
    if (pid !== ctx.auth.projectId) requireAdmin(ctx.auth, 'os_compute_api:os-quota-sets:show');
    validProject(ctx, pid);
    return ok({ quota_set: { id: pid, ...view(ctx, quotaOf(ctx.sim, pid)) } });
  });
  r.get('/os-quota-sets/:project/defaults', (ctx) => ok({ quota_set: { id: ctx.p('project'), ...view(ctx, DEFAULT_QUOTAS) } }));
  r.put('/os-quota-sets/:project', (ctx) => {
    requireAdmin(ctx.auth, 'os_compute_api:os-quota-sets:update');
    const pid = ctx.p('project');
    const body = isObj(ctx.req.body) ? ctx.req.body : undefined;
    if (!body || !isObj(body.quota_set)) throw new SimError(400, "Invalid input for field/attribute quota_set. 'quota_set' is a required property");
    const b = body.quota_set;
    const allowed = keysAt(ctx);
    const unknown = Object.keys(b).filter((k) => k !== 'force' && !allowed.includes(k));
    if (unknown.length > 0) {
      throw new SimError(400, `Invalid input for field/attribute quota_set. Value: ${pyRepr(b)}. Additional properties are not allowed (${unknown.map((k) => `'${k}'`).join(', ')} ${unknown.length === 1 ? 'was' : 'were'} unexpected)`);
    }
    const force = b.force === true || b.force === 'True' || b.force === 'true';
    const values: Record<string, number> = {};
    for (const [k, v] of Object.entries(b)) if (k !== 'force') values[k] = quotaValue(k, v);
    validProject(ctx, pid);
    if (!force) {
      for (const [k, n] of Object.entries(values)) {
        const used = inUse(ctx, pid, k);
        if (n !== -1 && n < used) throw new SimError(400, `Quota limit ${n} for ${k} must be greater than or equal to already used and reserved ${used}.`);
      }
    }
    ctx.sim.nova.quotas.set(pid, { ...(ctx.sim.nova.quotas.get(pid) ?? {}), ...values });
    return ok({ quota_set: view(ctx, quotaOf(ctx.sim, pid)) });
  });
  r.del('/os-quota-sets/:project', (ctx) => {
    requireAdmin(ctx.auth, 'os_compute_api:os-quota-sets:delete');
    ctx.sim.nova.quotas.delete(ctx.p('project'));
    return { status: 202 };
  });
}
