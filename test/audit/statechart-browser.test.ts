/**
 * The statechart is legible, measured in headless Debian chromium (playwright-core, /usr/bin/chromium;
 * skipped with the reason printed only when it is missing): for every product machine, each view its page
 * carries — the whole machine and every state's focus view (graph/render.ts renderChartViews) — is shown
 * in turn and read back as the browser laid it out (getBBox of every text, label and shape, mapped to the
 * SVG's user space), and
 *   - no two edge labels intersect, and no edge label intersects a state's box or a cluster's title
 *     (touching within 1 px allowed);
 *   - every state's text lies inside its shape, every cluster's title inside its cluster;
 *   - every label, node, cluster title and text lies inside the SVG's viewBox (nothing clipped);
 *   - no two drawn edges join the same ordered pair of states (parallel transitions are one edge);
 *   - the page opens on a focus view (the machine's initial state) no larger than its box; +/−, Ctrl +
 *     wheel, drag, "fit" and "whole machine" change the view and restore it; the plain wheel scrolls the
 *     page and leaves the drawing alone; a neighbour's box focuses on it.
 * On a resource page the current state's node lies in the middle of the graph box after load, in its
 * focus view, with the current transition highlighted in every view.
 * Readability at first view (fonts ≥ 11 px, the focus and its transitions in view):
 * statechart-readability-browser.test.ts. Screenshots: test/artifacts/statechart-<machine>.png for every
 * machine (the whole machine, fitted), statechart-serverLifecycle-zoomed.png (the wheel over a junction),
 * statechart-resource.png.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry, productMachines } from '../../machines/index.js';
import { startAuditServer, type AuditServer } from '../../src/audit/web/server.js';
import { recordRebuildHistory, REBUILD_STREAM } from './support/rebuild-history.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = 'test/artifacts';

export interface Box { x: number; y: number; w: number; h: number; what: string }

export interface ChartGeometry {
  viewBox: Box;
  /** One per drawn edge: the union of its label's texts (and label cells). */
  labels: Array<Box & { from: string; to: string }>;
  /** State boxes (atomic states, initial points) and cluster titles. */
  nodes: Box[];
  /** A text outside its node's shape, or a cluster title outside its cluster. */
  textOutside: string[];
  /** Every text of the drawing. */
  texts: Box[];
  /** Ordered pairs of states joined by more than one drawn edge. */
  pairs: Record<string, number>;
}

