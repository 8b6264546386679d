/**
 * The WorkloadCluster controller's pass (issue 29; openstack-cluster-modules.md, the cluster role). The resource is
 * the desired-state root; Neutron, Nova and Octavia are the truth, re-found each pass by deterministic names.
 *
 * One pass: decode the spec, hold a finalizer, resolve the Identity's clients, observe the cluster's parts
 * (src/provider/workload/cluster.ts) and let the workload-cluster machine decide (security groups and their rules,
 * the server group, the endpoint guard, the deletion order). Once its parts are ready, the API load balancer is the
 * load-balancer machine's, on the stream `load-balancer-<cluster uid>`: its topology (endpointTopology) comes from the
 * guard the machine recorded and the control-plane machines' addresses, which is how a control-plane machine is
 * registered in every pool before its server boots, and leaves them (its deletion drops its address) before its server
 * is deleted. The exports are published as a ConfigMap once complete.
 *
 * Deletion, in reverse order: the machines go first (the cluster waits for them), then the load balancer (floating IP
 * released, then the cascade delete), then the server group and the security groups (write-ahead, in the machine).
 */
import type { Engine, Decision } from '../../engine/engine.js';
import { contextOf } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import { isDeleting } from '../../kube/object.js';
import type { Logger } from '../../log/logger.js';
import type { Identity, Region, WorkloadCluster, WorkloadMachine } from '../../resources/index.js';
import { validateWorkloadCluster } from '../../resources/index.js';
import type { Stimulus } from '../../../machines/definition.js';
import type { OpenStackSession } from '../../openstack/session.js';
import { loadBalancerDefinition, loadBalancerName, loadBalancerStream, type LoadBalancerContext, type LoadBalancerStimulus } from '../../../machines/load-balancer.js';
import { workloadClusterDefinition, workloadClusterStream, type WorkloadClusterContext } from '../../../machines/workload-cluster.js';
import { workloadMachineDefinition, workloadMachineStream } from '../../../machines/workload-machine.js';
import { renderTags } from '../../../machines/workload-cluster/tags.js';
import { observeTopology, type TopologyClients } from '../../provider/load-balancers.js';
import { observeCluster } from '../../provider/workload/cluster.js';
import type { ExportsPublisher } from '../../workload/exports-publisher.js';
import { canonicalJson } from '../../resources/codec/transitions.js';
import { clusterExports } from '../../../projections/workload-cluster-exports.js';
import { done, park, yieldFor, type Disposition } from '../disposition.js';
import { recordDecisionEvents } from '../kube-events.js';
import { API_LISTENERS, RKE2_SUPERVISOR_PORT, desiredCluster, endpointTopology } from './desired.js';

export const WORKLOAD_CLUSTER_FINALIZER = 'regent.dev/workload-cluster';

/** Requeue intervals (docs/workload-cluster.md). */
export const WORKLOAD_CLUSTER_REQUEUE_MS = {
  /** something was created or Octavia is PENDING_*: the next pass observes the result. */
  progress: 1_000,
  /** a destructive step was armed: the next pass reads it back. */
  armed: 500,
  /** waiting for the Identity, the subnet, the machines to go. */
  waiting: 5_000,
  /** a precondition, a guard violation, a consistency problem: the user or an operator must act. */
  refused: 60_000,
  /** everything ready: re-read so drift is seen. */
  settled: 60_000,
} as const;

export type WorkloadClusterScope =
  | { kind: 'ready'; session: Pick<OpenStackSession, 'neutron' | 'nova' | 'cloud'> & TopologyClients; identity: Identity }
  | { kind: 'notReady'; why: string };

export interface WorkloadClusterControllerDeps {
  engine: Engine;
  source: ResourceSource;
  logger: Logger;
  /** The Identity's clients (src/provider/identity/sessions.ts). */
  scope: (cluster: WorkloadCluster) => Promise<WorkloadClusterScope>;
  /** The WorkloadMachines of a cluster (the informer cache). */
  machinesOf: (namespace: string, cluster: string) => readonly WorkloadMachine[];
  exports: ExportsPublisher;
  /** The exports were (re)published: the status, which shows them as published, is rendered again. */
  onPublished?: (cluster: WorkloadCluster) => Promise<void>;
  now?: () => Date;
}

const actor = 'reconciler/workload-cluster';
const ns = (o: { metadata: { namespace?: string } }): string => o.metadata.namespace ?? 'default';

/** The addresses of the control-plane machines that are to be members: their ports' fixed IPs, none being deleted. */
const controlPlaneAddresses = async (engine: Engine, machines: readonly WorkloadMachine[]): Promise<string[]> => {
  const addresses: string[] = [];
  for (const machine of machines) {
    if (machine.spec.role !== 'ControlPlane' || isDeleting(machine)) continue;
    const address = (await engine.load(workloadMachineDefinition, workloadMachineStream(machine.metadata.uid))).context.address;
    if (address) addresses.push(address);
  }
  return addresses;
};

