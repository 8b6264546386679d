/**
 * Neutron quotas of one project (`-1` = unlimited): `{"quota": {network, subnet, port, router, floatingip,
 * security_group, security_group_rule, …}}` — singular names, and `quota`, not Nova's and Cinder's `quota_set`.
 */
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import { quotaNumbers } from '../nova/quotas.js';

const enc = encodeURIComponent;

// Networking API v2.0: Show Quota Details For A Project — GET /v2.0/quotas/{project_id}
export const getQuota = async (http: HttpSession, projectId: string): Promise<Record<string, number>> => {
  const response = await http.get(`/quotas/${enc(projectId)}`);
  return quotaNumbers(response.data, 'quota', contextOf(http, response));
};

// Networking API v2.0: Update Quota For A Project — PUT /v2.0/quotas/{project_id} (admin)
export const updateQuota = async (http: HttpSession, projectId: string, values: Readonly<Record<string, number>>): Promise<Record<string, number>> => {
  const response = await http.put(`/quotas/${enc(projectId)}`, { quota: { ...values } });
  return quotaNumbers(response.data, 'quota', contextOf(http, response));
};
