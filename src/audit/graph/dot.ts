/**
 * The statechart as Graphviz DOT: compound states are clusters whose point node is both the initial
 * pseudo-state and the anchor of transitions declared on (or targeting) the compound state; a
 * targetless transition is a dashed self-loop. With an overlay, visited states and fired edges are
 * highlighted and each fired edge carries its count, sources and first/last time.
 *
 * SVG ids and classes are set here (`n--<state>`, `e--<source>--<event>--<index>`, classes `fired`,
 * `destructive`, `visited`), so the web page can highlight an edge by id without parsing the layout.
 */
import type { Source } from '../../events/envelope.js';
import { nodeDomId, edgeLabel, type ChartEdge, type ChartNode, type Statechart } from './statechart.js';

export interface EdgeStats {
  edge: string;
  count: number;
  first: { revision: number; at: string };
  last: { revision: number; at: string };
  sources: Partial<Record<Source, number>>;
}

export interface ChartOverlay {
  visited: ReadonlySet<string>;
  fired: ReadonlyMap<string, EdgeStats>;
}

/**
 * Every text of a drawing is at least TEXT_PT drawing units high, so at 1 drawing unit per CSS pixel (the
 * page never shows less, assets/app.js) no text is smaller than 11 px; state names are TITLE_PT.
 */
export const TEXT_PT = 11;
export const TITLE_PT = 12;
const FONTS = [
  `  fontname="Arial"; fontsize=${TITLE_PT};`,
  `  node [shape=box style="rounded,filled" fillcolor="#ffffff" color="#444444" fontname="Arial" fontsize=${TITLE_PT}];`,
  `  edge [fontname="Arial" fontsize=${TEXT_PT} color="#555555" arrowsize=0.7];`,
];

const quote = (text: string): string => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

const attrs = (pairs: Record<string, string | number | undefined>): string =>
  `[${Object.entries(pairs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'number' ? v : quote(v as string)}`)
    .join(' ')}]`;

/** `2026-11-29T10:01:02.000Z` → `11-29 10:01:02`. */
const short = (iso: string): string => iso.replace(/^\d{4}-(\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}).*$/, '$1 $2');

export const overlayLine = (stats: EdgeStats): string => {
  const sources = Object.entries(stats.sources)
    .map(([source, n]) => (stats.count === n ? source : `${source}×${n}`))
    .join(',');
  const when = stats.count === 1 ? short(stats.first.at) : `${short(stats.first.at)} → ${short(stats.last.at)}`;
  return `×${stats.count} · ${sources} · ${when}`;
};

/** Escapes text for a Graphviz HTML-like label. */
const html = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A collapsed group's last row (focus views): how many transitions it does not list, as a link
 * (`#more--<id of the first one>`: assets/app.js shows the whole drawing there). `span` cells wide.
 */
const moreRow = (hidden: readonly ChartEdge[], first: string, what: string, span = 1): string => {
  const tip = [...new Set(hidden.map(edgeLabel))].join('\n');
  return `<TR><TD ID="more--${first}" HREF="#more--${first}" TOOLTIP="${html(tip)}" ALIGN="LEFT"${span > 1 ? ` COLSPAN="${span}"` : ''}><FONT COLOR="#1f6feb">${hidden.length} ${what}${hidden.length === 1 ? '' : 's'} ›</FONT></TD></TR>`;
};

/** A transition's text longer than this wraps (focus views): the event and guard, then the outcome, then the effects. */
export const WRAP_AT = 40;

/** Escaped label text; with `wrap`, a long one broken into lines before ` / ` and before its effects. */
const textHtml = (text: string, wrap: boolean): string => {
  if (!wrap || text.length <= WRAP_AT) return html(text);
  const lines: string[] = [];
  let rest = text;
  for (const at of [' / ', ' ! ', ' ⚠ ']) {
    const i = rest.indexOf(at, 1);
    if (i > 0 && rest.length > WRAP_AT) {
      lines.push(rest.slice(0, i));
      rest = `\u00a0\u00a0${rest.slice(i + 1)}`;
    }
  }
  lines.push(rest);
  return lines.map(html).join('<BR ALIGN="LEFT"/>');
};

/** A transition that stays in its source state: listed inside the state's box, as in UML's internal transitions. */
export const isSelfTransition = (edge: ChartEdge): boolean => edge.targets.length === 0 || (edge.targets.length === 1 && edge.targets[0] === edge.source);

