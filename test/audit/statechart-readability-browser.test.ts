/**
 * A statechart a person can read (issue 30), measured at the FIRST VIEW of every page that draws one, at
 * 1400×900 in headless Debian chromium (playwright-core, /usr/bin/chromium; skipped with the reason printed
 * only when it is missing):
 *   - every product machine's page (/machines/<id>), focused on the machine's initial state;
 *   - stream pages with a current state: serverRebuild (noMarker) and loadBalancer (provisioned, and its
 *     first event's provisioning by deep link), and the load balancer's resource page (provisioned);
 *   - loadBalancer's whole machine (w), measured for the record: readable, but still a tangle.
 * For each it measures, in the graph box as shown:
 *   - the smallest rendered font of the visible text (font size × the SVG's on-screen scale, getScreenCTM);
 *     fails below 11 px — and again after pressing "fit";
 *   - the focus state's box and its incoming and outgoing edges (paths, arrowheads and labels) in the box,
 *     and how far the box's centre is from the focus state's centre; fails when the focus or one of its
 *     edges is out of view, or the focus is off-centre by more than a quarter of the box;
 *   - edge labels over edge labels and edge labels over state boxes or cluster titles (the checks of
 *     statechart-browser.test.ts, on the drawing shown); fails above 0;
 *   - drawn edge paths through another edge's label, and pairs of edge paths that cross; fails above 0
 *     for loadBalancer (the tangle of issue 30).
 * Prints the table and writes it to /tmp/issue30-font-table.md; screenshots
 * test/artifacts/statechart-<machine>-first-view.png (-stream-, -resource- for those pages).
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry, productMachines } from '../../machines/index.js';
import { statechartOfDefinition, nodeDomId } from '../../src/audit/graph/statechart.js';
import { startAuditServer, type AuditServer } from '../../src/audit/web/server.js';
import { recordRebuildHistory, REBUILD_STREAM } from './support/rebuild-history.js';
import { recordLoadBalancerHistory, LB_STREAM, LB_SUBJECT } from './support/statechart-histories.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = 'test/artifacts';
const TABLE = '/tmp/issue30-font-table.md';
const MIN_FONT_PX = 11;

/** The machine's initial state: the root's initial child, followed down to a state drawn as a box. */
const initialLeaf = (machine: string): string => {
  const definition = productMachines.find((d) => d.id === machine);
  if (!definition) throw new Error(`no machine ${machine}`);
  const chart = statechartOfDefinition(definition);
  const byId = new Map(chart.nodes.map((n) => [n.id, n]));
  let node = byId.get(chart.root);
  while (node && node.children.length > 0 && node.initial) node = byId.get(node.initial);
  return node?.id ?? chart.root;
};

export interface FirstView {
  /** The graph box's client size. */
  box: { w: number; h: number };
  texts: number;
  visibleTexts: number;
  minFontPx: number;
  smallTexts: string[];
  focus: string | null;
  focusInView: boolean;
  /** Focus state's centre minus the box's centre, px. */
  offset: { dx: number; dy: number };
  incident: number;
  incidentOut: string[];
  labelLabel: number;
  labelNode: number;
  pathOverLabel: string[];
  crossings: string[];
}

/**
 * Runs in the page: what the graph box shows. `focusId` is the focus state's DOM id (`n--…`); null: the
 * resource page's current state (the innermost `g.node.current-state` drawn as a box).
 */
