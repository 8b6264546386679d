/**
 * Cinder quota sets of one project (`-1` = unlimited). The session's endpoint already names the caller's
 * project (`/v3/{caller}`), so the path is `{endpoint}/os-quota-sets/{target}`: an admin reads and writes
 * another project's quotas through its own project's endpoint. Cinder adds per-volume-type keys
 * (`volumes_{type}`, `gigabytes_{type}`, `snapshots_{type}`) to the generic ones.
 */
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import { quotaNumbers } from '../nova/quotas.js';

const enc = encodeURIComponent;

// Block Storage API v3: Show Quotas For A Project — GET /v3/{admin_project_id}/os-quota-sets/{project_id}
export const getQuotaSet = async (http: HttpSession, projectId: string): Promise<Record<string, number>> => {
  const response = await http.get(`/os-quota-sets/${enc(projectId)}`);
  return quotaNumbers(response.data, 'quota_set', contextOf(http, response));
};

// Block Storage API v3: Update Quotas For A Project — PUT /v3/{admin_project_id}/os-quota-sets/{project_id} (admin)
export const updateQuotaSet = async (http: HttpSession, projectId: string, values: Readonly<Record<string, number>>): Promise<Record<string, number>> => {
  const response = await http.put(`/os-quota-sets/${enc(projectId)}`, { quota_set: { ...values } });
  return quotaNumbers(response.data, 'quota_set', contextOf(http, response));
};