/** Rows of a state's box: its name, then one row per self transition (an id'd, highlightable cell). */
const boxLabel = (title: string, all: readonly ChartEdge[], overlay: ChartOverlay | undefined, fill: string, bold = true, collapse = false, wrap = false): string => {
  // Collapsed: only the transitions a history took are listed, then how many others there are.
  const rows = collapse && all.length > 1 ? all.filter((e) => overlay?.fired.has(e.id)) : all;
  const hidden = all.filter((e) => !rows.includes(e));
  const cells = rows.map((edge) => {
    const stats = overlay?.fired.get(edge.id);
    const destructive = edge.destructive.length > 0;
    const text = `${edge.targets.length > 0 ? '↻ ' : ''}${edgeLabel(edge)}`;
    const color = destructive ? '#c62828' : stats ? '#0b3d91' : overlay ? '#888888' : '#333333';
    const second = stats ? `<BR ALIGN="LEFT"/><FONT POINT-SIZE="${TEXT_PT}">${html(overlayLine(stats))}</FONT>` : '';
    const bg = stats ? '#cfe0ff' : '#ffffff';
    return `<TR><TD ID="${edge.id}" TOOLTIP="${html(`${edge.id}: ${edge.actions.join(', ') || 'no actions'}`)}" HREF="#${edge.id}" BGCOLOR="${bg}" ALIGN="LEFT" BALIGN="LEFT"><FONT POINT-SIZE="${TEXT_PT}" COLOR="${color}">${textHtml(text, wrap)}${second}</FONT></TD></TR>`;
  });
  if (hidden.length > 0) cells.push(moreRow(hidden, (hidden[0] as ChartEdge).id, 'own transition'));
  const head = `<TR><TD ALIGN="CENTER">${bold ? `<B>${html(title)}</B>` : html(title)}</TD></TR>`;
  return `<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="1" CELLPADDING="2" BGCOLOR="${fill}">${head}${cells.join('')}</TABLE>>`;
};

export const toDot = (chart: Statechart, overlay?: ChartOverlay): string => {
  const byId = new Map(chart.nodes.map((n) => [n.id, n]));
  const compound = (node: ChartNode | undefined): boolean => node !== undefined && node.children.length > 0;
  const inside = (id: string, ancestor: string): boolean => {
    for (let n = byId.get(id); n; n = n.parent ? byId.get(n.parent) : undefined) if (n.id === ancestor) return true;
    return false;
  };
  const selfRows = new Map<string, ChartEdge[]>();
  for (const edge of chart.edges) if (isSelfTransition(edge)) selfRows.set(edge.source, [...(selfRows.get(edge.source) ?? []), edge]);
  const out: string[] = [
    `digraph ${quote(chart.machine)} {`,
    `  id=${quote(`chart--${chart.machine}`)}; compound=true; newrank=true; rankdir=TB; nodesep=0.6; ranksep=0.7;`,
    ...FONTS,
  ];
  const { edges, junctions } = layoutEdges(chart);
  const junctionsAt = new Map<string, Junction[]>();
  for (const junction of junctions) {
    const home = junctionHome(junction, chart);
    junctionsAt.set(home, [...(junctionsAt.get(home) ?? []), junction]);
  }
  const emit = (node: ChartNode, depth: number): void => {
    const pad = '  '.repeat(depth);
    const visited = overlay?.visited.has(node.id);
    const cls = [node.type, visited ? 'visited' : overlay ? 'unvisited' : ''].filter(Boolean).join(' ');
    const rows = selfRows.get(node.id) ?? [];
    if (compound(node)) {
      const title = node.parent === null ? `${chart.machine} v${chart.version}` : node.key;
      out.push(`${pad}subgraph ${quote(`cluster_${node.id}`)} {`);
      out.push(`${pad}  id=${quote(`c--${nodeDomId(node.id).slice(3)}`)}; label=${boxLabel(title, rows, overlay, visited ? '#eef5ff' : '#ffffff', node.parent !== null)}; labeljust="l"; style="rounded${visited ? ',filled' : ''}"; fillcolor="#f6f9ff"; color="#888888"; class=${quote(cls)};`);
      out.push(`${pad}  ${quote(node.id)} ${attrs({ id: nodeDomId(node.id), shape: 'point', width: 0.14, label: '', class: cls, fillcolor: '#222222', tooltip: `${node.id}: initial, and transitions declared on ${node.key}` })};`);
      for (const junction of junctionsAt.get(node.id) ?? []) out.push(`${pad}  ${junctionNodeDot(junction, overlay)}`);
      for (const child of node.children) {
        const c = byId.get(child);
        if (c) emit(c, depth + 1);
      }
      out.push(`${pad}}`);
      if (node.initial) out.push(`${pad}${quote(node.id)} -> ${quote(node.initial)} ${attrs({ id: `init--${nodeDomId(node.id).slice(3)}`, class: 'initial', arrowsize: 0.6, lhead: compound(byId.get(node.initial)) ? `cluster_${node.initial}` : undefined })};`);
      return;
    }
    const fill = overlay ? (visited ? '#dbeafe' : '#f5f5f5') : '#ffffff';
    out.push(
      `${pad}${quote(node.id)} [id=${quote(nodeDomId(node.id))} class=${quote(cls)} shape=box style="rounded,filled" fillcolor=${quote(fill)} margin=0.04 peripheries=${node.type === 'final' ? 2 : 1} penwidth=${visited ? 1.8 : 1} color=${quote(overlay && !visited ? '#aaaaaa' : '#444444')} fontcolor=${quote(overlay && !visited ? '#999999' : '#111111')} tooltip=${quote(node.id)} label=${boxLabel(node.key, rows, overlay, fill)}];`,
    );
  };
  const root = byId.get(chart.root);
  if (root) emit(root, 1);
  for (const drawn of edges) out.push(`  ${edgeDot(drawn, stateEnds(drawn.source, drawn.target, byId, compound, inside), overlay)}`);
  for (const junction of junctions)
    out.push(`  ${junctionDot(junction, byId, overlay, (source) => stateEnds(source, junction.target, byId, compound, inside).ltail, { head: junction.target, lhead: compound(byId.get(junction.target)) ? `cluster_${junction.target}` : undefined })}`);
  out.push('}');
  return out.join('\n');
};

