/**
 * Load balancers at once (issue 31): `count` LoadBalancer CRs with two listeners each (TCP 443 with a pool and a
 * health monitor, UDP 53 with a pool) applied at once, until every one is Available with both listeners
 * Provisioned. Correct means one Octavia load balancer create per LoadBalancer. The baseline is a bare client building
 * as many load balancers with two listeners and their pools (./raw-client.ts).
 */
import type { ControlPlane } from '../../src/app/control-plane.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import type { BenchSimulator } from './simulator.js';
import { applyAll, conditionOf, listWithStatus, loadBalancerManifest } from './plane.js';
import { now, waitFor } from './measure.js';
import { rawLoadBalancers } from './raw-client.js';

export interface LoadBalancersResult {
  loadBalancers: number;
  settleMs: number;
  rawSettleMs: number;
  ratio: number;
  octaviaMutations: number;
  problems: string[];
}

export const benchLoadBalancers = async (plane: ControlPlane, sim: BenchSimulator, count: number, raw: { session: OpenStackSession; subnetId: string }, timeoutMs: number): Promise<LoadBalancersResult> => {
  const problems: string[] = [];
  await sim.clearCalls();
  const start = now();
  await applyAll(plane, Array.from({ length: count }, (_, i) => loadBalancerManifest(`lb-${i + 1}`)));
  let unsettled: string[] = [];
  await waitFor(async () => {
    const lbs = await listWithStatus(plane, 'LoadBalancer');
    unsettled = lbs.filter((lb) => conditionOf(lb.status, 'Available')?.status !== 'True' || lb.status?.listeners?.filter((l) => l.state === 'Provisioned').length !== 2).map((lb) => lb.name);
    return lbs.length === count && unsettled.length === 0;
  }, timeoutMs, 500);
  const settleMs = now() - start;
  if (unsettled.length > 0) problems.push(`load balancers: ${unsettled.length} of ${count} not provisioned after ${timeoutMs} ms (e.g. ${unsettled.slice(0, 3).join(', ')})`);
  const mutations = (await sim.calls()).filter((c) => c.method !== 'GET' && c.path.includes('/lbaas/') && c.status < 300);
  const creates = mutations.filter((c) => c.method === 'POST' && c.path.endsWith('/lbaas/loadbalancers')).length;
  if (creates !== count) problems.push(`load balancers: ${creates} Octavia creates for ${count} LoadBalancers`);
  const rawSettleMs = await rawLoadBalancers(raw.session, raw.subnetId, count, timeoutMs);
  return { loadBalancers: count, settleMs, rawSettleMs, ratio: settleMs / rawSettleMs, octaviaMutations: mutations.length, problems };
};
