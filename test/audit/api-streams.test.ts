/**
 * Issue 24, item 5: the server API's audit streams on the audit pages, and a Server created through the API
 * shown and found by the name it was given (not only its UUID).
 *
 * - `/streams/api-server-<uid>` — a stream no machine owns — answers 200 with a plain timeline (time, type,
 *   actor, source, a summary of the data), no statechart, linked to its Server's resource page; paged.
 * - The Server's resource page, the fleet view, the stream pages and their titles name it `api-1`, with its id;
 *   the index's search finds it by that name.
 * Over HTTP on 127.0.0.1, with events written by the API's own writer (src/api/audit.ts appendAudit).
 */
import { expect } from 'chai';
import { v7 as uuidv7 } from 'uuid';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry } from '../../machines/index.js';
import { startAuditServer, type AuditServer } from '../../src/audit/web/server.js';
import { appendAudit, auditStream, type AuditRecord } from '../../src/api/audit.js';
import { payloadSummary } from '../../src/audit/web/pages.js';
import { recordCleanRebuild } from './support/rebuild-history.js';

const ID = '0b6f4f2e-3c2e-5d7a-9a51-2f6f0f1c9d11'; // the id the API returned (the resource name)
const UID = '6a0c3a43-92a4-4bb4-8a0f-5e8f2f6d7c21'; // the resource uid (the stream's key)
const OLD_ID = '5b0d1c1e-1111-5222-8333-444455556666';
const OLD_UID = '9d9d9d9d-aaaa-4bbb-8ccc-dddddddddddd';

const record = (action: AuditRecord['action'], n: number, server = { uid: UID, name: ID, serverName: 'api-1' }): AuditRecord => ({
  action,
  actor: 'alice@acme',
  requestId: `req-${n}`,
  apiVersion: 2,
  server: { ...server, namespace: 'default', organizationId: 'acme', projectId: 'web' },
  details: action === 'created' ? { imageId: 'img-a', flavorId: '2', networkId: 'net-a', userData: 'sha256:abc' } : { verb: action, status: 202 },
  at: new Date(Date.parse('2026-12-01T10:00:00Z') + n * 60_000).toISOString(),
});