/** Two states joined by one drawn edge: every transition from `source` to `target`, in declaration order. */
export interface DrawnEdge {
  /** `p--<source>--<target>`: the id of the drawn edge (its `<g>`); each transition is a cell in its label. */
  id: string;
  source: string;
  target: string;
  /** The transitions it draws, each with the id its label cell carries (`<edge id>` or `<edge id>--<i>` for a later target). */
  members: Array<{ edge: ChartEdge; cell: string }>;
}

export const drawnEdgeId = (source: string, target: string): string => `p--${source.replace(/[^A-Za-z0-9_.-]/g, '_')}--${target.replace(/[^A-Za-z0-9_.-]/g, '_')}`;

/**
 * Parallel transitions merged: one drawn edge per ordered pair of states, listing each transition
 * (event, guard, outcome, effects) as one row of its label, so a pair of states never has two edges
 * whose labels compete for the same space.
 */
export const drawnEdges = (chart: Statechart): DrawnEdge[] => {
  const byPair = new Map<string, DrawnEdge>();
  for (const edge of chart.edges) {
    if (isSelfTransition(edge)) continue;
    edge.targets.forEach((target, i) => {
      const key = `${edge.source}\u0000${target}`;
      let drawn = byPair.get(key);
      if (!drawn) byPair.set(key, (drawn = { id: drawnEdgeId(edge.source, target), source: edge.source, target, members: [] }));
      drawn.members.push({ edge, cell: i === 0 ? edge.id : `${edge.id}--${i}` });
    });
  }
  return [...byPair.values()];
};

/** Where an edge is drawn from and to: the DOT node names, and whether it is clipped at a cluster's border. */
interface Ends {
  tail: string;
  head: string;
  ltail?: string | undefined;
  lhead?: string | undefined;
}

/** The whole drawing's ends of a drawn edge: its states, clipped at a compound state's border (the other end outside it). */
const stateEnds = (source: string, target: string, byId: Map<string, ChartNode>, compound: (node: ChartNode | undefined) => boolean, inside: (id: string, ancestor: string) => boolean): Ends => ({
  tail: source,
  head: target,
  ltail: compound(byId.get(source)) && !inside(target, source) ? `cluster_${source}` : undefined,
  lhead: compound(byId.get(target)) && !inside(source, target) ? `cluster_${target}` : undefined,
});

const edgeDot = (drawn: DrawnEdge, ends: Ends, overlay: ChartOverlay | undefined, collapse = false, wrap = false): string => {
  const anyFired = drawn.members.some((m) => overlay?.fired.has(m.edge.id));
  const anyDestructive = drawn.members.some((m) => m.edge.destructive.length > 0);
  const cls = ['transition', anyDestructive ? 'destructive' : '', anyFired ? 'fired' : overlay ? 'unfired' : ''].filter(Boolean).join(' ');
  const color = anyDestructive ? (anyFired || !overlay ? '#c62828' : '#e8a0a0') : anyFired ? '#1f6feb' : overlay ? '#bbbbbb' : '#555555';
  const listed = collapse ? drawn.members.filter((m) => overlay?.fired.has(m.edge.id)) : drawn.members;
  const hidden = drawn.members.filter((m) => !listed.includes(m));
  const rows = listed.map(({ edge, cell }) => {
    const stats = overlay?.fired.get(edge.id);
    const destructive = edge.destructive.length > 0;
    const fg = destructive ? (stats || !overlay ? '#c62828' : '#d08080') : stats ? '#0b3d91' : overlay ? '#888888' : '#333333';
    const second = stats ? `<BR ALIGN="LEFT"/><FONT POINT-SIZE="${TEXT_PT}">${html(overlayLine(stats))}</FONT>` : '';
    const bg = stats ? '#cfe0ff' : '#ffffff';
    return `<TR><TD ID="${cell}" TOOLTIP="${html(`${edge.id}: ${edge.actions.join(', ') || 'no actions'}`)}" HREF="#${edge.id}" BGCOLOR="${bg}" ALIGN="LEFT" BALIGN="LEFT"><FONT COLOR="${fg}">${textHtml(edgeLabel(edge), wrap)}${second}</FONT></TD></TR>`;
  });
  if (hidden.length > 0) rows.push(moreRow(hidden.map((m) => m.edge), (hidden[0] as { cell: string }).cell, 'transition'));
  const label = `<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">${rows.join('')}</TABLE>>`;
  const a = attrs({
    id: drawn.id,
    class: cls,
    color,
    penwidth: anyFired ? 2.6 : anyDestructive ? 1.6 : 1,
    ltail: ends.ltail,
    lhead: ends.lhead,
    tooltip: `${drawn.source} → ${drawn.target}: ${drawn.members.length} transition(s)`,
  });
  return `${quote(ends.tail)} -> ${quote(ends.head)} ${a.slice(0, -1)} label=${label}];`;
};

