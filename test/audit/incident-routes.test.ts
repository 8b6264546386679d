/**
 * Issue 30: the incident routes (src/audit/web/incident-routes.ts) over HTTP on 127.0.0.1 — the page (`/incidents`:
 * a GET form of filters, the related set, one row per event; every resource name links its resource page, every row
 * its stream revision), the JSON (`/api/incidents`), the redacted download (`/api/incidents/export`), 400 for bad
 * input (a page in the site's style; `{error}` under /api/), 404 for a resource no history names, and `false` for
 * every path that is not its own (the host answers those).
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createIncidentRoutes, type IncidentHandler } from '../../src/audit/web/incident-routes.js';
import type { IncidentTimeline } from '../../src/audit/incident/timeline.js';
import type { IncidentExport } from '../../src/audit/incident/export.js';
import { ADMIN_PASS, JWT, PASSWORD, STREAMS, T0, at, recordIncidentHistory } from './support/incident-history.js';

const NOW = () => new Date(T0 + 60 * 60_000);

const serve = async (handler: IncidentHandler): Promise<{ url: string; server: Server }> => {
  const server = createServer((req, res) => {
    handler(req, res)
      .then((handled) => {
        if (!handled) {
          res.writeHead(418, { 'content-type': 'text/plain' });
          res.end('not the incident routes');
        }
      })
      .catch((error: unknown) => {
        res.writeHead(500);
        res.end(String(error));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
};

describe('incident routes (issue 30): /incidents, /api/incidents, /api/incidents/export', function () {
  this.timeout(30_000);
  let root: { url: string; server: Server };
  let mounted: { url: string; server: Server };
  const get = async (path: string, base = root.url) => {
    const res = await fetch(`${base}${path}`);
    return { status: res.status, type: res.headers.get('content-type') ?? '', disposition: res.headers.get('content-disposition'), text: await res.text() };
  };

  before(async () => {
    const store = new MemoryEventStore();
    await recordIncidentHistory(store);
    root = await serve(createIncidentRoutes({ store, now: NOW }));
    mounted = await serve(createIncidentRoutes({ store, now: NOW, basePath: '/audit' }));
  });
  after(async () => {
    for (const s of [root, mounted]) {
      s.server.closeAllConnections();
      await new Promise((resolve) => s.server.close(resolve));
    }
  });

  it('GET /incidents?resource=…&related=1: the page, its form, the related set and every row, each resource name a link and each row linking its stream revision', async () => {
    const { status, type, text } = await get('/incidents?resource=Server/default/web-2&related=1&from=2h');
    expect(status).to.equal(200);
    expect(type).to.match(/^text\/html/);
    expect(text).to.include('<title>Incident timeline: Server default/web-2 and related — Regent audit</title>');
    // the site's layout (pages.ts): its stylesheet, script, help overlay and CSP
    expect(text).to.include('<link rel="stylesheet" href="/assets/app.css">').and.include('id="help"').and.include('Content-Security-Policy');
    // the form, as typed (the relative time stays relative)
    expect(text).to.match(/<form id="incident-filters" method="get" action="\/incidents">/);
    expect(text).to.include('name="resource" placeholder="Server/default/web-2" value="Server/default/web-2"').and.include('value="2h"').and.include('name="related" value="1" checked');
    // related set
    const related = /<table id="related">([\s\S]*?)<\/table>/.exec(text)?.[1] ?? '';
    for (const href of ['/resources/Network/default/net-a', '/resources/Identity/default/ident-a', '/resources/Region/default/region-1', '/resources/Volume/default/data-1', '/resources/SecurityGroup/default/sg-web', '/resources/LoadBalancer/default/lb-1']) expect(related).to.include(`href="${href}"`);
    expect(text).to.not.include('web-9');
    // rows: each resource cell a link, each row a link to its stream revision
    const rows = [...text.matchAll(/<tr id="row-\d+"[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => m[1] as string);
    expect(rows.length).to.be.greaterThan(20);
    for (const row of rows) {
      expect(row).to.match(/<td class="resource"><a class="resource-link" href="\/resources\/[A-Za-z]+\/default\/[a-z0-9-]+">/);
      expect(row).to.match(/<a class="event-link" href="\/streams\/[a-z0-9-]+#rev-\d+" title="[a-z0-9-]+, revision \d+">/);
    }
    expect(text).to.include(`href="/streams/${STREAMS.web2Rebuild}#rev-1"`);
    // the destructive decision is marked
    expect(text).to.match(/<tr id="row-\d+" class="destructive[^"]*" data-stream="server-rebuild-[^"]+" data-revision="1">/);
    expect(text).to.include('⚠ nova.rebuild');
    // the JSON and export of the same query (relative times resolved)
    expect(text).to.match(/<a id="incident-export" href="\/api\/incidents\/export\?resource=Server%2Fdefault%2Fweb-2&amp;related=1&amp;from=2026-12-01T09%3A00%3A00.000Z">/);
    for (const secret of [PASSWORD, ADMIN_PASS, JWT]) expect(text).to.not.include(secret);
  });

  it('GET /incidents with no parameters: every stream, earliest first; a truncated page links the next', async () => {
    const { status, text } = await get('/incidents?limit=3');
    expect(status).to.equal(200);
    expect([...text.matchAll(/<tr id="row-\d+"/g)]).to.have.length(3);
    expect(text).to.include('id="incident-truncated"');
    expect(text).to.include(`href="/incidents?from=${encodeURIComponent(at(3))}&amp;limit=3"`);
  });

  it('GET /api/incidents: the rows as JSON, filtered by kind and source', async () => {
    const res = await get('/api/incidents?resource=Server/default/web-2&related=1&kind=Network&kind=Region&source=operator');
    expect(res.status).to.equal(200);
    expect(res.type).to.match(/^application\/json/);
    const body = JSON.parse(res.text) as IncidentTimeline;
    expect(body.rows.map((r) => `${r.resource?.kind}/${r.resource?.name} ${r.type}`)).to.deep.equal(['Region/region-1 resource.specChanged', 'Network/net-a resource.specChanged']);
    expect(body.related?.length).to.equal(6);
    expect(body.query).to.include({ related: true, limit: 500 });
  });

  it('GET /api/incidents/export: the redacted export as a download', async () => {
    const res = await get('/api/incidents/export?resource=Server/default/web-2&related=1');
    expect(res.status).to.equal(200);
    expect(res.type).to.match(/^application\/json/);
    expect(res.disposition).to.equal('attachment; filename="incident-Server-default-web-2-2026-12-01T11-00-00-000Z.json"');
    const file = JSON.parse(res.text) as IncidentExport;
    expect(file).to.include({ format: 'regent-incident/1', generatedAt: NOW().toISOString() });
    expect(file.redaction.paths.length).to.be.greaterThan(3);
    for (const secret of [PASSWORD, ADMIN_PASS, JWT]) expect(res.text).to.not.include(secret);
  });

  it('bad input answers 400 with the reason (a page with the form, JSON under /api/); an unknown resource 404', async () => {
    const badTime = await get('/api/incidents?from=yesterday');
    expect(badTime.status).to.equal(400);
    expect(JSON.parse(badTime.text)).to.deep.equal({ error: 'from "yesterday" is neither an ISO time (2026-12-01T10:00:00Z) nor a duration back from now (30m, 2h, 1d)' });
    const badKind = await get('/incidents?kind=Spaceship');
    expect(badKind.status).to.equal(400);
    expect(badKind.type).to.match(/^text\/html/);
    expect(badKind.text).to.match(/<div class="banner bad" id="incident-error">unknown kind &quot;Spaceship&quot;/);
    expect(badKind.text).to.include('<form id="incident-filters"');
    expect((await get('/api/incidents/export?source=robot')).status).to.equal(400);
    expect((await get('/api/incidents?resource=web-2')).status).to.equal(400);
    expect((await get('/api/incidents?limit=-1')).status).to.equal(400);
    const unknown = await get('/api/incidents?resource=Server/default/nope');
    expect(unknown.status).to.equal(404);
    expect(JSON.parse(unknown.text).error).to.include('no history names Server default/nope');
    expect((await get('/incidents?resource=Server/default/nope')).status).to.equal(404);
  });

  it('answers only its own paths (the host answers the rest), and under a mount point only below it', async () => {
    expect((await get('/streams/x')).status).to.equal(418);
    expect((await get('/incidentsx')).status).to.equal(418);
    expect((await get('/incidents', mounted.url)).status).to.equal(418);
    const page = await get('/audit/incidents?resource=Server/default/web-2', mounted.url);
    expect(page.status).to.equal(200);
    expect(page.text).to.include(`href="/audit/streams/${STREAMS.web2}#rev-0"`).and.include('href="/audit/resources/Server/default/web-2"').and.include('action="/audit/incidents"');
    expect((await fetch(`${root.url}/incidents`, { method: 'POST' })).status).to.equal(418);
  });
});
