/**
 * The audit pages as HTML strings: machine list and resource list, a machine's statechart with its
 * static checks, and a resource page (overlay, timeline, event and state panels, fired transitions,
 * authorization chains). Server-rendered; the page's behaviour is assets/app.js. The same resource
 * page is written as one self-contained file by `regent viz --stream --out file.html` (assets
 * inlined, timeline embedded): no page ever loads anything from another origin.
 */
import { formatState } from '../../events/state-text.js';
import type { StateValue } from '../../events/envelope.js';
import type { MachineDefinition } from '../../../machines/definition.js';
import { CHECK_IDS, CHECK_TITLES, type MachineCheckReport } from '../checks/rules.js';
import type { ResolvedChain } from '../history/chain.js';
import type { StreamOverview, TimelineRow } from '../history/views.js';

export const esc = (text: unknown): string =>
  String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** JSON safe inside a <script> element. */
export const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

export interface PageOptions {
  /** Path prefix the routes are mounted under ('' at the root). */
  base: string;
  /** Linked from the server, or inlined for a static file. */
  assets: 'linked' | { css: string; js: string };
}

export const state = (value: unknown): string => esc(formatState(value as StateValue));
export const streamHref = (o: PageOptions, stream: string) => `${o.base}/streams/${encodeURIComponent(stream)}`;
/** A resource's audit page (what status.auditURL links): its streams, by the subject they recorded. */
export const resourceHref = (o: PageOptions, s: { kind: string; namespace: string; name: string }) => `${o.base}/resources/${encodeURIComponent(s.kind)}/${encodeURIComponent(s.namespace)}/${encodeURIComponent(s.name)}`;
export const machineHref = (o: PageOptions, id: string, version?: number) => `${o.base}/machines/${encodeURIComponent(id)}${version === undefined ? '' : `?version=${version}`}`;

/** A key the page handles and what it does, as the `?` help overlay lists it. */
export type PageKey = readonly [keys: string, what: string];

/** The keys every page handles (assets/app.js): the help overlay itself. */
export const HELP_KEYS: readonly PageKey[] = [
  ['?', 'show or hide this list of keys'],
  ['Esc', 'close it'],
];

/** The resource page's keys (assets/app.js), before the help keys. */
export const STREAM_KEYS: readonly PageKey[] = [
  ['→', 'next event: the graph, the event and state panels and the URL (#rev-N) follow'],
  ['←', 'previous event'],
  ['Home', 'first event'],
  ['End', 'last event'],
  ['Enter', 'in the revision box: go to that revision'],
];

/** The statechart box's keys (assets/app.js), on the machine and resource pages. */
export const GRAPH_KEYS: readonly PageKey[] = [
  ['+', 'zoom the statechart in (or Ctrl + the mouse wheel over it; drag it to pan)'],
  ['-', 'zoom out'],
  ['0', 'fit as much of the statechart as its box shows readable, centred on the state in focus (w: the whole machine, or back)'],
];

const helpOverlay = (keys: readonly PageKey[]): string =>
  `<div id="help" class="help" role="dialog" aria-modal="true" aria-labelledby="help-title" hidden><div class="help-box"><h2 id="help-title">Keys on this page</h2>
<table id="help-keys"><tbody>${keys.map(([key, what]) => `<tr><td><kbd>${esc(key)}</kbd></td><td>${esc(what)}</td></tr>`).join('')}</tbody></table>
${keys.some(([key]) => key === 'Home') ? '<p class="muted">Clicking a timeline row or a fired transition selects its event; a <code>#rev-N</code> link opens that event.</p>' : ''}<button type="button" id="help-close">close</button></div></div>`;

/**
 * A page: header, body, the `?` help overlay listing `keys` (the page's own, then the help keys), and
 * the page script (assets/app.js) on every page — it opens the help; on the resource page it also steps.
 */