/**
 * The same transitions (same event, guard, outcome and effects) declared on several states toward one
 * target — "from any of absent, creating, failed: on deletionRequested, go to deleteArmed" — drawn as
 * UML's junction: one short unlabelled edge from each source into a point, and one edge from the point
 * to the target whose label is a grid: a column per source (named once), a row per transition text, and
 * in each cell the transition from that source (its id, link and tooltip; its count with an overlay).
 */
export interface Junction {
  /** `j--<target>--<n>`: the point's node id. */
  id: string;
  target: string;
  /** Source state ids, in declaration order: the grid's columns. */
  sources: string[];
  /** One per transition text: the grid's rows, each with its transition from every source. */
  rows: Array<{ text: string; destructive: boolean; cells: Map<string, { edge: ChartEdge; cell: string }> }>;
}

/** Sources from which the same transition to one target is drawn through a junction. */
export const JUNCTION_SOURCES = 3;

/** The drawn edges: one per pair of states, except the members of junctions (see `Junction`). */
export const layoutEdges = (chart: Statechart, minSources = JUNCTION_SOURCES): { edges: DrawnEdge[]; junctions: Junction[] } => {
  const pairs = drawnEdges(chart);
  // Transitions to one target with one text, by source (one per source: the first declared).
  const byText = new Map<string, { target: string; text: string; members: Map<string, { edge: ChartEdge; cell: string }> }>();
  for (const drawn of pairs)
    for (const member of drawn.members) {
      const text = edgeLabel(member.edge);
      const key = `${drawn.target}\u0000${text}`;
      const group = byText.get(key) ?? { target: drawn.target, text, members: new Map() };
      byText.set(key, group);
      if (!group.members.has(member.edge.source)) group.members.set(member.edge.source, member);
    }
  // Texts with the same target and the same sources share one junction.
  const byJunction = new Map<string, Junction>();
  const moved = new Set<string>();
  for (const group of byText.values()) {
    if (group.members.size < minSources) continue;
    const sources = [...group.members.keys()];
    const key = `${group.target}\u0000${[...sources].sort().join('\u0000')}`;
    let junction = byJunction.get(key);
    if (!junction) byJunction.set(key, (junction = { id: `j--${group.target.replace(/[^A-Za-z0-9_.-]/g, '_')}--${[...byJunction.values()].filter((j) => j.target === group.target).length}`, target: group.target, sources, rows: [] }));
    junction.rows.push({ text: group.text, destructive: [...group.members.values()].some((m) => m.edge.destructive.length > 0), cells: group.members });
    for (const m of group.members.values()) moved.add(m.cell);
  }
  const edges = pairs.map((d) => ({ ...d, members: d.members.filter((m) => !moved.has(m.cell)) })).filter((d) => d.members.length > 0);
  return { edges, junctions: [...byJunction.values()] };
};

/** The junction's point, emitted inside the innermost cluster holding its sources and target. */
export const junctionHome = (junction: Junction, chart: Statechart): string => {
  const byId = new Map(chart.nodes.map((n) => [n.id, n]));
  const chain = (id: string): string[] => {
    const out: string[] = [];
    for (let n = byId.get(id)?.parent ? byId.get(byId.get(id)?.parent as string) : undefined; n; n = n.parent ? byId.get(n.parent) : undefined) out.unshift(n.id);
    return out;
  };
  const chains = [junction.target, ...junction.sources].map(chain);
  let home = chart.root;
  for (let i = 0; chains.every((c) => c[i] !== undefined && c[i] === chains[0]?.[i]); i++) home = chains[0]?.[i] as string;
  return home;
};

