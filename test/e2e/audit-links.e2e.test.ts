/**
 * Issue 24, item 5: "Every link the pages render must answer 200". The audit index linked
 * `/streams/api-server-<uid>`, which answered 404 ("no machine owns stream") — and that stream is the only
 * place that shows who called the API.
 *
 * A real control plane as `npm start` runs it: the built-in simulator, the examples, the server REST API and
 * the audit pages on its listener (127.0.0.1, port 0, a temp dir). A Server is created through
 * POST /api/v2/servers; once its streams hold events the crawl fetches `/`, every same-origin link on it, and
 * every link on those pages: two levels. Links that differ only by a `#fragment` are one page; only non-HTTP
 * schemes are not fetched (there are none today). Every page that does not answer 200 is reported with the
 * page that linked it.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { createAuditRoutes } from '../../src/audit/web/routes.js';
import { createTokenIssuer, ENDPOINTS, OPERATIONS } from '../../src/api/auth.js';
import { auditStream } from '../../src/api/audit.js';
import { serverLifecycleStream } from '../../machines/server-lifecycle.js';
import { SEED } from '../../src/simulator/index.js';
import { npmStartOptions, until } from './support/plane.js';

/** Every href and src attribute of an HTML page, entities decoded (`&amp;` in a query). */
const linksOf = (html: string): string[] =>
  [...html.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((m) => (m[1] as string).replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));

interface Fetched {
  url: string;
  status: number;
  linkedFrom: string;
  links: string[];
}

describe('e2e: every link the audit pages render answers 200 (issue 24, item 5)', function () {
  this.timeout(600_000);
  let dir: string;
  let plane: ControlPlane | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-links-'));
  });
  after(async () => {
    await plane?.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a crawl two levels deep from / on a started control plane with the examples and an API-created server finds no page that does not answer 200', async () => {
    const issuer = await createTokenIssuer();
    const token = await issuer.sign({ sub: 'alice@acme', acl: { global: Object.values(ENDPOINTS).map((name) => ({ name, operations: [...OPERATIONS] })) } });
    // as `npm start`: the built-in simulator (no cloud in env) and the default examples applied to it
    plane = await startControlPlane(npmStartOptions(dir, issuer.jwks, ({ store, engine }) => [createAuditRoutes({ store, registry: engine.registry })]));
    const running = plane;
    await until('leadership', () => running.isLeader(), 30_000);

    // a Server created through the API, as the README's walkthrough does it
    const reply = await fetch(`${running.apiUrl}/api/v2/servers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'api-1' }, spec: { networkId: 'net-a', flavorId: '2', imageId: SEED.images.cirros, sshInjection: 'none' } }),
    });
    const created = (await reply.json()) as { metadata: { id: string } };
    expect(reply.status, JSON.stringify(created)).to.equal(201);
    const uid = (await running.source.get('Server', 'default', created.metadata.id))?.metadata.uid as string;
    await until('the API server has its API event and lifecycle events', async () => (await running.store.streamHead(auditStream(uid))) !== undefined && ((await running.store.streamHead(serverLifecycleStream(uid))) ?? -1) >= 0, 60_000);
    await until('the example servers have lifecycle events', async () => (await running.store.listStreams({ streamPrefixes: ['server-lifecycle-'] })).length >= 3, 60_000);

    const origin = new URL(running.url).origin;
    const fetched = new Map<string, Fetched>();
    const offOrigin: string[] = [];
    const visit = async (url: string, linkedFrom: string): Promise<Fetched> => {
      const response = await fetch(url);
      const html = (response.headers.get('content-type') ?? '').startsWith('text/html') ? await response.text() : (await response.arrayBuffer(), '');
      const links: string[] = [];
      for (const raw of linksOf(html)) {
        const target = new URL(raw, url);
        if (target.protocol !== 'http:' && target.protocol !== 'https:') continue; // not a page (data:, mailto:)
        target.hash = ''; // #rev-N and #streams: the same page
        if (target.origin !== origin) offOrigin.push(`${target.href} (on ${url})`);
        else links.push(target.href);
      }
      const page = { url, status: response.status, linkedFrom, links: [...new Set(links)] };
      fetched.set(url, page);
      return page;
    };
    // level 0, then every page it links (level 1), then every page those link (level 2)
    let level = [await visit(`${origin}/`, '(start)')];
    for (let depth = 1; depth <= 2; depth++) {
      const next: Fetched[] = [];
      for (const page of level) for (const link of page.links) if (!fetched.has(link)) next.push(await visit(link, page.url));
      level = next;
    }

    const broken = [...fetched.values()].filter((p) => p.status !== 200).map((p) => `${p.status} ${p.url.slice(origin.length)}  linked from ${p.linkedFrom.slice(origin.length) || p.linkedFrom}`);
    expect(broken, `pages that do not answer 200:\n${broken.join('\n')}`).to.deep.equal([]);
    expect(offOrigin, 'the pages link nothing on another origin').to.deep.equal([]);

    // the crawl reached what it is about: the API's history, the API server's page, machines, fleets, streams
    const paths = [...fetched.keys()].map((u) => decodeURIComponent(new URL(u).pathname));
    expect(paths).to.include(`/streams/${auditStream(uid)}`);
    expect(paths).to.include(`/resources/Server/default/${created.metadata.id}`);
    expect(paths).to.include(`/streams/${serverLifecycleStream(uid)}`);
    expect(paths).to.include('/fleet/Server');
    expect(paths.filter((p) => p.startsWith('/machines/')).length).to.be.greaterThanOrEqual(running.engine.registry.current().length);
    expect(paths.filter((p) => p.startsWith('/streams/')).length).to.be.greaterThanOrEqual(8);

    // the API's history shows who called it, the name it was given, and links the Server's page
    const apiPage = await (await fetch(`${origin}/streams/${auditStream(uid)}`)).text();
    expect(apiPage).to.include('<code>alice@acme</code>').and.include('api.server.created').and.include('<span class="src api">api</span>');
    expect(apiPage).to.include('<h1 id="subject"><span class="kind">Server</span> default/api-1</h1>');
    expect(apiPage).to.include(`href="/resources/Server/default/${created.metadata.id}"`);

    // and the index finds the Server by the name it was given: its API record and its lifecycle
    const found = await (await fetch(`${origin}/?q=api-1`)).text();
    const listed = [...found.matchAll(/<a href="\/streams\/([^"?]+)">/g)].map((m) => decodeURIComponent(m[1] as string));
    expect(listed).to.include.members([auditStream(uid), serverLifecycleStream(uid)]);
    // only its streams: each row names the Server api-1 (a rebuild stream is keyed by the Nova id, not the uid)
    const rows = [...found.matchAll(/<tr><td class="resource">(.*?)<\/td>/g)].map((m) => m[1] as string);
    expect(rows).to.have.length(listed.length);
    expect(rows.every((r) => r.includes('<b>api-1</b>')), rows.join('\n')).to.equal(true);
  });
});
