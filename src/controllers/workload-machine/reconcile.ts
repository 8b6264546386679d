/**
 * The WorkloadMachine controller's pass (issue 29; openstack-cluster-modules.md, the machine role): one Nova server
 * per machine, on a Neutron port of the cluster's subnet.
 *
 * One pass: decode the spec, hold a finalizer, read the cluster's exports from the ConfigMap it publishes, resolve
 * the image (by id or exact name) and the flavor (by name, no default), observe the port, the server and — for the
 * control plane — its membership of every API pool (src/provider/workload/machine.ts), and let the workload-machine
 * machine decide. Membership is the cluster's: its load balancer holds every control-plane port's address, so the
 * machine only waits for it before the server is created and, while deleting, for it to be gone before the server
 * is deleted. Once the server runs, an image change is Regent's write-ahead rebuild protocol
 * (src/controllers/server-rebuild/reconcile.ts, the stream `server-rebuild-<nova id>`): rebuilt in place, never
 * deleted and created again.
 */
import type { Engine } from '../../engine/engine.js';
import { contextOf } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import { isDeleting } from '../../kube/object.js';
import type { Logger } from '../../log/logger.js';
import type { WorkloadCluster, WorkloadMachine } from '../../resources/index.js';
import { validateWorkloadMachine } from '../../resources/index.js';
import type { Stimulus } from '../../../machines/definition.js';
import type { OpenStackSession } from '../../openstack/session.js';
import { workloadMachineDefinition, workloadMachineStream, type WorkloadMachineContext } from '../../../machines/workload-machine.js';
import type { DesiredMachine } from '../../../machines/workload-machine/observation.js';
import { observeMachine } from '../../provider/workload/machine.js';
import { resolveFlavorId, resolveImageId } from '../../provider/servers.js';
import { DesiredUnresolvable } from '../../provider/errors.js';
import type { ExportsPublisher } from '../../workload/exports-publisher.js';
import { reconcileServerImage, type ServerImageReads } from '../server-rebuild/reconcile.js';
import { done, park, yieldFor, type Disposition } from '../disposition.js';
import { recordDecisionEvents } from '../kube-events.js';
import { desiredMachine, machinePortName, machineTags } from './desired.js';

export const WORKLOAD_MACHINE_FINALIZER = 'regent.dev/workload-machine';

/** Requeue intervals (docs/workload-cluster.md). */
export const WORKLOAD_MACHINE_REQUEUE_MS = {
  /** a port or server was asked for, or Nova is building: the next pass observes the result. */
  progress: 2_000,
  /** a destructive step was armed: the next pass reads it back. */
  armed: 500,
  /** waiting for the cluster's exports, the pool membership, the image or flavor. */
  waiting: 3_000,
  /** a problem the user or an operator must fix (a foreign server, duplicates, ERROR). */
  refused: 60_000,
  /** running: re-read so drift is seen. */
  settled: 60_000,
} as const;

export type WorkloadMachineScope =
  | { kind: 'ready'; session: Pick<OpenStackSession, 'neutron' | 'nova' | 'glance' | 'octavia'> & { nova: ServerImageReads } }
  | { kind: 'notReady'; why: string };

export interface WorkloadMachineControllerDeps {
  engine: Engine;
  source: ResourceSource;
  logger: Logger;
  /** The cluster's Identity's clients. */
  scope: (cluster: WorkloadCluster) => Promise<WorkloadMachineScope>;
  exports: ExportsPublisher;
  /** The server id this machine has (for the rebuild stream's owner and the effects' scope). */
  onServerId?: (serverId: string, machine: WorkloadMachine) => void;
  now?: () => Date;
}

const actor = 'reconciler/workload-machine';

const resolved = async <T>(work: () => Promise<T>): Promise<T | null> => {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DesiredUnresolvable) return null;
    throw error;
  }
};