const junctionNodeDot = (junction: Junction, overlay: ChartOverlay | undefined): string => {
  const anyFired = junction.rows.some((r) => [...r.cells.values()].some((m) => overlay?.fired.has(m.edge.id)));
  const destructive = junction.rows.some((r) => r.destructive);
  const color = destructive ? (anyFired || !overlay ? '#c62828' : '#e8a0a0') : anyFired ? '#1f6feb' : overlay ? '#bbbbbb' : '#555555';
  return `${quote(junction.id)} ${attrs({ id: junction.id, class: 'junction', shape: 'point', width: 0.09, color, fillcolor: color, tooltip: `junction → ${junction.target}` })};`;
};

const junctionDot = (
  junction: Junction,
  byId: Map<string, ChartNode>,
  overlay: ChartOverlay | undefined,
  /** A source's edge into the point: clipped at the source's cluster (undefined: not clipped). */
  ltailOf: (source: string) => string | undefined,
  /** Where the point's edge ends. */
  to: { head: string; lhead?: string | undefined },
  /** A source's DOT node name (default: its state id). */
  tailOf: (source: string) => string = (source) => source,
  collapse = false,
  wrap = false,
): string => {
  const fired = (m: { edge: ChartEdge } | undefined) => (m ? (overlay?.fired.has(m.edge.id) ?? false) : false);
  const all = junction.rows.flatMap((r) => [...r.cells.values()]);
  const anyFired = all.some(fired);
  const destructive = junction.rows.some((r) => r.destructive);
  const colorOf = (isFired: boolean) => (destructive ? (isFired || !overlay ? '#c62828' : '#e8a0a0') : isFired ? '#1f6feb' : overlay ? '#bbbbbb' : '#555555');
  const classOf = (isFired: boolean, extra: string) => ['transition', extra, destructive ? 'destructive' : '', isFired ? 'fired' : overlay ? 'unfired' : ''].filter(Boolean).join(' ');
  const keyOf = (id: string) => byId.get(id)?.key ?? id;
  const out: string[] = [];
  for (const source of junction.sources) {
    const members = junction.rows.map((r) => r.cells.get(source)).filter((m): m is { edge: ChartEdge; cell: string } => m !== undefined);
    const isFired = members.some(fired);
    out.push(
      `${quote(tailOf(source))} -> ${quote(junction.id)} ${attrs({
        id: `${(members[0] as { cell: string }).cell}--in`,
        class: classOf(isFired, 'junction-in'),
        color: colorOf(isFired),
        penwidth: isFired ? 2.6 : destructive ? 1.6 : 1,
        arrowhead: 'none',
        ltail: ltailOf(source),
        tooltip: `from ${keyOf(source)}: ${members.map((m) => m.edge.id).join(', ')}`,
      })};`,
    );
  }
  const head = `<TR><TD ALIGN="LEFT"><FONT COLOR="#666666">from</FONT></TD>${junction.sources.map((id) => `<TD><FONT COLOR="#666666">${html(keyOf(id))}</FONT></TD>`).join('')}</TR>`;
  const listed = collapse ? junction.rows.filter((r) => [...r.cells.values()].some(fired)) : junction.rows;
  const hidden = junction.rows.filter((r) => !listed.includes(r)).flatMap((r) => [...r.cells.values()]);
  const rows = listed.map((row) => {
    const fg = row.destructive ? '#c62828' : overlay ? '#888888' : '#333333';
    const cells = junction.sources.map((source) => {
      const m = row.cells.get(source);
      if (!m) return '<TD></TD>';
      const stats = overlay?.fired.get(m.edge.id);
      const tip = `${m.edge.id}: ${m.edge.actions.join(', ') || 'no actions'}${stats ? ` · ${overlayLine(stats)}` : ''}`;
      return `<TD ID="${m.cell}" TOOLTIP="${html(tip)}" HREF="#${m.edge.id}" BGCOLOR="${stats ? '#cfe0ff' : '#ffffff'}"><FONT COLOR="${stats ? '#0b3d91' : fg}">${stats ? `×${stats.count}` : '●'}</FONT></TD>`;
    });
    return `<TR><TD ALIGN="LEFT" BALIGN="LEFT"><FONT COLOR="${fg}">${textHtml(row.text, wrap)}</FONT></TD>${cells.join('')}</TR>`;
  });
  if (hidden.length > 0) rows.push(moreRow(hidden.map((m) => m.edge), (hidden[0] as { cell: string }).cell, 'transition', junction.sources.length + 1));
  const label = `<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">${listed.length > 0 ? head : ''}${rows.join('')}</TABLE>>`;
  const a = attrs({
    id: drawnEdgeId(junction.id, junction.target),
    class: classOf(anyFired, 'junction-out'),
    color: colorOf(anyFired),
    penwidth: anyFired ? 2.6 : destructive ? 1.6 : 1,
    lhead: to.lhead,
    tooltip: `${junction.rows.map((r) => r.text).join('; ')} → ${keyOf(junction.target)}, from ${junction.sources.map(keyOf).join(', ')}`,
  });
  out.push(`${quote(junction.id)} -> ${quote(to.head)} ${a.slice(0, -1)} label=${label}];`);
  return out.join('\n  ');
};

