/** The Network controller's pass: a Neutron network + subnet per Network resource (provider/networks.ts). */
import type { Engine } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import type { OpenStackSession } from '../../openstack/session.js';
import { validateNetwork, type Network } from '../../resources/index.js';
import { networkLifecycleStream } from '../../../machines/network-lifecycle.js';
import { observeNetwork } from '../../provider/networks.js';
import { done, type Disposition } from '../disposition.js';
import { runLifecyclePass } from '../lifecycle-pass.js';
import { recordDecisionEvents } from '../kube-events.js';
import { silentLogger } from '../../log/logger.js';

export const NETWORK_FINALIZER = 'regent.dev/network';

export interface NetworkControllerDeps {
  engine: Engine;
  source: ResourceSource;
  os: Pick<OpenStackSession, 'neutron'>;
  /** The pass's clock (default: the system clock); tests use the simulator's. */
  now?: () => Date;
}

export const reconcileNetwork = async (deps: NetworkControllerDeps, namespace: string, name: string): Promise<Disposition> => {
  const object = await deps.source.get('Network', namespace, name);
  if (!object) return done('gone');
  const network = object as Network;
  const validation = validateNetwork(network);
  const result = await runLifecyclePass({
    engine: deps.engine,
    source: deps.source,
    kind: 'Network',
    object,
    stream: networkLifecycleStream(network.metadata.uid),
    finalizer: NETWORK_FINALIZER,
    what: 'Neutron network',
    specProblems: validation.ok ? [] : validation.errors.map((e) => `${e.path}: ${e.message}`),
    observe: () => observeNetwork(deps.os, network.metadata.uid),
    desired: async () => ({ uid: network.metadata.uid, cidr: network.spec.prefix, dnsNameservers: network.spec.dnsNameservers ?? [] }),
    ...(deps.now ? { now: deps.now } : {}),
  });
  await recordDecisionEvents(deps.source, object, result.decisions, silentLogger());
  return result.disposition;
};
