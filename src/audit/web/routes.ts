/**
 * The audit web routes as one `node:http` handler, mountable inside another server (the control
 * plane's `regent serve`) or served alone (server.ts). No module-level state: each call makes its own
 * caches. Every asset comes from this handler; pages reference nothing on another origin.
 *
 *   GET /                                  machines and resources (?page=N, 100 per page), each stream named by the
 *                                          resource its last event recorded; search: ?q=<name|ns/name|stream>&kind=&state=&since=&until=
 *   GET /resources/<Kind>/<ns>/<name>      one resource's streams (what status.auditURL links)
 *   GET /fleet/<Kind>                      one row per resource of a kind: parked first, then on a pending destructive
 *                                          decision; every stream's state, last decision and its source
 *   GET /machines/<id>[?version=N]         statechart and static checks;  /machines/<id>.svg: the SVG
 *   GET /streams/<stream>[?version=N]      resource page: overlay, timeline, stepping; #rev-N deep links. A stream no
 *                                          machine owns (the server API's api-server-<uid>): a plain timeline (?from=R)
 *   GET /api/streams                       resources as JSON
 *   GET /api/streams/<stream>/timeline?from=R&limit=N     a timeline page (at most 1000)
 *   GET /api/streams/<stream>/state?at=R   state, context, last observation and decision as of R
 *   GET /api/streams/<stream>/chains       authorization chains of destructive effects
 *   GET /api/streams/<stream>/compare?from=A&to=B   what changed in state and context from A to B (a structural diff)
 *   GET /api/streams/<stream>/live         server-sent events: `event: appended` with {revision, type} for every
 *                                          event appended to the stream from now on (the store's subscription)
 *   GET /assets/app.js, /assets/app.css, /assets/favicon.svg (also as /favicon.ico)
 *
 * An unknown machine or stream answers 404 with an HTML page linking back (JSON under /api/). Any
 * other path: when mounted under a base path, everything below it is the audit's own and answers the
 * same 404 page; at the root the handler returns false and the host answers (server.ts answers with
 * `notFoundPage` too).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import type { EventStore } from '../../store/port.js';
import type { RecordedEvent } from '../../events/envelope.js';
import { UnknownMachine, type MachineRegistry } from '../../../machines/registry.js';
import { AuditViews } from '../history/views.js';
import type { CheckpointShelf } from '../history/shelf.js';
import { statechartOfDefinition } from '../graph/statechart.js';
import { toDot } from '../graph/dot.js';
import { renderInlineSvg, renderSvg } from '../graph/render.js';
import { checkMachineCooperatively, type MachineCheckReport } from '../checks/rules.js';
import { fleetPage, indexPage, machinePage, matchesSearch, notFoundPage, plainStreamPage, streamPage, type PageOptions, type StreamListRow, type StreamSearch } from './pages.js';
import { ApiServers, displayNameOf, isApiServerStream, recordedSubject, type DisplayNames } from '../history/api-streams.js';
import { KIND_NAMES } from '../../resources/index.js';

export interface AuditRoutesOptions {
  store: EventStore;
  registry: MachineRegistry;
  /** Mount point, e.g. `/audit`; default '' (the root). */
  basePath?: string;
  /** Timeline rows per page; default 200. */
  pageSize?: number;
  /** Where folded indexes and replay frames are kept across restarts (history/shelf.ts); default: none (folded again after a restart). */
  checkpoints?: CheckpointShelf;
}

export type AuditHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

export const assetText = (name: 'app.js' | 'app.css' | 'favicon.svg'): string => readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');

class NotFound extends Error {}

const send = (res: ServerResponse, status: number, type: string, body: string) => {
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(body);
};
const sendJson = (res: ServerResponse, body: unknown, status = 200) => send(res, status, 'application/json', JSON.stringify(body));

const intParam = (url: URL, name: string, fallback: number): number => {
  const raw = url.searchParams.get(name);
  return raw !== null && /^-?\d+$/.test(raw) ? Number(raw) : fallback;
};
const versionParam = (url: URL): number | undefined => {
  const raw = url.searchParams.get('version');
  return raw !== null && /^\d+$/.test(raw) ? Number(raw) : undefined;
};

