/**
 * Services (nova-operator.md, "reconcileNovaComputeServices"; condition ServicesReady). Lists the nova-compute
 * services once, at microversion 2.69, and fails the pass with ComputeAPIError when a cell did not answer (its hosts
 * would otherwise read as serviceless). While a Pending node has a registered service it also reads the mapped
 * hosts (GET /os-hypervisors/detail at 2.88, which leaves out a host without a host mapping); a failed read keeps
 * those nodes Pending and is reported after the walk, so the other nodes still move. Draining nodes have their
 * servers counted; Releasing nodes have the pool's pods looked for (on the node for one, the whole pool for more).
 * The observation goes to the pool machine (`servicesObserved`), whose rules move the phases and decide the calls:
 * disabling a Draining node's service once (`novaCompute.disableService`), deleting a Releasing node's service once
 * no pod of the pool runs there (`novaCompute.deleteService`), dropping the entry with no call under a handover or
 * when the service is already gone. The engine runs those calls after the deciding event is stored (./effects.ts).
 *
 * When the walk leaves a registered node unmapped, the Nova's host-discovery Job `<nova>-discover-hosts` runs on the
 * Nova's cluster: created when none exists, left alone while running, deleted 30 s after it finished so the next pass
 * creates a fresh one. ServicesReady then says WaitingForHostMapping with the Job's state; a failed call there is
 * HostDiscoveryError, logged, with no error (the other nodes keep their poll).
 *
 * The step's requeue is the periodic poll of Nova, handed to Traits (`values.servicesPoll`): 10 s while a node is
 * Releasing, was dropped in this pass, or is registered but unmapped; 30 s while one is Draining or Pending; else 60 s.
 */
import type { NovaComputePoolContext } from '../../../../machines/nova-compute-pool.js';
import type { ComputeApi, ComputeServiceRow } from '../../../nova/compute/compute-api.js';
import { discoverHostsJobName, renderDiscoverHostsJob } from '../../../nova/jobs/render.js';
import { JobRunnerError } from '../../../nova/jobs/port.js';
import { continueLane, type NovaStep, type StepReport } from '../../nova/lane.js';
import { NOVA_COMPUTE_REQUEUE_MS } from '../deps.js';
import type { NovaComputePass } from '../pass.js';
import { dispatchPool } from './nodes.js';

const CONDITION = 'ServicesReady';
/** A finished discovery Job is replaced this long after it finished. */
export const DISCOVERY_REPLACE_AFTER_MS = 30_000;

interface NodeObservation {
  registered: boolean;
  serviceId: string | null;
  enabled: boolean | null;
  mapped: boolean | null;
  servers: number | null;
  podRunning: boolean | null;
}

/** The poll a pool needs, from its nodes at entry and at exit (pure). */
export const servicesPoll = (entry: NovaComputePoolContext['nodes'], exit: NovaComputePoolContext['nodes'], unmapped: number): { afterMs: number; why: string } => {
  const phases = [...Object.values(entry), ...Object.values(exit)].map((n) => n.phase);
  const dropped = Object.keys(entry).some((name) => !exit[name]);
  if (phases.includes('Releasing') || dropped) return { afterMs: NOVA_COMPUTE_REQUEUE_MS.releasePolling, why: 'a node is being released' };
  if (unmapped > 0) return { afterMs: NOVA_COMPUTE_REQUEUE_MS.hostDiscoveryPolling, why: 'a registered node is not mapped to a cell yet' };
  if (phases.includes('Draining') || phases.includes('Pending')) return { afterMs: NOVA_COMPUTE_REQUEUE_MS.drainPolling, why: 'a node is Pending or Draining' };
  return { afterMs: NOVA_COMPUTE_REQUEUE_MS.servicePolling, why: 'every node is settled' };
};

/** Runs `<nova>-discover-hosts` as the spec says; the Job's state in words. */
const ensureHostDiscovery = async (pass: NovaComputePass): Promise<{ ok: true; state: string } | { ok: false; message: string }> => {
  const { deps, ref, values } = pass;
  const nova = values.nova!;
  const name = discoverHostsJobName(nova.metadata.name);
  try {
    const job = await deps.jobs.get(ref.namespace, name);
    if (job?.state === 'running') return { ok: true, state: `host discovery Job ${name} is running` };
    if (job) {
      const finished = job.finishedAt ? Date.parse(job.finishedAt) : Number.NaN;
      if (Number.isNaN(finished) || pass.now().getTime() - finished >= DISCOVERY_REPLACE_AFTER_MS) {
        await deps.jobs.delete(ref.namespace, name);
        return { ok: true, state: `host discovery Job ${name} ${job.state} and was deleted; the next pass runs a fresh one` };
      }
      return { ok: true, state: `host discovery Job ${name} ${job.state} at ${job.finishedAt}` };
    }
    const config = await deps.configs?.current(ref.namespace, nova.metadata.name);
    if (!config) return { ok: false, message: `Nova ${nova.metadata.name} has no published config for the host-discovery Job` };
    const novaRef = { namespace: ref.namespace, name: nova.metadata.name, uid: nova.metadata.uid };
    const spec = renderDiscoverHostsJob(novaRef, nova.spec, { config: { name: config.name, files: config.files }, databaseTlsDir: (block) => deps.jobs.databaseTlsDir(ref.namespace, nova.metadata.name, block) });
    try {
      await deps.jobs.create(spec);
    } catch (error) {
      if (!(error instanceof JobRunnerError && error.status === 409)) throw error;
    }
    return { ok: true, state: `host discovery Job ${name} was created` };
  } catch (error) {
    deps.logger.warn('host discovery failed', { pool: `${ref.namespace}/${ref.name}`, error: (error as Error).message });
    return { ok: false, message: (error as Error).message };
  }
};

