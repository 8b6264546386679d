/**
 * The incident page (`GET /incidents`, incident-routes.ts): a small GET form of filters, the resource asked for and
 * its related set, and one time-ordered table of every event in the window. Every resource name links its resource
 * page (`/resources/<Kind>/<ns>/<name>`), every row its event on its stream's page (`/streams/<s>#rev-<n>`). Built
 * with the site's layout (pages.ts `layout`); the few rules of its own are an inline <style> (the pages' CSP allows
 * inline styles, `style-src 'self' 'unsafe-inline'`).
 */
import { SOURCES } from '../../events/envelope.js';
import { KIND_NAMES } from '../../resources/registry.js';
import { esc, layout, type PageOptions } from './pages.js';
import { searchOfQuery, subjectText, type IncidentQuery, type IncidentSubject } from '../incident/query.js';
import { resourceLink, type IncidentRow, type IncidentTimeline } from '../incident/timeline.js';
import type { RelatedResource } from '../incident/related.js';

/** What the form shows: the parameters as typed (a relative `2h` stays `2h`). */
export interface IncidentFormValues {
  resource?: string | undefined;
  related?: boolean | undefined;
  from?: string | undefined;
  to?: string | undefined;
  kinds?: readonly string[] | undefined;
  sources?: readonly string[] | undefined;
  limit?: string | undefined;
}

const STYLE = `<style>
#incident-filters { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; margin: 4px 0 8px; }
#incident-filters input[name=resource] { width: 22ch; } #incident-filters input[name=from], #incident-filters input[name=to] { width: 20ch; } #incident-filters input[name=limit] { width: 7ch; }
#incident-scroll { overflow-x: auto; }
#incident-rows td.time, #incident-rows td.source, #incident-rows td.rev, #incident-rows td.resource { white-space: nowrap; }
#incident-rows td.who { min-width: 14ch; max-width: 30ch; overflow-wrap: anywhere; } #incident-rows td.summary { min-width: 22ch; max-width: 64ch; overflow-wrap: anywhere; }
#incident-rows tr.destructive td.type { color: var(--danger, #c62828); font-weight: 600; }
#incident-rows tr.relation-subject td.resource { font-weight: 600; }
#incident-rows .effects { font-size: 11px; color: var(--muted); } #incident-rows tr.destructive .effects { color: var(--danger, #c62828); }
.incident-links a { margin-right: 10px; }
</style>`;

const resourceAnchor = (o: PageOptions, s: IncidentSubject, displayName?: string): string =>
  `<a class="resource-link" href="${esc(resourceLink(o.base, s))}"><span class="kind muted">${esc(s.kind)}</span> ${esc(s.namespace)}/<b>${esc(displayName ?? s.name)}</b></a>`;

const form = (o: PageOptions, v: IncidentFormValues): string => {
  const value = (x: string | undefined) => (x ? ` value="${esc(x)}"` : '');
  const kinds = v.kinds ?? [];
  const sources = v.sources ?? [];
  const select = (name: string, label: string, all: readonly string[], chosen: readonly string[]) =>
    `<select name="${name}" aria-label="${label}"${chosen.length > 1 ? ' multiple' : ''}><option value=""${chosen.length === 0 ? ' selected' : ''}>any ${label}</option>${all.map((k) => `<option value="${esc(k)}"${chosen.some((c) => c.toLowerCase() === k.toLowerCase()) ? ' selected' : ''}>${esc(k)}</option>`).join('')}</select>`;
  return `<form id="incident-filters" method="get" action="${o.base}/incidents">
<label>resource <input name="resource" placeholder="Server/default/web-2"${value(v.resource)}></label>
<label><input type="checkbox" name="related" value="1"${v.related ? ' checked' : ''}> and everything related</label>
<label>from <input name="from" placeholder="2h, or 2026-12-01T10:00Z"${value(v.from)}></label>
<label>to <input name="to" placeholder="(now)"${value(v.to)}></label>
${select('kind', 'kind', KIND_NAMES, kinds)} ${select('source', 'source', SOURCES, sources)}
<label>at most <input name="limit" type="number" min="1" placeholder="500"${value(v.limit)}> rows</label>
<button type="submit">show</button> <a href="${o.base}/incidents">clear</a></form>
<p class="muted">The window is [from, to): from inclusive, to exclusive; a duration (30m, 2h, 1d) counts back from now, a time without a zone is UTC.</p>`;
};

const relatedTable = (o: PageOptions, subject: IncidentTimeline['subject'], related: readonly RelatedResource[] | undefined): string => {
  if (!subject) return '';
  const head = `<p id="incident-subject">Resource: ${resourceAnchor(o, subject, subject.displayName)} · ${subject.streams.length} stream(s)${subject.uid ? ` · uid <span class="mono">${esc(subject.uid)}</span>` : ''}</p>`;
  if (!related) return head;
  const rows = related
    .map((r) => {
      const name = r.recorded ? resourceAnchor(o, r, r.displayName) : `<span class="kind muted">${esc(r.kind)}</span> ${esc(r.namespace)}/<b>${esc(r.name)}</b> <span class="muted">(no history recorded)</span>`;
      return `<tr data-resource="${esc(`${r.kind}/${r.namespace}/${r.name}`)}"><td>${name}</td><td>${esc(r.relation)}</td><td class="muted">${r.via ? `via ${esc(r.via)}` : ''}</td><td class="mono">${r.streams.length}</td></tr>`;
    })
    .join('');
  return `${head}<h2>Related (${related.length})</h2><table id="related"><thead><tr><th>resource</th><th>relation</th><th>how</th><th>streams</th></tr></thead><tbody>${rows || '<tr><td colspan="4" class="muted">nothing related was recorded</td></tr>'}</tbody></table>`;
};

