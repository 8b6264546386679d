/**
 * No duplicate cloud object by exact name: in the simulator's final state, no two servers, volumes, load balancers,
 * networks or security groups of one project share a name — leaving out the records the harness had the
 * simulator make up (/_sim/duplicate), which are the fault, not Regent's doing.
 */
import { repeated, type Invariant } from './types.js';
import type { CloudNamed } from '../harness/cloud-state.js';

export const noDuplicateName: Invariant = ({ cloud, madeUpIds }) => {
  const made = new Set(madeUpIds);
  const groups: Array<[string, CloudNamed[]]> = [['server', cloud.servers], ['volume', cloud.volumes], ['loadbalancer', cloud.loadBalancers], ['network', cloud.networks], ['security group', cloud.securityGroups]];
  return groups.flatMap(([kind, items]) =>
    repeated(items.filter((i) => !made.has(i.id) && i.name !== ''), (i) => `${i.projectId ?? ''}/${i.name}`).map(([k, n]) => ({ invariant: 'no-duplicate-name' as const, detail: `${n} ${kind}s named ${k}` })),
  );
};
