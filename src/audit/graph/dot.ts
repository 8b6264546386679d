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

/** A transition that stays in its source state: listed inside the state's box, as in UML's internal transitions. */
export const isSelfTransition = (edge: ChartEdge): boolean => edge.targets.length === 0 || (edge.targets.length === 1 && edge.targets[0] === edge.source);

/** Rows of a state's box: its name, then one row per self transition (an id'd, highlightable cell). */
const boxLabel = (title: string, rows: readonly ChartEdge[], overlay: ChartOverlay | undefined, fill: string, bold = true): string => {
  const cells = rows.map((edge) => {
    const stats = overlay?.fired.get(edge.id);
    const destructive = edge.destructive.length > 0;
    const text = `${edge.targets.length > 0 ? '↻ ' : ''}${edgeLabel(edge)}`;
    const color = destructive ? '#c62828' : stats ? '#0b3d91' : overlay ? '#888888' : '#333333';
    const second = stats ? `<BR ALIGN="LEFT"/><FONT POINT-SIZE="7">${html(overlayLine(stats))}</FONT>` : '';
    const bg = stats ? '#cfe0ff' : '#ffffff';
    return `<TR><TD ID="${edge.id}" TOOLTIP="${html(`${edge.id}: ${edge.actions.join(', ') || 'no actions'}`)}" HREF="#${edge.id}" BGCOLOR="${bg}" ALIGN="LEFT" BALIGN="LEFT"><FONT POINT-SIZE="8" COLOR="${color}">${html(text)}${second}</FONT></TD></TR>`;
  });
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
    '  fontname="Arial"; fontsize=11;',
    '  node [shape=box style="rounded,filled" fillcolor="#ffffff" color="#444444" fontname="Arial" fontsize=11];',
    '  edge [fontname="Arial" fontsize=8 color="#555555" arrowsize=0.7];',
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
  for (const drawn of edges) out.push(`  ${edgeDot(drawn, byId, overlay, compound, inside)}`);
  for (const junction of junctions) out.push(`  ${junctionDot(junction, byId, overlay, compound, inside)}`);
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

const edgeDot = (
  drawn: DrawnEdge,
  byId: Map<string, ChartNode>,
  overlay: ChartOverlay | undefined,
  compound: (node: ChartNode | undefined) => boolean,
  inside: (id: string, ancestor: string) => boolean,
): string => {
  const anyFired = drawn.members.some((m) => overlay?.fired.has(m.edge.id));
  const anyDestructive = drawn.members.some((m) => m.edge.destructive.length > 0);
  const cls = ['transition', anyDestructive ? 'destructive' : '', anyFired ? 'fired' : overlay ? 'unfired' : ''].filter(Boolean).join(' ');
  const color = anyDestructive ? (anyFired || !overlay ? '#c62828' : '#e8a0a0') : anyFired ? '#1f6feb' : overlay ? '#bbbbbb' : '#555555';
  const rows = drawn.members.map(({ edge, cell }) => {
    const stats = overlay?.fired.get(edge.id);
    const destructive = edge.destructive.length > 0;
    const fg = destructive ? (stats || !overlay ? '#c62828' : '#d08080') : stats ? '#0b3d91' : overlay ? '#888888' : '#333333';
    const second = stats ? `<BR ALIGN="LEFT"/><FONT POINT-SIZE="7">${html(overlayLine(stats))}</FONT>` : '';
    const bg = stats ? '#cfe0ff' : '#ffffff';
    return `<TR><TD ID="${cell}" TOOLTIP="${html(`${edge.id}: ${edge.actions.join(', ') || 'no actions'}`)}" HREF="#${edge.id}" BGCOLOR="${bg}" ALIGN="LEFT" BALIGN="LEFT"><FONT COLOR="${fg}">${html(edgeLabel(edge))}${second}</FONT></TD></TR>`;
  });
  const label = `<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">${rows.join('')}</TABLE>>`;
  const a = attrs({
    id: drawn.id,
    class: cls,
    color,
    penwidth: anyFired ? 2.6 : anyDestructive ? 1.6 : 1,
    ltail: compound(byId.get(drawn.source)) && !inside(drawn.target, drawn.source) ? `cluster_${drawn.source}` : undefined,
    lhead: compound(byId.get(drawn.target)) && !inside(drawn.source, drawn.target) ? `cluster_${drawn.target}` : undefined,
    tooltip: `${drawn.source} → ${drawn.target}: ${drawn.members.length} transition(s)`,
  });
  return `${quote(drawn.source)} -> ${quote(drawn.target)} ${a.slice(0, -1)} label=${label}];`;
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
  compound: (node: ChartNode | undefined) => boolean,
  inside: (id: string, ancestor: string) => boolean,
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
      `${quote(source)} -> ${quote(junction.id)} ${attrs({
        id: `${(members[0] as { cell: string }).cell}--in`,
        class: classOf(isFired, 'junction-in'),
        color: colorOf(isFired),
        penwidth: isFired ? 2.6 : destructive ? 1.6 : 1,
        arrowhead: 'none',
        ltail: compound(byId.get(source)) && !inside(junction.target, source) ? `cluster_${source}` : undefined,
        tooltip: `from ${keyOf(source)}: ${members.map((m) => m.edge.id).join(', ')}`,
      })};`,
    );
  }
  const head = `<TR><TD ALIGN="LEFT"><FONT COLOR="#666666">from</FONT></TD>${junction.sources.map((id) => `<TD><FONT COLOR="#666666">${html(keyOf(id))}</FONT></TD>`).join('')}</TR>`;
  const rows = junction.rows.map((row) => {
    const fg = row.destructive ? '#c62828' : overlay ? '#888888' : '#333333';
    const cells = junction.sources.map((source) => {
      const m = row.cells.get(source);
      if (!m) return '<TD></TD>';
      const stats = overlay?.fired.get(m.edge.id);
      const tip = `${m.edge.id}: ${m.edge.actions.join(', ') || 'no actions'}${stats ? ` · ${overlayLine(stats)}` : ''}`;
      return `<TD ID="${m.cell}" TOOLTIP="${html(tip)}" HREF="#${m.edge.id}" BGCOLOR="${stats ? '#cfe0ff' : '#ffffff'}"><FONT COLOR="${stats ? '#0b3d91' : fg}">${stats ? `×${stats.count}` : '●'}</FONT></TD>`;
    });
    return `<TR><TD ALIGN="LEFT"><FONT COLOR="${fg}">${html(row.text)}</FONT></TD>${cells.join('')}</TR>`;
  });
  const label = `<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">${head}${rows.join('')}</TABLE>>`;
  const a = attrs({
    id: drawnEdgeId(junction.id, junction.target),
    class: classOf(anyFired, 'junction-out'),
    color: colorOf(anyFired),
    penwidth: anyFired ? 2.6 : destructive ? 1.6 : 1,
    lhead: compound(byId.get(junction.target)) ? `cluster_${junction.target}` : undefined,
    tooltip: `${junction.rows.map((r) => r.text).join('; ')} → ${keyOf(junction.target)}, from ${junction.sources.map(keyOf).join(', ')}`,
  });
  out.push(`${quote(junction.id)} -> ${quote(junction.target)} ${a.slice(0, -1)} label=${label}];`);
  return out.join('\n  ');
};
