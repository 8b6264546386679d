/**
 * The audit web routes over HTTP (no browser): machine list, resource list with current state, the
 * resource page with the overlay, timeline pages, the state as of an event, and mounting inside
 * another server. No page references another origin.
 */
import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry } from '../../machines/index.js';
import { createAuditRoutes } from '../../src/audit/web/routes.js';
import { startAuditServer, type AuditServer } from '../../src/audit/web/server.js';
import type { TimelineRow } from '../../src/audit/history/views.js';
import { recordCleanRebuild, recordRebuildHistory, REBUILD_STREAM } from './support/rebuild-history.js';

const R11 = 'e--serverRebuild.Initiated--reconcile--7';
const external = /(?:href|src|action)="(?:https?:)?\/\/[^"]*"|url\((?:https?:)?\/\//g;

describe('audit web: routes', function () {
  this.timeout(30_000);
  let server: AuditServer;
  const get = async (path: string) => {
    const res = await fetch(new URL(path, server.url));
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  };

  before(async () => {
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    await recordCleanRebuild(store, 'server-rebuild-srv-2');
    server = await startAuditServer({ port: 0, store, registry: createProductRegistry(), pageSize: 4 });
  });
  after(() => server.close());

  it('binds 127.0.0.1 on the port asked for (0: any)', () => {
    expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it('the index lists the machines and every resource with its current state', async () => {
    const page = await get('/');
    expect(page.status).to.equal(200);
    expect(page.text).to.match(/<a href="\/machines\/serverRebuild\?version=2">serverRebuild<\/a>/);
    expect(page.text).to.match(/<a href="\/streams\/server-rebuild-srv-1">server-rebuild-srv-1<\/a><\/td><td>serverRebuild<\/td><td><b>noMarker<\/b><\/td><td class="mono">8<\/td>/);
    expect(page.text).to.include('server-rebuild-srv-2');
    expect(page.text.match(external) ?? []).to.deep.equal([]);
  });

  it('a machine page draws the statechart and its static checks', async () => {
    const page = await get('/machines/serverRebuild');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('<svg');
    expect(page.text).to.include('destructive-needs-arm');
    expect(page.text).to.not.include('>fail<');
    // the checks arrive on their own (never waited for by the page): they ran and passed
    let checks: { status: string; report?: { results: Array<{ id: string; status: string }> } } = { status: 'running' };
    for (let i = 0; i < 600 && checks.status === 'running'; i++) {
      checks = JSON.parse((await get('/api/machines/serverRebuild/checks')).text);
      if (checks.status === 'running') await new Promise((r) => setTimeout(r, 100));
    }
    expect(checks.status).to.equal('done');
    expect(checks.report?.results.find((r) => r.id === 'destructive-needs-arm')?.status).to.equal('pass');
    const svg = await get('/machines/serverRebuild.svg');
    expect(svg.type).to.match(/^image\/svg\+xml/);
    expect((await get('/machines/nope')).status).to.equal(404);
  });

  it('the resource page carries the overlay, the fired transitions, the chains and the page script', async () => {
    const page = await get(`/streams/${REBUILD_STREAM}`);
    expect(page.status).to.equal(200);
    expect(page.text).to.include('current state <b id="current-state">noMarker</b> · <span id="event-count">9</span> event(s)');
    expect(page.text).to.match(new RegExp(`class="fired-edge destructive" data-edge="${R11}" data-first="1"`));
    expect(page.text).to.include('<script src="/assets/app.js" defer></script>');
    expect(page.text).to.include('"pageSize":4,"api":"/api/streams/server-rebuild-srv-1"');
    expect(page.text.match(external) ?? []).to.deep.equal([]);
    const script = await get('/assets/app.js');
    expect(script.type).to.match(/^text\/javascript/);
    expect(script.text.match(/https?:\/\//g) ?? []).to.deep.equal([]);
    expect((await get('/streams/server-rebuild-nope')).status).to.equal(404);
  });

  it('pages the timeline: each row with its matched edge and the nodes it left the machine in', async () => {
    const res = await get(`/api/streams/${REBUILD_STREAM}/timeline?from=4&limit=4`);
    const body = JSON.parse(res.text) as { head: number; from: number; rows: TimelineRow[] };
    expect(body.head).to.equal(8);
    expect(body.rows.map((r) => r.revision)).to.deep.equal([4, 5, 6, 7]);
    expect(body.rows[0]).to.deep.include({ type: 'serverRebuild.submitted', source: 'reconciler', destructive: true, match: { kind: 'exact', edges: [R11] } });
    expect(body.rows[1]?.toNodes).to.deep.equal(['n--serverRebuild', 'n--serverRebuild.Rebuilding']);
    expect(body.rows[1]?.causationId).to.equal(body.rows[0]?.id);
  });

  it('answers the state as of an event: state, context, last observation and last decision', async () => {
    const view = JSON.parse((await get(`/api/streams/${REBUILD_STREAM}/state?at=4`)).text) as { state: string; context: { submissions: number }; lastObservation: { revision: number }; lastDecision: { revision: number; type: string } };
    expect(view.state).to.equal('Initiated');
    expect(view.context.submissions).to.equal(2);
    expect(view.lastObservation.revision).to.equal(3);
    expect(view.lastDecision).to.deep.include({ revision: 4, type: 'serverRebuild.submitted' });
    const chains = JSON.parse((await get(`/api/streams/${REBUILD_STREAM}/chains`)).text) as { total: number; chains: Array<{ authorised: boolean }> };
    expect(chains.total).to.equal(2);
    expect(chains.chains.every((c) => c.authorised)).to.equal(true);
  });

  it('mounts under a base path inside another server and leaves other paths to it', async () => {
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    const audit = createAuditRoutes({ store, registry: createProductRegistry(), basePath: '/audit' });
    const host = createServer((req, res) => {
      void audit(req, res).then((handled) => {
        if (!handled) res.writeHead(418).end('host');
      });
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    try {
      const page = await fetch(`${base}/audit/streams/${REBUILD_STREAM}`);
      expect(page.status).to.equal(200);
      const text = await page.text();
      expect(text).to.include('<script src="/audit/assets/app.js" defer></script>');
      expect(text).to.include('"api":"/audit/api/streams/server-rebuild-srv-1"');
      expect((await fetch(`${base}/audit/`)).status).to.equal(200);
      // Below its base path every path is the audit's own: an unknown one is its 404 page, linking back under the base.
      const missing = await fetch(`${base}/audit/no/such/page`);
      expect(missing.status).to.equal(404);
      expect(missing.headers.get('content-type')).to.match(/^text\/html/);
      const missingText = await missing.text();
      expect(missingText).to.include('<a id="link-home" href="/audit/">');
      expect(missingText).to.include('<a id="link-resources" href="/audit/#streams">');
      expect(missingText).to.include('<link rel="icon" type="image/svg+xml" href="/audit/assets/favicon.svg">');
      expect((await fetch(`${base}/audit/favicon.ico`)).status).to.equal(200);
      const api = await fetch(`${base}/audit/api/streams/server-rebuild-nope/timeline`);
      expect(api.status).to.equal(404);
      expect(await api.json()).to.deep.equal({ error: 'no stream server-rebuild-nope' });
      expect((await fetch(`${base}/healthz`)).status).to.equal(418);
      expect((await fetch(`${base}/auditx`)).status).to.equal(418);
    } finally {
      await new Promise<void>((resolve) => host.close(() => resolve()));
    }
  });
});