export const layout = (title: string, header: string, body: string, o: PageOptions, script = '', keys: readonly PageKey[] = []): string => {
  const css = o.assets === 'linked' ? `<link rel="stylesheet" href="${o.base}/assets/app.css">` : `<style>${o.assets.css}</style>`;
  // A served page names its icon, so the browser never asks for /favicon.ico (routes.ts answers that
  // too); a static file links nothing (opened from disk, nothing asks for an icon).
  const iconLink = o.assets === 'linked' ? `<link rel="icon" type="image/svg+xml" href="${o.base}/assets/favicon.svg">` : '';
  const js = o.assets === 'linked' ? `${script}<script src="${o.base}/assets/app.js" defer></script>` : `${script}<script>${o.assets.js.replace(/<\/script/gi, '<\\/script')}</script>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; connect-src 'self'">
<title>${esc(title)}</title>${iconLink}${css}</head>
<body><header class="top"><button type="button" id="help-open" class="help-open" title="keys on this page (?)" aria-haspopup="dialog" aria-controls="help">?</button>${header}</header><main>${body}</main>${helpOverlay([...keys, ...HELP_KEYS])}${js}</body></html>`;
};

/** The statechart box's zoom buttons (assets/app.js: drag to pan, Ctrl + wheel or +/− to zoom, fit). */
export const graphTools = '<div class="graph-tools" role="toolbar" aria-label="zoom"><button type="button" id="zoom-in" title="zoom in (+, or Ctrl + the mouse wheel)">+</button><button type="button" id="zoom-out" title="zoom out (−)">−</button><button type="button" id="zoom-fit" title="fit the whole statechart in its box (0)">fit</button></div>';

export interface StreamListRow {
  stream: string;
  head: number;
  machine: string | undefined;
  state: unknown;
  updatedAt: string | undefined;
  /** The resource the stream belongs to, as its last event recorded it (`metadata.subject`). */
  subject?: { kind: string; namespace: string; name: string } | undefined;
  /** The name the server API was given for that resource, when it is not its name (history/api-streams.ts). */
  displayName?: string | undefined;
}

/** The index's search (all optional): a name or kind/namespace/name fragment, a kind, a state, a time range. */
export interface StreamSearch {
  q?: string;
  kind?: string;
  state?: string;
  since?: string;
  until?: string;
}

const subjectText = (s: StreamListRow['subject'], displayName?: string): string => (s ? `${s.kind} ${s.namespace}/${s.name}${displayName === undefined ? '' : ` ${displayName} ${s.namespace}/${displayName}`}` : '');

/**
 * A resource as a heading shows it: kind, namespace and name; a Server created through the API by the name it
 * was given, with its id (the resource name every command takes) below.
 */
export const subjectHeading = (s: { kind: string; namespace: string; name: string }, displayName: string | undefined): string =>
  `<h1 id="subject"><span class="kind">${esc(s.kind)}</span> ${esc(s.namespace)}/${esc(displayName ?? s.name)}</h1>${displayName === undefined ? '' : `<div class="resource-id muted">id <span class="mono">${esc(s.name)}</span></div>`}`;
export const subjectTitle = (s: { kind: string; namespace: string; name: string }, displayName: string | undefined): string => `${s.kind} ${s.namespace}/${displayName ?? s.name}`;

/** Does a row match the search? Case-insensitive fragments; `since`/`until` bound its last update (ISO). */
export const matchesSearch = (row: StreamListRow, search: StreamSearch): boolean => {
  const has = (text: string, fragment: string | undefined) => fragment === undefined || fragment === '' || text.toLowerCase().includes(fragment.toLowerCase());
  if (!has(`${subjectText(row.subject, row.displayName)} ${row.stream}`, search.q)) return false;
  if (search.kind && row.subject?.kind.toLowerCase() !== search.kind.toLowerCase()) return false;
  if (!has(formatState((row.state ?? '') as StateValue), search.state)) return false;
  if (search.since && (row.updatedAt ?? '') < search.since) return false;
  if (search.until && (row.updatedAt ?? '') > search.until) return false;
  return true;
};

const searchForm = (o: PageOptions, s: StreamSearch, kinds: readonly string[]): string => {
  const value = (v: string | undefined) => (v ? ` value="${esc(v)}"` : '');
  const kindOptions = ['', ...kinds].map((k) => `<option value="${esc(k)}"${k === (s.kind ?? '') ? ' selected' : ''}>${k === '' ? 'any kind' : esc(k)}</option>`).join('');
  return `<form id="search" class="search" method="get" action="${o.base}/#streams"><input id="search-q" name="q" type="search" placeholder="name (web-2, default/web-2) or stream"${value(s.q)}> <select id="search-kind" name="kind">${kindOptions}</select> <input id="search-state" name="state" placeholder="state"${value(s.state)}> <label>updated since <input id="search-since" name="since" placeholder="2026-12-01T00:00"${value(s.since)}></label> <label>until <input id="search-until" name="until" placeholder="2026-12-02"${value(s.until)}></label> <button type="submit">search</button>${Object.values(s).some((v) => v) ? ` <a href="${o.base}/#streams">clear</a>` : ''}</form>`;
};