/** The floating-IP pool's network id: an external network by id or by exact name; null when none. */
const floatingNetwork = async (session: Pick<OpenStackSession, 'neutron'>, pool: string | null): Promise<string | null> => {
  if (!pool) return null;
  const networks = await session.neutron.listNetworks({ 'router:external': true });
  const byId = networks.find((n) => n.id === pool);
  if (byId) return byId.id;
  const named = networks.filter((n) => n.name === pool);
  return named.length === 1 ? (named[0]?.id ?? null) : null;
};

/** The Region name of the cluster's Identity (the exports' `region`). */
export const regionNameOf = async (source: ResourceSource, identity: Identity): Promise<string | undefined> => {
  const region = (await source.get('Region', ns(identity), identity.spec.regionRef.name)) as Region | undefined;
  return region?.spec.openstack.region;
};

const stateOf = (decisions: readonly Decision[], fallback: string): string => {
  const value = decisions[decisions.length - 1]?.snapshot.value;
  if (value === undefined) return fallback;
  return typeof value === 'string' ? value : Object.keys(value as object)[0] ?? fallback;
};

export const reconcileWorkloadCluster = async (deps: WorkloadClusterControllerDeps, namespace: string, name: string): Promise<Disposition> => {
  const object = (await deps.source.get('WorkloadCluster', namespace, name)) as WorkloadCluster | undefined;
  if (!object) return done('gone');
  const uid = object.metadata.uid;
  const stream = workloadClusterStream(uid);
  const lbStream = loadBalancerStream(uid);
  const generation = object.metadata.generation ?? 1;
  const deleting = isDeleting(object);
  const now = deps.now ?? (() => new Date());
  const release = async (why: string): Promise<Disposition> => {
    await deps.exports.remove(namespace, name);
    if ((object.metadata.finalizers ?? []).includes(WORKLOAD_CLUSTER_FINALIZER)) await deps.source.removeFinalizer('WorkloadCluster', namespace, name, WORKLOAD_CLUSTER_FINALIZER);
    return done(why);
  };

  const validation = validateWorkloadCluster(object);
  if (!validation.ok && !deleting) {
    const problems = validation.errors.map((e) => `${e.path}: ${e.message}`);
    await deps.engine.decide(stream, { stimulus: { type: 'specRejected', source: 'reconciler', generation, problems } as unknown as Stimulus, actor });
    return done(`spec refused: ${problems.join('; ')}`);
  }
  if (!deleting && !(object.metadata.finalizers ?? []).includes(WORKLOAD_CLUSTER_FINALIZER)) await deps.source.addFinalizer('WorkloadCluster', namespace, name, WORKLOAD_CLUSTER_FINALIZER);

  const recorded = await deps.engine.load(workloadClusterDefinition, stream);
  const lbRecorded = await deps.engine.load(loadBalancerDefinition, lbStream);
  const neverDecided = recorded.revision === undefined && lbRecorded.revision === undefined;
  const machines = deps.machinesOf(namespace, name);
  if (deleting && neverDecided && machines.length === 0) return release('nothing was created in OpenStack; finalizer removed');

  const scope = await deps.scope(object);
  if (scope.kind === 'notReady') return yieldFor(WORKLOAD_CLUSTER_REQUEUE_MS.waiting, `waiting: ${scope.why}`);
  const desired = desiredCluster(object);
  const at = now().toISOString();
  const observed = {
    // the server group is looked up whatever the spec wants (one Regent created earlier is still found)
    ...(await observeCluster(scope.session, { name: desired.name, subnetId: desired.subnetId, loadBalancerName: loadBalancerName(uid) })),
    machines: machines.length,
  };
  const decisions = await deps.engine.dispatch(stream, {
    stimulus: { type: 'reconcile', source: 'reconciler', generation, deletionRequested: deleting, at, desired, observed } as unknown as Stimulus,
    actor,
  });
  await recordDecisionEvents(deps.source, object, decisions, deps.logger);
  const last = decisions[decisions.length - 1];
  const context: WorkloadClusterContext = last ? contextOf(workloadClusterDefinition, last.snapshot) : recorded.context;
  const state = stateOf(decisions, recorded.state);
  if (state === 'released') return release('the load balancer, the server group and the security groups are gone; finalizer removed');

  // ─── the API load balancer (the load-balancer machine's) ───────────────────────────────────────────
  let lb: { state: string; context: LoadBalancerContext; outcome: string | undefined } | undefined =
    lbRecorded.revision === undefined ? undefined : { state: lbRecorded.state, context: lbRecorded.context, outcome: undefined };
  const guard = context.guard;
  const lbGone = lb?.state === 'deleted' || lb === undefined;
  const drive = async (deletionRequested: boolean): Promise<void> => {
    if (!guard || !context.subnet) return;
    const tags = renderTags(desired.tags);
    const topology = endpointTopology({
      uid,
      desired,
      guard,
      subnetCidr: context.subnet.cidr,
      floatingNetworkId: deletionRequested ? null : await floatingNetwork(scope.session, guard.floatingIPPool),
      memberAddresses: deletionRequested ? [] : await controlPlaneAddresses(deps.engine, machines),
      tags: tags.ok ? tags.tags : [],
    });
    const seen = await observeTopology(scope.session, topology);
    const stimulus = { type: 'reconcile', source: 'reconciler', generation, deletionRequested, at, desired: topology, observed: seen } as LoadBalancerStimulus;
    const lbDecisions = await deps.engine.dispatch(lbStream, { stimulus: stimulus as unknown as Stimulus, actor: 'reconciler/workload-cluster-endpoint' });
    await recordDecisionEvents(deps.source, object, lbDecisions, deps.logger);
    const lbLast = lbDecisions[lbDecisions.length - 1];
    const after = await deps.engine.load(loadBalancerDefinition, lbStream);
    lb = { state: after.state, context: after.context, outcome: lbLast?.outcome };
  };
  if (desired.endpoint.kind === 'loadBalancer' && !deleting && context.partsReady && (context.guardViolation ?? []).length === 0 && (context.problems ?? []).length === 0) {
    await drive(false);
  } else if (deleting && lbRecorded.revision !== undefined && !lbGone) {
    // machines first: while any remain, the load balancer stays and a departing control plane's address leaves the
    // pools (its machine waits for that before deleting its server); once none remains, the load balancer goes
    await drive(machines.length === 0);
  }

  // ─── the exports ──────────────────────────────────────────────────────────────────────────────────
  if (!deleting) {
    // the Region resource's OpenStack region, else the region the process's own cloud names (Region `default`)
    const region = (await regionNameOf(deps.source, scope.identity)) ?? scope.session.cloud.regionName ?? scope.identity.spec.regionRef.name;
    const exports = clusterExports({
      region,
      spec: object.spec,
      cluster: context,
      loadBalancer: lb ? { state: lb.state, context: lb.context } : undefined,
      listeners: API_LISTENERS,
      rke2SupervisorPort: RKE2_SUPERVISOR_PORT,
    });
    if (exports) {
      const published = await deps.exports.read(namespace, name);
      // equal exports in another key order are the same exports: no publish, no status render
      if (published === undefined || canonicalJson(published) !== canonicalJson(exports)) {
        await deps.exports.publish(namespace, name, exports, { owner: { uid } });
        await deps.onPublished?.(object);
      }
    }
  }

  // ─── when to come back ─────────────────────────────────────────────────────────────────────────────
  if ((context.problems ?? []).length > 0) return yieldFor(WORKLOAD_CLUSTER_REQUEUE_MS.refused, `refused: ${(context.problems ?? []).join('; ')}`);
  if ((context.guardViolation ?? []).length > 0) return yieldFor(WORKLOAD_CLUSTER_REQUEUE_MS.refused, 'a guarded endpoint field changed: refused, not applied');
  if (context.failure) return park('WorkloadClusterRefused', `OpenStack refused ${context.failure.effect} (HTTP ${context.failure.status}); a new spec generation retries`);
  if (last?.outcome && /armed/i.test(last.outcome)) return yieldFor(WORKLOAD_CLUSTER_REQUEUE_MS.armed, 'armed; the next pass reads it back');
  if (deleting) return yieldFor(lb && !lbGone ? WORKLOAD_CLUSTER_REQUEUE_MS.progress : WORKLOAD_CLUSTER_REQUEUE_MS.waiting, `deleting: ${context.waiting?.reason ?? state}`);
  if (lb) {
    if (lb.state === 'failed') return park('LoadBalancerRefused', 'Octavia or Neutron refused a change of the API load balancer; a new spec generation retries');
    if (lb.state === 'pruning') return yieldFor(WORKLOAD_CLUSTER_REQUEUE_MS.armed, 'a load-balancer prune was armed; the next pass reads it back');
    if (lb.state === 'inconsistent') return yieldFor(WORKLOAD_CLUSTER_REQUEUE_MS.refused, 'Octavia does not show a consistent API load balancer');
    if (lb.state !== 'provisioned') return yieldFor(WORKLOAD_CLUSTER_REQUEUE_MS.progress, `the API load balancer: ${lb.outcome ?? lb.state}`);
  }
  if (!context.partsReady || (desired.endpoint.kind === 'loadBalancer' && !lb)) return yieldFor(WORKLOAD_CLUSTER_REQUEUE_MS.progress, `${last?.outcome ?? state}: the next pass observes the result`);
  return yieldFor(WORKLOAD_CLUSTER_REQUEUE_MS.settled, 'ready');
};