const measureFirstView = (page: Page, focusId: string | null): Promise<FirstView> =>
  page.evaluate(
    ({ focusId, minFont }) => {
      type B = { x: number; y: number; w: number; h: number };
      const graph = document.getElementById('graph') as HTMLElement;
      const g = graph.getBoundingClientRect();
      const box = { x: g.left + graph.clientLeft, y: g.top + graph.clientTop, w: graph.clientWidth, h: graph.clientHeight };
      const svgs = [...graph.querySelectorAll('svg')].filter((s) => s.getBoundingClientRect().width > 0 && getComputedStyle(s).display !== 'none') as SVGSVGElement[];
      const svg = svgs[0] as SVGSVGElement;
      const rect = (el: Element): B => {
        const r = el.getBoundingClientRect();
        return { x: r.left, y: r.top, w: r.width, h: r.height };
      };
      const meets = (a: B, b: B) => Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 0 && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 0;
      const within = (a: B, b: B) => a.x >= b.x - 1 && a.y >= b.y - 1 && a.x + a.w <= b.x + b.w + 1 && a.y + a.h <= b.y + b.h + 1;
      // Text: rendered size = its font size (user units) × the on-screen scale of its user space.
      const texts = [...svg.querySelectorAll('text')] as SVGTextElement[];
      const visible = texts.filter((t) => meets(rect(t), box) && (t.textContent ?? '').trim() !== '');
      const px = (t: SVGTextElement) => {
        const m = t.getScreenCTM() as DOMMatrix;
        return parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(m.a * m.a + m.b * m.b);
      };
      const sizes = visible.map((t) => ({ t, px: px(t) }));
      const minFontPx = sizes.length ? Math.min(...sizes.map((s) => s.px)) : Infinity;
      const smallTexts = sizes.filter((s) => s.px < minFont - 0.01).slice(0, 5).map((s) => `"${s.t.textContent}" ${s.px.toFixed(1)}px`);
      // The focus state and its edges (by the titles Graphviz gives them: `a->b`).
      let focusG: Element | null = focusId ? svg.querySelector(`[id="${focusId}"]`) : null;
      if (!focusId) {
        const current = [...svg.querySelectorAll('g.node.current-state')].filter((n) => n.querySelector('path, polygon'));
        focusG = current[current.length - 1] ?? null;
      }
      const title = (el: Element) => el.querySelector(':scope > title')?.textContent ?? '';
      const focusName = focusG ? title(focusG) : null;
      const shape = focusG?.querySelector('path, polygon') ?? null;
      const fr = shape ? rect(shape) : null;
      const offset = fr ? { dx: fr.x + fr.w / 2 - (box.x + box.w / 2), dy: fr.y + fr.h / 2 - (box.y + box.h / 2) } : { dx: NaN, dy: NaN };
      const edges = [...svg.querySelectorAll('g.edge')];
      const ends = (e: Element) => title(e).split('->') as [string, string];
      const viaJunction = new Set(edges.filter((e) => ends(e)[0] === focusName && ends(e)[1].startsWith('j--')).map((e) => ends(e)[1]));
      const incident = edges.filter((e) => { const [a, b] = ends(e); return a === focusName || b === focusName || viaJunction.has(a); });
      const incidentOut = incident.filter((e) => !within(rect(e), box)).map((e) => title(e));
      // Overlaps in the SVG's user space (as statechart-browser.test.ts measures them).
      const toRoot = (el: SVGGraphicsElement): B => {
        const b = el.getBBox();
        const m = (svg.getScreenCTM() as DOMMatrix).inverse().multiply(el.getScreenCTM() as DOMMatrix);
        const pts = [new DOMPoint(b.x, b.y), new DOMPoint(b.x + b.width, b.y + b.height)].map((p) => p.matrixTransform(m));
        return { x: Math.min(pts[0]!.x, pts[1]!.x), y: Math.min(pts[0]!.y, pts[1]!.y), w: Math.abs(pts[1]!.x - pts[0]!.x), h: Math.abs(pts[1]!.y - pts[0]!.y) };
      };
      const union = (bs: B[]): B => {
        const x = Math.min(...bs.map((b) => b.x));
        const y = Math.min(...bs.map((b) => b.y));
        return { x, y, w: Math.max(...bs.map((b) => b.x + b.w)) - x, h: Math.max(...bs.map((b) => b.y + b.h)) - y };
      };
      const overlap = (a: B, b: B) => Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 1 && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 1;
      const labels = edges
        .map((e) => ({ e, texts: [...e.querySelectorAll('text')] as SVGGraphicsElement[] }))
        .filter((l) => l.texts.length > 0)
        .map((l) => ({ e: l.e, b: union(l.texts.map(toRoot)) }));
      const nodes: B[] = [];
      for (const n of svg.querySelectorAll('g.node')) {
        const s = n.querySelector('path, polygon, ellipse') as SVGGraphicsElement | null;
        if (s) nodes.push(toRoot(s));
      }
      for (const c of svg.querySelectorAll('g.cluster')) {
        const ts = [...c.querySelectorAll('text')] as SVGGraphicsElement[];
        if (ts.length) nodes.push(union(ts.map(toRoot)));
      }
      let labelLabel = 0;
      for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) if (overlap(labels[i]!.b, labels[j]!.b)) labelLabel++;
      let labelNode = 0;
      for (const l of labels) for (const n of nodes) if (overlap(l.b, n)) labelNode++;
      // Edge paths, sampled every 3 units, in the root's user space.
      const paths = edges.map((e) => {
        const p = e.querySelector('path') as SVGPathElement | null;
        if (!p) return { e, pts: [] as DOMPoint[] };
        const m = (svg.getScreenCTM() as DOMMatrix).inverse().multiply(p.getScreenCTM() as DOMMatrix);
        const len = p.getTotalLength();
        const pts: DOMPoint[] = [];
        for (let l = 0; l <= len; l += 3) pts.push(p.getPointAtLength(l).matrixTransform(m));
        pts.push(p.getPointAtLength(len).matrixTransform(m));
        return { e, pts };
      });
      const inside = (p: DOMPoint, b: B) => p.x > b.x + 1 && p.x < b.x + b.w - 1 && p.y > b.y + 1 && p.y < b.y + b.h - 1;
      const pathOverLabel: string[] = [];
      for (const p of paths) for (const l of labels) if (l.e !== p.e && p.pts.some((q) => inside(q, l.b))) pathOverLabel.push(`${title(p.e)} through the label of ${title(l.e)}`);
      // Crossings: segments of two paths that intersect, away from their ends (edges meet at shared nodes and junction points).
      const cross = (a: DOMPoint, b: DOMPoint, c: DOMPoint, d: DOMPoint) => {
        const o = (p: DOMPoint, q: DOMPoint, r: DOMPoint) => Math.sign((q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x));
        return o(a, b, c) * o(a, b, d) < 0 && o(c, d, a) * o(c, d, b) < 0;
      };
      const core = (pts: DOMPoint[]) => {
        const first = pts[0];
        const last = pts[pts.length - 1];
        return first && last ? pts.filter((q) => Math.hypot(q.x - first.x, q.y - first.y) > 8 && Math.hypot(q.x - last.x, q.y - last.y) > 8) : [];
      };
      // Segments bucketed on a 24-unit grid: only segments sharing a cell are compared.
      const cell = 24;
      const buckets = new Map<string, Array<{ edge: number; a: DOMPoint; b: DOMPoint }>>();
      paths.forEach((p, edge) => {
        const pts = core(p.pts);
        for (let s = 1; s < pts.length; s++) {
          const a = pts[s - 1] as DOMPoint;
          const b = pts[s] as DOMPoint;
          if (Math.hypot(b.x - a.x, b.y - a.y) > 6) continue; // a gap left by `core` around a junction point
          for (let cx = Math.floor(Math.min(a.x, b.x) / cell); cx <= Math.floor(Math.max(a.x, b.x) / cell); cx++)
            for (let cy = Math.floor(Math.min(a.y, b.y) / cell); cy <= Math.floor(Math.max(a.y, b.y) / cell); cy++) {
              const key = `${cx},${cy}`;
              const list = buckets.get(key) ?? [];
              list.push({ edge, a, b });
              buckets.set(key, list);
            }
        }
      });
      const pairs = new Set<string>();
      for (const list of buckets.values())
        for (let i = 0; i < list.length; i++)
          for (let j = i + 1; j < list.length; j++) {
            const s = list[i]!;
            const t = list[j]!;
            if (s.edge === t.edge) continue;
            const key = `${Math.min(s.edge, t.edge)},${Math.max(s.edge, t.edge)}`;
            if (!pairs.has(key) && cross(s.a, s.b, t.a, t.b)) pairs.add(key);
          }
      const crossings = [...pairs].map((key) => key.split(',').map((i) => title(paths[Number(i)]!.e)).join(' × '));
      return {
        box: { w: box.w, h: box.h },
        texts: texts.length,
        visibleTexts: visible.length,
        minFontPx,
        smallTexts,
        focus: focusName,
        focusInView: fr ? within(fr, box) : false,
        offset,
        incident: incident.length,
        incidentOut,
        labelLabel,
        labelNode,
        pathOverLabel,
        crossings,
      };
    },
    { focusId, minFont: MIN_FONT_PX },
  );

