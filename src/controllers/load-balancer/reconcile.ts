/**
 * The LoadBalancer controller's pass (issue 13; openstack-provider.md, "Octavia Load Balancers"): the
 * LoadBalancer resource is the desired-state root, Octavia the cloud-side truth. Each pass normalizes the
 * spec into the desired topology (`desiredTopology`, pure), observes Octavia by the deterministic names
 * (src/provider/load-balancers.ts) with the clients of the Network's Identity, and lets
 * machines/load-balancer.ts decide one step. A finalizer holds the resource until the machine has seen the
 * load balancer gone.
 *
 * Project: the Network's Identity's, where the Network (the VIP's subnet) and the Servers (the members)
 * are. The spec names the service principal's project; a VIP on a tenant subnet from another project would
 * need that subnet shared, which Regent does not do (docs/loadbalancer.md, Caveats).
 */
import type { Engine } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import { isDeleting } from '../../kube/object.js';
import type { Logger } from '../../log/logger.js';
import { validateLoadBalancer, type LoadBalancer, type LoadBalancerSpec, type Network, type Identity, type Region } from '../../resources/index.js';
import type { Stimulus } from '../../../machines/definition.js';
import { loadBalancerDefinition, loadBalancerName, loadBalancerStream, type LoadBalancerStimulus } from '../../../machines/load-balancer.js';
import type { DesiredTopology } from '../../../machines/load-balancer-topology.js';
import { observeTopology, type TopologyClients } from '../../provider/load-balancers.js';
import { observeNetwork } from '../../provider/networks.js';
import type { OpenStackSession } from '../../openstack/session.js';
import { done, park, yieldFor, type Disposition } from '../disposition.js';
import { recordDecisionEvents } from '../kube-events.js';

export const LOAD_BALANCER_FINALIZER = 'regent.dev/load-balancer';

/** Requeue intervals (docs/loadbalancer.md). */
export const LOAD_BALANCER_REQUEUE_MS = {
  /** a mutation was sent or Octavia is PENDING_*: the next pass observes the settled state. */
  progress: 2_000,
  /** a destructive step was armed: the next pass reads it back. */
  armed: 500,
  /** waiting for the Network, its Identity or the Region. */
  waiting: 5_000,
  /** provisioned: re-read so drift (a member removed by hand) is converged. */
  settled: 60_000,
  /** a consistency error (duplicates, ERROR, drift Octavia cannot change): an operator may fix it. */
  inconsistent: 60_000,
} as const;

export type LoadBalancerScope =
  | { kind: 'ready'; session: Pick<OpenStackSession, 'neutron'> & TopologyClients }
  | { kind: 'notReady'; why: string };

export interface LoadBalancerControllerDeps {
  engine: Engine;
  source: ResourceSource;
  /** The Network's Identity's clients (src/controllers/scopes.ts). */
  scope: (lb: LoadBalancer) => Promise<LoadBalancerScope>;
  logger: Logger;
  now?: () => Date;
}

const actor = 'reconciler/load-balancer';

/**
 * The desired topology from the spec (pure): the deterministic names derive from the resource's uid (unique
 * per project, as `volume-<uid>` is), timeouts stay in the spec's seconds, UDP takes neither idle timeouts
 * nor PROXY v2 (the CRD refuses both).
 */
export const desiredTopology = (input: { uid: string; spec: LoadBalancerSpec; vipSubnetId: string; externalNetworkId: string | undefined }): DesiredTopology => ({
  name: loadBalancerName(input.uid),
  vipSubnetId: input.vipSubnetId,
  floatingIP: input.spec.floatingIP === true && input.externalNetworkId ? { wanted: true, networkId: input.externalNetworkId } : { wanted: false },
  ...(input.spec.vipAddress ? { vipAddress: input.spec.vipAddress } : {}),
  listeners: input.spec.listeners.map((l) => ({
    name: l.name,
    protocol: l.protocol,
    port: l.port,
    allowedCIDRs: [...(l.allowedCIDRs ?? [])],
    proxyProtocolV2: l.proxyProtocolV2 === true,
    pool: {
      members: (l.pool?.members ?? []).map((m) => ({ address: m.address, port: m.port })),
      ...(l.pool?.healthMonitor ? { healthMonitor: { ...l.pool.healthMonitor } } : {}),
    },
    ...(l.protocol === 'TCP' && l.idleTimeouts ? { idleTimeouts: { ...l.idleTimeouts } } : {}),
  })),
});

