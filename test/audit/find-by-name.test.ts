/**
 * Issue 18, "Find by name": every page names resources by kind, namespace and name (from the `subject` each
 * event records), with a search on the index (name, kind, state, time range). Over HTTP on 127.0.0.1, and the
 * index in Chromium with a screenshot (test/artifacts/audit-find-by-name.png).
 */
import { expect } from 'chai';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry } from '../../machines/index.js';
import { startAuditServer, type AuditServer } from '../../src/audit/web/server.js';
import { recordCleanRebuild, T0 } from './support/rebuild-history.js';
import { withPage } from './support/chromium.js';

const DAY = 86_400_000;

describe('audit web: find by name (issue 18)', function () {
  this.timeout(60_000);
  let server: AuditServer;
  const get = async (path: string) => {
    const res = await fetch(new URL(path, server.url));
    return { status: res.status, text: await res.text() };
  };
  const listed = (html: string) => [...html.matchAll(/<a href="\/streams\/([^"]+)">/g)].map((m) => decodeURIComponent(m[1] as string)).sort();

  before(async () => {
    const store = new MemoryEventStore();
    await recordCleanRebuild(store, 'server-rebuild-aaa', { kind: 'Server', namespace: 'shop', name: 'web-2' }, T0);
    await recordCleanRebuild(store, 'server-rebuild-bbb', { kind: 'Server', namespace: 'default', name: 'db-1' }, T0 + 2 * DAY);
    await recordCleanRebuild(store, 'server-rebuild-ccc'); // an old history, recorded before events named their resource
    server = await startAuditServer({ port: 0, store, registry: createProductRegistry() });
  });
  after(() => server.close());

  it('the index names each stream\'s resource (kind, namespace, name), and one without a recorded resource says so', async () => {
    const page = await get('/');
    expect(page.text).to.include('<th>resource</th>');
    // every resource name is a link to its page (issue 30)
    expect(page.text).to.match(/<td class="resource"><a class="resource-link" href="\/resources\/Server\/shop\/web-2"><b>Server<\/b> shop\/<b>web-2<\/b><\/a><\/td><td><a href="\/streams\/server-rebuild-aaa">/);
    expect(page.text).to.match(/<td class="resource"><span class="muted">—<\/span><\/td><td><a href="\/streams\/server-rebuild-ccc">/);
  });

  it('search by name, namespace/name, kind, state and time range; nothing found says so', async () => {
    expect(listed((await get('/?q=web-2')).text)).to.deep.equal(['server-rebuild-aaa']);
    expect(listed((await get('/?q=shop%2Fweb')).text)).to.deep.equal(['server-rebuild-aaa']);
    expect(listed((await get('/?kind=Server')).text)).to.deep.equal(['server-rebuild-aaa', 'server-rebuild-bbb']);
    expect(listed((await get('/?kind=Volume')).text)).to.deep.equal([]);
    expect(listed((await get('/?state=noMarker')).text)).to.deep.equal(['server-rebuild-aaa', 'server-rebuild-bbb', 'server-rebuild-ccc']);
    expect(listed((await get('/?state=Rebuilding')).text)).to.deep.equal([]);
    const since = new Date(T0 + DAY).toISOString();
    expect(listed((await get(`/?since=${since}`)).text)).to.deep.equal(['server-rebuild-bbb']);
    expect(listed((await get(`/?until=${since}`)).text)).to.deep.equal(['server-rebuild-aaa', 'server-rebuild-ccc']);
    // a stream name fragment still finds it
    expect(listed((await get('/?q=rebuild-ccc')).text)).to.deep.equal(['server-rebuild-ccc']);
    const none = await get('/?q=nothing-like-this');
    expect(none.text).to.include('no stream matches the search');
    // the form keeps what was asked
    expect((await get('/?q=web-2&state=noMarker')).text).to.match(/id="search-q"[^>]*value="web-2"/).and.match(/id="search-state"[^>]*value="noMarker"/);
  });

  it('the resource page and its title name the resource; /api/streams carries it', async () => {
    const page = await get('/streams/server-rebuild-aaa');
    expect(page.text).to.include('<h1 id="subject"><span class="kind">Server</span> shop/web-2</h1>');
    expect(page.text).to.include('<title>Server shop/web-2 (server-rebuild-aaa) — Regent audit</title>');
    const api = JSON.parse((await get('/api/streams')).text) as Array<{ stream: string; subject?: unknown }>;
    expect(api.find((r) => r.stream === 'server-rebuild-bbb')?.subject).to.deep.equal({ kind: 'Server', namespace: 'default', name: 'db-1' });
    expect(api.find((r) => r.stream === 'server-rebuild-ccc')?.subject).to.equal(undefined);
  });

  it('in Chromium: typing a name in the search box and submitting lists only that resource (screenshot)', async () => {
    await withPage({ width: 1280, height: 800 }, async (page) => {
      await page.goto(server.url);
      await page.fill('#search-q', 'web-2');
      await Promise.all([page.waitForNavigation(), page.click('#search button[type="submit"]')]);
      const streams = await page.$$eval('#streams tbody td:nth-child(2) a', (as) => as.map((a) => a.textContent));
      expect(streams).to.deep.equal(['server-rebuild-aaa']);
      await page.screenshot({ path: 'test/artifacts/audit-find-by-name.png', fullPage: true });
    });
  });
});
