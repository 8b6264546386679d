/**
 * What depends on an Identity (issue 11: "a finalizer holds it while any Server, Network, Volume or
 * LoadBalancer of that identity remains, with a condition saying which"): the Networks that name it,
 * and the Servers, Volumes, LoadBalancers and SecurityGroups on those Networks (a SecurityGroup lives in
 * the identity's project: deleting the project under it would orphan the Neutron group). Read from the resource source.
 */
import type { ResourceSource } from '../../kube/port.js';

export const identityDependents = async (source: ResourceSource, namespace: string, identityName: string): Promise<string[]> => {
  const networks = (await source.list('Network', namespace)).items.filter((n) => (n.spec as { identityRef?: { name?: string } }).identityRef?.name === identityName);
  const names = new Set(networks.map((n) => n.metadata.name));
  const out = networks.map((n) => `Network/${n.metadata.name}`);
  for (const kind of ['Server', 'Volume', 'LoadBalancer', 'SecurityGroup'] as const) {
    for (const object of (await source.list(kind, namespace)).items) {
      if (names.has((object.spec as { networkID?: string }).networkID ?? '')) out.push(`${kind}/${object.metadata.name}`);
    }
  }
  return out.sort();
};
