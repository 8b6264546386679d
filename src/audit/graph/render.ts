/**
 * DOT → SVG with Graphviz compiled to WebAssembly (@hpcc-js/wasm-graphviz): offline, no CDN, no
 * native binary. The module is loaded once per process on first use.
 */
import { Graphviz } from '@hpcc-js/wasm-graphviz';

let loading: Promise<Graphviz> | undefined;

const graphviz = (): Promise<Graphviz> => (loading ??= Graphviz.load());

/** A standalone SVG document (with XML prolog), as `regent viz --out file.svg` writes it. */
export const renderSvg = async (dot: string): Promise<string> => (await graphviz()).layout(dot, 'svg', 'dot');

/** The `<svg>` element alone, for inlining into HTML. */
export const renderInlineSvg = async (dot: string): Promise<string> => {
  const svg = await renderSvg(dot);
  const start = svg.indexOf('<svg');
  return start === -1 ? svg : svg.slice(start);
};
