/**
 * Issue 28 against the real Nova and Placement: two NovaCompute pools of the Ready Nova of nova-pipeline.openstack.ts,
 * on the embedded default as `npm start` runs them: Node objects in the embedded store, one real nova-compute process
 * per node (Debian's python3-nova, Nova's fake virt driver) booted from the contract and compute-pool.conf Regent
 * renders (src/nova/compute/local.ts), the host-discovery Job run by the Nova's local Job runner with the real
 * nova-manage, and every Nova and Placement call through the pool's client (src/nova/compute/compute-api.ts) against
 * the Nova API process Regent runs and the sandbox's Placement. The lifecycle:
 *   - pool A (traits [CUSTOM_…], zone za) and pool B (no traits, zone zb): each node goes Pending → (host discovery)
 *     → Active; an aggregate per zone exists in Nova with the marker c5c3.io:nova=<ns>/<nova>; A's trait exists in
 *     Placement; A's TraitsReady says HypervisorOperatorNotInstalled (no Hypervisor kind here); B is Ready;
 *   - draining A's node (its label changed): the service is disabled (read back from Nova) and the server count is
 *     reported, then the node is released: its process stopped, its service deleted, the entry dropped;
 *   - deleting B while it holds its node (the operator had put the host into zb's aggregate): the node is released,
 *     the service deleted (which empties the aggregate), the aggregate removed, the finalizer released;
 *   - deleting A: its trait (no other pool declares it) is deleted from Placement, its aggregate removed;
 *   - every call at the microversion the spec names (the clients' recorded calls).
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import winston from 'winston';
import { reconcileNovaCompute } from '../../../src/controllers/nova-compute/reconcile.js';
import { novaComputeEffectHandlers } from '../../../src/controllers/nova-compute/effects.js';
import type { NovaComputeDeps } from '../../../src/controllers/nova-compute/deps.js';
import { openComputeApi, type ComputeApi, type RecordedComputeCall } from '../../../src/nova/compute/compute-api.js';
import { localComputeCluster } from '../../../src/nova/compute/local.js';
import { novaComputeLauncher } from '../../../src/nova/compute/compute-launcher.js';
import { StatusRunner } from '../../../src/status/runner.js';
import { MemoryCheckpoint } from '../../../src/status/checkpoint.js';
import { statusRunnerParts } from '../../../src/app/kinds.js';
import type { NovaRig } from '../../nova/support/nova-rig.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface PoolStatus {
  nodes?: Array<{ name: string; phase: string; zone?: string; servers?: number; traits?: string[] }>;
  createdTraits?: string[];
  installedImage?: string;
  conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
}

export interface PoolLifecycleInput {
  rig: NovaRig;
  nova: string;
  keystone: string;
  servicePassword: string;
  figures: string[];
}

export const runPoolLifecycle = async ({ rig, nova, keystone, servicePassword, figures }: PoolLifecycleInput): Promise<void> => {
  const id = randomBytes(3).toString('hex');
  const ns = 'default';
  const trait = `CUSTOM_REGENT_${id.toUpperCase()}`;
  const nodeA = `regent-ca-${id}`;
  const nodeB = `regent-cb-${id}`;
  const zoneA = `za-${id}`;
  const zoneB = `zb-${id}`;
  const readSecret = async (namespace: string, name: string, key: string) => (await rig.source.secrets.get(namespace, name))?.data[key];
  const cluster = localComputeCluster({
    dir: join(rig.dir, 'nova-compute'),
    readSecret,
    listNodes: async () => (await rig.source.list('Node')).items as never,
    launcher: novaComputeLauncher({ python: '/usr/bin/python3' }),
    readyAfterMs: 3_000,
    graceMs: 5_000,
  });
  const clients: ComputeApi[] = [];
  const logger = winston.createLogger({ level: 'warn', transports: [new winston.transports.Console({ silent: true })] });
  const deps: NovaComputeDeps = {
    engine: rig.engine,
    source: rig.source,
    secrets: rig.source.secrets,
    logger,
    cluster,
    openComputeApi: async (login) => {
      const api = await openComputeApi(login);
      clients.push(api);
      return api;
    },
    jobs: rig.jobs,
    configs: rig.deps.configs!,
  };
  for (const [type, handler] of Object.entries(novaComputeEffectHandlers(deps))) rig.engine.handle(type, handler);
  const status = new StatusRunner({ store: rig.store, engine: rig.engine, source: rig.source, checkpoint: new MemoryCheckpoint(), logger, ...statusRunnerParts(['NovaCompute']) });
  const render = async (name: string): Promise<PoolStatus> => {
    const object = await rig.source.get('NovaCompute', ns, name);
    if (!object) return {};
    status.noteResource('NovaCompute', object);
    await status.render({ kind: 'NovaCompute', namespace: ns, name });
    return ((await rig.source.get('NovaCompute', ns, name))?.status ?? {}) as PoolStatus;
  };
  const cond = (s: PoolStatus, type: string) => s.conditions?.find((c) => c.type === type);
  const describe = (s: PoolStatus) => JSON.stringify({ nodes: s.nodes, conditions: (s.conditions ?? []).filter((c) => c.status !== 'True').map((c) => `${c.type}=${c.reason}: ${c.message}`) });
  /** Passes of every pool (and a status render after each) until `done` holds for `pool`. */
  const until = async (pool: string, done: (s: PoolStatus) => boolean, what: string, maxPasses = 120): Promise<PoolStatus> => {
    let last: PoolStatus = {};
    let failure = '';
    for (let i = 0; i < maxPasses; i++) {
      for (const name of [`pool-a-${id}`, `pool-b-${id}`]) {
        if (!(await rig.source.get('NovaCompute', ns, name))) continue;
        try {
          await reconcileNovaCompute(deps, ns, name);
        } catch (error) {
          // a failed pass backs off in the controller; here the next round retries it, and the error is shown at the end
          failure = `${name}: ${(error as Error).message}`;
        }
        if (await rig.source.get('NovaCompute', ns, name)) await render(name);
      }
      if (!(await rig.source.get('NovaCompute', ns, pool))) return {};
      last = await render(pool);
      if (done(last)) return last;
      await sleep(1_000);
    }
    throw new Error(`${what}: not reached after ${maxPasses} passes; ${pool}: ${describe(last)}${failure ? `; last failed pass: ${failure}` : ''}`);
  };
  const admin = async (): Promise<{ token: string; placement: string }> => {
    const auth = await fetch(`${keystone}/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ auth: { identity: { methods: ['password'], password: { user: { name: 'nova', domain: { name: 'Default' }, password: servicePassword } } }, scope: { project: { name: 'service', domain: { name: 'Default' } } } } }),
    });
    const body = (await auth.json()) as { token: { catalog: Array<{ type: string; endpoints: Array<{ interface: string; url: string }> }> } };
    const placement = body.token.catalog.find((s) => s.type === 'placement')!.endpoints.find((e) => e.interface === 'public')!.url;
    return { token: auth.headers.get('x-subject-token')!, placement };
  };
  const endpoint = ((await rig.source.get('Nova', ns, nova))!.status as { endpoint: string }).endpoint;
  const novaGet = async <T>(path: string, microversion = '2.69'): Promise<T> => {
    const { token } = await admin();
    const answer = await fetch(`${endpoint}/v2.1${path}`, { headers: { 'x-auth-token': token, 'openstack-api-version': `compute ${microversion}` } });
    expect(answer.status, `${path}: ${await answer.clone().text()}`).to.equal(200);
    return (await answer.json()) as T;
  };
  const services = async () => (await novaGet<{ services: Array<{ id: string; host: string; status: string }> }>('/os-services?binary=nova-compute')).services;
  const aggregates = async () => (await novaGet<{ aggregates: Array<{ id: number; name: string; availability_zone: string | null; hosts: string[]; metadata: Record<string, string> }> }>('/os-aggregates')).aggregates;
  const traitExists = async (name: string): Promise<boolean> => {
    const { token, placement } = await admin();
    const answer = await fetch(`${placement}/traits/${name}`, { headers: { 'x-auth-token': token, 'openstack-api-version': 'placement 1.6' } });
    return answer.status === 204 || answer.status === 200;
  };

  const providers = async (name: string): Promise<string[]> => {
    const { token, placement } = await admin();
    const answer = await fetch(`${placement}/resource_providers?name=${name}`, { headers: { 'x-auth-token': token, 'openstack-api-version': 'placement 1.6' } });
    return ((await answer.json()) as { resource_providers: Array<{ name: string }> }).resource_providers.map((p) => p.name);
  };

  try {
    const began = Date.now();
    for (const [name, zone, role] of [[nodeA, zoneA, 'a'], [nodeB, zoneB, 'b']] as const) {
      await rig.source.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'regent.dev/pool': `${role}-${id}`, 'topology.kubernetes.io/zone': zone } }, spec: {} } as never);
    }
    await rig.source.create({ apiVersion: 'regent.dev/v1alpha1', kind: 'NovaCompute', metadata: { name: `pool-a-${id}`, namespace: ns }, spec: { novaRef: { name: nova }, nodeSelector: { 'regent.dev/pool': `a-${id}` }, traits: [trait] } } as never);
    await rig.source.create({ apiVersion: 'regent.dev/v1alpha1', kind: 'NovaCompute', metadata: { name: `pool-b-${id}`, namespace: ns }, spec: { novaRef: { name: nova }, nodeSelector: { 'regent.dev/pool': `b-${id}` } } } as never);

    // Pending → host discovery → Active, for both
    const sawPending = new Set<string>();
    const b = await until(`pool-b-${id}`, (s) => {
      for (const n of s.nodes ?? []) if (n.phase === 'Pending') sawPending.add(n.name);
      return cond(s, 'Ready')?.status === 'True';
    }, 'pool B Ready', 180);
    expect(b.nodes).to.deep.equal([{ name: nodeB, phase: 'Active', zone: zoneB }]);
    expect(cond(b, 'TraitsReady')?.reason, 'a pool that declares no trait').to.equal('NoTraitsDeclared');
    expect(b.installedImage).to.match(/nova-compute:2025\.2$/);
    const a = await until(`pool-a-${id}`, (s) => (s.nodes ?? []).some((n) => n.phase === 'Active') && cond(s, 'TraitsReady')?.reason === 'HypervisorOperatorNotInstalled', 'pool A Active', 60);
    expect(a.nodes?.map((n) => [n.name, n.phase, n.zone])).to.deep.equal([[nodeA, 'Active', zoneA]]);
    expect(sawPending, 'B\'s node was Pending before it turned Active').to.include(nodeB);
    figures.push(`two pools Active (real nova-compute, host discovery) after ${((Date.now() - began) / 1000).toFixed(1)} s`);
    expect(cond(a, 'TraitsReady')?.status).to.equal('False');
    expect(a.createdTraits).to.deep.equal([trait]);
    expect(await traitExists(trait), 'the declared trait exists in Placement').to.equal(true);
    const discovery = await rig.jobs.get(ns, `${nova}-discover-hosts`);
    expect(discovery, 'the host-discovery Job ran').to.not.equal(undefined);
    const marker = `${ns}/${nova}`;
    const aggs = await aggregates();
    for (const zone of [zoneA, zoneB, 'tenant_filter_tests']) {
      const agg = aggs.find((x) => x.name === zone);
      expect(agg, `aggregate ${zone}`).to.not.equal(undefined);
      expect(agg!.metadata['c5c3.io:nova'], `${zone} marked`).to.equal(marker);
      if (zone !== 'tenant_filter_tests') expect(agg!.availability_zone).to.equal(zone);
    }
    expect((await services()).map((s) => `${s.host} ${s.status}`).sort()).to.include.members([`${nodeA} enabled`, `${nodeB} enabled`]);
    expect(await providers(nodeB), 'the real nova-compute reported its node to Placement').to.deep.equal([nodeB]);

    // draining A's node: relabelled away from the pool
    await rig.source.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name: nodeA, labels: { 'regent.dev/pool': `elsewhere-${id}`, 'topology.kubernetes.io/zone': zoneA } }, spec: {} } as never);
    const draining = await until(`pool-a-${id}`, (s) => s.nodes?.[0]?.phase === 'Draining' && s.nodes[0].servers !== undefined, 'A draining', 20);
    expect(draining.nodes?.[0]?.servers, 'the servers on the host, counted').to.equal(0);
    expect((await services()).find((s) => s.host === nodeA)?.status, 'the service disabled').to.equal('disabled');
    await until(`pool-a-${id}`, (s) => (s.nodes ?? []).length === 0, 'A released its node', 40);
    expect((await services()).map((s) => s.host), 'A\'s service deleted once its process stopped').to.not.include(nodeA);
    expect(await cluster.workloads.podsOn(ns, `pool-a-${id}`), 'no process of A runs').to.deep.equal(new Set());
    expect(await traitExists(trait), 'still declared by the live pool A').to.equal(true);

    // deleting B while it holds its node; the operator had put the host into the zone's aggregate
    const zb = (await aggregates()).find((x) => x.name === zoneB)!;
    const { token } = await admin();
    const add = await fetch(`${endpoint}/v2.1/os-aggregates/${zb.id}/action`, { method: 'POST', headers: { 'x-auth-token': token, 'content-type': 'application/json' }, body: JSON.stringify({ add_host: { host: nodeB } }) });
    expect(add.status, await add.clone().text()).to.equal(200);
    await rig.source.delete('NovaCompute', ns, `pool-b-${id}`);
    await until(`pool-b-${id}`, () => false, 'B released', 60);
    expect(await rig.source.get('NovaCompute', ns, `pool-b-${id}`), 'B released its finalizer').to.equal(undefined);
    expect((await services()).map((s) => s.host), 'B\'s service deleted').to.not.include(nodeB);
    expect((await aggregates()).map((x) => x.name), 'zb emptied by the service delete and removed').to.not.include(zoneB);
    expect(await providers(nodeB), 'Nova removed the released host\'s resource provider with its service').to.deep.equal([]);

    // deleting A: the trait nobody declares any more goes, and so does its zone's aggregate
    await rig.source.delete('NovaCompute', ns, `pool-a-${id}`);
    for (let i = 0; i < 20 && (await rig.source.get('NovaCompute', ns, `pool-a-${id}`)); i++) {
      await reconcileNovaCompute(deps, ns, `pool-a-${id}`);
      await sleep(500);
    }
    expect(await rig.source.get('NovaCompute', ns, `pool-a-${id}`), 'A released its finalizer').to.equal(undefined);
    expect(await traitExists(trait), 'the trait no other pool declares is deleted').to.equal(false);
    const left = (await aggregates()).map((x) => x.name);
    for (const gone of [zoneA, zoneB, 'tenant_filter_tests']) expect(left, `${gone} removed`).to.not.include(gone);

    // every call at the spec's microversion
    const calls: RecordedComputeCall[] = clients.flatMap((c) => [...c.calls]);
    const wrong = calls.filter((c) => {
      if (c.service === 'identity') return false;
      if (c.service === 'placement') return c.microversion !== '1.6';
      return c.microversion !== (c.path.startsWith('/os-hypervisors') ? '2.88' : '2.69');
    });
    expect(wrong, 'calls at another microversion').to.deep.equal([]);
    const kinds = new Set(calls.map((c) => `${c.service} ${c.method} ${c.path.replace(/\/[0-9a-f-]{8,}|\/\d+|\/CUSTOM_\w+/g, '/{id}')}`));
    expect([...kinds]).to.include.members(['compute GET /os-services', 'compute GET /os-hypervisors/detail', 'compute PUT /os-services/{id}', 'compute DELETE /os-services/{id}', 'compute GET /os-aggregates', 'compute POST /os-aggregates', 'placement PUT /traits/{id}', 'placement DELETE /traits/{id}']);
    figures.push(`pool lifecycle: ${calls.length} Nova/Placement calls over ${clients.length} passes' clients (one token each)`);
  } finally {
    await cluster.workloads.close();
  }
};
