/**
 * The plan view (issue 32): `regent plan` in the audit pages. GET /plan is a form — paste manifests or upload YAML
 * files (read in the browser, sent as text) — and the answer, drawn here as an HTML fragment the page inserts
 * (plan-routes.ts answers it; assets/plan.js sends the form and steps through the charts):
 *   - per resource, its verdict (planned, refused with apply's own message, not built, not applied, failed, a
 *     Secret by its key names only), the decisions in order — pass, machine, event, from → to, the rule and its
 *     words, each effect with the request it would send, DESTRUCTIVE — and where the branch stops and why;
 *   - per stream that decided, its machine's statechart (the same drawing as /machines/<id>: graph/render.ts
 *     renderChartViews) with the decisions drawn over it the way a resource page draws a history: the states left
 *     and entered highlighted, the transitions taken coloured and labelled with their step numbers ("step 2"), the
 *     destructive ones marked apart.
 *
 * What is shown comes from the plan's own data (src/plan/report.ts), which carries secrets only as `sha256:` digests
 * and a Secret only by its keys: nothing here reads a manifest, so nothing here can show a secret value.
 */
import type { Plan, PlannedDecision, PlannedEffect, ResourcePlan } from '../../plan/report.js';
import type { MachineRegistry } from '../../../machines/registry.js';
import type { ChartOverlay, EdgeStats } from '../graph/dot.js';
import { focusStates, initialFocus } from '../graph/dot.js';
import { nodeDomId, statechartOfDefinition, type Statechart } from '../graph/statechart.js';
import { esc, layout, machineHref, resourceHref, scriptJson, type PageOptions } from './pages.js';

/** One decision drawn on its machine's statechart: its step number in the resource's plan and what it took. */
export interface PlanStep {
  /** 1-based, as the resource's decision table numbers it (and `regent plan`'s `#` column). */
  step: number;
  decision: PlannedDecision;
  /** The transitions it matches (edge ids, graph/statechart.ts): one, or every candidate when several match. */
  edges: string[];
  /** The state nodes it left and entered (node ids, ancestors included). */
  from: string[];
  to: string[];
  /** The state to show it on: the innermost state it left that a focus view is drawn for. */
  focus: string;
}

/** One stream's decisions over its machine's statechart. */
export interface PlanChart {
  stream: string;
  machine: string;
  version: number;
  steps: PlanStep[];
  overlay: ChartOverlay;
  chart: Statechart;
}

/** The node ids a state text names (formatState's `a.b`, parallel regions joined by `, `), with their ancestors. */
export const nodesOfStateText = (chart: Statechart, text: string): string[] => {
  const byId = new Map(chart.nodes.map((n) => [n.id, n]));
  const pathOf = (id: string): string => {
    const keys: string[] = [];
    for (let n = byId.get(id); n && n.parent !== null; n = byId.get(n.parent)) keys.unshift(n.key);
    return keys.join('.');
  };
  const found = new Set<string>();
  for (const part of text.split(', ').map((p) => p.trim()).filter(Boolean)) {
    // the innermost node whose path is the part (a nested parallel region's part lost its parents' keys: a suffix)
    const node = chart.nodes.filter((n) => n.parent !== null && (pathOf(n.id) === part || pathOf(n.id).endsWith(`.${part}`))).sort((a, b) => pathOf(b.id).length - pathOf(a.id).length)[0];
    for (let n = node; n; n = n.parent === null ? undefined : byId.get(n.parent)) found.add(n.id);
  }
  if (found.size > 0) found.add(chart.root);
  return chart.nodes.map((n) => n.id).filter((id) => found.has(id));
};

/**
 * The transitions a planned decision took: those whose outcome is the decision's (its event type's suffix), declared
 * on a state it was in, and leading to a state it entered (a targetless one: staying). The plan keeps the states as
 * text and not the stimulus, so this is the history view's match "by recorded from → to" with the outcome added;
 * when several transitions fit, every one is drawn (as the history view draws an ambiguous event's candidates).
 */