const pageHref = (o: PageOptions, search: StreamSearch, n: number): string => {
  const q = new URLSearchParams(Object.entries({ ...search, page: String(n) }).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));
  return `${o.base}/?${q.toString()}`;
};

export const indexPage = (machines: readonly MachineDefinition[], streams: readonly StreamListRow[], paging: { page: number; pages: number; total: number }, o: PageOptions, search: StreamSearch = {}, kinds: readonly string[] = []): string => {
  const machineRows = machines
    .map((d) => `<tr><td><a href="${machineHref(o, d.id, d.version)}">${esc(d.id)}</a></td><td>v${d.version}</td><td><code>${esc(d.streamPrefix)}</code></td><td>${esc(d.destructiveEffects?.join(', ') ?? '')}</td><td>${esc(d.description)}</td></tr>`)
    .join('');
  const streamRows = streams
    .map((s) => `<tr><td class="resource">${s.subject ? `<a class="resource-link" href="${resourceHref(o, s.subject)}"><b>${esc(s.subject.kind)}</b> ${esc(s.subject.namespace)}/<b>${esc(s.displayName ?? s.subject.name)}</b></a>${s.displayName === undefined ? '' : ` <span class="muted mono" title="id">${esc(s.subject.name)}</span>`}` : '<span class="muted">—</span>'}</td><td><a href="${streamHref(o, s.stream)}">${esc(s.stream)}</a></td><td>${esc(s.machine ?? '')}</td><td><b>${state(s.state)}</b></td><td class="mono">${s.head}</td><td class="mono">${esc(s.updatedAt ?? '')}</td></tr>`)
    .join('');
  const pager =
    paging.pages > 1
      ? `<p class="pager">${paging.page > 1 ? `<a href="${pageHref(o, search, paging.page - 1)}">◀ previous</a>` : ''} page ${paging.page} of ${paging.pages} ${paging.page < paging.pages ? `<a href="${pageHref(o, search, paging.page + 1)}">next ▶</a>` : ''}</p>`
      : '';
  return layout(
    'Regent audit',
    `<h1>Regent audit</h1><div class="crumbs">machines, resources and their histories · <a id="incidents-link" href="${o.base}/incidents?from=1h">incident timeline: everything in the last hour</a> · <a id="plan-link" href="${o.base}/plan">plan manifests before applying them</a></div>`,
    `<h2>Machines</h2><table id="machines"><thead><tr><th>machine</th><th>version</th><th>streams</th><th>destructive effects</th><th>lifecycle</th></tr></thead><tbody>${machineRows}</tbody></table>
<h2>Resources (${paging.total})</h2><p id="fleet-links">fleet view: ${kinds.map((k) => `<a href="${o.base}/fleet/${encodeURIComponent(k)}">${esc(k)}</a>`).join(' · ')}</p>${searchForm(o, search, kinds)}${pager}<table id="streams"><thead><tr><th>resource</th><th>stream</th><th>machine</th><th>current state</th><th>revision</th><th>updated</th></tr></thead><tbody>${streamRows || `<tr><td colspan="6" class="muted">${Object.values(search).some((v) => v) ? 'no stream matches the search' : 'no streams in the store'}</td></tr>`}</tbody></table>${pager}`,
    o,
  );
};

/** One stream of a resource in a fleet view (AuditViews.fleetLine). */
export interface FleetLine {
  stream: string;
  machine: string;
  state: unknown;
  head: number;
  last: { type: string; source: string; actor: string; recordedAt: string } | null;
  parked: boolean;
  intent: { target: string; state: string } | null;
  subject?: { kind: string; namespace: string; name: string } | undefined;
  /** The name the server API was given for the resource, when it is not its name. */
  displayName?: string | undefined;
}

/**
 * The fleet view of a kind: one row per resource (by the subject its streams recorded), parked resources
 * first, then those standing on a destructive intent, then by namespace and name; each with every stream's
 * state, last decision and its source.
 */