/** The smallest visible font after pressing "fit". */
const minFontAfterFit = async (page: Page): Promise<number> => {
  await page.click('#zoom-fit');
  return page.evaluate(() => {
    const graph = document.getElementById('graph') as HTMLElement;
    const g = graph.getBoundingClientRect();
    const svg = [...graph.querySelectorAll('svg')].find((s) => s.getBoundingClientRect().width > 0) as SVGSVGElement;
    const sizes = ([...svg.querySelectorAll('text')] as SVGTextElement[])
      .filter((t) => {
        const r = t.getBoundingClientRect();
        return (t.textContent ?? '').trim() !== '' && Math.min(r.right, g.right) > Math.max(r.left, g.left) && Math.min(r.bottom, g.bottom) > Math.max(r.top, g.top);
      })
      .map((t) => {
        const m = t.getScreenCTM() as DOMMatrix;
        return parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(m.a * m.a + m.b * m.b);
      });
    return sizes.length ? Math.min(...sizes) : Infinity;
  });
};

interface Row {
  page: string;
  view: FirstView;
  fitFont: number;
}

const rows: Row[] = [];

const tableOf = (list: readonly Row[]): string => {
  const f = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '—');
  const lines = [
    '| page | focus | min font px | after fit | focus in view | focus offset px (dx, dy) | incident edges in view | label×label | label×node | path through a label | crossing pairs |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...list.map(({ page, view: v, fitFont }) =>
      `| ${page} | ${v.focus ?? '—'} | ${f(v.minFontPx)} | ${f(fitFont)} | ${v.focusInView ? 'yes' : 'NO'} | ${Math.round(Math.hypot(v.offset.dx, v.offset.dy))} (${Math.round(v.offset.dx)}, ${Math.round(v.offset.dy)}) | ${v.incident - v.incidentOut.length}/${v.incident} | ${v.labelLabel} | ${v.labelNode} | ${v.pathOverLabel.length} | ${v.crossings.length} |`,
    ),
  ];
  return lines.join('\n');
};