/** Runs in the page: the rendered chart's boxes in the root SVG's user space. */
export const measureChart = (page: Page, selector = '#graph svg.chart-view.shown'): Promise<ChartGeometry> =>
  page.evaluate((sel) => {
    const svg = document.querySelector(sel) as SVGSVGElement;
    const toRoot = (el: SVGGraphicsElement) => {
      const b = el.getBBox();
      const m = (svg.getScreenCTM() as DOMMatrix).inverse().multiply(el.getScreenCTM() as DOMMatrix);
      const pts = [new DOMPoint(b.x, b.y), new DOMPoint(b.x + b.width, b.y), new DOMPoint(b.x, b.y + b.height), new DOMPoint(b.x + b.width, b.y + b.height)].map((p) => p.matrixTransform(m));
      const xs = pts.map((p) => p.x);
      const ys = pts.map((p) => p.y);
      return { x: Math.min(...xs), y: Math.min(...ys), w: Math.max(...xs) - Math.min(...xs), h: Math.max(...ys) - Math.min(...ys) };
    };
    const union = (boxes: Array<{ x: number; y: number; w: number; h: number }>) => {
      const x = Math.min(...boxes.map((b) => b.x));
      const y = Math.min(...boxes.map((b) => b.y));
      return { x, y, w: Math.max(...boxes.map((b) => b.x + b.w)) - x, h: Math.max(...boxes.map((b) => b.y + b.h)) - y };
    };
    const inside = (a: { x: number; y: number; w: number; h: number }, b: { x: number; y: number; w: number; h: number }) =>
      a.x >= b.x - 1 && a.y >= b.y - 1 && a.x + a.w <= b.x + b.w + 1 && a.y + a.h <= b.y + b.h + 1;
    const title = (g: Element) => g.querySelector(':scope > title')?.textContent ?? g.id;
    const vb = svg.viewBox.baseVal;
    // The SVG's own (unzoomed) viewBox, as the server drew it.
    const full = svg.dataset.viewBox ? svg.dataset.viewBox.split(/\s+/).map(Number) : [vb.x, vb.y, vb.width, vb.height];
    const labels: ChartGeometry['labels'] = [];
    const pairs: Record<string, number> = {};
    for (const g of svg.querySelectorAll('g.edge')) {
      const name = title(g);
      const texts = [...g.querySelectorAll('text')] as SVGGraphicsElement[];
      const [from, to] = name.split('->');
      if (!g.classList.contains('initial')) pairs[name] = (pairs[name] ?? 0) + 1;
      if (texts.length === 0) continue;
      labels.push({ ...union(texts.map(toRoot)), what: `${name}: ${texts.map((t) => t.textContent).join(' | ')}`, from: from ?? '', to: to ?? '' });
    }
    const nodes: Box[] = [];
    const textOutside: string[] = [];
    for (const g of svg.querySelectorAll('g.node')) {
      const shape = g.querySelector('path, polygon, ellipse') as SVGGraphicsElement | null;
      if (!shape) continue;
      const box = toRoot(shape);
      nodes.push({ ...box, what: title(g) });
      for (const t of g.querySelectorAll('text')) {
        const tb = toRoot(t as SVGGraphicsElement);
        if (!inside(tb, box)) textOutside.push(`${title(g)}: "${t.textContent}" ${JSON.stringify(tb)} outside ${JSON.stringify(box)}`);
      }
    }
    for (const g of svg.querySelectorAll('g.cluster')) {
      const shape = g.querySelector(':scope > path, :scope > polygon') as SVGGraphicsElement | null;
      const texts = [...g.querySelectorAll('text')] as SVGGraphicsElement[];
      if (!shape || texts.length === 0) continue;
      const box = toRoot(shape);
      const head = union(texts.map(toRoot));
      nodes.push({ ...head, what: `${title(g)} (title)` });
      for (const t of texts) {
        const tb = toRoot(t);
        if (!inside(tb, box)) textOutside.push(`${title(g)}: "${t.textContent}" outside its cluster`);
      }
    }
    const texts = ([...svg.querySelectorAll('text')] as SVGGraphicsElement[]).map((t) => ({ ...toRoot(t), what: `text "${t.textContent}"` }));
    return { viewBox: { x: full[0] as number, y: full[1] as number, w: full[2] as number, h: full[3] as number, what: 'viewBox' }, labels, nodes, textOutside, texts, pairs };
  }, selector);

/** Overlap of two boxes beyond touching (1 px). */
const at = (b: Box): string => `[${Math.round(b.x)},${Math.round(b.y)} ${Math.round(b.w)}×${Math.round(b.h)}]`;
const overlaps = (a: Box, b: Box): boolean => Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 1 && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 1;
const within = (a: Box, b: Box): boolean => a.x >= b.x - 1 && a.y >= b.y - 1 && a.x + a.w <= b.x + b.w + 1 && a.y + a.h <= b.y + b.h + 1;