export const edgesOfDecision = (chart: Statechart, decision: Pick<PlannedDecision, 'machine' | 'event' | 'from' | 'to'>): string[] => {
  const outcome = decision.event.startsWith(`${decision.machine}.`) ? decision.event.slice(decision.machine.length + 1) : decision.event;
  const from = new Set(nodesOfStateText(chart, decision.from));
  const to = new Set(nodesOfStateText(chart, decision.to));
  const declared = chart.edges.filter((e) => e.outcome === outcome && from.has(e.source));
  const exact = declared.filter((e) => (e.targets.length === 0 ? decision.from === decision.to : e.targets.every((t) => to.has(t))));
  return (exact.length > 0 ? exact : declared).map((e) => e.id);
};

/** The state a step is shown on: the innermost of the states it left that has a focus view. */
const focusOf = (chart: Statechart, nodes: readonly string[]): string => {
  const boxes = new Set(focusStates(chart));
  return [...nodes].reverse().find((id) => boxes.has(id)) ?? initialFocus(chart);
};

/**
 * The charts of a resource's plan: one per stream that decided, in the order its first decision comes, each with
 * the overlay graph/dot.ts draws (visited: the states left and entered; fired: each transition taken, its count and
 * the steps that took it — "×1 · plan · step 2", in the label the history view gives first and last times).
 */
export const planCharts = (resource: ResourcePlan, registry: MachineRegistry): PlanChart[] => {
  const charts = new Map<string, PlanChart>();
  resource.decisions.forEach((decision, i) => {
    let entry = charts.get(decision.stream);
    if (!entry) {
      let definition;
      try {
        definition = registry.get(decision.machine);
      } catch {
        return; // a machine this server does not have: its decisions are in the table, not drawn
      }
      const chart = statechartOfDefinition(definition);
      entry = { stream: decision.stream, machine: definition.id, version: definition.version, steps: [], overlay: { visited: new Set(), fired: new Map() }, chart };
      charts.set(decision.stream, entry);
    }
    const { chart } = entry;
    const from = nodesOfStateText(chart, decision.from);
    const to = nodesOfStateText(chart, decision.to);
    const edges = edgesOfDecision(chart, decision);
    const step = i + 1;
    entry.steps.push({ step, decision, edges, from, to, focus: focusOf(chart, from) });
    const visited = entry.overlay.visited as Set<string>;
    for (const id of [...from, ...to]) visited.add(id);
    const fired = entry.overlay.fired as Map<string, EdgeStats>;
    for (const edge of edges) {
      const known = fired.get(edge);
      const at = { revision: step, at: `step ${step}` };
      // `sources` names who decided: the plan (its passes are the reconciler's, run over a fork)
      fired.set(edge, known ? { ...known, count: known.count + 1, last: at, sources: { plan: known.count + 1 } as EdgeStats['sources'] } : { edge, count: 1, first: at, last: at, sources: { plan: 1 } as EdgeStats['sources'] });
    }
  });
  return [...charts.values()];
};

const VERDICTS: Record<ResourcePlan['verdict'], { text: string; tone: string }> = {
  planned: { text: 'planned', tone: 'ok' },
  refused: { text: 'refused by apply', tone: 'bad' },
  'not-applied': { text: 'not applied', tone: 'muted' },
  'not-built': { text: 'plan not built for this kind', tone: 'muted' },
  failed: { text: 'plan failed', tone: 'bad' },
  secret: { text: 'Secret', tone: 'muted' },
};

const callText = (call: PlannedEffect['calls'][number]): string => `${call.method} ${call.path}${call.body === undefined ? '' : ` ${JSON.stringify(call.body)}`}`;

const effectHtml = (effect: PlannedEffect): string => {
  const request = effect.calls.length > 0 ? effect.calls.map((c) => `<div class="plan-call mono">${esc(c.service)}: ${esc(callText(c))}</div>`).join('') : `<div class="plan-call mono muted">${esc(JSON.stringify(effect.params))}</div>`;
  return `<div class="plan-effect${effect.destructive ? ' destructive' : ''}" data-effect="${esc(effect.type)}"><b>${esc(effect.type)}</b>${effect.destructive ? ' <span class="plan-flag destructive">DESTRUCTIVE</span>' : ''}${request}</div>`;
};