export const reconcileWorkloadMachine = async (deps: WorkloadMachineControllerDeps, namespace: string, name: string): Promise<Disposition> => {
  const object = (await deps.source.get('WorkloadMachine', namespace, name)) as WorkloadMachine | undefined;
  if (!object) return done('gone');
  const uid = object.metadata.uid;
  const stream = workloadMachineStream(uid);
  const generation = object.metadata.generation ?? 1;
  const deleting = isDeleting(object);
  const release = async (why: string): Promise<Disposition> => {
    if ((object.metadata.finalizers ?? []).includes(WORKLOAD_MACHINE_FINALIZER)) await deps.source.removeFinalizer('WorkloadMachine', namespace, name, WORKLOAD_MACHINE_FINALIZER);
    return done(why);
  };
  const validation = validateWorkloadMachine(object);
  if (!validation.ok && !deleting) {
    const problems = validation.errors.map((e) => `${e.path}: ${e.message}`);
    await deps.engine.decide(stream, { stimulus: { type: 'specRejected', source: 'reconciler', generation, problems } as unknown as Stimulus, actor });
    return done(`spec refused: ${problems.join('; ')}`);
  }
  if (!deleting && !(object.metadata.finalizers ?? []).includes(WORKLOAD_MACHINE_FINALIZER)) await deps.source.addFinalizer('WorkloadMachine', namespace, name, WORKLOAD_MACHINE_FINALIZER);

  const recorded = await deps.engine.load(workloadMachineDefinition, stream);
  const cluster = (await deps.source.get('WorkloadCluster', namespace, object.spec.clusterRef.name)) as WorkloadCluster | undefined;
  if (!cluster) {
    if (deleting && recorded.revision === undefined) return release('nothing was created in OpenStack; finalizer removed');
    return yieldFor(WORKLOAD_MACHINE_REQUEUE_MS.waiting, `waiting for the WorkloadCluster ${object.spec.clusterRef.name}`);
  }
  const scope = await deps.scope(cluster);
  if (scope.kind === 'notReady') {
    if (deleting && recorded.revision === undefined) return release('nothing was created in OpenStack; finalizer removed');
    return yieldFor(WORKLOAD_MACHINE_REQUEUE_MS.waiting, `waiting: ${scope.why}`);
  }

  // the desired node: from the exports the cluster published (null while there are none: the machine waits)
  const exports = await deps.exports.read(namespace, cluster.metadata.name);
  const tags = machineTags(cluster, object);
  if (!tags.ok && !deleting) {
    await deps.engine.decide(stream, { stimulus: { type: 'specRejected', source: 'reconciler', generation, problems: tags.problems } as unknown as Stimulus, actor });
    return done(`tags refused: ${tags.problems.join('; ')}`);
  }
  let desired: DesiredMachine | null = null;
  if (exports && tags.ok) {
    const imageId = await resolved(() => resolveImageId(scope.session, object.spec.image));
    const flavorId = await resolved(() => resolveFlavorId(scope.session, { name: object.spec.flavorName }));
    desired = desiredMachine({ machine: object, exports, tags, imageId, flavorId });
  }
  const pools = desired?.pools ?? [];
  const observed = await observeMachine(scope.session, { portName: machinePortName(uid), serverName: object.metadata.name, uid, pools, ...(exports ? { subnetId: exports.subnet_id } : {}) });
  const at = (deps.now ?? (() => new Date()))().toISOString();
  const decisions = await deps.engine.dispatch(stream, {
    stimulus: { type: 'reconcile', source: 'reconciler', generation, deletionRequested: deleting, at, desired, observed } as unknown as Stimulus,
    actor,
  });
  await recordDecisionEvents(deps.source, object, decisions, deps.logger);
  const last = decisions[decisions.length - 1];
  const context: WorkloadMachineContext = last ? contextOf(workloadMachineDefinition, last.snapshot) : recorded.context;
  const value = last?.snapshot.value ?? recorded.value;
  const state = typeof value === 'string' ? value : Object.keys(value as object)[0] ?? String(value);
  if (context.serverId) deps.onServerId?.(context.serverId, object);

  if (state === 'released') return release('the server and its port are gone; finalizer removed');
  if (context.failure) return park('WorkloadMachineRefused', `OpenStack refused ${context.failure.effect} (HTTP ${context.failure.status}); a new spec generation retries`);
  if (context.problem) return yieldFor(WORKLOAD_MACHINE_REQUEUE_MS.refused, `problem: ${typeof context.problem === 'string' ? context.problem : JSON.stringify(context.problem)}`);
  if (last?.outcome && /armed/i.test(last.outcome)) return yieldFor(WORKLOAD_MACHINE_REQUEUE_MS.armed, 'armed; the next pass reads it back');
  if (deleting) return yieldFor(WORKLOAD_MACHINE_REQUEUE_MS.progress, `deleting: ${context.waiting?.reason ?? state}`);
  if (state !== 'running' || !context.serverId || !desired?.imageId) {
    return yieldFor(context.waiting ? WORKLOAD_MACHINE_REQUEUE_MS.waiting : WORKLOAD_MACHINE_REQUEUE_MS.progress, `${context.waiting?.reason ?? last?.outcome ?? state}`);
  }
  // running: the image is Regent's rebuild protocol (write-ahead, at most once)
  const image = await reconcileServerImage(
    { engine: deps.engine, nova: scope.session.nova, logger: deps.logger, ...(deps.now ? { now: deps.now } : {}) },
    { serverId: context.serverId, desiredImage: desired.imageId, generation },
  );
  await recordDecisionEvents(deps.source, object, image.decisions, deps.logger);
  if (image.disposition.kind === 'done' && /runs the desired image/.test(image.disposition.why)) return yieldFor(WORKLOAD_MACHINE_REQUEUE_MS.settled, 'running the desired image');
  if (image.disposition.kind === 'done') return yieldFor(WORKLOAD_MACHINE_REQUEUE_MS.progress, image.disposition.why);
  return image.disposition;
};
