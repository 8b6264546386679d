/**
 * Network provider: a Neutron network and its subnet under deterministic names (`network-<uid>`,
 * `network-<uid>-subnet`), re-found by exact name; creation ensures both (idempotent: an existing one
 * is kept), deletion removes the network (and with it its subnet).
 */
import type { EffectHandler } from '../engine/engine.js';
import type { OpenStackSession } from '../openstack/session.js';
import { NotFound } from '../openstack/errors.js';
import type { Observed } from '../../machines/lifecycle.js';
import { isRefusal, refusal } from './effect-results.js';

export const networkName = (uid: string): string => `network-${uid}`;
export const subnetName = (uid: string): string => `network-${uid}-subnet`;

export interface NetworkCreateRequest {
  uid: string;
  cidr: string;
  dnsNameservers: string[];
  [key: string]: unknown;
}

export const observeNetwork = async (os: Pick<OpenStackSession, 'neutron'>, uid: string): Promise<Observed & { subnetId?: string }> => {
  const network = await os.neutron.lookupNetworkByName(networkName(uid));
  if (!network) return { kind: 'absent' };
  const subnets = await os.neutron.listSubnets({ network_id: network.id, name: subnetName(uid) });
  const subnet = subnets.find((s) => s.name === subnetName(uid));
  // A network without its subnet is not provisioned: observe it as absent so creation completes it.
  if (!subnet) return { kind: 'absent' };
  return { kind: 'present', id: network.id, subnetId: subnet.id };
};

export const createNetworkHandler = (os: Pick<OpenStackSession, 'neutron'>): EffectHandler => async (effect, context) => {
  const desired = effect.desired as NetworkCreateRequest;
  try {
    const network = (await os.neutron.lookupNetworkByName(networkName(desired.uid))) ?? (await os.neutron.createNetwork({ name: networkName(desired.uid) }));
    const existing = (await os.neutron.listSubnets({ network_id: network.id })).find((s) => s.name === subnetName(desired.uid));
    if (!existing) {
      await os.neutron.createSubnet({
        name: subnetName(desired.uid),
        network_id: network.id,
        cidr: desired.cidr,
        ip_version: 4,
        ...(desired.dnsNameservers.length > 0 ? { dns_nameservers: desired.dnsNameservers } : {}),
      });
    }
    context.logger.info('neutron network ready', { networkId: network.id, name: networkName(desired.uid) });
    return { type: 'created', id: network.id };
  } catch (error) {
    if (isRefusal(error)) return refusal('createRejected', error);
    throw error;
  }
};

export const deleteNetworkHandler = (os: Pick<OpenStackSession, 'neutron'>): EffectHandler => async (effect) => {
  try {
    await os.neutron.deleteNetwork(String(effect.id));
    return { type: 'deleteAccepted' };
  } catch (error) {
    if (error instanceof NotFound) return { type: 'deleteAccepted' };
    if (isRefusal(error)) return refusal('deleteRejected', error);
    throw error;
  }
};
