/**
 * The Nova kind as the control plane runs it (src/controllers/kind.ts): its pipeline (./pipeline.ts), recorded on
 * four streams (the pipeline's conditions, the Database step's upgrade machine, the DBArchive step's, the finalizer's), woken by its own spec; its Job effects; the runtime's background scheduler while leading.
 */
import { novaDatabaseStream } from '../../../machines/nova-upgrade.js';
import { novaDBArchiveStream } from '../../../machines/nova-db-archive.js';
import { novaPipelineStream } from '../../../machines/nova-pipeline.js';
import { novaFinalizerStream } from '../../../machines/nova-finalizer.js';
import { sharedNovaMetrics } from '../../observability/nova-metrics.js';
import { keyOf, keyParts, type KindWiring } from '../kind.js';
import { novaEffectHandlers } from './effects.js';
import { reconcileNova } from './reconcile.js';
import { novaStatus } from './status.js';
import type { Nova } from '../../resources/nova.js';
import type { TargetCluster } from '../../nova/target-clusters.js';

export const novaWiring: KindWiring = {
  kind: 'Nova',
  streams: [
    { prefix: novaDatabaseStream(''), kind: 'Nova', key: 'uid' },
    { prefix: novaDBArchiveStream(''), kind: 'Nova', key: 'uid' },
    { prefix: novaPipelineStream(''), kind: 'Nova', key: 'uid' },
    { prefix: novaFinalizerStream(''), kind: 'Nova', key: 'uid' },
  ],
  status: novaStatus,
  wakes: [{ from: 'Nova', on: 'spec', why: 'its own spec changed, or its deletion was requested', keys: (o) => [keyOf(o)] }],
  build: (services) => {
    // the children's watches (Kubernetes), while leading: a change wakes the Nova it maps to, from the informer cache;
    // a target cluster's watch set is started by the first pass placed there (deps.watchTarget), all stopped together
    let watches: { stop(): Promise<void> } | undefined;
    let targets: ReturnType<NonNullable<typeof services.nova.startTargetWatches>> | undefined;
    const watchTarget = services.nova.startTargetWatches ? { watchTarget: (cluster: TargetCluster, namespace: string) => targets?.ensure(cluster, namespace) ?? false } : {};
    const deps = { engine: services.engine, source: services.source, secrets: services.source.secrets, logger: services.logger, metrics: sharedNovaMetrics(services.metrics.registry), ...services.nova, ...watchTarget };
    return {
      reconcile: (key) => reconcileNova(deps, ...keyParts(key), services.now),
      handlers: novaEffectHandlers(deps),
      startLeading: () => {
        services.nova.start();
        watches = services.nova.startWatches?.((key) => services.enqueue('Nova', key), () => services.lookups.list('Nova') as Nova[]);
        targets = services.nova.startTargetWatches?.((key) => services.enqueue('Nova', key), () => services.lookups.list('Nova') as Nova[]);
      },
      stopLeading: async () => {
        await services.nova.stop();
        const stopping = watches;
        const stoppingTargets = targets;
        watches = undefined;
        targets = undefined;
        await Promise.all([stopping?.stop(), stoppingTargets?.stopAll()]);
      },
    };
  },
};