export const fleetPage = (kind: string, lines: readonly FleetLine[], o: PageOptions, resource?: { namespace: string; name: string; displayName?: string | undefined }): string => {
  const byResource = new Map<string, FleetLine[]>();
  for (const line of lines) {
    const key = `${line.subject?.namespace ?? ''}/${line.subject?.name ?? ''}`;
    byResource.set(key, [...(byResource.get(key) ?? []), line]);
  }
  // a parked stream's intent is not pending: it waits for a user action (a new spec), not for Regent
  const rank = (ls: FleetLine[]) => (ls.some((l) => l.parked) ? 0 : ls.some((l) => l.intent) ? 1 : 2);
  const resources = [...byResource.entries()].sort(([a, la], [b, lb]) => rank(la) - rank(lb) || (a < b ? -1 : a > b ? 1 : 0));
  const rows = resources
    .map(([key, ls]) => {
      const flags = `${ls.some((l) => l.parked) ? '<span class="flag parked">parked</span> ' : ''}${ls.filter((l) => l.intent && !l.parked).map((l) => `<span class="flag intent" title="${esc(l.stream)}">pending ${esc(l.intent?.state ?? '')} (${esc(l.intent?.target ?? '')})</span>`).join(' ')}`;
      const streams = ls
        .map((l) => `<div class="fleet-stream"><a href="${streamHref(o, l.stream)}">${esc(l.machine)}</a> <b>${state(l.state)}</b>${l.last ? ` · ${esc(l.last.type.replace(`${l.machine}.`, ''))} <span class="src ${esc(l.last.source)}">${esc(l.last.source)}</span> <span class="mono">${esc(l.last.recordedAt)}</span>` : ''}</div>`)
        .join('');
      const [namespace, name] = [key.slice(0, key.indexOf('/')), key.slice(1 + key.indexOf('/'))];
      const displayName = ls.find((l) => l.displayName !== undefined)?.displayName;
      const id = displayName === undefined ? '' : ` · id <span class="mono">${esc(name)}</span>`;
      return `<tr class="fleet-row rank-${rank(ls)}" data-resource="${esc(key)}"><td><a href="${resourceHref(o, { kind, namespace, name })}"><b>${esc(displayName ?? name)}</b></a><div class="muted">${esc(namespace)}${id}</div></td><td>${flags || '<span class="muted">settled or working</span>'}</td><td>${streams}</td></tr>`;
    })
    .join('');
  const fleetHref = `${o.base}/fleet/${encodeURIComponent(kind)}`;
  return layout(
    resource ? `${subjectTitle({ kind, ...resource }, resource.displayName)}${resource.displayName === undefined ? '' : ` (${resource.name})`} — Regent audit` : `${kind} fleet — Regent audit`,
    resource
      ? `${subjectHeading({ kind, ...resource }, resource.displayName)}<div class="crumbs"><a href="${o.base}/">Regent audit</a> › <a href="${fleetHref}">${esc(kind)} fleet</a> › ${esc(resource.displayName ?? resource.name)}</div><div class="summary">${lines.length} stream(s) of this resource</div>`
      : `<h1>${esc(kind)} fleet</h1><div class="crumbs"><a href="${o.base}/">Regent audit</a> › fleet › ${esc(kind)}</div><div class="summary">${resources.length} resource(s) · parked first, then those on a pending destructive decision</div>`,
    `<table id="fleet"><thead><tr><th>resource</th><th>attention</th><th>streams: state · last decision · source · time</th></tr></thead><tbody>${rows || `<tr><td colspan="3" class="muted">no ${esc(kind)} has recorded a history with its name</td></tr>`}</tbody></table>`,
    o,
  );
};

/**
 * A machine's static checks as its page shows them (checks/cache.ts): the report; or still running — every
 * check listed as running, never as passed, and fetched from `src` (assets/app.js) when done; or failed to run.
 */
export type MachineChecksView = { status: 'done'; report: MachineCheckReport } | { status: 'running'; src: string } | { status: 'failed'; error: string };

