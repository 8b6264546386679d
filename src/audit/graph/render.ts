/**
 * DOT → SVG with Graphviz compiled to WebAssembly (@hpcc-js/wasm-graphviz): offline, no CDN, no
 * native binary. The module is loaded once per process on first use.
 */
import { Graphviz } from '@hpcc-js/wasm-graphviz';
import type { Statechart } from './statechart.js';
import { focusStates, initialFocus, toDot, toFocusDot, type ChartOverlay, type FocusCollapse } from './dot.js';

let loading: Promise<Graphviz> | undefined;

const graphviz = (): Promise<Graphviz> => (loading ??= Graphviz.load());

/** A standalone SVG document (with XML prolog), as `regent viz --out file.svg` writes it. */
export const renderSvg = async (dot: string): Promise<string> => (await graphviz()).layout(dot, 'svg', 'dot');

const inline = (svg: string): string => {
  const start = svg.indexOf('<svg');
  return start === -1 ? svg : svg.slice(start);
};

/** The `<svg>` element alone, for inlining into HTML. */
export const renderInlineSvg = async (dot: string): Promise<string> => inline(await renderSvg(dot));

/** Drawing units (= CSS px at the scale a page opens with) a focus view should fit in. */
export interface Budget {
  w: number;
  h: number;
}

/**
 * The graph box at a 1400×900 window, less a margin: a machine page's (1366×648, 72vh) and a resource
 * page's (1366×558, 62vh, above its timeline: assets/app.css). A focus view larger than that collapses
 * (FOCUS_STEPS) until it fits.
 */
export const MACHINE_BUDGET: Budget = { w: 1330, h: 620 };
export const STREAM_BUDGET: Budget = { w: 1330, h: 530 };

/** What a focus view collapses, in turn, until it fits its budget: how it was entered first, then the state's own transitions, then where it leads. */
export const FOCUS_STEPS: readonly FocusCollapse[] = [
  {},
  { incoming: 'large' },
  { incoming: 'all', own: true },
  { incoming: 'all', own: true, outgoing: 'large' },
  { incoming: 'all', own: true, outgoing: 'all' },
];

const sizeOf = (svg: string): Budget => {
  const m = /viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"/.exec(svg);
  return m ? { w: Number(m[1]), h: Number(m[2]) } : { w: Infinity, h: Infinity };
};

const esc = (text: string): string => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** Marks an inline `<svg>` as one view of the chart box (assets/app.js shows one at a time). */
const view = (svg: string, data: Record<string, string>, shown: boolean): string =>
  svg.replace(/<!--[\s\S]*?-->\n?/g, '').replace(/^<svg\b/, `<svg class="chart-view${shown ? ' shown' : ''}"${Object.entries(data).map(([k, v]) => ` data-${k}="${esc(v)}"`).join('')}`);

export interface ChartViewsOptions {
  /** DOT → standalone SVG (a page's layout cache); default renderSvg. */
  layout?: (dot: string) => Promise<string>;
  /** Default: STREAM_BUDGET with an overlay (the resource page's box), else MACHINE_BUDGET. */
  budget?: Budget;
}

/**
 * The chart box's views (issue 30, "a statechart a person can read"): the whole drawing (toDot,
 * `data-view="whole"`), and a focus view (toFocusDot, `data-view="focus" data-focus="<state id>"`) per
 * state a page can focus on — every state drawn as a box; with an overlay, those the history visited.
 * Each focus view is collapsed as far as FOCUS_STEPS need for it to fit `budget` at 1 drawing unit per
 * pixel (`data-collapsed` says how far; a transition a history took is never folded away). Without an
 * overlay, the machine's initial state's focus view is the one shown (`class="chart-view shown"`).
 */
export const renderChartViews = async (chart: Statechart, overlay?: ChartOverlay, options: ChartViewsOptions = {}): Promise<string> => {
  const layout = options.layout ?? renderSvg;
  const budget = options.budget ?? (overlay ? STREAM_BUDGET : MACHINE_BUDGET);
  const initial = initialFocus(chart);
  const out = [view(inline(await layout(toDot(chart, overlay))), { view: 'whole', initial }, false)];
  const states = focusStates(chart).filter((id) => !overlay || overlay.visited.has(id) || (!overlay.visited.size && id === initial));
  for (const focus of states) {
    let svg = '';
    let step = 0;
    let fits = false;
    for (; step < FOCUS_STEPS.length && !fits; step++) {
      svg = inline(await layout(toFocusDot(chart, focus, overlay, FOCUS_STEPS[step])));
      const size = sizeOf(svg);
      fits = size.w <= budget.w && size.h <= budget.h;
    }
    out.push(view(svg, { view: 'focus', focus, collapsed: String(step - 1), fits: String(fits) }, !overlay && focus === initial));
  }
  return out.join('\n');
};