describe('audit web: the server API\'s streams and the names it was given (issue 24, item 5)', function () {
  this.timeout(60_000);
  let server: AuditServer;
  const get = async (path: string) => {
    const res = await fetch(new URL(path, server.url));
    return { status: res.status, text: await res.text() };
  };
  const listed = (html: string) => [...html.matchAll(/<a href="\/streams\/([^"?]+)">/g)].map((m) => decodeURIComponent(m[1] as string)).sort();

  before(async () => {
    const store = new MemoryEventStore();
    await appendAudit(store, record('created', 0));
    for (const [n, verb] of (['softreboot', 'stop', 'start', 'hardreboot'] as const).entries()) await appendAudit(store, record(verb, n + 1));
    // the Server's machine stream (a rebuild), named by the resource the control plane knows: its id
    await recordCleanRebuild(store, 'server-rebuild-nova-api-1', { kind: 'Server', namespace: 'default', name: ID });
    // an API history written before API events recorded metadata.subject: the Server only in the data
    await store.append(
      auditStream(OLD_UID),
      [
        {
          id: uuidv7(),
          type: 'api.server.created',
          data: { type: 'api.server.created', apiVersion: 2, server: { uid: OLD_UID, namespace: 'default', name: OLD_ID, serverName: 'old-1', organizationId: 'acme', projectId: 'web' } },
          metadata: { machine: 'api', machineVersion: 1, schemaVersion: 1, source: 'api', actor: 'bob@acme', correlationId: 'req-old', causationId: null, from: null, to: 'created', effects: [], recordedAt: '2026-11-01T10:00:00.000Z' },
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    // a stream of a machine no longer registered
    await store.append('retired-thing-1', [{ id: uuidv7(), type: 'retired.done', data: { type: 'done' }, metadata: { machine: 'retired', machineVersion: 3, schemaVersion: 1, source: 'reconciler', actor: 'reconciler/retired', correlationId: 'c', causationId: null, from: null, to: 'Done', effects: [], recordedAt: '2026-11-01T10:00:00.000Z' } }], { expectedRevision: 'no_stream' });
    server = await startAuditServer({ port: 0, store, registry: createProductRegistry(), pageSize: 2 });
  });
  after(() => server.close());

  it('the API\'s stream answers 200: a plain timeline of time, type, actor, source and data, no statechart, linked to its Server\'s page', async () => {
    const page = await get(`/streams/${auditStream(UID)}`);
    expect(page.status).to.equal(200);
    expect(page.text).to.include('<h1 id="subject"><span class="kind">Server</span> default/api-1</h1>');
    expect(page.text).to.include(`<title>Server default/api-1 (${auditStream(UID)}) — Regent audit</title>`);
    expect(page.text).to.include(`id <span class="mono">${ID}</span>`);
    expect(page.text).to.include(`<a class="resource-link" href="/resources/Server/default/${ID}">api-1</a>`);
    expect(page.text).to.include('recorded by the server API');
    expect(page.text).to.not.include('id="graph"').and.not.include('id="regent-data"');
    const first = /<tr id="rev-0">([\s\S]*?)<\/tr>/.exec(page.text)?.[1] ?? '';
    expect(first).to.include('2026-12-01T10:00:00.000Z').and.include('api.server.created').and.include('<code>alice@acme</code>').and.include('<span class="src api">api</span>');
    // the summary names what the request changed; the server (in the heading) only in the full data
    expect(first).to.include('apiVersion: 2; details: {&quot;imageId&quot;:&quot;img-a&quot;,&quot;flavorId&quot;:&quot;2&quot;,&quot;networkId&quot;:&quot;net-a&quot;,&quot;userData&quot;:&quot;sha256:abc&quot;}');
    expect(first).to.include('<details><summary>data</summary>').and.include('&quot;serverName&quot;: &quot;api-1&quot;');
  });

  it('the timeline is paged on the server: ?from=R, and every pager link answers 200 with the events it names', async () => {
    const first = await get(`/streams/${auditStream(UID)}`);
    expect([...first.text.matchAll(/<tr id="rev-(\d+)">/g)].map((m) => m[1])).to.deep.equal(['0', '1']);
    expect(first.text).to.include('events 0–1 of 5');
    const pager = [...first.text.matchAll(/<a id="page-(\w+)" href="([^"]+)">/g)].map((m) => [m[1], m[2]?.replace(/&amp;/g, '&')]);
    expect(pager).to.deep.equal([
      ['next', `/streams/${auditStream(UID)}?from=2`],
      ['last', `/streams/${auditStream(UID)}?from=4`],
    ]);
    const last = await get(`/streams/${auditStream(UID)}?from=4`);
    expect(last.status).to.equal(200);
    expect([...last.text.matchAll(/<tr id="rev-(\d+)">/g)].map((m) => m[1])).to.deep.equal(['4']);
    expect(last.text).to.include('api.server.hardreboot');
    expect([...last.text.matchAll(/<a id="page-(\w+)" href="([^"]+)">/g)].map((m) => m[1])).to.deep.equal(['first', 'prev']);
    for (const [, href] of [...last.text.matchAll(/<a id="page-\w+" href="([^"]+)">/g), ...first.text.matchAll(/<a id="page-\w+" href="([^"]+)">/g)]) expect((await get(href as string)).status, href).to.equal(200);
  });

  it('an API history recorded before events named their Server is named from its data; a retired machine\'s stream is a plain timeline too', async () => {
    const old = await get(`/streams/${auditStream(OLD_UID)}`);
    expect(old.status).to.equal(200);
    expect(old.text).to.include('<h1 id="subject"><span class="kind">Server</span> default/old-1</h1>').and.include('<code>bob@acme</code>');
    expect((await get(`/resources/Server/default/${OLD_ID}`)).status).to.equal(200);
    const retired = await get('/streams/retired-thing-1');
    expect(retired.status).to.equal(200);
    expect(retired.text).to.include('no registered machine owns this stream (its events name machine retired)');
  });

  it('the Server\'s resource page, the fleet view and its stream pages name it by the name the API was given, with its id', async () => {
    const resource = await get(`/resources/Server/default/${ID}`);
    expect(resource.status).to.equal(200);
    expect(resource.text).to.include(`<title>Server default/api-1 (${ID}) — Regent audit</title>`);
    expect(resource.text).to.include('<h1 id="subject"><span class="kind">Server</span> default/api-1</h1>');
    // its streams section (the page links streams from its chains and timeline too)
    expect(listed(/<section class="panel" id="streams">(.*?)<\/section>/s.exec(resource.text)?.[1] ?? '')).to.deep.equal([auditStream(UID), 'server-rebuild-nova-api-1']);
    const fleet = await get('/fleet/Server');
    const row = new RegExp(`data-resource="default/${ID}">(.*?)</tr>`).exec(fleet.text)?.[1] ?? '';
    expect(row).to.include(`<a href="/resources/Server/default/${ID}"><b>api-1</b></a>`).and.include(`id <span class="mono">${ID}</span>`);
    const rebuild = await get('/streams/server-rebuild-nova-api-1');
    expect(rebuild.text).to.include('<h1 id="subject"><span class="kind">Server</span> default/api-1</h1>');
    expect(rebuild.text).to.include('<title>Server default/api-1 (server-rebuild-nova-api-1) — Regent audit</title>');
    expect(rebuild.text).to.include(`href="/resources/Server/default/${ID}">all streams of Server api-1</a>`);
  });

  it('the index shows the name and finds it: ?q=api-1 lists the API\'s stream and the Server\'s machine streams', async () => {
    const index = await get('/');
    expect(index.text).to.include(`<a class="resource-link" href="/resources/Server/default/${ID}"><b>Server</b> default/<b>api-1</b></a> <span class="muted mono" title="id">${ID}</span>`);
    expect(listed((await get('/?q=api-1')).text)).to.deep.equal([auditStream(UID), 'server-rebuild-nova-api-1']);
    expect(listed((await get('/?q=default%2Fapi-1')).text)).to.deep.equal([auditStream(UID), 'server-rebuild-nova-api-1']);
    expect(listed((await get('/?q=old-1')).text)).to.deep.equal([auditStream(OLD_UID)]);
    // the id still finds it
    expect(listed((await get(`/?q=${ID}`)).text)).to.deep.equal([auditStream(UID), 'server-rebuild-nova-api-1']);
  });

  it('every API event names its Server as metadata.subject (kind, namespace, the id), like the machines\' events', async () => {
    const store = new MemoryEventStore();
    await appendAudit(store, record('created', 0));
    const [event] = await store.readStream(auditStream(UID));
    expect(event?.metadata.subject).to.deep.equal({ kind: 'Server', namespace: 'default', name: ID });
  });

  it('payloadSummary: every member but the type and the omitted ones, cut at 300 characters', () => {
    expect(payloadSummary({ type: 'x', a: 'b', n: 2, o: { k: 1 }, server: { uid: 'u' } }, ['server'])).to.equal('a: b; n: 2; o: {"k":1}');
    const long = payloadSummary({ type: 'x', text: 'y'.repeat(500) });
    expect(long).to.have.length(300);
    expect(long.endsWith('…')).to.equal(true);
  });
});