/** The checks section of a machine page (`#checks-section`, its `data-checks` the view's status): also what /api/machines/<id>/checks sends as `html`. */
export const machineChecksSection = (view: MachineChecksView): string => {
  if (view.status === 'running') {
    const rows = CHECK_IDS.map((id) => `<tr><td class="verdict running muted">running…</td><td>${esc(CHECK_TITLES[id])} <code>${id}</code></td><td class="muted">not yet known</td></tr>`).join('');
    return `<section id="checks-section" data-checks="running" data-src="${esc(view.src)}"><p class="muted" id="checks-status">checks running… this server is exploring the machine's reachable states (in the background); the results appear here when they are known.</p><table id="checks"><tbody>${rows}</tbody></table></section>`;
  }
  if (view.status === 'failed') return `<section id="checks-section" data-checks="failed"><p class="verdict bad" id="checks-status">the checks could not run: ${esc(view.error)}</p></section>`;
  const checks = view.report;
  const checkRows = checks.results
    .map((r) => {
      const example = r.counterexample
        ? `<pre>${esc(r.counterexample.problem)}\n${r.counterexample.path.map((s, i) => `${i + 1}. ${s.event.type} (${s.event.source})  ${formatState(s.from as StateValue)} → ${formatState(s.to as StateValue)}${s.outcome ? ` / ${s.outcome}` : ''}${s.effects.length ? ` ! ${s.effects.join(', ')}` : ''}`).map(esc).join('\n')}</pre>`
        : r.unreachable?.length
          ? `<pre>unreachable: ${esc(r.unreachable.join(', '))}</pre>`
          : '';
      return `<tr><td class="verdict ${r.status === 'fail' ? 'bad' : r.status === 'pass' ? 'ok' : 'skipped muted'}">${r.status}</td><td>${esc(r.title)} <code>${r.id}</code></td><td>${esc(r.detail)}${example}</td></tr>`;
    })
    .join('');
  return `<section id="checks-section" data-checks="done"><p class="muted" id="checks-status">${checks.states} states, ${checks.edges} transitions explored</p><table id="checks"><tbody>${checkRows}</tbody></table></section>`;
};

export const machinePage = (definition: MachineDefinition, svg: string, versions: readonly number[], checks: MachineChecksView, o: PageOptions): string => {
  const others = versions.filter((v) => v !== definition.version).map((v) => `<a href="${machineHref(o, definition.id, v)}">v${v}</a>`).join(' ');
  return layout(
    `${definition.id} v${definition.version}`,
    `<h1>${esc(definition.id)} v${definition.version}</h1><div class="crumbs"><a href="${o.base}/">Regent audit</a> › machine ${others ? `· other versions: ${others}` : ''}</div><div class="summary">${esc(definition.description)}</div>`,
    `<div class="graph machine-graph" id="graph">${graphTools}${svg}</div>
<h2>Static checks</h2>${machineChecksSection(checks)}`,
    o,
    '',
    GRAPH_KEYS,
  );
};

/** `elsewhere`: rendered on another page than the chain's stream (the resource page): revisions link that stream's page. */
export const chainHtml = (o: PageOptions, elsewhere = false) => (chain: ResolvedChain): string => {
  const at = (revision: number) => (elsewhere ? `${streamHref(o, chain.stream)}#rev-${revision}` : `#rev-${revision}`);
  const { type, ...params } = chain.effect;
  const decision = chain.links.find((l) => l.role === 'decision');
  const items = chain.links
    .map((l) => {
      const rev = l.revision < 0 ? 'rev ?' : l.stream ? `<a href="${streamHref(o, l.stream)}#rev-${l.revision}">${esc(l.stream)} rev ${l.revision}</a>` : `<a href="${at(l.revision)}">rev ${l.revision}</a>`;
      const who = l.type ? ` ${esc(l.type)} <span class="src ${esc(l.source)}">${esc(l.source)}</span> <code>${esc(l.actor)}</code> ${esc(l.recordedAt)}` : '';
      const data = l.data === undefined ? '' : `<pre>${esc(JSON.stringify(l.data))}</pre>`;
      return `<li data-role="${l.role}"><b>${l.role}</b> ${rev}${who}<br><span class="muted">${esc(l.note)}</span>${data}</li>`;
    })
    .join('');
  const problems = chain.problems.map((p) => `<li class="verdict bad">${esc(p)}</li>`).join('');
  return `<div class="chain ${chain.authorised ? '' : 'bad'}" data-decision="${decision?.revision ?? ''}"><b>${esc(type)}</b> <code>${esc(JSON.stringify(params))}</code> decided at ${decision ? `<a href="${at(decision.revision)}">revision ${decision.revision}</a>` : '?'}${elsewhere ? ` of <a href="${streamHref(o, chain.stream)}">${esc(chain.stream)}</a>` : ''}: <span class="verdict ${chain.authorised ? 'ok' : 'bad'}">${chain.authorised ? 'authorised' : 'NOT authorised'}</span><ol>${items}</ol>${problems ? `<ul>${problems}</ul>` : ''}</div>`;
};

