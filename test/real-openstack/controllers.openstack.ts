/**
 * The Network and Server controllers against the real cloud, as the control plane runs them: resources in
 * an embedded (in-memory) resource store, the engine with the provider's effect handlers, passes driven by
 * their dispositions. Covers the provider's create (deterministic name, ownership metadata, exact re-find),
 * the image change through the rebuild protocol, and deletion behind finalizers.
 *
 * Also the provider's create path alone, where the real cloud found a defect the simulator hid: the
 * ownership metadata key was 'regent.dev/uid', which Nova refuses (fixed: 'regent.dev:uid').
 */
import { expect } from 'chai';
import { Engine } from '../../src/engine/engine.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry } from '../../machines/index.js';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import type { ResourceSource } from '../../src/kube/port.js';
import { API_VERSION } from '../../src/resources/kind.js';
import { reconcileNetwork } from '../../src/controllers/network/reconcile.js';
import { reconcileServer } from '../../src/controllers/server/reconcile.js';
import type { Disposition } from '../../src/controllers/disposition.js';
import { novaRebuildHandler } from '../../src/controllers/server-rebuild/nova-rebuild-effect.js';
import { createServerHandler, deleteServerHandler, observeServer, OWNER_KEY } from '../../src/provider/servers.js';
import { ForeignResource } from '../../src/provider/errors.js';
import { createNetworkHandler, deleteNetworkHandler, networkName } from '../../src/provider/networks.js';
import { BadRequest } from '../../src/openstack/errors.js';
import type { EffectContext } from '../../src/engine/engine.js';
import { NOVA_METADATA_KEY } from './support/known-issues.js';
import { realRun, type Fixtures, type RealRun } from './support/run.js';
import { viewOf } from './support/view.js';
import { sleep, waitFor } from './support/wait.js';

const rejectionOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a rejection'); }, (error: unknown) => error);