/** Every legibility problem of one chart, as text (empty when legible). */
export const problemsOf = (g: ChartGeometry): { labelLabel: string[]; labelNode: string[]; textOutside: string[]; clipped: string[]; parallel: string[] } => {
  const labelLabel: string[] = [];
  for (let i = 0; i < g.labels.length; i++)
    for (let j = i + 1; j < g.labels.length; j++) if (overlaps(g.labels[i] as Box, g.labels[j] as Box)) labelLabel.push(`${g.labels[i]?.what} ${at(g.labels[i] as Box)}  ×  ${g.labels[j]?.what} ${at(g.labels[j] as Box)}`);
  const labelNode: string[] = [];
  for (const l of g.labels) for (const n of g.nodes) if (overlaps(l, n)) labelNode.push(`${l.what} ${at(l)}  ×  ${n.what} ${at(n)}`);
  const clipped = [...g.labels, ...g.nodes, ...g.texts].filter((b) => !within(b, g.viewBox)).map((b) => `${b.what} ${JSON.stringify({ x: b.x, y: b.y, w: b.w, h: b.h })} outside ${JSON.stringify(g.viewBox)}`);
  const parallel = Object.entries(g.pairs).filter(([, n]) => n > 1).map(([pair, n]) => `${n}× ${pair}`);
  return { labelLabel, labelNode, textOutside: g.textOutside, clipped, parallel };
};