export interface StreamPageData {
  overview: StreamOverview;
  chains: { total: number; chains: ResolvedChain[] };
  pageSize: number;
  /** Server mode: where the page fetches timeline pages and states. */
  api?: string;
  /** Server mode: the machine version asked for with ?version=N (overlay with another version). */
  version?: number;
  /** Static mode: the embedded timeline (possibly the last part of a long history). */
  rows?: TimelineRow[];
  /** Static mode: how many earlier events were left out. */
  omitted?: number;
  /** The name the server API was given for the stream's resource, when it is not its name. */
  displayName?: string;
}

export const streamPage = (data: StreamPageData, o: PageOptions): string => {
  const v = data.overview;
  const banners: string[] = [];
  if (v.divergence) banners.push(`<div class="banner bad" id="divergence">${esc(v.machine)} v${v.version} does not reproduce this history from revision <a href="#rev-${v.divergence.revision}">${v.divergence.revision}</a> (${v.divergence.reason}: recorded ${state(v.divergence.expected)} ${esc(v.divergence.expectedEffects.map((e) => e.type).join(', ') || 'no effects')}, recomputed ${state(v.divergence.actual)} ${esc(v.divergence.actualEffects.map((e) => e.type).join(', ') || 'no effects')}): from there on, events are matched to edges by their recorded from → to and stimulus type only.</div>`);
  if (v.quarantined) banners.push(`<div class="banner bad">quarantined: ${esc(v.quarantined)}</div>`);
  if ((v.matchKinds.ambiguous ?? 0) > 0 || (v.matchKinds.unmatched ?? 0) > 0) banners.push(`<div class="banner">${v.matchKinds.ambiguous ?? 0} event(s) match several transitions, ${v.matchKinds.unmatched ?? 0} match none: they are shown with every candidate.</div>`);
  if (data.omitted) banners.push(`<div class="banner">This file embeds the last ${data.rows?.length ?? 0} events; ${data.omitted} earlier ones are counted in the overlay but not listed (use <code>regent serve</code> to page through all of them).</div>`);
  const fired = v.fired
    .map((f) => `<tr class="fired-edge ${f.destructive ? 'destructive' : ''}" data-edge="${esc(f.edge)}" data-first="${f.first.revision}"><td>${esc(f.label)}</td><td>${f.count}</td><td>${Object.entries(f.sources).map(([s, n]) => `<span class="src ${esc(s)}">${esc(s)} ${n}</span>`).join(' ')}</td><td class="mono"><a href="#rev-${f.first.revision}">${f.first.revision}</a> ${esc(f.first.at)}</td><td class="mono"><a href="#rev-${f.last.revision}">${f.last.revision}</a> ${esc(f.last.at)}</td></tr>`)
    .join('');
  const config = { stream: v.stream, machine: v.machine, head: v.head, pageSize: data.pageSize, api: data.api, version: data.version, rows: data.rows };
  const body = `<div class="stream-layout">
<section class="graph" id="graph">${graphTools}${v.svg}</section>
<div class="side">
<section class="panel"><h3>Timeline</h3><div class="keys">← / → step through events (the graph follows) · Home / End · click a row · deep link: <code>#rev-N</code> · <kbd>?</kbd> all keys</div>
<div class="pager"><button id="page-first" type="button">« first</button><button id="page-prev" type="button">‹ prev</button><span id="page-info"></span><button id="page-next" type="button">next ›</button><button id="page-last" type="button">last »</button>
<form id="goto"><input id="goto-revision" type="number" min="0" placeholder="revision"><button type="submit">go</button></form></div>
<div class="timeline-wrap" id="timeline-wrap"><table id="timeline"><thead><tr><th>rev</th><th>time</th><th title="event type (without the machine's name) and the effects it declared">event · effects</th><th>source</th><th>from → to</th></tr></thead><tbody id="timeline-rows"></tbody></table></div></section>

<section class="panel" id="event-panel" data-revision=""><h3>Event</h3><p class="muted">select an event</p></section>
${data.api ? '<section class="panel" id="state-panel" data-revision=""><h3>State</h3></section>' : ''}${data.api ? '<section class="panel" id="compare-panel"><h3>Compare two revisions</h3><form id="compare"><input id="compare-from" type="number" min="0" placeholder="from revision" aria-label="from revision"> → <input id="compare-to" type="number" min="0" placeholder="to revision" aria-label="to revision"> <button type="submit">compare</button> <span class="muted">(empty: the selected event and the newest)</span></form><div id="compare-result"></div></section>' : ''}</div></div>
<h2>Fired transitions (${v.fired.length})</h2><table id="fired"><thead><tr><th>transition</th><th>count</th><th>sources</th><th>first</th><th>last</th></tr></thead><tbody>${fired || '<tr><td colspan="5" class="muted">none</td></tr>'}</tbody></table>
<h2>Authorization chains (${data.chains.total} destructive decision${data.chains.total === 1 ? '' : 's'}${data.chains.total > data.chains.chains.length ? `, newest ${data.chains.chains.length} shown` : ''})</h2>
<p class="muted">For each destructive effect: the arm that recorded the intent, the durable state the decision read back, the decision with the fresh observation it decided on, and the results it caused (causation links).</p>
<div id="chains">${data.chains.chains.map(chainHtml(o)).join('') || '<p class="muted">no destructive effect in this history</p>'}</div>`;
  const title = v.subject ? `${subjectHeading(v.subject, data.displayName)}<div class="stream-name mono">${esc(v.stream)}</div>` : `<h1>${esc(v.stream)}</h1>`;
  // served: the way to the resource's other streams (its page), which a static file cannot link
  const resourceCrumb = o.assets === 'linked' && v.subject ? ` · <a class="resource-link" href="${resourceHref(o, v.subject)}">all streams of ${esc(v.subject.kind)} ${esc(data.displayName ?? v.subject.name)}</a>` : '';
  const header = `${title}<div class="crumbs">${o.assets === 'linked' ? `<a href="${o.base}/">Regent audit</a> › ` : ''}${o.assets === 'linked' ? `<a href="${machineHref(o, v.machine, v.version)}">${esc(v.machine)} v${v.version}</a>` : `${esc(v.machine)} v${v.version}`}${resourceCrumb}</div>
<div class="summary">current state <b id="current-state">${state(v.state)}</b> · <span id="event-count">${v.head + 1}</span> event(s) · ${v.fired.length} transition(s) fired · ${v.destructiveDecisions} destructive decision(s)${o.assets === 'linked' ? ' · <span id="live-status" class="live muted" title="new events of this stream appear in the timeline as they are appended">connecting…</span>' : ''}</div>${banners.join('')}`;
  return layout(`${v.subject ? `${subjectTitle(v.subject, data.displayName)} (${v.stream})` : v.stream} — Regent audit`, header, body, o, `<script type="application/json" id="regent-data">${scriptJson(config)}</script>`, [...STREAM_KEYS, ...GRAPH_KEYS]);
};

