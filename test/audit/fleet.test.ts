/**
 * Issue 18, "a fleet view per kind: current state, last decision and its source, pending destructive decisions,
 * parked resources first". Three Servers' rebuild histories recorded by the engine with the product machine:
 * one settled, one armed (a destructive rebuild decided, not yet settled), one parked (Nova refused it).
 */
import { expect } from 'chai';
import { MemoryEventStore } from '../../src/store/memory.js';
import { Engine } from '../../src/engine/engine.js';
import { createProductRegistry } from '../../machines/index.js';
import { startAuditServer, type AuditServer } from '../../src/audit/web/server.js';
import { recordCleanRebuild } from './support/rebuild-history.js';
import { idle, image, observed, reconcile } from '../machines/server-rebuild-facts.js';
import { withPage } from './support/chromium.js';

const server = (name: string) => ({ kind: 'Server', namespace: 'shop', name });

describe('audit web: the fleet view (issue 18)', function () {
  this.timeout(30_000);
  let audit: AuditServer;
  const get = async (path: string) => {
    const res = await fetch(new URL(path, audit.url));
    return { status: res.status, text: await res.text() };
  };

  before(async () => {
    const store = new MemoryEventStore();
    await recordCleanRebuild(store, 'server-rebuild-settled', server('a-settled'));
    const engineFor = (name: string) =>
      new Engine({
        store,
        registry: createProductRegistry(),
        subjectOf: () => server(name),
        handlers: { 'nova.rebuild': async (effect) => ({ type: 'rebuild.accepted', imageId: String(effect.imageId), requestId: 'req-fleet' }) },
      });
    // armed: the reconciler recorded the intent to rebuild toward B; nothing submitted yet
    await engineFor('b-armed').dispatch('server-rebuild-armed', { stimulus: reconcile('B', { imageRef: image('A') }), actor: 'reconciler/server-image' });
    // parked: armed, submitted, accepted, then Nova shows the target in ERROR: the reconciler parks it
    const parked = engineFor('c-parked');
    const pass = (stimulus: ReturnType<typeof reconcile>, actor = 'reconciler/server-image') => parked.dispatch('server-rebuild-parked', { stimulus, actor });
    await pass(reconcile('B', { imageRef: image('A') }));
    await pass(reconcile('B', { imageRef: image('A') }));
    await pass(observed({ imageRef: image('B'), status: 'ERROR', taskState: idle }), 'monitor/nova');
    await pass(reconcile('B', { imageRef: image('B'), status: 'ERROR', taskState: idle }));
    audit = await startAuditServer({ port: 0, store, registry: createProductRegistry() });
  });
  after(() => audit.close());

  it('one row per Server: parked first, then the one on a pending destructive decision, then the settled one', async () => {
    const page = await get('/fleet/Server');
    expect(page.status).to.equal(200);
    const order = [...page.text.matchAll(/data-resource="([^"]+)"/g)].map((m) => m[1]);
    expect(order).to.deep.equal(['shop/c-parked', 'shop/b-armed', 'shop/a-settled']);
    const row = (name: string) => new RegExp(`data-resource="shop/${name}">(.*?)</tr>`).exec(page.text)?.[1] ?? '';
    expect(row('c-parked')).to.include('<span class="flag parked">parked</span>').and.not.include('pending');
    expect(row('b-armed')).to.match(/<span class="flag intent"[^>]*>pending \w+ \(/);
    expect(row('b-armed')).to.include('<b>Initiated</b>').and.include('<span class="src reconciler">reconciler</span>');
    expect(row('a-settled')).to.include('<b>noMarker</b>').and.include('settled or working');
  });

  it('a kind in any letter case; an unknown kind is a 404 page; a kind with no named history says so', async () => {
    expect((await get('/fleet/server')).status).to.equal(200);
    expect((await get('/fleet/Gadget')).status).to.equal(404);
    expect((await get('/fleet/Volume')).text).to.include('no Volume has recorded a history with its name');
    expect((await get('/')).text).to.match(/<p id="fleet-links">fleet view: .*<a href="\/fleet\/Server">Server<\/a>/);
  });

  it('in Chromium (screenshot test/artifacts/audit-fleet.png): the parked row comes first and is flagged', async () => {
    await withPage({ width: 1100, height: 500 }, async (page) => {
      await page.goto(new URL('/fleet/Server', audit.url).toString());
      expect(await page.getAttribute('#fleet tbody tr:first-child', 'data-resource')).to.equal('shop/c-parked');
      expect(await page.isVisible('#fleet tbody tr:first-child .flag.parked')).to.equal(true);
      await page.screenshot({ path: 'test/artifacts/audit-fleet.png' });
    });
  });
});
