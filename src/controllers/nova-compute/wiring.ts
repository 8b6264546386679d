/**
 * The NovaCompute kind as the control plane runs it (src/controllers/kind.ts; issue 28): its pipeline (./pipeline.ts),
 * recorded on two streams (the pool machine's nodes and trait ledger, the pipeline's conditions), its effects
 * (./effects.ts), and what wakes a pool (nova-operator.md, "Watches"):
 *   - its own spec, and the start of its deletion;
 *   - its Nova: a spec change, and a change of the two status fields a pool waits on (installedRelease and the
 *     published contract), and of the endpoint its calls go to;
 *   - another pool of the same Nova: a spec change, the start of its deletion, or a change in which nodes it holds,
 *     in which phase and zone (a node one of them takes or releases re-evaluates the conflicts of the rest);
 *   - a Node of the embedded store whose labels change, for the pools that select or hold it;
 *   - on Kubernetes, while leading (the runtime's compute.startWatches, src/nova/compute/watches.ts): its DaemonSet and
 *     ConfigMaps, and its Nova's contract Secret `<nova>-compute-config`.
 * A Node on Kubernetes wakes nothing: the pool's poll (at most 60 s) picks up a relabel (docs/novacompute.md, "Caveats").
 */
import { novaComputePoolStream } from '../../../machines/nova-compute-pool.js';
import { novaComputePipelineStream } from '../../../machines/nova-pipeline.js';
import { isDeleting } from '../../kube/object.js';
import type { NovaCompute } from '../../resources/nova-compute.js';
import type { Nova } from '../../resources/nova.js';
import { openComputeApi } from '../../nova/compute/compute-api.js';
import { sharedNovaMetrics } from '../../observability/nova-metrics.js';
import { keyOf, keyParts, namespaceOf, type KindWiring, type Lookups } from '../kind.js';
import { novaComputeEffectHandlers } from './effects.js';
import { reconcileNovaCompute } from './reconcile.js';
import { novaComputeStatus } from './status.js';
import { selects } from './steps/nodes.js';

const poolsOfNova = (lookups: Lookups, namespace: string, nova: string): NovaCompute[] =>
  (lookups.list('NovaCompute') as NovaCompute[]).filter((p) => namespaceOf(p) === namespace && p.spec.novaRef.name === nova);

/** What a pool's rivals care about: its spec, its deletion, and which nodes it holds in which phase and zone. */
const rivalSignature = (pool: NovaCompute): string =>
  JSON.stringify([pool.metadata.generation, isDeleting(pool), (pool.status?.nodes ?? []).map((n) => [n.name, n.phase, n.zone ?? null])]);

export const novaComputeWiring: KindWiring = {
  kind: 'NovaCompute',
  streams: [
    { prefix: novaComputePoolStream(''), kind: 'NovaCompute', key: 'uid' },
    { prefix: novaComputePipelineStream(''), kind: 'NovaCompute', key: 'uid' },
  ],
  status: novaComputeStatus,
  wakes: [
    { from: 'NovaCompute', on: 'spec', why: 'its own spec changed, or its deletion was requested', keys: (o) => [keyOf(o)] },
    {
      from: 'Nova',
      on: 'any',
      why: 'its Nova changed its spec, its installed release, its published contract or its endpoint',
      keys: (o, lookups) => poolsOfNova(lookups, namespaceOf(o), o.metadata.name).map(keyOf),
      signature: (o) => {
        const nova = o as Nova;
        return JSON.stringify([nova.metadata.generation, isDeleting(nova), nova.status?.installedRelease ?? null, nova.status?.computeConfigSecretRef?.name ?? null, nova.status?.endpoint ?? null]);
      },
    },
    {
      from: 'NovaCompute',
      on: 'any',
      why: 'another pool of the same Nova changed its spec, began its deletion, or took or released a node',
      keys: (o, lookups) => {
        const pool = o as NovaCompute;
        return poolsOfNova(lookups, namespaceOf(pool), pool.spec.novaRef.name).filter((p) => p.metadata.uid !== pool.metadata.uid).map(keyOf);
      },
      signature: (o) => rivalSignature(o as NovaCompute),
    },
    {
      from: 'Node',
      on: 'any',
      why: 'a Node the pool selects or holds changed its labels',
      keys: (o, lookups) => {
        const labels = (o.metadata.labels ?? {}) as Record<string, string>;
        return (lookups.list('NovaCompute') as NovaCompute[]).filter((p) => selects(p.spec.nodeSelector, labels) || (p.status?.nodes ?? []).some((n) => n.name === o.metadata.name)).map(keyOf);
      },
      signature: (o) => JSON.stringify(o.metadata.labels ?? {}),
    },
  ],
  build: (services) => {
    const compute = services.nova.compute;
    if (!compute) return {};
    const deps = {
      engine: services.engine,
      source: services.source,
      secrets: services.source.secrets,
      logger: services.logger,
      cluster: compute.cluster,
      ...(compute.vpa ? { vpa: compute.vpa } : {}),
      // the runtime's own opener when it has one (a plan's: read-only), else the real client
      openComputeApi: compute.openComputeApi ?? ((login: Parameters<typeof openComputeApi>[0]) => openComputeApi(login)),
      jobs: services.nova.jobs,
      ...(services.nova.configs ? { configs: services.nova.configs } : {}),
      ...(services.nova.namespaceRefused ? { namespaceRefused: services.nova.namespaceRefused } : {}),
      metrics: sharedNovaMetrics(services.metrics.registry),
    };
    // the pool's own objects and its contract Secret (Kubernetes), while leading: a change wakes the pools it maps to
    let watches: { stop(): Promise<void> } | undefined;
    return {
      reconcile: (key) => reconcileNovaCompute(deps, ...keyParts(key), services.now),
      handlers: novaComputeEffectHandlers(deps),
      startLeading: () => {
        watches = compute.startWatches?.((key) => services.enqueue('NovaCompute', key), () => services.lookups.list('NovaCompute') as NovaCompute[]);
      },
      stopLeading: async () => {
        const stopping = watches;
        watches = undefined;
        await stopping?.stop();
      },
    };
  },
};