/** One event of a stream no machine owns, as its plain timeline lists it. */
export interface PlainRow {
  revision: number;
  recordedAt: string;
  type: string;
  actor: string;
  source: string;
  data: unknown;
}

export interface PlainStreamData {
  stream: string;
  head: number;
  /** What recorded the events, in a sentence (the server API; a machine no longer registered). */
  about: string;
  subject?: { kind: string; namespace: string; name: string } | undefined;
  displayName?: string | undefined;
  /** The page's events, from revision `from`. */
  rows: readonly PlainRow[];
  from: number;
  pageSize: number;
  /** Data members the heading already names (an API event's `server`): left out of each row's summary, kept in its full data. */
  omit?: readonly string[];
}

const SUMMARY_CHARS = 300;

/** An event's data in one line: `key: value` per member but its type (and `omit`), cut at SUMMARY_CHARS. */
export const payloadSummary = (data: unknown, omit: readonly string[] = []): string => {
  if (data === null || typeof data !== 'object') return JSON.stringify(data) ?? '';
  const text = Object.entries(data as Record<string, unknown>)
    .filter(([key]) => key !== 'type' && !omit.includes(key))
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('; ');
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text;
};

/**
 * A stream no machine owns (the server API's `api-server-<uid>`): a plain timeline of its events — revision,
 * time, type, actor, source and a summary of the data, the full data a click away — paged on the server
 * (`?from=R`), with no statechart (nothing decided these events by one), and linked to its resource's page.
 * Each row is `#rev-N`, so the deep links the machine streams have work here without a script.
 */
