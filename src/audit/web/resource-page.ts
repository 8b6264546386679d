/**
 * The resource page (`/resources/<Kind>/<ns>/<name>`, what every status links as `auditURL`; issue 30): where an
 * incident review of one resource starts and ends. On one page:
 *   - its desired state and status now, or at any revision of its own stream (`?rev=N`), with the change that
 *     revision made and who made it (src/resource-history/);
 *   - every change of desired state with its author, channel and generation;
 *   - the authorization chains of the destructive decisions taken for it, each starting at the change that asked
 *     for it ("web-2: spec.image.id A → B, generation 2, by alice via regent CLI") and ending at the settle;
 *   - its main machine's statechart with the current state, and every stream it has;
 *   - the resources related to it (each a link) and the incident timeline across them.
 * Server-rendered from data the route gathers (routes.ts); the statechart behaves as on every page (assets/app.js).
 */
import type { ResolvedChain } from '../history/chain.js';
import { describeChanges } from '../history/chain.js';
import type { ResourceAt } from '../history/resource-streams.js';
import { describeAuthor, type ResourceRecord } from '../../resource-history/stream.js';
import type { IncidentRow } from '../incident/timeline.js';
import { chainHtml, esc, graphTools, layout, machineHref, resourceHref, state, streamHref, subjectHeading, subjectTitle, GRAPH_KEYS, type FleetLine, type PageOptions } from './pages.js';

export interface ResourceRevision {
  revision: number;
  recordedAt: string;
  record: ResourceRecord;
}

export interface RelatedLink {
  kind: string;
  namespace: string;
  name: string;
  relation: string;
}

/** What else happened around the latest change (incident/timeline.ts rows, status writes left out). */
export interface AroundChange {
  from: string;
  to: string;
  rows: readonly IncidentRow[];
  /** Status writes in the window, not listed. */
  statusWrites: number;
  truncated: boolean;
  /** The full view of the same window. */
  href: string;
}

export interface ResourcePageData {
  kind: string;
  namespace: string;
  name: string;
  displayName?: string | undefined;
  /** Every stream of the resource (its machines', its own, the API's). */
  lines: readonly FleetLine[];
  /** Its own stream, when Regent recorded it (resource-history): the revision shown, and the changes. */
  own?: { at: ResourceAt; head: number; revisions: readonly ResourceRevision[]; selected: number | undefined } | undefined;
  /** The main machine's statechart with the current state. */
  graph?: { stream: string; machine: string; version: number; svg: string; state: unknown; currentNodes: readonly string[] } | undefined;
  chains: readonly ResolvedChain[];
  related?: readonly RelatedLink[] | undefined;
  around?: AroundChange | undefined;
  /** Why related resources are not shown, when they are not. */
  relatedNote?: string | undefined;
}

const pretty = (value: unknown): string => `<pre class="json">${esc(JSON.stringify(value ?? null, null, 2))}</pre>`;

const revisionLine = (r: ResourceRevision): string => {
  const record = r.record;
  switch (record.type) {
    case 'resource.specChanged':
      return `generation ${record.generation}: ${esc(describeChanges(record))} — by ${esc(describeAuthor(record.author))}${record.missedGenerations ? ` <span class="muted">(${record.missedGenerations} generation(s) not seen)</span>` : ''}`;
    case 'resource.statusChanged':
      return `status written: ${esc(record.changes.slice(0, 3).map((c) => c.path).join(', ') || 'no change')}${record.changes.length > 3 ? `, and ${record.changes.length - 3} more` : ''}`;
    case 'resource.deletionRequested':
      return `deletion requested by ${esc(describeAuthor(record.author))} (waiting for ${esc(record.finalizers.join(', ') || 'nothing')})`;
    case 'resource.deleted':
      return 'deleted';
    case 'resource.admitted':
      return `admitted ${esc(record.operation)} for ${esc(record.user.username)} (admission webhook)`;
  }
};