const decisionRow = (d: PlannedDecision, step: number): string => {
  const outcome = d.event.startsWith(`${d.machine}.`) ? d.event.slice(d.machine.length + 1) : d.event;
  const rule = d.rule ? `<b class="plan-rule-id">${esc(d.rule.id)}</b> <span class="plan-rule-says">${esc(d.rule.says)}</span>` : '<span class="muted" title="the machine gives this transition no rule label">—</span>';
  return `<tr class="plan-decision${d.destructive ? ' destructive' : ''}" data-step="${step}" data-machine="${esc(d.machine)}" data-stream="${esc(d.stream)}"${d.rule ? ` data-rule="${esc(d.rule.id)}"` : ''}>
<td class="mono">${step}</td><td class="mono">${d.pass}</td><td class="plan-machine">${esc(d.machine)}</td><td class="plan-event" title="${esc(d.event)}"><b>${esc(outcome)}</b></td>
<td class="plan-from-to"><span class="state">${esc(d.from)}</span> → <span class="state">${esc(d.to)}</span></td><td class="plan-rule">${rule}</td>
<td>${d.effects.length > 0 ? d.effects.map(effectHtml).join('') : '<span class="muted">—</span>'}</td>
<td class="plan-then">${d.then ? esc(d.then) : ''}</td></tr>`;
};

/** A chart as the fragment carries it: its steps (buttons) and its views, laid out (plan-routes.ts). */
export interface DrawnPlanChart {
  chart: PlanChart;
  /** renderChartViews' views with the overlay. */
  svg: string;
}

/** The DOM ids of states to mark (the root is the drawing itself, its node only the initial pseudo-state's point). */
const drawnStates = (c: PlanChart, nodes: readonly string[]): string => nodes.filter((id) => id !== c.chart.root).map(nodeDomId).join(' ');

const chartHtml = (o: PageOptions, drawn: DrawnPlanChart, id: string): string => {
  const { chart: c, svg } = drawn;
  const steps = c.steps
    .map((s) => {
      const d = s.decision;
      const outcome = d.event.startsWith(`${d.machine}.`) ? d.event.slice(d.machine.length + 1) : d.event;
      return `<button type="button" class="plan-step${d.destructive ? ' destructive' : ''}" data-step="${s.step}" data-focus="${esc(s.focus)}" data-edges="${esc(s.edges.join(' '))}" data-from="${esc(drawnStates(c, s.from))}" data-to="${esc(drawnStates(c, s.to))}" title="${esc(`${d.from} → ${d.to}${s.edges.length > 1 ? ` (${s.edges.length} transitions fit: all drawn)` : s.edges.length === 0 ? ' (no transition of this machine version fits: the states are marked)' : ''}`)}"><b>${s.step}</b> ${esc(outcome)}${d.rule ? ` <span class="plan-rule-id">${esc(d.rule.id)}</span>` : ''}${d.destructive ? ' ⚠' : ''}</button>`;
    })
    .join('');
  return `<section class="plan-chart" id="${id}" data-machine="${esc(c.machine)}" data-stream="${esc(c.stream)}"><h3>${esc(c.machine)} <span class="muted">v${c.version} · <span class="mono">${esc(c.stream)}</span> · <a href="${machineHref(o, c.machine, c.version)}">the machine</a></span></h3>
<div class="plan-steps" role="toolbar" aria-label="steps">${steps}<button type="button" class="plan-whole" title="every state and transition of the machine (and back)">whole machine</button></div>
<div class="plan-graph">${svg}</div></section>`;
};

