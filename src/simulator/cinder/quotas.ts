// Cinder quota sets ({endpoint}/os-quota-sets/{project_id}), as Zed answers them (measured on the sandbox,
// docs/simulator-differences.md §19): the URL's own project must be the token's ("Malformed request url");
// a member may show its own project's quotas, another's is a 403, update and delete are admin-only. The
// keys are the generic ones plus `volumes_{type}`, `gigabytes_{type}`, `snapshots_{type}` for every volume
// type (-1 by default); an unknown key is 400 "Bad key(s) in quota set: …", a value must be an integer
// (a string is a bare 400) of at least -1 and not below what the project already uses. Any project id is
// accepted (Cinder does not ask Keystone). `?usage=true` answers {limit, in_use, reserved} per key.
//
// Enforcement on volume create (413 VolumeSizeExceedsLimit / VolumeLimitExceeded /
// VolumeSizeExceedsAvailableQuota, Cinder's words) applies to projects whose quota was set by PUT only: the
// other tests create volumes freely (a difference, §19).
import { requireAdmin } from '../auth.js';
import { SimError, ok } from '../http.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { isObj } from '../validate.js';
import { checkUrlProject } from './common.js';

/** Cinder's generic defaults (cinder.conf [DEFAULT] quota_*), in the order Zed lists them. */
export const CINDER_DEFAULT_QUOTAS: Readonly<Record<string, number>> = Object.freeze({
  volumes: 10, per_volume_gigabytes: -1, snapshots: 10, gigabytes: 1000, backups: 10, backup_gigabytes: 1000, groups: 10,
});

/** A state file saved before quotas existed has none. */
const quotaMap = (sim: Sim): Map<string, Record<string, number>> => (sim.cinder.quotas ??= new Map());

const defaults = (sim: Sim): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(CINDER_DEFAULT_QUOTAS)) {
    if (k === 'groups') {
      for (const t of sim.cinder.types.values()) for (const res of ['volumes', 'gigabytes', 'snapshots']) out[`${res}_${t.name}`] = -1;
    }
    out[k] = v;
  }
  return out;
};

export const cinderQuotaOf = (sim: Sim, projectId: string): Record<string, number> => ({ ...defaults(sim), ...(quotaMap(sim).get(projectId) ?? {}) });

/** Volumes and GiB the project holds (every volume until it is gone, deleting included), in all and per type. */
function usage(sim: Sim, projectId: string): Record<string, number> {
  const u: Record<string, number> = { volumes: 0, gigabytes: 0 };
  for (const v of sim.cinder.volumes.values()) {
    if (v.projectId !== projectId) continue;
    const type = sim.cinder.types.get(v.typeId)?.name;
    u.volumes = (u.volumes ?? 0) + 1;
    u.gigabytes = (u.gigabytes ?? 0) + v.size;
    if (type !== undefined) {
      u[`volumes_${type}`] = (u[`volumes_${type}`] ?? 0) + 1;
      u[`gigabytes_${type}`] = (u[`gigabytes_${type}`] ?? 0) + v.size;
    }
  }
  return u;
}

/** Cinder's admission of a new volume of `size` GiB, for projects whose quota was set (see above). */
export function checkVolumeQuota(sim: Sim, projectId: string, size: number): void {
  if (!quotaMap(sim).has(projectId)) return;
  const q = cinderQuotaOf(sim, projectId);
  const u = usage(sim, projectId);
  const perVolume = q.per_volume_gigabytes ?? -1;
  if (perVolume >= 0 && size > perVolume) throw new SimError(413, `VolumeSizeExceedsLimit: Requested volume size ${size}G is larger than maximum allowed limit ${perVolume}G.`);
  const volumes = q.volumes ?? -1;
  if (volumes >= 0 && (u.volumes ?? 0) + 1 > volumes) throw new SimError(413, `VolumeLimitExceeded: Maximum number of volumes allowed (${volumes}) exceeded for quota 'volumes'.`);
  const gigabytes = q.gigabytes ?? -1;
  if (gigabytes >= 0 && (u.gigabytes ?? 0) + size > gigabytes) {
    throw new SimError(413, `VolumeSizeExceedsAvailableQuota: Requested volume or snapshot exceeds allowed gigabytes quota. Requested ${size}G, quota is ${gigabytes}G and ${u.gigabytes ?? 0}G has been consumed.`);
  }
}

function quotaValue(key: string, v: unknown): number {
  if (typeof v === 'string') throw new SimError(400, 'The server could not comply with the request since it is either malformed or otherwise incorrect.');
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new SimError(400, `${key} must be an integer`);
  if (v < -1) throw new SimError(400, `${key} must be >= -1`);
  return v;
}

function mayShow(ctx: Ctx, pid: string): void {
  checkUrlProject(ctx);
  if (pid !== ctx.auth.projectId) requireAdmin(ctx.auth, 'volume_extension:quotas:show');
}

export function registerQuotas(r: Registrar): void {
  r.get('/os-quota-sets/:target/defaults', (ctx) => {
    mayShow(ctx, ctx.p('target'));
    return ok({ quota_set: { ...defaults(ctx.sim), id: ctx.p('target') } });
  });
  r.get('/os-quota-sets/:target', (ctx) => {
    const pid = ctx.p('target');
    mayShow(ctx, pid);
    const q = cinderQuotaOf(ctx.sim, pid);
    if (ctx.q('usage') === 'true' || ctx.q('usage') === 'True') {
      const u = usage(ctx.sim, pid);
      return ok({ quota_set: { ...Object.fromEntries(Object.entries(q).map(([k, limit]) => [k, { limit, in_use: u[k] ?? 0, reserved: 0 }])), id: pid } });
    }
    return ok({ quota_set: { ...q, id: pid } });
  });
  r.put('/os-quota-sets/:target', (ctx) => {
    checkUrlProject(ctx);
    requireAdmin(ctx.auth, 'volume_extension:quotas:update');
    const pid = ctx.p('target');
    const body = isObj(ctx.req.body) ? ctx.req.body : undefined;
    if (!body || !isObj(body.quota_set)) throw new SimError(400, "Invalid input for field/attribute quota_set. 'quota_set' is a required property");
    if (Object.keys(body.quota_set).length === 0) throw new SimError(400, 'Invalid input for field/attribute quota_set. Value: {}. {} does not have enough properties');
    const known = defaults(ctx.sim);
    const bad = Object.keys(body.quota_set).filter((k) => !(k in known));
    if (bad.length > 0) throw new SimError(400, `Invalid input received: Bad key(s) in quota set: ${bad.join(', ')}`);
    const values: Record<string, number> = {};
    for (const [k, v] of Object.entries(body.quota_set)) values[k] = quotaValue(k, v);
    const u = usage(ctx.sim, pid);
    for (const [k, n] of Object.entries(values)) {
      const used = u[k] ?? 0;
      if (n !== -1 && n < used) throw new SimError(400, `Quota ${k} limit must be equal or greater than existing resources. Current usage is ${used} and the requested limit is ${n}.`);
    }
    quotaMap(ctx.sim).set(pid, { ...(quotaMap(ctx.sim).get(pid) ?? {}), ...values });
    return ok({ quota_set: cinderQuotaOf(ctx.sim, pid) });
  });
  r.del('/os-quota-sets/:target', (ctx) => {
    checkUrlProject(ctx);
    requireAdmin(ctx.auth, 'volume_extension:quotas:delete');
    quotaMap(ctx.sim).delete(ctx.p('target'));
    return { status: 200 };
  });
}