/** A stream's name without the uids it carries (`server-rebuild-<nova id>` → `server-rebuild`): the full name is the link's title. */
const shortStream = (stream: string): string => stream.replace(/-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '') || stream;

const rowHtml = (o: PageOptions, r: IncidentRow, i: number): string => {
  const effects = r.effects.length > 0 ? `<div class="effects">${r.effects.map((e) => `${e.destructive ? '⚠ ' : ''}${esc(e.type)}`).join(', ')}</div>` : '';
  const who = r.author !== undefined ? `${esc(r.author)}${r.actor && !r.author.includes(r.actor) ? `<div class="muted mono">${esc(r.actor)}</div>` : ''}` : `<code>${esc(r.actor)}</code>`;
  const cls = [r.destructive ? 'destructive' : '', r.relation === 'subject' ? 'relation-subject' : ''].filter(Boolean).join(' ');
  return `<tr id="row-${i}"${cls ? ` class="${cls}"` : ''} data-stream="${esc(r.stream)}" data-revision="${r.revision}">
<td class="mono time">${esc(r.time)}</td><td class="resource">${r.resource ? resourceAnchor(o, r.resource, r.displayName) : '<span class="muted">—</span>'}${r.relation && r.relation !== 'subject' ? `<div class="muted">${esc(r.relation)}</div>` : ''}</td>
<td class="source"><span class="src ${esc(r.source)}">${esc(r.source)}</span></td><td class="who">${who}</td>
<td class="type" title="${esc(r.category)}">${esc(r.type)}${effects}</td><td class="from-to">${r.from === null ? '' : `${esc(r.from)} → `}${esc(r.to)}</td>
<td class="summary">${esc(r.summary)}</td><td class="mono rev"><a class="event-link" href="${esc(r.links.event)}" title="${esc(r.stream)}, revision ${r.revision}">${esc(shortStream(r.stream))} #${r.revision}</a></td></tr>`;
};

const describeWindow = (q: IncidentQuery): string =>
  q.from && q.to ? `from ${q.from} to ${q.to}` : q.from ? `since ${q.from}` : q.to ? `until ${q.to}` : 'all time';

export const incidentPage = (timeline: IncidentTimeline, values: IncidentFormValues, o: PageOptions): string => {
  const q = timeline.query;
  const search = esc(searchOfQuery(q).toString());
  const links = `<p class="incident-links"><a id="incident-json" href="${o.base}/api/incidents${search ? `?${search}` : ''}">these rows as JSON</a><a id="incident-export" href="${o.base}/api/incidents/export${search ? `?${search}` : ''}">export for an incident report (redacted JSON)</a></p>`;
  const next = timeline.nextFrom
    ? (() => {
        const params = searchOfQuery({ ...q, from: timeline.nextFrom });
        return `<div class="banner" id="incident-truncated">The first ${timeline.rows.length} events are shown; more lie in the window. <a href="${o.base}/incidents?${esc(params.toString())}">continue from ${esc(timeline.nextFrom)}</a>, or narrow the window.</div>`;
      })()
    : '';
  const rows = timeline.rows.map((r, i) => rowHtml(o, r, i)).join('');
  const title = q.resource ? `Incident timeline: ${subjectText(q.resource)}${q.related ? ' and related' : ''}` : 'Incident timeline';
  const header = `<h1>${esc(title)}</h1><div class="crumbs"><a href="${o.base}/">Regent audit</a> › incidents</div><div class="summary" id="incident-summary">${timeline.rows.length} event(s) · ${esc(describeWindow(q))} · ${timeline.streamsInWindow} stream(s) with events in the window${timeline.rows.some((r) => r.destructive) ? ` · <span class="verdict bad">${timeline.rows.filter((r) => r.destructive).length} destructive decision(s)</span>` : ''}</div>`;
  const body = `${STYLE}${form(o, values)}${links}${relatedTable(o, timeline.subject, timeline.related)}${next}
<h2>Events</h2><div id="incident-scroll"><table id="incident-rows"><thead><tr><th>time</th><th>resource</th><th>source</th><th>author / actor</th><th>event · effects</th><th>from → to</th><th>summary</th><th>stream revision</th></tr></thead><tbody>${rows || '<tr><td colspan="8" class="muted">no events in the window</td></tr>'}</tbody></table></div>`;
  return layout(`${title} — Regent audit`, header, body, o);
};

/** The page when the query cannot be answered: the form as typed and why (status 400 or 404). */
export const incidentErrorPage = (message: string, values: IncidentFormValues, o: PageOptions): string =>
  layout(
    'Incident timeline — Regent audit',
    `<h1>Incident timeline</h1><div class="crumbs"><a href="${o.base}/">Regent audit</a> › incidents</div><div class="banner bad" id="incident-error">${esc(message)}</div>`,
    `${STYLE}${form(o, values)}`,
    o,
  );