export const createAuditRoutes = (options: AuditRoutesOptions): AuditHandler => {
  const { store, registry } = options;
  const base = (options.basePath ?? '').replace(/\/$/, '');
  const pageSize = options.pageSize ?? 200;
  const views = new AuditViews(store, registry, options.checkpoints);
  const page: PageOptions = { base, assets: 'linked' };
  const assets = { js: assetText('app.js'), css: assetText('app.css'), icon: assetText('favicon.svg') };
  const checks = new Map<string, MachineCheckReport>();
  // the names the server API was given: a Server created through it is a UUID everywhere else
  const apiServers = new ApiServers(store);

  const streamList = async (): Promise<StreamListRow[]> => {
    const infos = await store.listStreams();
    return infos.map((info) => ({ stream: info.stream, head: info.head, machine: undefined, state: undefined, updatedAt: undefined }));
  };
  const withLast = async (rows: StreamListRow[], names: DisplayNames): Promise<StreamListRow[]> =>
    Promise.all(
      rows.map(async (row) => {
        const [last] = (await store.readStream(row.stream, { direction: 'backwards', maxCount: 1 })) as [RecordedEvent?];
        const subject = recordedSubject(last);
        const displayName = displayNameOf(names, subject);
        return { ...row, machine: last?.metadata.machine, state: last?.metadata.to, updatedAt: last?.metadata.recordedAt, ...(subject ? { subject } : {}), ...(displayName !== undefined ? { displayName } : {}) };
      }),
    );
  /**
   * Live history: the store's subscription from its current end, filtered to one stream, as server-sent
   * events until the client goes away (a comment every 15 s keeps proxies from closing an idle stream).
   */
  const followStream = async (req: IncomingMessage, res: ServerResponse, stream: string): Promise<void> => {
    const after = await store.lastPosition();
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', connection: 'keep-alive' });
    res.write(`event: ready\ndata: ${JSON.stringify({ after })}\n\n`);
    const subscription = store.subscribe({ after, filter: { streamPrefixes: [stream] } }, (event) => {
      if (event.stream !== stream) return;
      res.write(`event: appended\ndata: ${JSON.stringify({ revision: event.revision, type: event.type, recordedAt: event.metadata.recordedAt, to: event.metadata.to })}\n\n`);
    });
    const heartbeat = setInterval(() => res.write(': still here\n\n'), 15_000);
    heartbeat.unref();
    const stop = () => {
      clearInterval(heartbeat);
      void subscription.close();
    };
    req.on('close', stop);
    res.on('close', stop);
    subscription.done.catch(() => res.end());
  };
  /** A kind name in any letter case; NotFound for one Regent does not have. */
  const knownKind = (kind: string) => {
    const known = KIND_NAMES.find((k) => k.toLowerCase() === kind.toLowerCase());
    if (!known) throw new NotFound(`no kind ${kind}`);
    return known;
  };
  /** The fleet lines of the streams whose last event names a resource matching `wanted`. */
  const fleetLines = async (names: DisplayNames, wanted: (subject: NonNullable<StreamListRow['subject']>) => boolean) =>
    Promise.all(
      (await withLast(await streamList(), names))
        .filter((row) => row.subject !== undefined && wanted(row.subject))
        .map(async (row) => ({ ...(await views.fleetLine(row.stream)), subject: row.subject, displayName: row.displayName })),
    );
  const requireStream = async (stream: string) => {
    if ((await store.streamHead(stream)) === undefined) throw new NotFound(`no stream ${stream}`);
  };
  /** A stream no machine owns, from revision `from`: its events as recorded, named by the resource they recorded. */
  const plainStream = async (stream: string, from: number): Promise<string> => {
    const head = (await store.streamHead(stream)) ?? -1;
    const start = Math.min(Math.max(0, from), Math.max(0, head));
    const events = await store.readStream(stream, { fromRevision: start, maxCount: pageSize });
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    const subject = recordedSubject(last);
    const api = isApiServerStream(stream);
    return plainStreamPage(
      {
        stream,
        head,
        about: api
          ? 'recorded by the server API (source api; actor: the token\'s subject): no machine decides these events, so there is no statechart'
          : `no registered machine owns this stream (its events name machine ${last?.metadata.machine ?? '?'}), so there is no statechart`,
        subject,
        displayName: displayNameOf(await apiServers.displayNames(), subject),
        rows: events.map((e) => ({ revision: e.revision, recordedAt: e.metadata.recordedAt, type: e.type, actor: e.metadata.actor, source: e.metadata.source, data: e.data })),
        from: start,
        pageSize,
        ...(api ? { omit: ['server'] } : {}),
      },
      page,
    );
  };

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL, path: string): Promise<boolean> => {
    if (path === '/' || path === '') {
      const search: StreamSearch = {};
      for (const key of ['q', 'kind', 'state', 'since', 'until'] as const) {
        const value = url.searchParams.get(key)?.trim();
        if (value) search[key] = value;
      }
      const searching = Object.keys(search).length > 0;
      // a search reads every stream's last event (it filters on what they recorded); a plain list only the page's
      const names = await apiServers.displayNames();
      const all = searching ? (await withLast(await streamList(), names)).filter((row) => matchesSearch(row, search)) : await streamList();
      const pages = Math.max(1, Math.ceil(all.length / 100));
      const n = Math.min(Math.max(1, intParam(url, 'page', 1)), pages);
      const slice = all.slice((n - 1) * 100, n * 100);
      const rows = searching ? slice : await withLast(slice, names);
      send(res, 200, 'text/html', indexPage(registry.list(), rows, { page: n, pages, total: all.length }, page, search, KIND_NAMES));
      return true;
    }
    if (path === '/assets/app.js') return send(res, 200, 'text/javascript', assets.js), true;
    if (path === '/assets/app.css') return send(res, 200, 'text/css', assets.css), true;
    if (path === '/assets/favicon.svg' || path === '/favicon.ico') return send(res, 200, 'image/svg+xml', assets.icon), true;
    if (path === '/api/streams') {
      sendJson(res, await withLast(await streamList(), await apiServers.displayNames()));
      return true;
    }
    let m = /^\/machines\/([^/]+?)(\.svg)?$/.exec(path);
    if (m) {
      const id = decodeURIComponent(m[1] as string);
      const definition = registry.get(id, versionParam(url));
      if (m[2]) return send(res, 200, 'image/svg+xml', await renderSvg(toDot(statechartOfDefinition(definition)))), true;
      const key = `${definition.id}@${definition.version}`;
      // explored in slices: this process may also be the leader renewing its lease (checks/explore.ts runCooperatively)
      const report = checks.get(key) ?? (await checkMachineCooperatively(definition));
      checks.set(key, report);
      const versions = registry.list().filter((d) => d.id === id).map((d) => d.version);
      send(res, 200, 'text/html', machinePage(definition, await renderInlineSvg(toDot(statechartOfDefinition(definition))), versions, report, page));
      return true;
    }
    m = /^\/streams\/([^/]+)$/.exec(path);
    if (m) {
      const stream = decodeURIComponent(m[1] as string);
      await requireStream(stream);
      if (!views.owns(stream)) return send(res, 200, 'text/html', await plainStream(stream, intParam(url, 'from', 0))), true;
      const version = versionParam(url);
      const overview = await views.overview(stream, version);
      const chains = await views.chains(stream, 50, version);
      const api = `${base}/api/streams/${encodeURIComponent(stream)}`;
      const displayName = displayNameOf(await apiServers.displayNames(), overview.subject);
      send(res, 200, 'text/html', streamPage({ overview, chains, pageSize, api, ...(version !== undefined ? { version } : {}), ...(displayName !== undefined ? { displayName } : {}) }, page));
      return true;
    }
    m = /^\/resources\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(path);
    if (m) {
      // a resource's audit page (what status.auditURL links): its streams, by the subject they recorded
      const [kind, namespace, name] = [m[1], m[2], m[3]].map((x) => decodeURIComponent(x as string)) as [string, string, string];
      const known = knownKind(kind);
      const names = await apiServers.displayNames();
      const lines = await fleetLines(names, (s) => s.kind === known && s.namespace === namespace && s.name === name);
      if (lines.length === 0) throw new NotFound(`no history names ${known} ${namespace}/${name} (yet)`);
      send(res, 200, 'text/html', fleetPage(known, lines, page, { namespace, name, displayName: displayNameOf(names, { kind: known, namespace, name }) }));
      return true;
    }
    m = /^\/fleet\/([^/]+)$/.exec(path);
    if (m) {
      const known = knownKind(decodeURIComponent(m[1] as string));
      send(res, 200, 'text/html', fleetPage(known, await fleetLines(await apiServers.displayNames(), (s) => s.kind === known), page));
      return true;
    }
    m = /^\/api\/streams\/([^/]+)\/live$/.exec(path);
    if (m) {
      const stream = decodeURIComponent(m[1] as string);
      await requireStream(stream);
      await followStream(req, res, stream);
      return true;
    }
    m = /^\/api\/streams\/([^/]+)\/compare$/.exec(path);
    if (m) {
      const stream = decodeURIComponent(m[1] as string);
      await requireStream(stream);
      sendJson(res, await views.compare(stream, intParam(url, 'from', 0), intParam(url, 'to', Number.MAX_SAFE_INTEGER), versionParam(url)));
      return true;
    }
    m = /^\/api\/streams\/([^/]+)\/(timeline|state|chains)$/.exec(path);
    if (m) {
      const stream = decodeURIComponent(m[1] as string);
      await requireStream(stream);
      const version = versionParam(url);
      if (m[2] === 'timeline') sendJson(res, await views.timeline(stream, intParam(url, 'from', 0), intParam(url, 'limit', pageSize), version));
      else if (m[2] === 'state') sendJson(res, await views.stateAt(stream, intParam(url, 'at', Number.MAX_SAFE_INTEGER), version));
      else sendJson(res, await views.chains(stream, intParam(url, 'limit', 50), version));
      return true;
    }
    if (base) throw new NotFound('no such audit page');
    return false;
  };

  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (base && url.pathname !== base && !url.pathname.startsWith(`${base}/`)) return false;
    const path = url.pathname.slice(base.length) || '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    try {
      return await route(req, res, url, path);
    } catch (error) {
      const status = error instanceof NotFound || error instanceof UnknownMachine ? 404 : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (path.startsWith('/api/')) sendJson(res, { error: message }, status);
      else if (status === 404) send(res, 404, 'text/html', notFoundPage(url.pathname, message, page));
      else send(res, status, 'text/plain', message);
      return true;
    }
  };
};