export const reconcileLoadBalancer = async (deps: LoadBalancerControllerDeps, namespace: string, name: string): Promise<Disposition> => {
  const object = (await deps.source.get('LoadBalancer', namespace, name)) as LoadBalancer | undefined;
  if (!object) return done('gone');
  const uid = object.metadata.uid;
  const stream = loadBalancerStream(uid);
  const generation = object.metadata.generation ?? 1;
  const deleting = isDeleting(object);
  const validation = validateLoadBalancer(object);
  const reject = async (problems: string[]): Promise<Disposition> => {
    await deps.engine.decide(stream, { stimulus: { type: 'specRejected', source: 'reconciler', generation, problems } as unknown as Stimulus, actor });
    return done(`spec refused: ${problems.join('; ')}`);
  };
  if (!validation.ok && !deleting) return reject(validation.errors.map((e) => `${e.path}: ${e.message}`));
  if (!deleting && !(object.metadata.finalizers ?? []).includes(LOAD_BALANCER_FINALIZER)) await deps.source.addFinalizer('LoadBalancer', namespace, name, LOAD_BALANCER_FINALIZER);
  const release = async (why: string): Promise<Disposition> => {
    if ((object.metadata.finalizers ?? []).includes(LOAD_BALANCER_FINALIZER)) await deps.source.removeFinalizer('LoadBalancer', namespace, name, LOAD_BALANCER_FINALIZER);
    return done(why);
  };

  const recorded = await deps.engine.load(loadBalancerDefinition, stream);
  const neverDecided = recorded.revision === undefined || (recorded.context.loadBalancerId === null && recorded.state === 'absent');
  const network = (await deps.source.get('Network', namespace, object.spec.networkID)) as Network | undefined;
  if (!network) {
    // nothing was ever created: nothing to delete, and no project to look in
    if (deleting && neverDecided) return release('nothing was created in Octavia; finalizer removed');
    return yieldFor(LOAD_BALANCER_REQUEUE_MS.waiting, `waiting for Network ${object.spec.networkID}`);
  }
  const scope = await deps.scope(object);
  if (scope.kind === 'notReady') {
    if (deleting && neverDecided) return release('nothing was created in Octavia; finalizer removed');
    return yieldFor(LOAD_BALANCER_REQUEUE_MS.waiting, `waiting: ${scope.why}`);
  }
  const networkSeen = await observeNetwork(scope.session, network.metadata.uid);
  if (networkSeen.kind !== 'present' || !networkSeen.subnetId) {
    if (deleting && neverDecided) return release('nothing was created in Octavia; finalizer removed');
    return yieldFor(LOAD_BALANCER_REQUEUE_MS.waiting, `waiting for the Neutron network of ${network.metadata.name}`);
  }
  // the floating network is the Region's (spec.openstack.network.externalNetworkID)
  const identityName = network.spec.identityRef?.name;
  const identity = identityName ? ((await deps.source.get('Identity', namespace, identityName)) as Identity | undefined) : undefined;
  const region = identity ? ((await deps.source.get('Region', namespace, identity.spec.regionRef.name)) as Region | undefined) : undefined;
  const externalNetworkId = region?.spec.openstack.network?.externalNetworkID;
  if (object.spec.floatingIP === true && !externalNetworkId && !deleting) {
    return reject([`spec.floatingIP: the Region ${identity?.spec.regionRef.name ?? '?'} names no external network (spec.openstack.network.externalNetworkID), so no floating IP can be allocated`]);
  }
  const desired = desiredTopology({ uid, spec: object.spec, vipSubnetId: networkSeen.subnetId, externalNetworkId });
  const observed = await observeTopology(scope.session, desired);
  const stimulus: LoadBalancerStimulus = {
    type: 'reconcile',
    source: 'reconciler',
    generation,
    deletionRequested: deleting,
    at: (deps.now ?? (() => new Date()))().toISOString(),
    desired,
    observed,
  } as LoadBalancerStimulus;
  const decisions = await deps.engine.dispatch(stream, { stimulus: stimulus as unknown as Stimulus, actor });
  await recordDecisionEvents(deps.source, object, decisions, deps.logger);
  const last = decisions[decisions.length - 1];
  const state = last?.snapshot.value;
  const value = typeof state === 'string' ? state : `deleting.${String((state as { deleting?: string } | undefined)?.deleting ?? '?')}`;
  switch (value) {
    case 'deleted':
      return release('deleted; finalizer removed');
    case 'provisioned':
      return yieldFor(LOAD_BALANCER_REQUEUE_MS.settled, 'provisioned');
    case 'inconsistent':
      return yieldFor(LOAD_BALANCER_REQUEUE_MS.inconsistent, 'Octavia does not show a consistent topology');
    case 'failed':
      return park('LoadBalancerRefused', 'Octavia or Neutron refused a change; a new spec generation retries');
    case 'invalid':
      return done('spec refused');
    case 'pruning':
    case 'deleting.armed':
      return yieldFor(LOAD_BALANCER_REQUEUE_MS.armed, 'armed; the next pass reads it back');
    default:
      return yieldFor(LOAD_BALANCER_REQUEUE_MS.progress, `${last?.outcome ?? value}: the next pass observes the result`);
  }
};