export const servicesStep: NovaStep<NovaComputePass> = {
  name: 'Services',
  conditions: [CONDITION],
  async run(pass) {
    const { deps, ref, values } = pass;
    const entry = values.pool!.nodes;
    const names = Object.keys(entry).sort();
    const fail = (message: string, error: unknown): StepReport => ({ conditions: [{ type: CONDITION, status: 'False', reason: 'ComputeAPIError', message }], outcome: { kind: 'error', error } });
    let api: ComputeApi;
    let rows: ComputeServiceRow[];
    try {
      api = await pass.api();
      rows = await api.listComputeServices();
    } catch (error) {
      return fail(`listing the nova-compute services failed: ${(error as Error).message}`, error);
    }
    const byHost = new Map(rows.map((r) => [r.host, r]));
    const problems: string[] = [];
    let mapped: Set<string> | null = null;
    if (names.some((n) => entry[n]!.phase === 'Pending' && byHost.has(n))) {
      try {
        mapped = await api.mappedHosts();
      } catch (error) {
        problems.push(`reading the mapped hosts failed: ${(error as Error).message}`);
      }
    }
    const releasing = names.filter((n) => entry[n]!.phase === 'Releasing');
    let pods: Set<string> | null = null;
    if (releasing.length > 0) {
      try {
        pods = await deps.cluster.workloads.podsOn(ref.namespace, ref.name, releasing.length === 1 ? releasing : undefined);
      } catch (error) {
        problems.push(`listing the pool's pods failed: ${(error as Error).message}`);
      }
    }
    const observed: Record<string, NodeObservation> = {};
    for (const name of names) {
      const node = entry[name]!;
      const row = byHost.get(name);
      let servers: number | null = null;
      if (node.phase === 'Draining' && row) {
        try {
          servers = await api.serversOnHost(name);
        } catch (error) {
          problems.push(`counting the servers on ${name} failed: ${(error as Error).message}`);
        }
      }
      observed[name] = {
        registered: row !== undefined,
        serviceId: row?.id ?? null,
        enabled: row ? row.status === 'enabled' : null,
        mapped: node.phase === 'Pending' && row ? (mapped ? mapped.has(name) : null) : null,
        servers,
        podRunning: node.phase === 'Releasing' && pods ? pods.has(name) : null,
      };
    }
    const exit = (await dispatchPool(pass, { type: 'servicesObserved', source: 'reconciler', nodes: observed })).nodes;
    const unmapped = Object.keys(exit).filter((n) => exit[n]!.phase === 'Pending' && observed[n]?.registered && observed[n]?.mapped === false);
    values.servicesPoll = servicesPoll(entry, exit, unmapped.length);
    const report = (status: 'True' | 'False', reason: string, message: string): StepReport => ({ conditions: [{ type: CONDITION, status, reason, message }], outcome: continueLane });
    if (problems.length > 0) {
      values.servicesPoll = { afterMs: Math.min(values.servicesPoll.afterMs, NOVA_COMPUTE_REQUEUE_MS.drainPolling), why: 'a call to Nova failed' };
      return report('False', 'ComputeAPIError', problems.join('; '));
    }
    if (unmapped.length > 0) {
      const discovery = await ensureHostDiscovery(pass);
      if (!discovery.ok) return report('False', 'HostDiscoveryError', `${unmapped.join(', ')} registered but not mapped, and host discovery failed: ${discovery.message}`);
      return report('False', 'WaitingForHostMapping', `${unmapped.join(', ')} registered but not mapped to a cell yet; ${discovery.state}`);
    }
    const of = (phase: string) => Object.keys(exit).filter((n) => exit[n]!.phase === phase);
    const draining = of('Draining');
    if (draining.length > 0) return report('False', 'NodesDraining', draining.map((n) => `${n}: ${exit[n]!.servers ?? 'unknown'} servers left`).join('; '));
    const releasingNow = of('Releasing');
    if (releasingNow.length > 0) return report('False', 'NodesReleasing', `${releasingNow.join(', ')}: waiting for the pool's pod to leave, then the service is deleted`);
    const pending = of('Pending');
    if (pending.length > 0) return report('False', 'WaitingForComputeService', `${pending.join(', ')}: no nova-compute service registered yet`);
    const active = of('Active');
    return report('True', 'ServicesReady', active.length > 0 ? `${active.length} nova-compute service${active.length === 1 ? '' : 's'} registered and mapped: ${active.join(', ')}` : 'the pool holds no node');
  },
};