const resourceHtml = (o: PageOptions, r: ResourcePlan, index: number, charts: readonly DrawnPlanChart[]): string => {
  const verdict = VERDICTS[r.verdict];
  const flags = `<span class="plan-verdict ${verdict.tone}">${esc(verdict.text)}${r.apply ? `: ${esc(r.apply)}` : ''}</span>${r.destructive ? ' <span class="plan-flag destructive">DESTRUCTIVE</span>' : ''}`;
  // a stored resource links its audit page; a new one (or a Secret) has none yet
  const stored = r.kind !== 'Secret' && r.apply !== undefined && r.apply !== 'created';
  const link = stored ? `<a class="resource-link" href="${resourceHref(o, r)}">${esc(r.namespace)}/${esc(r.name)}</a>` : `${esc(r.namespace)}/${esc(r.name)}`;
  const parts: string[] = [`<h2><span class="kind">${esc(r.kind)}</span> ${link} ${flags}</h2><p class="muted">from ${esc(r.where)}</p>`];
  if (r.verdict === 'refused') parts.push(`<div class="banner bad plan-refusal">apply would refuse it: ${esc(r.refusal ?? '')}</div>`);
  else if (r.verdict === 'failed') parts.push(`<div class="banner bad plan-message">the plan of this resource failed: ${esc(r.message ?? 'unknown error')}</div>`);
  else if (r.refusal) parts.push(`<div class="banner bad plan-refusal">its controller would refuse it: ${esc(r.refusal)}</div>`);
  if (r.verdict !== 'failed' && r.message) parts.push(`<p class="plan-message">${esc(r.message)}</p>`);
  if (r.verdict === 'planned') {
    parts.push(
      r.decisions.length > 0
        ? `<div class="table-wrap"><table class="plan-decisions"><thead><tr><th>#</th><th>pass</th><th>machine</th><th>decision</th><th>from → to</th><th>rule</th><th>effects (the request each would send)</th><th>then</th></tr></thead><tbody>${r.decisions.map((d, i) => decisionRow(d, i + 1)).join('')}</tbody></table></div>`
        : '<p class="muted plan-none">no decision</p>',
    );
    if (r.stops) parts.push(`<p class="plan-stops"><b>stops:</b> ${esc(r.stops)}</p>`);
    const extra: string[] = [];
    if (r.passes.length > 0) extra.push(`<li>each pass, as the controller would read it: <ol>${r.passes.map((p) => `<li>${esc(p)}</li>`).join('')}</ol></li>`);
    if (r.writes.length > 0) extra.push(`<li>what the passes would also write (recorded, never written): <ul>${r.writes.map((w) => `<li><code>${esc(w.op)}</code> ${esc(w.kind)} ${esc(w.namespace)}/${esc(w.name)}${w.detail ? `: ${esc(w.detail)}` : ''}</li>`).join('')}</ul></li>`);
    if (extra.length > 0) parts.push(`<details class="plan-passes"><summary>passes and writes</summary><ul>${extra.join('')}</ul></details>`);
    parts.push(...charts.map((c, i) => chartHtml(o, c, `plan-chart-${index}-${i}`)));
  }
  return `<section class="panel plan-resource" id="plan-resource-${index}" data-resource="${esc(`${r.kind}/${r.namespace}/${r.name}`)}" data-verdict="${esc(r.verdict)}"${r.destructive ? ' data-destructive="true"' : ''}>${parts.join('\n')}</section>`;
};

/** The plan in one line, as `regent plan` ends its table, with the exit status the command would give. */
const summaryHtml = (plan: Plan): string => {
  const destructive = plan.resources.flatMap((r) => r.decisions.filter((d) => d.destructive).map((d) => `${d.effects.filter((e) => e.destructive).map((e) => e.type).join(', ')} on ${r.kind} ${r.namespace}/${r.name}`));
  const refused = plan.resources.filter((r) => r.verdict === 'refused').length;
  const notBuilt = plan.resources.filter((r) => r.verdict === 'not-built').length;
  const exit = plan.destructive ? 2 : plan.refused || plan.failed ? 1 : 0;
  return `<div class="plan-summary ${plan.destructive || plan.refused || plan.failed ? 'bad' : 'ok'}" id="plan-summary" data-exit="${exit}">${plan.resources.length} resource(s) · ${destructive.length === 0 ? 'no destructive decision' : `<b class="verdict bad">${destructive.length} destructive decision(s)</b>: ${esc(destructive.join('; '))}`}${refused > 0 ? ` · ${refused} refused by apply` : ''}${notBuilt > 0 ? ` · ${notBuilt} not planned (plan not built for their kind yet)` : ''}${plan.failed ? ' · some plans failed' : ''} <span class="muted">(regent plan would exit ${exit})</span></div>`;
};