export const plainStreamPage = (data: PlainStreamData, o: PageOptions): string => {
  const href = (from: number) => `${streamHref(o, data.stream)}?from=${from}`;
  const last = Math.floor(data.head / data.pageSize) * data.pageSize;
  const to = data.from + data.rows.length - 1;
  const nav = [
    data.from > 0 ? `<a id="page-first" href="${href(0)}">« first</a>` : '',
    data.from > 0 ? `<a id="page-prev" href="${href(Math.max(0, data.from - data.pageSize))}">‹ prev</a>` : '',
    `<span id="page-info">events ${data.rows.length === 0 ? 'none' : `${data.from}–${to}`} of ${data.head + 1}</span>`,
    to < data.head ? `<a id="page-next" href="${href(to + 1)}">next ›</a>` : '',
    to < data.head ? `<a id="page-last" href="${href(last)}">last »</a>` : '',
  ].filter((x) => x !== '').join(' ');
  const rows = data.rows
    .map(
      (r) =>
        `<tr id="rev-${r.revision}"><td class="mono"><a href="#rev-${r.revision}">${r.revision}</a></td><td class="mono">${esc(r.recordedAt)}</td><td>${esc(r.type)}</td><td><code>${esc(r.actor)}</code></td><td class="source"><span class="src ${esc(r.source)}">${esc(r.source)}</span></td><td class="payload">${esc(payloadSummary(r.data, data.omit))}<details><summary>data</summary><pre>${esc(JSON.stringify(r.data, null, 2))}</pre></details></td></tr>`,
    )
    .join('');
  const s = data.subject;
  const heading = s ? `${subjectHeading(s, data.displayName)}<div class="stream-name mono">${esc(data.stream)}</div>` : `<h1>${esc(data.stream)}</h1>`;
  const crumbs = `<a href="${o.base}/">Regent audit</a>${s ? ` › <a href="${o.base}/fleet/${encodeURIComponent(s.kind)}">${esc(s.kind)} fleet</a> › <a class="resource-link" href="${resourceHref(o, s)}">${esc(data.displayName ?? s.name)}</a>` : ''} › stream`;
  return layout(
    `${s ? `${subjectTitle(s, data.displayName)} (${data.stream})` : data.stream} — Regent audit`,
    `${heading}<div class="crumbs">${crumbs}</div><div class="summary"><span id="event-count">${data.head + 1}</span> event(s) · <span id="plain-about">${esc(data.about)}</span></div>`,
    `<p class="pager">${nav}</p><table id="plain-timeline"><thead><tr><th>rev</th><th>time</th><th>event</th><th>actor</th><th>source</th><th>data</th></tr></thead><tbody>${rows || '<tr><td colspan="6" class="muted">no events on this page</td></tr>'}</tbody></table><p class="pager">${nav.replace(/ id="page-[a-z]+"/g, '')}</p>`,
    o,
  );
};

/**
 * A path or a resource the audit pages do not have: what was asked for, why not, and the way back
 * (the machine and resource lists). Served with status 404 by routes.ts and server.ts.
 */
export const notFoundPage = (what: string, reason: string, o: PageOptions): string =>
  layout(
    'Not found — Regent audit',
    `<h1>Not found</h1><div class="crumbs"><a href="${o.base}/">Regent audit</a> › not found</div>`,
    `<section class="not-found"><p id="not-found-what"><code>${esc(what)}</code>: ${esc(reason)}.</p>
<p>Back to:</p><ul id="not-found-links"><li><a id="link-home" href="${o.base}/">Regent audit home</a></li><li><a id="link-resources" href="${o.base}/#streams">the resource list</a> (every stream with its current state)</li><li><a id="link-machines" href="${o.base}/#machines">the machine list</a> (statecharts and static checks)</li></ul></section>`,
    o,
  );