/**
 * The states a page can focus on: every state drawn as a box (a state without children; the root when
 * the machine has no states below it).
 */
export const focusStates = (chart: Statechart): string[] => {
  const leaves = chart.nodes.filter((n) => n.children.length === 0).map((n) => n.id);
  return leaves.length > 0 ? leaves : [chart.root];
};

/** The machine's initial state: the root's initial child, followed down to a state drawn as a box. */
export const initialFocus = (chart: Statechart): string => {
  const byId = new Map(chart.nodes.map((n) => [n.id, n]));
  let node = byId.get(chart.root);
  while (node && node.children.length > 0 && node.initial) node = byId.get(node.initial);
  return node?.id ?? chart.root;
};

/** A state's DOM id in a focus view when it is drawn as a neighbour (a box with its name only). */
export const neighbourDomId = (state: string, side: 'in' | 'out'): string => `f--${state.replace(/[^A-Za-z0-9_.-]/g, '_')}--${side}`;

/**
 * One state in focus (focus plus context): the state with its own transitions listed in its box (and
 * those of the compound states around it, which apply in it too, in their titles), every transition
 * into it (from the left: same text from three or more states as a junction's grid, as in the whole
 * drawing) and every transition out of it or out of a compound state around it (to the right, one
 * drawn edge per target, one row per transition). The states at the other ends are neighbours: boxes
 * with their name only (`f--<state>--in`, `f--<state>--out`; a state both before and after the focus is
 * drawn on both sides, so no edge doubles back), placed in the innermost compound state holding both
 * them and the focus. Everything else of the machine is left out: the whole drawing (toDot) has it.
 *
 * Transition cells carry the same ids as in the whole drawing, so a page highlights a transition in
 * both by id.
 */
/**
 * What a focus view leaves collapsed (each group then lists only the transitions a history took, and
 * how many others): `large` groups of more than LARGE_GROUP rows, or `all`; `own`: the focus state's own
 * transitions and those of the compound states around it.
 */
export interface FocusCollapse {
  /** Drawn left to right (default) or top to bottom (a narrow box). */
  rankdir?: 'LR' | 'TB';
  incoming?: 'none' | 'large' | 'all';
  own?: boolean;
  outgoing?: 'none' | 'large' | 'all';
}

/** Rows of a group a `large` collapse folds. */
export const LARGE_GROUP = 2;

