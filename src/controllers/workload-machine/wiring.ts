/**
 * The WorkloadMachine kind as the control plane runs it (src/controllers/kind.ts; issue 29): passes with the session
 * of its cluster's Identity, the port and server handlers (the user data read from the resource at the moment the
 * server is created: it never enters an event), its rebuild stream (`server-rebuild-<nova id>`, whose `nova.rebuild`
 * handler the Server kind registers) joined to it through the stream-owner map, and what wakes it: its spec, and its
 * cluster (new exports; the API pools holding its address).
 */
import type { EffectHandler } from '../../engine/engine.js';
import { workloadMachineStream } from '../../../machines/workload-machine.js';
import { WORKLOAD_MACHINE_EFFECTS } from '../../../machines/workload-machine/observation.js';
import { workloadMachineHandlers } from '../../provider/workload/machine.js';
import type { WorkloadMachine } from '../../resources/index.js';
import { keyOf, keyParts, type KindWiring } from '../kind.js';
import { reconcileWorkloadMachine } from './reconcile.js';
import { resolveWorkloadScope } from '../workload-cluster/scope.js';
import { workloadMachineStatus } from './status.js';

const ns = (o: { metadata: { namespace?: string } }): string => o.metadata.namespace ?? 'default';

export const workloadMachineWiring: KindWiring = {
  kind: 'WorkloadMachine',
  streams: [
    { prefix: workloadMachineStream(''), kind: 'WorkloadMachine', key: 'uid' },
    { prefix: 'scope-reachability-', kind: 'WorkloadMachine', key: 'uid' },
  ],
  status: workloadMachineStatus,
  wakes: [
    { from: 'WorkloadMachine', on: 'spec', why: 'its own spec changed, or its deletion was requested', keys: (o) => [keyOf(o)] },
    {
      from: 'WorkloadCluster',
      on: 'any',
      why: "its cluster's exports changed (the subnet, security groups, server group and API pools it is created with), or the pools now hold its address",
      keys: (cluster, lookups) =>
        lookups.list('WorkloadMachine').filter((m) => ns(m) === ns(cluster) && (m.spec as { clusterRef: { name: string } }).clusterRef.name === cluster.metadata.name).map(keyOf),
      signature: (cluster) => JSON.stringify((cluster.status as { exports?: unknown; conditions?: unknown } | undefined)?.exports ?? null) + JSON.stringify((cluster.status as { members?: unknown } | undefined)?.members ?? null),
    },
  ],
  build: (services) => {
    const { engine, source, logger, scopes, lookups, owners, exports, now } = services;
    const userDataOf = (uid: string): string | undefined =>
      (lookups.list('WorkloadMachine').find((m) => m.metadata.uid === uid) as WorkloadMachine | undefined)?.spec.userData;
    const handlers: Record<string, EffectHandler> = {};
    for (const type of Object.values(WORKLOAD_MACHINE_EFFECTS)) {
      handlers[type] = async (effect, context) => (workloadMachineHandlers((await scopes.forStream(context.stream)).session, userDataOf)[type] as EffectHandler)(effect, context);
    }
    return {
      handlers,
      reconcile: services.reach.track(
        (key) => lookups.get('WorkloadMachine', ...keyParts(key))?.metadata.uid,
        (key, note) =>
          reconcileWorkloadMachine(
            {
              engine,
              source,
              logger,
              exports,
              ...(now ? { now } : {}),
              onServerId: (serverId, machine) => owners.noteNovaServer(serverId, machine.metadata.uid, 'WorkloadMachine'),
              scope: async (cluster) => {
                const r = await resolveWorkloadScope(scopes, note, cluster);
                return r.kind === 'ready' ? { kind: 'ready', session: r.scope.session } : r;
              },
            },
            ...keyParts(key),
          ),
      ),
    };
  },
};
