/**
 * The Network controller's pass: a Neutron network + subnet per Network resource (provider/networks.ts).
 *
 * VLAN provider networks (issue 16, docs/network.md): when the Network's Region configures
 * `providerNetworks`, the pass allocates the Network's VLAN id (src/provider/inventory/vlan.ts) before the
 * lifecycle decides anything, so the allocation event is durable before any Neutron call, and puts the
 * segment (`physicalNetwork`, `segmentationId`) into the desired request: the deciding event carries it and
 * replay reads it. The network is then observed, created and deleted with the Region's own credentials in
 * the Identity's project. No free id → recorded as `VlanRangeExhausted` (lifecycle L9), nothing is created,
 * looked at again every 30 s. A create Neutron refused keeps the id on the network (V4); once the network is
 * confirmed gone on delete, the id is released (V5) before the finalizer is dropped.
 */
import type { Engine } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import type { OpenStackSession } from '../../openstack/session.js';
import { validateNetwork, type Network } from '../../resources/index.js';
import { networkLifecycleDefinition, networkLifecycleStream } from '../../../machines/network-lifecycle.js';
import { isVlanRequest, observeNetwork, type NeutronTarget } from '../../provider/networks.js';
import { VlanAllocator, VlanExhausted, type ProviderNetworkSettings } from '../../provider/inventory/vlan.js';
import { DesiredUnresolvable } from '../../provider/errors.js';
import { done, type Disposition } from '../disposition.js';
import { runLifecyclePass } from '../lifecycle-pass.js';
import { recordDecisionEvents } from '../kube-events.js';
import { silentLogger } from '../../log/logger.js';

export const NETWORK_FINALIZER = 'regent.dev/network';

/** The Network's Region as the VLAN path needs it (src/controllers/scopes.ts NetworkRegion). */
export interface NetworkVlanRegion {
  /** The Region resource's uid (the VLAN ledger's key). */
  uid: string;
  /** The Region's own (admin) session. */
  session: Pick<OpenStackSession, 'neutron'>;
  /** The Identity's project: where the network is created, and what lookups filter on. */
  intoProject: string;
  /** The Region's `providerNetworks`; undefined: no segmentation, the plain path. */
  settings: ProviderNetworkSettings | undefined;
}

export interface NetworkControllerDeps {
  engine: Engine;
  source: ResourceSource;
  /** The Identity's session (the plain path). */
  os: Pick<OpenStackSession, 'neutron'>;
  /** The Network's Region (VLAN provider networks); absent or undefined: every Network is a plain one. */
  region?: (network: Network) => Promise<NetworkVlanRegion | undefined>;
  /** The pass's clock (default: the system clock); tests use the simulator's. */
  now?: () => Date;
}

export const reconcileNetwork = async (deps: NetworkControllerDeps, namespace: string, name: string): Promise<Disposition> => {
  const object = await deps.source.get('Network', namespace, name);
  if (!object) return done('gone');
  const network = object as Network;
  const uid = network.metadata.uid;
  const validation = validateNetwork(network);
  const region = validation.ok && deps.region ? await deps.region(network) : undefined;
  const vlan = region?.settings ? { region, settings: region.settings, allocator: new VlanAllocator(deps.engine) } : undefined;
  const neutron: NeutronTarget = vlan ? { neutron: vlan.region.session.neutron, intoProject: vlan.region.intoProject } : { neutron: deps.os.neutron };
  const result = await runLifecyclePass({
    engine: deps.engine,
    source: deps.source,
    kind: 'Network',
    object,
    definition: networkLifecycleDefinition,
    stream: networkLifecycleStream(uid),
    finalizer: NETWORK_FINALIZER,
    what: 'Neutron network',
    specProblems: validation.ok ? [] : validation.errors.map((e) => `${e.path}: ${e.message}`),
    observe: () => observeNetwork(neutron, uid),
    desired: async () => {
      const plain = { uid, cidr: network.spec.prefix, dnsNameservers: network.spec.dnsNameservers ?? [] };
      if (!vlan) return plain;
      try {
        // V1/V2: durable before the lifecycle decides (and so before any Neutron call)
        const allocation = await vlan.allocator.allocate(vlan.region.uid, vlan.settings, uid, `${namespace}/${name}`);
        return { ...plain, physicalNetwork: allocation.physicalNetwork, segmentationId: allocation.segmentationId };
      } catch (error) {
        // V3: nothing can be created until an id is freed or the range widened
        if (error instanceof VlanExhausted) throw new DesiredUnresolvable('VlanRangeExhausted', error.message);
        throw error;
      }
    },
    // V5: the network is confirmed gone; a Network that never held an id releases nothing (V6)
    ...(vlan ? { onDeleted: () => vlan.allocator.release(vlan.region.uid, vlan.settings.physicalNetwork, uid) } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });
  // V4: Neutron refused the create (409: the segment is taken on the physical network): the id stays with this network
  const refused = result.decisions.find((d) => d.outcome === 'createRejected');
  const request = result.decisions.map((d) => d.effects.find((e) => e.type === 'neutron.createNetwork')?.desired).find((d) => d !== undefined);
  if (vlan && refused && isVlanRequest(request)) {
    await vlan.allocator.createFailed(vlan.region.uid, request.physicalNetwork, uid, result.context.lastError ?? 'Neutron refused the create');
  }
  await recordDecisionEvents(deps.source, object, result.decisions, silentLogger());
  return result.disposition;
};
