/**
 * Network provider: a Neutron network and its subnet under deterministic names (`network-<uid>`,
 * `network-<uid>-subnet`), re-found by exact name; creation ensures both (idempotent: an existing one
 * is kept), deletion removes the network (and with it its subnet).
 *
 * Two credential modes (docs/network.md):
 * - a Network whose Region configures no provider networks is created, observed and deleted with its
 *   Identity's session, in the Identity's project (the target has no `intoProject`: the token's project);
 * - a VLAN provider network (the Region's `providerNetworks`, issue 16) carries an allocated segment in its
 *   create request (`physicalNetwork`, `segmentationId`). Neutron's default policy keeps provider attributes to
 *   admins (a member token gets 403, docs/simulator-differences.md §18), so it is created with the Region's own
 *   credentials *into the Identity's project*: `project_id` on the network and the subnet. An admin sees every
 *   project's networks, so the exact-name lookup also filters on `project_id`.
 */
import type { EffectHandler } from '../engine/engine.js';
import type { OpenStackSession } from '../openstack/session.js';
import { NotFound } from '../openstack/errors.js';
import type { Observed } from '../../machines/lifecycle.js';
import { isRefusal, refusal } from './effect-results.js';
import { neutronSegmentation } from './inventory/vlan.js';

export const networkName = (uid: string): string => `network-${uid}`;
export const subnetName = (uid: string): string => `network-${uid}-subnet`;

export interface NetworkCreateRequest {
  uid: string;
  cidr: string;
  dnsNameservers: string[];
  /** A VLAN provider network's allocated segment (issue 16): both or neither. */
  physicalNetwork?: string;
  segmentationId?: number;
  [key: string]: unknown;
}

/** True when the create request carries an allocated VLAN segment (decided from the event, so replay agrees). */
export const isVlanRequest = (desired: unknown): desired is NetworkCreateRequest & { physicalNetwork: string; segmentationId: number } =>
  typeof (desired as NetworkCreateRequest | undefined)?.segmentationId === 'number' && typeof (desired as NetworkCreateRequest | undefined)?.physicalNetwork === 'string';

/**
 * The Neutron a network call goes to. `intoProject` set: an admin (Region) session working in that project —
 * lookups filter on it and creates name it; unset: the session's own project (an Identity's session, exactly
 * as before issue 16: no `project_id` anywhere). (Not `projectId`: an OpenStackSession has one, and passing a
 * session must keep meaning "its own project".)
 */
export interface NeutronTarget {
  neutron: OpenStackSession['neutron'];
  intoProject?: string;
}

const inProject = (target: NeutronTarget): Record<string, string> => (target.intoProject !== undefined ? { project_id: target.intoProject } : {});

export const observeNetwork = async (os: NeutronTarget, uid: string): Promise<Observed & { subnetId?: string }> => {
  const network = await os.neutron.lookupNetworkByName(networkName(uid), inProject(os));
  if (!network) return { kind: 'absent' };
  const subnets = await os.neutron.listSubnets({ network_id: network.id, name: subnetName(uid) });
  const subnet = subnets.find((s) => s.name === subnetName(uid));
  // A network without its subnet is not provisioned: observe it as absent so creation completes it.
  if (!subnet) return { kind: 'absent' };
  return { kind: 'present', id: network.id, subnetId: subnet.id };
};

/**
 * `os` is the target for this request: the Region's session with the Identity's project for a VLAN request
 * (`isVlanRequest`), the Identity's session otherwise (src/controllers/scopes.ts chooses).
 */
export const createNetworkHandler = (os: NeutronTarget): EffectHandler => async (effect, context) => {
  const desired = effect.desired as NetworkCreateRequest;
  const segment = isVlanRequest(desired) ? neutronSegmentation(desired) : {};
  try {
    const network =
      (await os.neutron.lookupNetworkByName(networkName(desired.uid), inProject(os))) ?? (await os.neutron.createNetwork({ name: networkName(desired.uid), ...inProject(os), ...segment }));
    const existing = (await os.neutron.listSubnets({ network_id: network.id })).find((s) => s.name === subnetName(desired.uid));
    if (!existing) {
      await os.neutron.createSubnet({
        name: subnetName(desired.uid),
        network_id: network.id,
        cidr: desired.cidr,
        ip_version: 4,
        ...inProject(os),
        ...(desired.dnsNameservers.length > 0 ? { dns_nameservers: desired.dnsNameservers } : {}),
      });
    }
    context.logger.info('neutron network ready', { networkId: network.id, name: networkName(desired.uid), ...(isVlanRequest(desired) ? { segmentationId: desired.segmentationId } : {}) });
    return { type: 'created', id: network.id };
  } catch (error) {
    if (isRefusal(error)) return refusal('createRejected', error);
    throw error;
  }
};

export const deleteNetworkHandler = (os: NeutronTarget): EffectHandler => async (effect) => {
  try {
    await os.neutron.deleteNetwork(String(effect.id));
    return { type: 'deleteAccepted' };
  } catch (error) {
    if (error instanceof NotFound) return { type: 'deleteAccepted' };
    if (isRefusal(error)) return refusal('deleteRejected', error);
    throw error;
  }
};
