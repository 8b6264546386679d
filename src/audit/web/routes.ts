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
 *   GET /machines/<id>[?version=N]         statechart and static checks (or "checks running…");  /machines/<id>.svg: the SVG
 *   GET /api/machines/<id>/checks[?version=N]  the static checks: {status: done|running|failed, report?, error?, html}
 *   GET /streams/<stream>[?version=N]      resource page: overlay, timeline, stepping; #rev-N deep links. A stream no
 *                                          machine owns (the server API's api-server-<uid>): a plain timeline (?from=R)
 *   GET /api/streams                       resources as JSON
 *   GET /api/streams/<stream>/timeline?from=R&limit=N     a timeline page (at most 1000)
 *   GET /api/streams/<stream>/state?at=R   state, context, last observation and decision as of R
 *   GET /api/streams/<stream>/chains       authorization chains of destructive effects
 *   GET /api/streams/<stream>/compare?from=A&to=B   what changed in state and context from A to B (a structural diff)
 *   GET /api/streams/<stream>/live         server-sent events: `event: appended` with {revision, type} for every
 *                                          event appended to the stream from now on (the store's subscription)
 *   GET /plan                              the plan view (issue 32): paste or upload manifests; per resource the decisions
 *                                          its machines would take, drawn over each machine's statechart (plan-routes.ts)
 *   POST /api/plan                         {files: [{name, text}], resource?} → the plan as JSON (`regent plan -o json`);
 *                                          POST /plan/view: the same, drawn (the page's fragment). 501 without a planner
 *   GET /assets/app.js, /assets/app.css, /assets/favicon.svg (also as /favicon.ico), /assets/plan.js, /assets/plan.css
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
import type { MachineDefinition } from '../../../machines/definition.js';
import { AuditViews } from '../history/views.js';
import type { CheckpointShelf } from '../history/shelf.js';
import { statechartOfDefinition } from '../graph/statechart.js';
import { toDot } from '../graph/dot.js';
import { renderChartViews } from '../graph/render.js';
import { createMachineChecks, type ChecksState } from '../checks/cache.js';
import { backgroundTurn, nextTurn } from '../checks/explore.js';
import { createSvgCache, loadGraphviz } from '../graph/svg-cache.js';
import { fleetPage, indexPage, machineChecksSection, machinePage, matchesSearch, notFoundPage, plainStreamPage, streamPage, type FleetLine, type PageOptions, type StreamListRow, type StreamSearch } from './pages.js';
import { IncidentIndex } from '../incident/heads.js';
import { createIncidentRoutes } from './incident-routes.js';
import { createPlanRoutes, type AuditPlanner } from './plan-routes.js';
import { relatedResources } from '../incident/related.js';
import { ApiServers, displayNameOf, isApiServerStream, recordedSubject, type DisplayNames } from '../history/api-streams.js';
import { KIND_NAMES } from '../../resources/index.js';
import { resourcePage, type AroundChange, type ResourcePageData } from './resource-page.js';
import { incidentTimeline } from '../incident/timeline.js';
import { resourceRecordOf } from '../../resource-history/stream.js';
import type { ResolvedChain } from '../history/chain.js';

export interface AuditRoutesOptions {
  store: EventStore;
  registry: MachineRegistry;
  /** Mount point, e.g. `/audit`; default '' (the root). */
  basePath?: string;
  /** Timeline rows per page; default 200. */
  pageSize?: number;
  /** Where folded indexes and replay frames are kept across restarts (history/shelf.ts); default: none (folded again after a restart). */
  checkpoints?: CheckpointShelf;
  /**
   * Check every registered machine and lay out its statechart in the background after start (checks/cache.ts,
   * cooperatively: the control plane beside it keeps serving); default: when `checkpoints` is given (a server).
   */
  warmChecks?: boolean;
  /**
   * What the plan view plans with (plan-routes.ts): src/plan's `plan()` over the host's event store, resource source
   * and cloud (`regent serve` passes one). Without it /plan says the plan is not available here, /api/plan answers 501.
   */
  planner?: AuditPlanner;
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
  // static checks and statechart layouts: known, kept on the shelf across restarts, or running (never waited for)
  const machineChecks = createMachineChecks({ shelf: options.checkpoints });
  const layouts = createSvgCache(options.checkpoints);
  /**
   * A machine page's drawings: the whole machine and a focus view per state, each layout kept by `layouts`. A
   * layout (or a read from the shelf) not in memory is synchronous work: the event loop gets a turn (`pause`)
   * before each one, so a machine's dozens of layouts never hold the control plane beside them for their whole time.
   */
  const machineViews = (definition: MachineDefinition, pause: () => Promise<void> = nextTurn) =>
    renderChartViews(statechartOfDefinition(definition), undefined, { layout: async (dot) => layouts.known(dot) ?? (await pause(), layouts.svg(dot)) });
  const checksView = (state: ChecksState, definition: MachineDefinition) =>
    state.status === 'running' ? { status: 'running' as const, src: `${base}/api/machines/${encodeURIComponent(definition.id)}/checks?version=${definition.version}` } : state;
  if (options.warmChecks ?? options.checkpoints !== undefined) {
    setTimeout(() => {
      void (async () => {
        for (const definition of registry.list()) await machineViews(definition, backgroundTurn).catch(() => undefined);
        await loadGraphviz().catch(() => undefined); // the resource pages' overlays are laid out on view
        await machineChecks.warm(registry.list());
      })();
    }, 1_000).unref();
  }
  // the names the server API was given: a Server created through it is a UUID everywhere else
  const apiServers = new ApiServers(store);
  // /incidents and /api/incidents: one timeline across a resource and everything related (incident-routes.ts)
  const incidents = createIncidentRoutes({ store, registry, basePath: base });
  // /plan, /api/plan, /plan/view: the plan view (plan-routes.ts), its statecharts laid out through the same cache
  const plans = createPlanRoutes({ registry, basePath: base, layout: (dot) => layouts.svg(dot), ...(options.planner ? { planner: options.planner } : {}) });

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

  // the resources' heads, for the related set (incident/heads.ts keeps to what changed since its last refresh)
  const incidentIndex = new IncidentIndex(store);
  const relatedOf = async (subject: { kind: string; namespace: string; name: string }): Promise<Pick<ResourcePageData, 'related' | 'relatedNote'>> => {
    try {
      const related = await relatedResources(store, subject, { index: incidentIndex });
      return { related: related.map((r) => ({ kind: r.kind, namespace: r.namespace, name: r.name, relation: r.via ? `${r.relation} (via ${r.via})` : r.relation })) };
    } catch (error) {
      return { relatedNote: `related resources unknown: ${error instanceof Error ? error.message : String(error)}` };
    }
  };
  /**
   * What else happened around the resource's latest change of desired state (or its newest destructive decision):
   * from 2 minutes before to 10 minutes after (at most 60 rows), this resource and everything related, status writes left out.
   */
  const aroundLatestChange = async (subject: { kind: string; namespace: string; name: string }, own: ResourcePageData['own'], chains: readonly ResolvedChain[]): Promise<AroundChange | undefined> => {
    const change = own ? [...own.revisions].reverse().find((r) => r.record.type === 'resource.specChanged' && r.record.previousGeneration !== null) : undefined;
    const anchor = change?.recordedAt ?? chains[0]?.links.find((l) => l.role === 'decision')?.recordedAt;
    if (!anchor) return undefined;
    const from = new Date(Date.parse(anchor) - 2 * 60_000).toISOString();
    const to = new Date(Date.parse(anchor) + 10 * 60_000).toISOString();
    try {
      const timeline = await incidentTimeline(store, { resource: subject, related: true, from, to, limit: 400 }, { registry, index: incidentIndex, base });
      const rows = timeline.rows.filter((r) => r.type !== 'resource.statusChanged');
      const href = `${base}/incidents?resource=${encodeURIComponent(`${subject.kind}/${subject.namespace}/${subject.name}`)}&related=1&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
      return { from, to, rows: rows.slice(0, 60), statusWrites: timeline.rows.length - rows.length, truncated: timeline.truncated || rows.length > 60, href };
    } catch {
      return undefined;
    }
  };
  /** What the resource page shows (resource-page.ts): its own stream at ?rev=N, its chains, its main statechart. */
  const resourcePageData = async (subject: { kind: string; namespace: string; name: string }, lines: FleetLine[], url: URL, names: DisplayNames): Promise<ResourcePageData> => {
    const ownStreams = await views.resources.streamsOf(subject);
    const ownStream = ownStreams.at(-1);
    let own: ResourcePageData['own'];
    if (ownStream) {
      const head = (await store.streamHead(ownStream)) ?? 0;
      const raw = url.searchParams.get('rev');
      const selected = raw !== null && /^\d+$/.test(raw) ? Math.min(Number(raw), head) : undefined;
      const at = await views.resources.at(ownStream, selected);
      const events = await store.readStream(ownStream, { direction: 'backwards', maxCount: 200 });
      const revisions = events.reverse().flatMap((e) => {
        const record = resourceRecordOf(e);
        return record ? [{ revision: e.revision, recordedAt: e.metadata.recordedAt, record }] : [];
      });
      if (at) own = { at, head, revisions, selected };
    }
    const machineLines = lines.filter((l) => views.owns(l.stream));
    const chains: ResolvedChain[] = [];
    for (const line of machineLines) chains.push(...(await views.chains(line.stream, 5)).chains);
    chains.sort((a, b) => (b.links.find((l) => l.role === 'decision')?.recordedAt ?? '').localeCompare(a.links.find((l) => l.role === 'decision')?.recordedAt ?? ''));
    // the main statechart: the stream of the newest destructive decision, else the resource's lifecycle, else the first
    const newest = chains[0]?.stream;
    const main = (newest && machineLines.find((l) => l.stream === newest)) ?? machineLines.find((l) => /lifecycle/i.test(l.machine)) ?? machineLines[0];
    let graph: ResourcePageData['graph'];
    if (main) {
      const overview = await views.overview(main.stream);
      const last = (await views.timeline(main.stream, Math.max(0, overview.head), 1)).rows[0];
      graph = { stream: main.stream, machine: overview.machine, version: overview.version, svg: overview.svg, state: overview.state, currentNodes: last?.toNodes ?? [] };
    }
    const displayName = displayNameOf(names, subject);
    const around = await aroundLatestChange(subject, own, chains);
    return { ...subject, ...(displayName !== undefined ? { displayName } : {}), lines, own, graph, chains: chains.slice(0, 10), ...(await relatedOf(subject)), ...(around ? { around } : {}) };
  };

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL, path: string): Promise<boolean> => {
    if (await incidents(req, res)) return true;
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
      const dot = toDot(statechartOfDefinition(definition));
      if (m[2]) return send(res, 200, 'image/svg+xml', await layouts.svg(dot)), true;
      // the checks as known now: a report not yet known is explored in the background, and the page says so
      const checks = checksView(await machineChecks.state(definition), definition);
      const versions = registry.list().filter((d) => d.id === id).map((d) => d.version);
      // the whole machine and a focus view per state (issue 30), each layout kept by `layouts`
      send(res, 200, 'text/html', machinePage(definition, await machineViews(definition), versions, checks, page));
      return true;
    }
    m = /^\/api\/machines\/([^/]+)\/checks$/.exec(path);
    if (m) {
      const definition = registry.get(decodeURIComponent(m[1] as string), versionParam(url));
      const state = await machineChecks.state(definition);
      sendJson(res, { machine: definition.id, version: definition.version, ...state, html: machineChecksSection(checksView(state, definition)) });
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
      // a resource's audit page (what status.auditURL links): its own stream, chains, statechart, streams, related
      const [kind, namespace, name] = [m[1], m[2], m[3]].map((x) => decodeURIComponent(x as string)) as [string, string, string];
      const known = knownKind(kind);
      const names = await apiServers.displayNames();
      const lines = await fleetLines(names, (s) => s.kind === known && s.namespace === namespace && s.name === name);
      if (lines.length === 0) throw new NotFound(`no history names ${known} ${namespace}/${name} (yet)`);
      send(res, 200, 'text/html', resourcePage(await resourcePageData({ kind: known, namespace, name }, lines, url, names), page));
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
    // the plan view answers its own POSTs (and its page and assets)
    if (await plans(req, res)) return true;
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
