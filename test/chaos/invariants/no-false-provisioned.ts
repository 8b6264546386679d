/**
 * No false `Provisioned`: whenever the harness saw a status claim the resource settled (Available=True at the
 * current generation), the cloud read right after showed it settled too — a server ACTIVE, no task, on the spec's
 * image; a volume available or in use; a load balancer ACTIVE.
 */
import type { Invariant, Violation } from './types.js';
import type { SettleClaim } from '../harness/scenarios/scenario.js';

const claimProblem = (claim: SettleClaim, madeUp: Set<string>): string | undefined => {
  const { cloud, spec, status, uid } = claim;
  if (claim.kind === 'Server') {
    const wanted = (spec.image as { id?: string } | undefined)?.id;
    const server = cloud.servers.find((s) => !madeUp.has(s.id) && (s.id === status.serverID || s.name === spec.name));
    if (!server) return 'no such server in the cloud';
    if (server.status !== 'ACTIVE' || server.taskState !== null) return `the cloud shows ${server.status}/${server.taskState ?? '-'} (work in flight)`;
    if (wanted && server.imageId !== wanted) return `the cloud shows image ${server.imageId}, the spec ${wanted}`;
  }
  if (claim.kind === 'Volume') {
    const volume = cloud.volumes.find((v) => !madeUp.has(v.id) && v.name === `volume-${uid}`);
    if (!volume) return 'no such volume in the cloud';
    if (volume.status !== 'available' && volume.status !== 'in-use') return `the cloud shows ${volume.status}`;
  }
  if (claim.kind === 'LoadBalancer') {
    const lb = cloud.loadBalancers.find((l) => !madeUp.has(l.id) && l.id === status.loadBalancerID);
    if (!lb) return 'no such load balancer in the cloud';
    if (lb.status !== 'ACTIVE') return `the cloud shows ${lb.status}`;
  }
  return undefined;
};

/** The status says settled: Available=True for the generation it was read at (a visible refusal is no claim). */
const claimsSettled = (claim: SettleClaim): boolean => {
  const conditions = (claim.status.conditions ?? []) as Array<{ type: string; status: string }>;
  return conditions.some((c) => c.type === 'Available' && c.status === 'True') && claim.status.observedGeneration === claim.generation;
};

export const noFalseProvisioned: Invariant = ({ claims, madeUpIds }) => {
  const madeUp = new Set(madeUpIds);
  return claims
    .filter(claimsSettled)
    .map((claim): Violation | undefined => {
      const problem = claimProblem(claim, madeUp);
      return problem ? { invariant: 'no-false-provisioned', detail: `${claim.kind} ${claim.name} (generation ${claim.generation}) claimed settled: ${problem}` } : undefined;
    })
    .filter((v): v is Violation => v !== undefined);
};
