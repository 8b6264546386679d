/**
 * Graphviz layouts kept (issue 30, "Fast and linked"): a machine's statechart is laid out once (≈0.1 s for the
 * larger machines, plus loading the WebAssembly module on a process's first layout) and then read back, from
 * memory and, with a shelf (history/shelf.ts), after a restart.
 *
 * A layout is a function of the DOT text and the Graphviz build only, so it is kept under a hash of exactly those:
 * a machine or a drawing (graph/dot.ts) that changed makes other DOT text and is laid out afresh — a kept SVG
 * is never stale. The key is written inside the file too; a torn or foreign file is ignored.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { CheckpointShelf } from '../history/shelf.js';
import { renderSvg } from './render.js';

const SVG_FORMAT = 1;

/** The Graphviz package's version (its layout may differ between builds); 'unknown' if it cannot be read. */
const graphvizVersion = (() => {
  try {
    const entry = createRequire(import.meta.url).resolve('@hpcc-js/wasm-graphviz');
    for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (pkg.name === '@hpcc-js/wasm-graphviz') return pkg.version ?? 'unknown';
      } catch {
        // no package.json here: one level up
      }
    }
  } catch {
    // not resolvable from here: layouts are still keyed by their DOT text
  }
  return 'unknown';
})();

/**
 * Loads Graphviz's WebAssembly module (≈0.1 s, more on a busy machine) ahead of the first layout a page needs:
 * a restarted server reads its machines' layouts from the shelf, so its first resource page would pay it.
 */
export const loadGraphviz = async (): Promise<void> => void (await renderSvg('digraph { }'));

export const svgKey = (dot: string): string => `svg|v${SVG_FORMAT}|graphviz ${graphvizVersion}|${createHash('sha256').update(dot).digest('hex').slice(0, 32)}`;

const inline = (svg: string): string => {
  const start = svg.indexOf('<svg');
  return start === -1 ? svg : svg.slice(start);
};

export interface SvgCache {
  /** The standalone SVG document of `dot` (as graph/render.ts renderSvg). */
  svg(dot: string): Promise<string>;
  /** The `<svg>` element alone, for inlining into HTML (as renderInlineSvg). */
  inline(dot: string): Promise<string>;
  /** The standalone SVG when it is in memory now (no layout, no read), else undefined. */
  known(dot: string): string | undefined;
}

/** At most `entries` layouts in memory (the oldest dropped first); every layout on the shelf when there is one. */
export const createSvgCache = (shelf?: CheckpointShelf, entries = 256): SvgCache => {
  const memory = new Map<string, Promise<string>>();
  const settled = new Map<string, string>();
  const svg = (dot: string): Promise<string> => {
    const key = svgKey(dot);
    const known = memory.get(key);
    if (known) return known;
    const laidOut = (async () => {
      const text = await shelf?.read(key).catch(() => undefined);
      if (text !== undefined) {
        try {
          const kept = JSON.parse(text) as { format?: unknown; key?: unknown; svg?: unknown };
          if (kept.format === SVG_FORMAT && kept.key === key && typeof kept.svg === 'string' && kept.svg.includes('<svg') && kept.svg.trimEnd().endsWith('</svg>')) return kept.svg;
        } catch {
          // torn: laid out again
        }
      }
      const fresh = await renderSvg(dot);
      await shelf?.write(key, JSON.stringify({ format: SVG_FORMAT, key, svg: fresh })).catch(() => undefined);
      return fresh;
    })();
    memory.set(key, laidOut);
    laidOut.then(
      (text) => void (memory.get(key) === laidOut && settled.set(key, text)),
      () => memory.delete(key),
    );
    for (const oldest of memory.keys()) {
      if (memory.size <= entries) break;
      memory.delete(oldest);
      settled.delete(oldest);
    }
    return laidOut;
  };
  return { svg, inline: async (dot) => inline(await svg(dot)), known: (dot) => settled.get(svgKey(dot)) };
};