describe('provider and controllers against the real cloud', function () {
  let run: RealRun;
  let fx: Fixtures;

  before(async () => {
    run = await realRun();
    fx = await run.fixtures();
  });

  it("Regent's ownership metadata key (OWNER_KEY) satisfies Nova's metadata key pattern", () => {
    expect(OWNER_KEY).to.match(NOVA_METADATA_KEY);
  });

  it("the provider's server create is accepted by real Nova, with Regent's ownership metadata", async () => {
    const name = run.name('provider-create');
    const context = { logger: run.logger } as unknown as EffectContext;
    const result = (await createServerHandler(run.tenant, () => undefined)(
      { type: 'nova.createServer', desired: { name, imageId: fx.imageA, flavorId: fx.flavorId, networkId: fx.networkId, ownerUid: 'uid-provider' } },
      context,
    )) as { type: string; id?: string; status?: number };
    if (result.type === 'created' && result.id) {
      const id = result.id;
      run.cleanup.add(`server ${name}`, () => run.deleteServerAndWait(run.tenant, id), 'servers');
    }
    expect(result, 'provider create result').to.deep.include({ type: 'created' });
    const server = await run.tenant.nova.getServer(result.id as string);
    expect(server.metadata).to.deep.equal({ kind: 'value', value: { [OWNER_KEY]: 'uid-provider' } });
    // The provider re-finds it by exact name and recognises it as its own.
    expect(await observeServer(run.tenant, name, 'uid-provider')).to.deep.include({ kind: 'present', id: result.id });
    expect(await rejectionOf(observeServer(run.tenant, name, 'someone-else'))).to.be.instanceOf(ForeignResource);
  });

  it("real Nova refuses a metadata key with '/' (the simulator now does too: docs/simulator-differences.md #5)", async () => {
    const attempt = await rejectionOf(run.tenant.nova.createServer({ name: run.name('slash-key'), flavorRef: fx.flavorId, imageRef: fx.imageA, networks: [{ uuid: fx.networkId }], metadata: { 'regent.dev/uid': 'uid' } }));
    expect(attempt).to.be.instanceOf(BadRequest);
    expect((attempt as BadRequest).fault).to.match(/does not match any of the regexes/);
  });

  describe('Network and Server controllers', () => {
    let source: ResourceSource;
    let engine: Engine;
    const ns = 'default';

    before(async () => {
      source = openEmbeddedSource({ path: ':memory:' });
      engine = new Engine({
        store: new MemoryEventStore(),
        registry: createProductRegistry(),
        logger: run.logger,
        handlers: {
          'nova.rebuild': novaRebuildHandler(run.tenant.nova),
          'nova.createServer': createServerHandler(run.tenant, () => undefined),
          'nova.deleteServer': deleteServerHandler(run.tenant),
          'neutron.createNetwork': createNetworkHandler(run.tenant),
          'neutron.deleteNetwork': deleteNetworkHandler(run.tenant),
        },
      });
    });
    after(async () => {
      await source?.close();
    });

    /** Pass after pass until done or parked (yields are waited out, at most 2 s each). */
    const drive = async (pass: () => Promise<Disposition>, timeoutMs = 120_000): Promise<Disposition> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const disposition = await pass();
        if (disposition.kind === 'done' || disposition.kind === 'park') return disposition;
        if (disposition.kind === 'fail') throw disposition.error;
        if (Date.now() > deadline) throw new Error(`still yielding: ${disposition.why}`);
        await sleep(Math.min(disposition.afterMs, 2_000));
      }
    };

    it('create a Network and a Server, change the Server image (write-ahead rebuild), then delete both behind their finalizers', async () => {
      const netName = run.name('ctl-net');
      const serverName = run.name('ctl');
      const net = (await source.apply({ apiVersion: API_VERSION, kind: 'Network', metadata: { name: netName, namespace: ns }, spec: { identityRef: { name: 'suite' }, prefix: '198.51.100.0/24' } })).object;
      run.cleanup.add(`network ${networkName(net.metadata.uid)}`, async () => {
        const found = await run.tenant.neutron.lookupNetworkByName(networkName(net.metadata.uid));
        if (found) await run.tenant.neutron.deleteNetwork(found.id);
      });
      expect(await drive(() => reconcileNetwork({ engine, source, os: run.tenant }, ns, netName))).to.deep.include({ kind: 'done' });
      const neutronNet = await run.tenant.neutron.findNetworkByName(networkName(net.metadata.uid));

      const server = (await source.apply({
        apiVersion: API_VERSION, kind: 'Server', metadata: { name: serverName, namespace: ns },
        spec: { name: serverName, image: { id: fx.imageA }, flavor: { name: fx.flavorName }, networkID: netName, sshInjection: 'none' },
      })).object;
      run.cleanup.add(`server ${serverName}`, async () => {
        const found = await run.tenant.nova.lookupServerByName(serverName);
        if (found) await run.deleteServerAndWait(run.tenant, found.id);
      }, 'servers');
      const deps = { engine, source, os: run.tenant, logger: run.logger };
      const created = await drive(() => reconcileServer(deps, ns, serverName));
      expect(created, 'Server created').to.deep.include({ kind: 'done' });

      const nova = await run.tenant.nova.findServerByName(serverName);
      // issue 24: the linkage keys besides the ownership key (no Identity resource named 'suite': the network's only)
      expect(nova.metadata).to.deep.equal({ kind: 'value', value: { 'regent.dev:network-id': net.metadata.uid, 'regent.dev:server-id': server.metadata.uid, [OWNER_KEY]: server.metadata.uid } });
      const active = await run.waitActive(nova.id);
      expect(active.addresses.kind === 'value' && active.addresses.value[0]?.network).to.equal(neutronNet.name);

      await source.apply({ apiVersion: API_VERSION, kind: 'Server', metadata: { name: serverName, namespace: ns }, spec: { ...server.spec, image: { id: fx.imageB } } });
      expect(await drive(() => reconcileServer(deps, ns, serverName))).to.deep.include({ kind: 'done' });
      await waitFor('rebuilt', () => run.tenant.nova.getServer(nova.id), (s) => viewOf(s).image === fx.imageB && viewOf(s).task === null && viewOf(s).status === 'ACTIVE');
      expect(await drive(() => reconcileServer(deps, ns, serverName))).to.deep.include({ kind: 'done' });

      await source.delete('Server', ns, serverName);
      await drive(() => reconcileServer(deps, ns, serverName));
      expect(await run.tenant.nova.lookupServerByName(serverName)).to.equal(undefined);
      expect(await source.get('Server', ns, serverName)).to.equal(undefined);
      await source.delete('Network', ns, netName);
      await drive(() => reconcileNetwork({ engine, source, os: run.tenant }, ns, netName));
      expect(await run.tenant.neutron.lookupNetworkByName(networkName(net.metadata.uid))).to.equal(undefined);
    });
  });
});