/** The answer to a plan, as the page inserts it: the summary, each resource, and the plan as data. */
export const planResultHtml = (plan: Plan, charts: ReadonlyMap<number, readonly DrawnPlanChart[]>, o: PageOptions): string =>
  `<div class="plan-result" data-destructive="${plan.destructive}">${summaryHtml(plan)}
${plan.resources.map((r, i) => resourceHtml(o, r, i, charts.get(i) ?? [])).join('\n')}
<details id="plan-json"><summary>the plan as data (the same as <code>regent plan -o json</code> and <code>POST ${esc(o.base)}/api/plan</code>)</summary><pre class="json">${esc(JSON.stringify(plan, null, 2))}</pre></details></div>`;

/** Why a plan could not be made (bad manifests, a bad request, no planner), as the page shows it. */
export const planErrorHtml = (message: string): string => `<div class="banner bad" id="plan-error">${esc(message)}</div>`;

/** The page's keys (assets/plan.js), before the help keys. */
const PLAN_KEYS = [['Ctrl+Enter', 'in the manifests box: plan them']] as const;

/**
 * GET /plan: the form. `unavailable`: why this server cannot plan (no planner: `regent serve --audit-only`, a
 * static server) — the page says so and the form is disabled.
 */
export const planPage = (o: PageOptions, unavailable?: string): string => {
  const config = { view: `${o.base}/plan/view`, api: `${o.base}/api/plan` };
  const disabled = unavailable === undefined ? '' : ' disabled';
  const header = `<h1>Plan</h1><div class="crumbs"><a href="${o.base}/">Regent audit</a> › plan · what Regent would do for these manifests, before it does it (as <code>regent plan</code>)</div>${unavailable === undefined ? '' : `<div class="banner bad" id="plan-unavailable">The plan is not available here: ${esc(unavailable)}</div>`}`;
  const body = `<form id="plan-form" class="plan-form" autocomplete="off">
<label for="plan-manifests"><b>Manifests</b> <span class="muted">— paste YAML (several documents separated by <code>---</code>), as <code>regent apply -f</code> reads them</span></label>
<textarea id="plan-manifests" name="manifests" rows="16" spellcheck="false" placeholder="apiVersion: regent.dev/v1alpha1&#10;kind: Server&#10;metadata: { name: web-2 }&#10;spec: …"${disabled}></textarea>
<div class="plan-inputs"><label>or upload YAML files <input type="file" id="plan-files" name="files" multiple accept=".yaml,.yml,.json,application/yaml,text/yaml"${disabled}></label>
<span id="plan-file-list" class="muted"></span>
<label>only <input id="plan-resource" name="resource" placeholder="Kind/namespace/name" size="28"${disabled}></label>
<button type="submit" id="plan-submit"${disabled}>Plan</button> <span id="plan-status" class="muted" role="status"></span></div>
<p class="muted">Nothing is written: the cloud is only read (GETs), the event store and the resources are only read, no effect runs. Uploaded files are read in this browser and sent as text with the pasted manifests (pasted first, then the files in the order chosen). A Secret is shown by its keys only; secrets in requests as <code>sha256:</code> digests.</p>
</form>
<div id="plan-result" aria-live="polite"></div>`;
  return layout('Plan — Regent audit', header, body, o, `<link rel="stylesheet" href="${o.base}/assets/plan.css"><script type="application/json" id="plan-config">${scriptJson(config)}</script><script src="${o.base}/assets/plan.js" defer></script>`, PLAN_KEYS);
};