describe('audit web: a legible statechart, measured in headless chromium', function () {
  this.timeout(120_000);
  let dir: string;
  let server: AuditServer;
  let context: BrowserContext | undefined;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    (skipped: ${CHROMIUM} is missing; install it with apt-get install -y chromium, as .ci/run does)`);
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), 'regent-chart-'));
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    server = await startAuditServer({ port: 0, host: '127.0.0.1', store, registry: createProductRegistry() });
    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 } });
    // tsx names the functions it compiles with a helper the page does not have.
    await context.addInitScript({ content: 'window.__name = (f) => f;' });
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  after(async () => {
    await context?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Shows one view of the chart box (`whole`, or a state's focus view) and returns the views there are. */
  const showView = (page: Page, which: string | null) =>
    page.evaluate((w) => {
      const views = [...document.querySelectorAll('#graph svg.chart-view')] as SVGSVGElement[];
      if (w !== null) for (const v of views) v.classList.toggle('shown', (v.dataset.view === 'whole' ? 'whole' : v.dataset.focus) === w);
      return views.map((v) => (v.dataset.view === 'whole' ? 'whole' : (v.dataset.focus as string)));
    }, which);

  for (const definition of productMachines) {
    it(`${definition.id}: in every view no label overlaps a label or a node, text inside its node, nothing clipped, one edge per pair of states; opens on a focus view that fits its box`, async () => {
      const page = await (context as BrowserContext).newPage();
      await page.goto(`${server.url}machines/${definition.id}?version=${definition.version}`, { timeout: 100_000 });
      await page.waitForSelector('#graph[data-view="fit"]', { timeout: 5000 });
      // Opens on the initial state's focus view, no larger than its box.
      const fit = await page.evaluate(() => {
        const box = (document.getElementById('graph') as HTMLElement).getBoundingClientRect();
        const svg = (document.querySelector('#graph svg.chart-view.shown') as SVGSVGElement).getBoundingClientRect();
        const graph = document.getElementById('graph') as HTMLElement;
        return { box: { w: box.width, h: box.height }, svg: { w: svg.width, h: svg.height }, chart: graph.dataset.chart, focus: graph.dataset.focus };
      });
      expect(fit.chart, 'the first view').to.equal('focus');
      expect(fit.svg.w).to.be.at.most(fit.box.w + 1);
      expect(fit.svg.h).to.be.at.most(fit.box.h + 1);
      const views = await showView(page, null);
      expect(views[0]).to.equal('whole');
      expect(views.length, 'a focus view per state').to.be.greaterThan(1);
      const totals: Record<string, number> = {};
      let labels = 0;
      for (const view of views) {
        await showView(page, view);
        const geometry = await measureChart(page);
        labels += geometry.labels.length;
        const found = problemsOf(geometry);
        for (const [k, v] of Object.entries(found)) totals[k] = (totals[k] ?? 0) + v.length;
        expect(found.labelLabel, `${view}: edge labels that intersect`).to.deep.equal([]);
        expect(found.labelNode, `${view}: edge labels over a node`).to.deep.equal([]);
        expect(found.textOutside, `${view}: text outside its node`).to.deep.equal([]);
        expect(found.clipped, `${view}: outside the viewBox`).to.deep.equal([]);
        expect(found.parallel, `${view}: parallel edges`).to.deep.equal([]);
        if (view === 'whole') {
          // The whole machine, fitted (below the readable scale: for the picture only).
          await page.evaluate(() => {
            const svg = document.querySelector('#graph svg.chart-view.shown') as SVGSVGElement;
            svg.setAttribute('viewBox', svg.dataset.viewBox as string);
          });
          await page.screenshot({ path: `${ARTIFACTS}/statechart-${definition.id}.png` });
        }
      }
      console.log(`    ${definition.id}: ${views.length} views, ${labels} labels; ${JSON.stringify(totals)}`);
      await page.close();
    });
  }

  it('the measurement sees each kind of problem: a drawing broken on purpose fails every check', async () => {
    const page = await (context as BrowserContext).newPage();
    await page.goto(`${server.url}machines/serverRebuild`);
    await page.waitForSelector('#graph[data-view="fit"]');
    // The whole machine (the button, as a reader would).
    await page.click('#view-toggle');
    await page.waitForSelector('#graph[data-chart="whole"]');
    const before = problemsOf(await measureChart(page));
    expect(Object.values(before).flat()).to.deep.equal([]);
    await page.evaluate(() => {
      const svg = document.querySelector('#graph svg.chart-view.shown') as SVGSVGElement;
      const edges = [...svg.querySelectorAll('g.edge')].filter((g) => g.querySelector('text'));
      const nodes = [...svg.querySelectorAll('g.node')].filter((g) => g.querySelector('text'));
      const at = (g: Element) => g.querySelector('text') as SVGTextElement;
      const moveTexts = (g: Element, to: SVGTextElement) =>
        g.querySelectorAll('text').forEach((t) => { t.setAttribute('x', to.getAttribute('x') as string); t.setAttribute('y', to.getAttribute('y') as string); });
      // One label drawn onto another, one onto a state's box.
      moveTexts(edges[0] as Element, at(edges[1] as Element));
      moveTexts(edges[2] as Element, at(nodes[1] as Element));
      // A state's text pushed out of its box, past the viewBox's right edge.
      const t = at(nodes[2] as Element);
      t.setAttribute('x', String(svg.viewBox.baseVal.width + 200));
      // A second edge between the same two states.
      (edges[3] as Element).parentNode?.appendChild((edges[3] as Element).cloneNode(true));
    });
    const broken = problemsOf(await measureChart(page));
    expect(broken.labelLabel, 'overlapping labels').to.have.length.greaterThan(0);
    expect(broken.labelNode, 'a label over a node').to.have.length.greaterThan(0);
    expect(broken.textOutside, 'text outside its node').to.have.length.greaterThan(0);
    expect(broken.clipped, 'clipped').to.have.length.greaterThan(0);
    expect(broken.parallel, 'parallel edges').to.have.length(1);
    await page.close();
  });

  it('zoom (+/−, Ctrl + wheel; the plain wheel scrolls the page), drag to pan, "fit" and "whole machine" change the view and restore it; a neighbour focuses', async () => {
    const page = await (context as BrowserContext).newPage();
    await page.goto(`${server.url}machines/serverLifecycle`);
    await page.waitForSelector('#graph[data-view="fit"]');
    const view = () => page.evaluate(() => (document.querySelector('#graph svg.chart-view.shown') as SVGSVGElement).getAttribute('viewBox'));
    const graph = () => page.evaluate(() => ({ ...(document.getElementById('graph') as HTMLElement).dataset }));
    expect(await graph()).to.deep.include({ chart: 'focus', focus: 'serverLifecycle.absent', view: 'fit' });
    const fitted = await view();
    await page.click('#zoom-in');
    const zoomed = await view();
    expect(zoomed).to.not.equal(fitted);
    const [, , w1] = (zoomed as string).split(' ').map(Number);
    const [, , w0] = (fitted as string).split(' ').map(Number);
    expect(w1 as number).to.be.lessThan(w0 as number);
    const box = (await page.locator('#graph').boundingBox()) as { x: number; y: number; width: number; height: number };
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 80, box.y + box.height / 2 + 40, { steps: 4 });
    await page.mouse.up();
    const panned = await view();
    expect(panned).to.not.equal(zoomed);
    expect((panned as string).split(' ')[2]).to.equal((zoomed as string).split(' ')[2]);
    // The plain wheel scrolls the page, never the drawing; Ctrl + wheel (a pinch) zooms.
    await page.mouse.wheel(0, 200);
    expect(await view(), 'the plain wheel leaves the drawing alone').to.equal(panned);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, 200);
    await page.keyboard.up('Control');
    const wheeled = await view();
    expect(Number((wheeled as string).split(' ')[2])).to.be.greaterThan(Number((panned as string).split(' ')[2]));
    await page.click('#zoom-out');
    await page.click('#zoom-fit');
    expect(await view()).to.equal(fitted);
    // w: the whole machine, centred on the focus state at the readable scale; w again: back.
    await page.keyboard.press('w');
    expect(await graph()).to.deep.include({ chart: 'whole', focus: 'serverLifecycle.absent' });
    expect(await page.textContent('#view-toggle')).to.equal('focus: absent');
    // The wheel zooms about the pointer: over the junction into `deleted` its grid becomes readable.
    await page.click('#zoom-fit');
    await page.keyboard.press('-');
    await page.keyboard.press('-');
    const junction = await page.evaluate(() => {
      const g = [...document.querySelectorAll('#graph svg.shown g.edge.junction-out')].find((e) => e.textContent?.includes('nothingToDelete'));
      const r = (g?.querySelector('text') as SVGTextElement | null)?.getBoundingClientRect();
      return r ? { x: r.left + r.width / 2, y: r.top + r.height / 2 } : null;
    });
    expect(junction, 'the nothingToDelete junction').to.not.equal(null);
    await page.mouse.move((junction as { x: number }).x, (junction as { y: number }).y);
    await page.keyboard.down('Control');
    for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -300);
    await page.keyboard.up('Control');
    await page.screenshot({ path: `${ARTIFACTS}/statechart-serverLifecycle-zoomed.png` });
    console.log(`    screenshot: ${ARTIFACTS}/statechart-serverLifecycle-zoomed.png`);
    await page.keyboard.press('w');
    expect(await graph()).to.deep.include({ chart: 'focus', focus: 'serverLifecycle.absent', view: 'fit' });
    expect(await view()).to.equal(fitted);
    // The keys the help lists: + zooms in, - out, 0 fits.
    await page.keyboard.press('+');
    expect(Number((await view() as string).split(' ')[2])).to.be.lessThan(w0 as number);
    await page.keyboard.press('0');
    expect(await view()).to.equal(fitted);
    expect(await page.evaluate(() => document.getElementById('graph')?.dataset.view)).to.equal('fit');
    // A neighbour's box focuses on that state.
    await page.click('#graph svg.shown g.node.neighbour.out >> nth=0');
    const next = await graph();
    expect(next.chart).to.equal('focus');
    expect(next.focus).to.not.equal('serverLifecycle.absent');
    expect(await page.evaluate(() => (document.querySelector('#graph svg.chart-view.shown') as SVGSVGElement).dataset.focus)).to.equal(next.focus);
    await page.close();
  });

  it('a resource page: the current state is inside the graph box after load', async () => {
    const page = await (context as BrowserContext).newPage();
    await page.goto(`${server.url}streams/${REBUILD_STREAM}`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('#graph[data-view]');
    const where = await page.evaluate(() => {
      const graph = (document.getElementById('graph') as HTMLElement).getBoundingClientRect();
      const nodes = [...document.querySelectorAll('#graph svg.shown g.node.current-state')].filter((g) => g.querySelector('path, polygon'));
      const node = nodes[nodes.length - 1] as SVGGElement | undefined;
      const shape = node?.querySelector('path, polygon') as SVGGraphicsElement | undefined;
      const r = shape?.getBoundingClientRect();
      return {
        id: node?.id,
        graph: { left: graph.left, top: graph.top, right: graph.right, bottom: graph.bottom },
        node: r ? { left: r.left, top: r.top, right: r.right, bottom: r.bottom } : null,
        state: document.getElementById('current-state')?.textContent,
      };
    });
    // The last event (cleared, from Succeeded) went through the junction into noMarker: its grid cell
    // is the current transition, and both its edge in and the junction's edge out are highlighted, in
    // every view that draws them.
    const lit = await page.evaluate(() => ({
      cells: [...new Set([...document.querySelectorAll('#graph svg .current')].map((el) => el.id.replace(/^a_/, '')))],
      edges: [...new Set([...document.querySelectorAll('#graph svg .current-edge')].map((el) => el.id))].sort(),
      view: (document.querySelector('#graph svg.chart-view.shown') as SVGSVGElement).dataset.focus,
    }));
    expect(lit.cells).to.deep.equal(['e--serverRebuild.Succeeded--reconcile--3']);
    // (In Succeeded's focus view the same transition is a row of its edge out to noMarker: lit there too.)
    expect(lit.edges).to.deep.equal(['e--serverRebuild.Succeeded--reconcile--3--in', 'p--j--serverRebuild.noMarker--0--serverRebuild.noMarker', 'p--serverRebuild.Succeeded--serverRebuild.noMarker']);
    expect(lit.view, 'the current state in focus').to.equal('serverRebuild.noMarker');
    expect(where.state).to.equal('noMarker');
    expect(where.id).to.equal('n--serverRebuild.noMarker');
    const n = where.node as NonNullable<typeof where.node>;
    expect(n, 'current state node').to.not.equal(null);
    expect(n.left).to.be.at.least(where.graph.left - 1);
    expect(n.right).to.be.at.most(where.graph.right + 1);
    expect(n.top).to.be.at.least(where.graph.top - 1);
    expect(n.bottom).to.be.at.most(where.graph.bottom + 1);
    // Centred as far as keeping its whole focus view in the box allows: within a quarter of the box.
    const cx = (n.left + n.right) / 2 - (where.graph.left + where.graph.right) / 2;
    const cy = (n.top + n.bottom) / 2 - (where.graph.top + where.graph.bottom) / 2;
    expect(Math.abs(cx), 'horizontal offset from the centre').to.be.lessThan((where.graph.right - where.graph.left) / 4);
    expect(Math.abs(cy), 'vertical offset from the centre').to.be.lessThan((where.graph.bottom - where.graph.top) / 4);
    await page.screenshot({ path: `${ARTIFACTS}/statechart-resource.png` });
    console.log(`    screenshot: ${ARTIFACTS}/statechart-resource.png`);
    // Narrower (the graph above the panels): the view keeps its centre, so the state stays in the box.
    await page.setViewportSize({ width: 900, height: 900 });
    await page.waitForTimeout(200);
    const after = await page.evaluate(() => {
      const graph = (document.getElementById('graph') as HTMLElement).getBoundingClientRect();
      const r = (document.querySelector('#graph svg.shown g.node.current-state path') as SVGGraphicsElement).getBoundingClientRect();
      return { w: graph.width, h: graph.height, dx: (r.left + r.right) / 2 - (graph.left + graph.right) / 2, dy: (r.top + r.bottom) / 2 - (graph.top + graph.bottom) / 2, inside: r.left >= graph.left - 1 && r.right <= graph.right + 1 && r.top >= graph.top - 1 && r.bottom <= graph.bottom + 1 };
    });
    expect(after.inside, 'current state inside the box after a resize').to.equal(true);
    expect(Math.abs(after.dx)).to.be.lessThan(after.w / 4);
    expect(Math.abs(after.dy)).to.be.lessThan(after.h / 4);
    await page.close();
  });
});