export const resourcePage = (data: ResourcePageData, o: PageOptions): string => {
  const subject = { kind: data.kind, namespace: data.namespace, name: data.name };
  const fleetHref = `${o.base}/fleet/${encodeURIComponent(data.kind)}`;
  const incidents = `${o.base}/incidents?resource=${encodeURIComponent(`${data.kind}/${data.namespace}/${data.name}`)}&related=1`;
  const own = data.own;
  const lastChange = own ? [...own.revisions].reverse().find((r) => r.record.type === 'resource.specChanged') : undefined;
  const summary = [
    own?.at.spec ? `generation <b>${own.at.spec.generation}</b>` : '',
    lastChange && lastChange.record.type === 'resource.specChanged' ? `last changed by <b>${esc(describeAuthor(lastChange.record.author))}</b> at <span class="mono">${esc(lastChange.recordedAt)}</span>` : '',
    own?.at.deleted ? '<b>deleted</b>' : own?.at.deletionRequested ? '<b>being deleted</b>' : '',
    `${data.lines.length} stream(s)`,
    `${data.chains.length} destructive decision(s) shown`,
  ].filter(Boolean);
  const header = `${subjectHeading(subject, data.displayName)}<div class="crumbs"><a href="${o.base}/">Regent audit</a> › <a href="${fleetHref}">${esc(data.kind)} fleet</a> › ${esc(data.displayName ?? data.name)} · <a id="incident-link" href="${incidents}">incident timeline with everything related</a></div><div class="summary">${summary.join(' · ')}</div>`;

  const sections: string[] = [];
  // who asked, what Regent did, what Nova answered
  const chains = data.chains.map(chainHtml(o, true)).join('');
  sections.push(`<section class="panel" id="chains-section"><h2>Destructive decisions and who asked for them</h2><p class="muted">Each chain starts at the change of desired state that asked for it and its author, then the arm, the read-back, the decision with its fresh observation, the cloud's answer and the settle.</p><div id="chains">${chains || '<p class="muted">no destructive decision in this resource\'s histories</p>'}</div></section>`);
  // what else moved around the latest change, across everything related
  if (data.around) {
    const a = data.around;
    const rows = a.rows
      .map((r) => `<tr class="${r.relation === 'subject' ? 'own' : ''}${r.destructive ? ' destructive' : ''}"><td class="mono">${esc(r.time)}</td><td>${r.resource ? `<a class="resource-link" href="${resourceHref(o, r.resource)}">${esc(r.resource.kind)} ${esc(r.resource.namespace)}/${esc(r.displayName ?? r.resource.name)}</a>` : '<span class="muted">—</span>'}${r.relation && r.relation !== 'subject' ? `<div class="muted">${esc(r.relation)}</div>` : ''}</td><td><span class="src ${esc(r.source)}">${esc(r.source)}</span></td><td>${esc(r.author ?? r.actor)}</td><td><a href="${esc(r.links.event)}">${esc(r.type)}</a>${r.destructive ? ' ⚠' : ''}</td><td>${esc(r.summary)}</td></tr>`)
      .join('');
    sections.push(`<section class="panel" id="around"><h2>What else happened around the latest change</h2><p class="muted">From <span class="mono">${esc(a.from)}</span> to <span class="mono">${esc(a.to)}</span>, this resource and everything related; ${a.statusWrites} status write(s) not listed${a.truncated ? '; more events than shown' : ''} · <a href="${esc(a.href)}">the full incident timeline of this window</a></p><div class="table-wrap"><table id="around-rows"><thead><tr><th>time</th><th>resource</th><th>source</th><th>author / actor</th><th>event</th><th>summary</th></tr></thead><tbody>${rows || '<tr><td colspan="6" class="muted">nothing else in this window</td></tr>'}</tbody></table></div></section>`);
  }
  // desired state and status at the chosen revision
  if (own) {
    const at = own.at;
    const shown = own.selected ?? at.revision;
    const row = (r: ResourceRevision) =>
      `<tr class="${r.revision === shown ? 'selected' : ''}" data-revision="${r.revision}"><td class="mono"><a href="?rev=${r.revision}#state">${r.revision}</a></td><td class="mono">${esc(r.recordedAt)}</td><td>${esc(r.record.type.replace('resource.', ''))}</td><td>${revisionLine(r)}</td></tr>`;
    const newestFirst = own.revisions.slice().reverse();
    const desired = newestFirst.filter((r) => r.record.type !== 'resource.statusChanged');
    const statuses = newestFirst.filter((r) => r.record.type === 'resource.statusChanged');
    const picker = `<h3>Changes of desired state (newest first)</h3><div class="table-wrap"><table id="revisions"><thead><tr><th>rev</th><th>time</th><th>what</th><th>change · author</th></tr></thead><tbody>${desired.map(row).join('') || '<tr><td colspan="4" class="muted">none in the last 200 revisions</td></tr>'}</tbody></table></div>
<details id="status-writes"><summary>Status writes (${statuses.length}${own.revisions.length >= 200 ? ', of the last 200 revisions' : ''})</summary><div class="table-wrap"><table><thead><tr><th>rev</th><th>time</th><th>what</th><th>fields</th></tr></thead><tbody>${statuses.map(row).join('')}</tbody></table></div></details>`;
    const selectedRecord = own.revisions.find((r) => r.revision === shown)?.record;
    const changes = selectedRecord && 'changes' in selectedRecord ? selectedRecord.changes : [];
    const changeRows = changes.map((c) => `<tr><td class="mono">${esc(c.path)}</td><td class="mono">${'from' in c ? esc(JSON.stringify(c.from)) : '<span class="muted">—</span>'}</td><td class="mono">${'to' in c ? esc(JSON.stringify(c.to)) : '<span class="muted">removed</span>'}</td></tr>`).join('');
    sections.push(`<section class="panel" id="state"><h2>Desired state and status ${own.selected === undefined || own.selected === own.head ? '<span class="muted">now</span>' : `at revision ${shown} <a href="?#state">(now)</a>`}</h2>
<p class="muted">From the resource's own stream <a href="${streamHref(o, at.stream)}">${esc(at.stream)}</a>${own.selected !== undefined && own.selected !== own.head ? ` · revision ${shown} of ${own.head}` : ''}. Secrets and user data are recorded as <code>sha256:</code> digests.</p>
${changeRows ? `<h3>What revision ${shown} changed</h3><table class="changes"><thead><tr><th>field</th><th>from</th><th>to</th></tr></thead><tbody>${changeRows}</tbody></table>` : ''}
<div class="spec-status"><div><h3>spec${at.spec ? ` (generation ${at.spec.generation})` : ''}</h3>${at.spec ? pretty(at.spec.spec) : '<p class="muted">no spec recorded</p>'}</div><div><h3>status</h3>${at.status ? pretty(at.status.status) : '<p class="muted">no status recorded</p>'}</div></div>
${picker}</section>`);
  } else {
    sections.push(`<section class="panel" id="state"><h2>Desired state and status</h2><p class="muted">No change of this resource's desired state is recorded: its history was recorded before Regent kept resource streams (the streams below still show what Regent decided).</p></section>`);
  }
  // the main machine's statechart
  if (data.graph) {
    const g = data.graph;
    sections.push(`<section class="panel" id="machine"><h2>${esc(g.machine)}: current state <b>${state(g.state)}</b></h2><p class="muted"><a href="${streamHref(o, g.stream)}">step through ${esc(g.stream)}</a> · <a href="${machineHref(o, g.machine, g.version)}">${esc(g.machine)} v${g.version}</a></p><section class="graph" id="graph" data-current-nodes="${esc(g.currentNodes.join(' '))}">${graphTools}${g.svg}</section></section>`);
  }
  // every stream
  const streams = data.lines
    .map((l) => `<tr><td><a href="${streamHref(o, l.stream)}">${esc(l.stream)}</a></td><td>${esc(l.machine)}</td><td><b>${state(l.state)}</b>${l.parked ? ' <span class="flag parked">parked</span>' : ''}${l.intent && !l.parked ? ` <span class="flag intent">pending ${esc(l.intent.state)} (${esc(l.intent.target)})</span>` : ''}</td><td>${l.last ? `${esc(l.last.type)} <span class="src ${esc(l.last.source)}">${esc(l.last.source)}</span> <span class="mono">${esc(l.last.recordedAt)}</span>` : ''}</td></tr>`)
    .join('');
  sections.push(`<section class="panel" id="streams"><h2>Streams (${data.lines.length})</h2><table><thead><tr><th>stream</th><th>machine</th><th>state</th><th>last event</th></tr></thead><tbody>${streams}</tbody></table></section>`);
  // related resources
  const related = (data.related ?? []).map((r) => `<li><a class="resource-link" href="${resourceHref(o, r)}"><b>${esc(r.kind)}</b> ${esc(r.namespace)}/${esc(r.name)}</a> <span class="muted">${esc(r.relation)}</span></li>`).join('');
  sections.push(`<section class="panel" id="related"><h2>Related resources</h2>${related ? `<ul class="related">${related}</ul>` : `<p class="muted">${esc(data.relatedNote ?? 'none recorded')}</p>`}<p><a href="${incidents}">one timeline of this resource and everything related</a></p></section>`);

  return layout(`${subjectTitle(subject, data.displayName)}${data.displayName === undefined ? '' : ` (${data.name})`} — Regent audit`, header, `<div class="resource-page">${sections.join('\n')}</div>`, o, '', GRAPH_KEYS);
};
