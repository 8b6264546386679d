/**
 * Nova quota sets of one project (`-1` = unlimited). The answer is the numeric fields of `quota_set`: `id` is
 * dropped, and so is anything that is not a number (a detail view's `{in_use, limit, reserved}` objects are
 * not asked for). What the keys are depends on the microversion: from 2.57 `injected_file*` are gone, from
 * 2.36 the network quotas (`floating_ips`, `security_groups`, …) are gone; sending one is a 400 (BadRequest).
 */
import type { HttpSession } from '../http.js';
import type { RequestContext } from '../errors.js';
import { contextOf } from '../http.js';
import { unwrap } from '../decoders/field.js';

const enc = encodeURIComponent;

/** The integer fields of the object under `key` (`quota_set`, `quota`), without `id`. */
export const quotaNumbers = (body: unknown, key: string, context: RequestContext): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(unwrap(body, key, context))) {
    if (name !== 'id' && typeof value === 'number' && Number.isInteger(value)) out[name] = value;
  }
  return out;
};

// Compute API: Show A Quota — GET /os-quota-sets/{tenant_id}
export const getQuotaSet = async (http: HttpSession, projectId: string): Promise<Record<string, number>> => {
  const response = await http.get(`/os-quota-sets/${enc(projectId)}`);
  return quotaNumbers(response.data, 'quota_set', contextOf(http, response));
};

// Compute API: Update Quotas — PUT /os-quota-sets/{tenant_id} (admin)
export const updateQuotaSet = async (http: HttpSession, projectId: string, values: Readonly<Record<string, number>>): Promise<Record<string, number>> => {
  const response = await http.put(`/os-quota-sets/${enc(projectId)}`, { quota_set: { ...values } });
  return quotaNumbers(response.data, 'quota_set', contextOf(http, response));
};