export const toFocusDot = (chart: Statechart, focus: string, overlay?: ChartOverlay, collapse: FocusCollapse = {}): string => {
  // A group of one row is never folded: its summary would take the same room.
  const folds = (mode: FocusCollapse['incoming'], rows: number): boolean => (mode === 'all' && rows > 1) || (mode === 'large' && rows > LARGE_GROUP);
  const byId = new Map(chart.nodes.map((n) => [n.id, n]));
  const state = byId.get(focus);
  if (!state) throw new Error(`${chart.machine} has no state ${focus}`);
  const compound = (node: ChartNode | undefined): boolean => node !== undefined && node.children.length > 0;
  const inside = (id: string, ancestor: string): boolean => {
    for (let n = byId.get(id); n; n = n.parent ? byId.get(n.parent) : undefined) if (n.id === ancestor) return true;
    return false;
  };
  // The compound states around the focus, outermost first; `around` holds them and the focus.
  const ancestors: ChartNode[] = [];
  for (let n = state.parent ? byId.get(state.parent) : undefined; n; n = n.parent ? byId.get(n.parent) : undefined) ancestors.unshift(n);
  const around = new Set([focus, ...ancestors.map((a) => a.id)]);
  // Entering these enters the focus (each one's initial state leads to it).
  const entered = new Set([focus]);
  for (let i = ancestors.length - 1, below = focus; i >= 0; below = (ancestors[i] as ChartNode).id, i--) {
    const a = ancestors[i] as ChartNode;
    if (a.initial === below && entered.has(below)) entered.add(a.id);
  }
  const keyOf = (id: string): string => {
    const path: string[] = [];
    for (let n = byId.get(id); n && n.parent; n = n.parent ? byId.get(n.parent) : undefined) path.unshift(n.key);
    return path.join('.') || (byId.get(id)?.key ?? id);
  };
  /** The innermost compound state around the focus that holds `id` (where its neighbour box goes). */
  const homeOf = (id: string): string => {
    let home = ancestors[0]?.id ?? focus;
    for (const a of ancestors) if (inside(id, a.id)) home = a.id;
    return home;
  };
  const selfRows = new Map<string, ChartEdge[]>();
  for (const edge of chart.edges) if (isSelfTransition(edge)) selfRows.set(edge.source, [...(selfRows.get(edge.source) ?? []), edge]);
  const visited = (id: string) => overlay?.visited.has(id);
  const cls = (node: ChartNode) => [node.type, visited(node.id) ? 'visited' : overlay ? 'unvisited' : ''].filter(Boolean).join(' ');

  // Out: every transition leaving the focus or a compound state around it, one drawn edge per (source, target).
  const outgoing = new Map<string, DrawnEdge>();
  for (const edge of chart.edges) {
    if (!around.has(edge.source) || isSelfTransition(edge)) continue;
    edge.targets.forEach((target, i) => {
      const key = `${edge.source}\u0000${target}`;
      let drawn = outgoing.get(key);
      if (!drawn) outgoing.set(key, (drawn = { id: drawnEdgeId(edge.source, target), source: edge.source, target, members: [] }));
      drawn.members.push({ edge, cell: i === 0 ? edge.id : `${edge.id}--${i}` });
    });
  }
  // In: the whole drawing's edges and junctions into the focus (or a state whose entry leads to it) from outside.
  const { edges: pairs, junctions } = layoutEdges(chart);
  const incoming = pairs.filter((d) => entered.has(d.target) && !around.has(d.source));
  const inJunctions: Junction[] = [];
  for (const junction of junctions) {
    if (!entered.has(junction.target)) continue;
    const sources = junction.sources.filter((s) => !around.has(s));
    if (sources.length >= JUNCTION_SOURCES) {
      const rows = junction.rows.map((r) => ({ ...r, cells: new Map([...r.cells].filter(([s]) => !around.has(s))) })).filter((r) => r.cells.size > 0);
      // Junctions into one state sharing sources are one here (one fan per state: fans of shared sources cross).
      const shared = inJunctions.find((j) => j.target === junction.target && j.sources.some((s) => sources.includes(s)));
      if (shared) {
        shared.sources.push(...sources.filter((s) => !shared.sources.includes(s)));
        shared.rows.push(...rows);
      } else inJunctions.push({ ...junction, sources, rows });
      continue;
    }
    // Too few sources left for a junction: one edge per source.
    for (const source of sources) {
      const members = junction.rows.map((r) => r.cells.get(source)).filter((m): m is { edge: ChartEdge; cell: string } => m !== undefined);
      const pair = incoming.find((d) => d.source === source && d.target === junction.target);
      if (pair) pair.members.push(...members);
      else incoming.push({ id: drawnEdgeId(source, junction.target), source, target: junction.target, members });
    }
  }

  // A source already drawn into a junction brings its other transitions there too (its rows in the grid):
  // a second edge from it would cross the junction's fan.
  for (const drawn of [...incoming]) {
    const junction = inJunctions.find((j) => j.target === drawn.target && j.sources.includes(drawn.source));
    if (!junction) continue;
    for (const m of drawn.members) junction.rows.push({ text: edgeLabel(m.edge), destructive: m.edge.destructive.length > 0, cells: new Map([[drawn.source, m]]) });
    incoming.splice(incoming.indexOf(drawn), 1);
  }
  const neighbours = new Map<string, string[]>();
  const neighbour = (id: string, side: 'in' | 'out'): string => {
    const name = `${side}:${id}`;
    const home = homeOf(id);
    const list = neighbours.get(home) ?? [];
    if (!list.includes(name)) list.push(name);
    neighbours.set(home, list);
    return name;
  };
  const endOf = (id: string, side: 'in' | 'out'): string => (around.has(id) ? id : neighbour(id, side));
  const lines: string[] = [];
  for (const drawn of outgoing.values()) {
    const head = endOf(drawn.target, 'out');
    const ltail = compound(byId.get(drawn.source)) && !inside(drawn.target, drawn.source) ? `cluster_${drawn.source}` : undefined;
    const lhead = around.has(drawn.target) && compound(byId.get(drawn.target)) && !inside(drawn.source, drawn.target) ? `cluster_${drawn.target}` : undefined;
    lines.push(`  ${edgeDot(drawn, { tail: drawn.source, head, ltail, lhead }, overlay, folds(collapse.outgoing, drawn.members.length), true)}`);
  }
  for (const drawn of incoming) {
    const lhead = compound(byId.get(drawn.target)) && !inside(drawn.source, drawn.target) ? `cluster_${drawn.target}` : undefined;
    lines.push(`  ${edgeDot(drawn, { tail: neighbour(drawn.source, 'in'), head: drawn.target, lhead }, overlay, folds(collapse.incoming, drawn.members.length), true)}`);
  }
  const junctionHomes = new Map<string, Junction[]>();
  for (const junction of inJunctions) {
    const home = junctionHome(junction, chart);
    const at = around.has(home) ? home : (ancestors[0]?.id ?? focus);
    junctionHomes.set(at, [...(junctionHomes.get(at) ?? []), junction]);
    const lhead = compound(byId.get(junction.target)) ? `cluster_${junction.target}` : undefined;
    lines.push(`  ${junctionDot(junction, byId, overlay, () => undefined, { head: junction.target, lhead }, (source) => neighbour(source, 'in'), folds(collapse.incoming, junction.rows.length), true)}`);
  }
  // An initial arrow on the way to the focus: the compound state's point to its initial state.
  const inits: string[] = [];
  for (const a of ancestors) {
    if (!a.initial || !around.has(a.initial)) continue;
    inits.push(`  ${quote(a.id)} -> ${quote(a.initial)} ${attrs({ id: `init--${nodeDomId(a.id).slice(3)}`, class: 'initial', arrowsize: 0.6, lhead: compound(byId.get(a.initial)) ? `cluster_${a.initial}` : undefined })};`);
  }
  const used = new Set<string>();
  for (const line of [...lines, ...inits]) for (const m of line.matchAll(/^\s*"((?:[^"\\]|\\.)*)" -> "((?:[^"\\]|\\.)*)"/gm)) used.add(m[1] as string).add(m[2] as string);

  const neighbourDot = (name: string): string => {
    const [side, id] = [name.slice(0, name.indexOf(':')), name.slice(name.indexOf(':') + 1)] as ['in' | 'out', string];
    const node = byId.get(id);
    const rows = selfRows.get(id)?.length ?? 0;
    const fill = overlay ? (visited(id) ? '#dbeafe' : '#f5f5f5') : '#f6f8fa';
    const what = node && compound(node) ? `${node.children.length} states` : `${rows} own transition${rows === 1 ? '' : 's'}`;
    return `${quote(name)} ${attrs({ id: neighbourDomId(id, side), class: `neighbour ${side}${node ? ` ${cls(node)}` : ''}`, shape: 'box', style: 'rounded,filled,dashed', fillcolor: fill, color: '#888888', fontcolor: '#333333', margin: '0.1,0.03', height: 0.3, tooltip: `${id} (${what}): focus on this state` }).slice(0, -1)} label=<${html(keyOf(id))} <FONT COLOR="#1f6feb">›</FONT>>];`;
  };
  const out: string[] = [
    `digraph ${quote(chart.machine)} {`,
    `  id=${quote(`focus--${chart.machine}--${focus.replace(/[^A-Za-z0-9_.-]/g, '_')}`)}; compound=true; newrank=true; rankdir=${collapse.rankdir ?? 'LR'}; nodesep=0.18; ranksep=0.45;`,
    ...FONTS,
  ];
  const emitFocus = (pad: string) => {
    const fill = overlay ? (visited(focus) ? '#dbeafe' : '#f5f5f5') : '#ffffff';
    out.push(
      `${pad}${quote(focus)} [id=${quote(nodeDomId(focus))} class=${quote(`${cls(state)} focus`)} shape=box style="rounded,filled" fillcolor=${quote(fill)} margin=0.04 peripheries=${state.type === 'final' ? 2 : 1} penwidth=${visited(focus) ? 1.8 : 1.4} color="#444444" fontcolor="#111111" tooltip=${quote(focus)} label=${boxLabel(state.key, selfRows.get(focus) ?? [], overlay, fill, true, collapse.own === true, true)}];`,
    );
  };
  const emit = (i: number, pad: string): void => {
    const a = ancestors[i];
    if (!a) return emitFocus(pad);
    const title = a.parent === null ? `${chart.machine} v${chart.version}` : a.key;
    out.push(`${pad}subgraph ${quote(`cluster_${a.id}`)} {`);
    out.push(`${pad}  id=${quote(`c--${nodeDomId(a.id).slice(3)}`)}; label=${boxLabel(title, selfRows.get(a.id) ?? [], overlay, visited(a.id) ? '#eef5ff' : '#ffffff', a.parent !== null, collapse.own === true, true)}; labeljust="l"; style="rounded${visited(a.id) ? ',filled' : ''}"; fillcolor="#f6f9ff"; color="#888888"; class=${quote(cls(a))};`);
    if (used.has(a.id)) out.push(`${pad}  ${quote(a.id)} ${attrs({ id: nodeDomId(a.id), shape: 'point', width: 0.14, label: '', class: cls(a), fillcolor: '#222222', tooltip: `${a.id}: initial, and transitions declared on ${a.key}` })};`);
    for (const junction of junctionHomes.get(a.id) ?? []) out.push(`${pad}  ${junctionNodeDot(junction, overlay)}`);
    for (const name of neighbours.get(a.id) ?? []) out.push(`${pad}  ${neighbourDot(name)}`);
    emit(i + 1, `${pad}  `);
    out.push(`${pad}}`);
  };
  emit(0, '  ');
  if (ancestors.length === 0) for (const name of neighbours.get(focus) ?? []) out.push(`  ${neighbourDot(name)}`);
  out.push(...inits, ...lines, '}');
  return out.join('\n');
};