describe('audit web: the statechart at first view, readable (issue 30), at 1400×900', function () {
  this.timeout(120_000);
  let dir: string;
  let server: AuditServer;
  let context: BrowserContext | undefined;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    (skipped: ${CHROMIUM} is missing; install it with apt-get install -y chromium, as .ci/run does)`);
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), 'regent-readable-'));
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    await recordLoadBalancerHistory(store);
    server = await startAuditServer({ port: 0, host: '127.0.0.1', store, registry: createProductRegistry() });
    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1400, height: 900 } });
    await context.addInitScript({ content: 'window.__name = (f) => f;' });
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  after(async () => {
    if (rows.length > 0) {
      const table = tableOf(rows);
      console.log(`\n${table}\n`);
      writeFileSync(TABLE, `# Issue 30: the statechart at first view, 1400×900 (${new Date().toISOString()})\n\n${table}\n`);
      console.log(`    table: ${TABLE}`);
    }
    await context?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const check = (name: string, v: FirstView, fitFont: number, strictEdges: boolean, incidentInView = true) => {
    console.log(`    ${name}: focus ${v.focus}, min font ${v.minFontPx.toFixed(1)} px (after fit ${fitFont.toFixed(1)}), offset (${Math.round(v.offset.dx)}, ${Math.round(v.offset.dy)}), incident ${v.incident - v.incidentOut.length}/${v.incident} in view, overlaps ${v.labelLabel}/${v.labelNode}, path through a label ${v.pathOverLabel.length}, crossings ${v.crossings.length}`);
    expect(v.smallTexts, `${name}: text below ${MIN_FONT_PX} px`).to.deep.equal([]);
    expect(v.minFontPx, `${name}: smallest font`).to.be.at.least(MIN_FONT_PX - 0.01);
    expect(fitFont, `${name}: smallest font after "fit"`).to.be.at.least(MIN_FONT_PX - 0.01);
    expect(v.focus, `${name}: the focus state is drawn`).to.not.equal(null);
    expect(v.focusInView, `${name}: the focus state in view`).to.equal(true);
    expect(Math.abs(v.offset.dx), `${name}: focus off-centre horizontally`).to.be.at.most(v.box.w / 4);
    expect(Math.abs(v.offset.dy), `${name}: focus off-centre vertically`).to.be.at.most(v.box.h / 4);
    if (incidentInView) expect(v.incidentOut, `${name}: incident edges out of view`).to.deep.equal([]);
    expect(v.labelLabel, `${name}: edge labels over edge labels`).to.equal(0);
    expect(v.labelNode, `${name}: edge labels over states`).to.equal(0);
    if (strictEdges) {
      expect(v.pathOverLabel, `${name}: edge paths through labels`).to.deep.equal([]);
      expect(v.crossings, `${name}: crossing edges`).to.deep.equal([]);
    }
  };

  for (const definition of productMachines) {
    it(`${definition.id}: its machine page opens readable on its initial state`, async () => {
      const page = await (context as BrowserContext).newPage();
      await page.goto(`${server.url}machines/${definition.id}?version=${definition.version}`, { timeout: 100_000 });
      await page.waitForSelector('#graph[data-view]');
      const view = await measureFirstView(page, nodeDomId(initialLeaf(definition.id)));
      await page.screenshot({ path: `${ARTIFACTS}/statechart-${definition.id}-first-view.png` });
      const fitFont = await minFontAfterFit(page);
      rows.push({ page: `/machines/${definition.id}`, view, fitFont });
      check(definition.id, view, fitFont, definition.id === 'loadBalancer');
      await page.close();
    });
  }

  it('loadBalancer: "whole machine" (w) shows every state, readable, centred on the initial state (its tangle measured, not asserted)', async () => {
    const page = await (context as BrowserContext).newPage();
    await page.goto(`${server.url}machines/loadBalancer`);
    await page.waitForSelector('#graph[data-view="fit"]');
    await page.keyboard.press('w');
    await page.waitForSelector('#graph[data-chart="whole"]');
    const view = await measureFirstView(page, nodeDomId(initialLeaf('loadBalancer')));
    await page.screenshot({ path: `${ARTIFACTS}/statechart-loadBalancer-whole.png` });
    const fitFont = await minFontAfterFit(page);
    rows.push({ page: '/machines/loadBalancer, whole machine (w)', view, fitFont });
    check('loadBalancer whole', view, fitFont, false, false);
    await page.close();
  });

  for (const [name, path, strict] of [
    ['serverRebuild stream (noMarker)', `streams/${REBUILD_STREAM}`, false],
    ['loadBalancer stream (provisioned)', `streams/${LB_STREAM}`, true],
    ['loadBalancer stream #rev-0 (provisioning)', `streams/${LB_STREAM}#rev-0`, true],
    ['loadBalancer resource page (provisioned)', `resources/${LB_SUBJECT.kind}/${LB_SUBJECT.namespace}/${LB_SUBJECT.name}`, true],
  ] as const) {
    it(`${name}: the page opens readable on its current state`, async () => {
      const page = await (context as BrowserContext).newPage();
      await page.goto(`${server.url}${path}`);
      if (path.startsWith('streams/')) await page.waitForSelector('body[data-ready="true"]');
      else {
        await page.waitForSelector('#graph[data-view="fit"]');
        await page.locator('#graph').scrollIntoViewIfNeeded();
      }
      await page.waitForTimeout(100);
      const view = await measureFirstView(page, null);
      const shot = `${ARTIFACTS}/statechart-${name.split(' ')[0]}-${name.split(' ')[1]}${path.includes('#rev-0') ? '-rev-0' : ''}-first-view.png`;
      await page.screenshot({ path: shot });
      const fitFont = await minFontAfterFit(page);
      rows.push({ page: `/${path}`, view, fitFont });
      check(name, view, fitFont, strict);
      await page.close();
    });
  }
});
