/**
 * The plan view in headless Debian chromium (playwright-core, /usr/bin/chromium; skipped with the reason printed when
 * it is missing — .ci/run installs it), issue 32: paste the README walkthrough's change of web-2's image, click Plan,
 * and the page shows the destructive rebuild — the R3 arm, the R11 submission declaring nova.rebuild, DESTRUCTIVE —
 * and each machine's statechart with the states and transitions the plan takes highlighted, numbered by step, the
 * destructive one drawn apart; the same plan from an uploaded file (the file input, read in the browser); a bad
 * manifest shows its message. No console error, no failed request, nothing loaded from another origin. Screenshots
 * go to test/artifacts/.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { createProductRegistry } from '../../machines/index.js';
import { startAuditServer, type AuditServer } from '../../src/audit/web/server.js';
import type { AuditPlanner } from '../../src/audit/web/plan-routes.js';
import { connect } from '../../src/openstack/session.js';
import { plan } from '../../src/plan/planner.js';
import { IMAGES, serverManifest, startPlanRig, type PlanRig } from '../plan/support/rig.js';
import { ARTIFACTS, CHROMIUM, withPage } from './support/chromium.js';

/** Console errors, page errors, failed requests and requests to another origin, as text. */
const watch = (page: Page, origin: string): string[] => {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  page.on('request', (request) => {
    if (!request.url().startsWith(origin)) problems.push(`elsewhere: ${request.url()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  return problems;
};

/**
 * What the shown view of a chart marks: the step selected, the view, the marked states and transitions. Plain
 * JavaScript text (tsx names the functions a test declares with a helper the page does not have).
 */
const CHART_STATE = `(machine) => {
  const section = document.querySelector('section.plan-chart[data-machine="' + machine + '"]');
  const shown = section.querySelector('svg.chart-view.shown');
  const ids = (selector) => [...shown.querySelectorAll(selector)].map((el) => el.id);
  const box = section.querySelector('.plan-graph').getBoundingClientRect();
  const focus = shown.querySelector('g.node.focus') || shown.querySelector('g.node.current-state');
  const r = focus ? focus.getBoundingClientRect() : null;
  // the smallest text of the shown view on screen: one drawing unit per pixel keeps every text at 11 px or more
  const scale = shown.getBoundingClientRect().width / shown.viewBox.baseVal.width;
  return {
    step: section.dataset.step,
    view: section.dataset.view,
    focus: section.dataset.focus,
    viewsShown: section.querySelectorAll('svg.chart-view.shown').length,
    currentCells: ids('.current'),
    currentEdges: ids('g.edge.current-edge'),
    enteredStates: ids('g.node.current-state'),
    leftStates: ids('g.node.plan-from'),
    destructiveCells: ids('.plan-destructive'),
    takenCells: ids('.plan-taken'),
    stepLabels: [...shown.querySelectorAll('text')].map((t) => t.textContent || '').filter((t) => / · plan · step \\d/.test(t)),
    focusInBox: r !== null && r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1,
    smallest: Math.min(...[...shown.querySelectorAll('text')].map((t) => Number(t.getAttribute('font-size') || '14') * scale)),
  };
}`;

interface ChartState {
  step: string;
  view: string;
  focus: string;
  viewsShown: number;
  currentCells: string[];
  currentEdges: string[];
  enteredStates: string[];
  leftStates: string[];
  destructiveCells: string[];
  takenCells: string[];
  stepLabels: string[];
  focusInBox: boolean;
  smallest: number;
}

const chartState = (page: Page, machine: string): Promise<ChartState> => page.evaluate(`(${CHART_STATE})(${JSON.stringify(machine)})`);

describe('audit web: the plan view in headless chromium (paste, upload, the decisions over each statechart)', function () {
  this.timeout(120_000);
  let rig: PlanRig;
  let server: AuditServer;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    (skipped: ${CHROMIUM} is missing; install it with apt-get install -y chromium, as .ci/run does)`);
      this.skip();
    }
    rig = await startPlanRig();
    await rig.bringUp('web-2', IMAGES.A);
    const planner: AuditPlanner = (request) =>
      plan({
        store: rig.store,
        source: rig.source,
        documents: request.documents,
        connect: (c) => connect(c, { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 5_000 }),
        processRegion: { name: 'default', cloud: rig.cloud, session: rig.os },
        ...(request.only ? { only: request.only } : {}),
      });
    server = await startAuditServer({ store: rig.store, registry: createProductRegistry(), planner });
  });
  after(async () => {
    await server?.close();
    await rig?.close();
  });

  const planned = async (page: Page) => {
    await page.click('#plan-submit');
    await page.waitForFunction(() => document.body.dataset.plan === 'done' || document.body.dataset.plan === 'error', undefined, { timeout: 30_000 });
    expect(await page.evaluate(() => document.body.dataset.plan)).to.equal('done');
  };

  /** What a plan of web-2's image change shows, whichever way its manifest came. */
  const expectRebuildPlan = async (page: Page) => {
    // the resource: planned (configured), DESTRUCTIVE; the summary says regent plan would exit 2
    const resource = page.locator('section.plan-resource[data-resource="Server/default/web-2"]');
    expect(await resource.getAttribute('data-verdict')).to.equal('planned');
    expect(await resource.locator('h2 .plan-flag.destructive').textContent()).to.equal('DESTRUCTIVE');
    expect(await page.textContent('#plan-summary')).to.match(/1 destructive decision\(s\): nova\.rebuild on Server default\/web-2 \(regent plan would exit 2\)/);
    // the rows: the arm (R3, not destructive), the submission (R11, nova.rebuild, DESTRUCTIVE), what it waits for
    const r3 = resource.locator('tr.plan-decision[data-rule="R3"]');
    expect(await r3.getAttribute('class')).to.equal('plan-decision');
    expect(await r3.locator('td.plan-from-to').textContent()).to.equal('noMarker → Initiated');
    const r11 = resource.locator('tr.plan-decision[data-rule="R11"]');
    expect(await r11.getAttribute('class')).to.equal('plan-decision destructive');
    expect(await r11.locator('.plan-effect[data-effect="nova.rebuild"] .plan-flag').textContent()).to.equal('DESTRUCTIVE');
    expect(await r11.locator('.plan-call').textContent()).to.match(new RegExp(`^compute: POST /servers/[0-9a-f-]+/action \\{"rebuild":\\{"imageRef":"${IMAGES.B}"\\}\\}$`));
    expect(await r11.locator('.plan-rule-says').textContent()).to.match(/^submit the rebuild/);
    // the DESTRUCTIVE flag is prominent: white on red
    const flag = await r11.locator('.plan-flag').evaluate((el) => ({ color: getComputedStyle(el).color, background: getComputedStyle(el).backgroundColor }));
    expect(flag).to.deep.equal({ color: 'rgb(255, 255, 255)', background: 'rgb(198, 40, 40)' });
    expect(await resource.locator('.plan-stops').textContent()).to.equal('stops: after Nova accepts the rebuild: waits for task_state to clear');

    // serverRebuild's chart opens on step 2 (the arm), on the focus view of the state it leaves
    const first = await chartState(page, 'serverRebuild');
    expect(first).to.include({ step: '2', view: 'focus', focus: 'serverRebuild.noMarker', viewsShown: 1, focusInBox: true });
    expect(first.currentCells).to.include('a_e--serverRebuild.noMarker--reconcile--2');
    expect(first.currentEdges).to.deep.equal(['p--serverRebuild.noMarker--serverRebuild.Initiated']);
    expect(first.leftStates).to.deep.equal(['n--serverRebuild.noMarker']);
    expect(first.stepLabels).to.deep.equal(['×1 · plan · step 2']);
    expect(first.smallest).to.be.at.least(11);
    // step 3: the destructive submission, a transition inside Initiated, drawn apart; both steps numbered
    await page.click('section.plan-chart[data-machine="serverRebuild"] button.plan-step[data-step="3"]');
    const third = await chartState(page, 'serverRebuild');
    expect(third).to.include({ step: '3', view: 'focus', focus: 'serverRebuild.Initiated', viewsShown: 1, focusInBox: true });
    expect(third.currentCells).to.include('a_e--serverRebuild.Initiated--reconcile--7');
    expect(third.destructiveCells).to.include('a_e--serverRebuild.Initiated--reconcile--7');
    expect(third.enteredStates).to.include('n--serverRebuild.Initiated');
    expect(third.stepLabels).to.include('×1 · plan · step 3');
    const cell = await page.locator('section.plan-chart[data-machine="serverRebuild"] svg.chart-view.shown [id="a_e--serverRebuild.Initiated--reconcile--7"] polygon').first().evaluate((polygon) => getComputedStyle(polygon).stroke);
    expect(cell, 'the destructive step is outlined in red').to.equal('rgb(198, 40, 40)');
    // the whole machine: both steps' transitions numbered, the arm's edge marked taken
    await page.click('section.plan-chart[data-machine="serverRebuild"] button.plan-whole');
    const whole = await chartState(page, 'serverRebuild');
    expect(whole).to.include({ view: 'whole', viewsShown: 1, focusInBox: true });
    expect(whole.stepLabels.sort()).to.deep.equal(['×1 · plan · step 2', '×1 · plan · step 3']);
    expect(whole.takenCells).to.include('a_e--serverRebuild.noMarker--reconcile--2');
    expect(whole.destructiveCells).to.include('a_e--serverRebuild.Initiated--reconcile--7');
    await page.click('section.plan-chart[data-machine="serverRebuild"] button.plan-whole');
    expect((await chartState(page, 'serverRebuild')).view).to.equal('focus');
    // the lifecycle decided too (step 1: present, no rule label): its own chart
    expect(await page.locator('section.plan-chart[data-machine="serverLifecycle"] button.plan-step[data-step="1"]').count()).to.equal(1);
  };

  it('paste the walkthrough\'s change of web-2\'s image, click Plan: the destructive rebuild (R3, R11) over the statechart', async () => {
    await withPage({ width: 1400, height: 900 }, async (page) => {
      const problems = watch(page, server.url.replace(/\/$/, ''));
      await page.goto(`${server.url}plan`);
      await page.waitForFunction(() => document.body.dataset.plan === 'ready');
      await page.fill('#plan-manifests', serverManifest('web-2', IMAGES.B));
      await planned(page);
      await expectRebuildPlan(page);
      // as on the other pages: a neighbour's box shows that state, "N own transitions ›" the whole machine there
      const chart = 'section.plan-chart[data-machine="serverRebuild"]';
      await page.click(`${chart} button.plan-step[data-step="2"]`);
      await page.click(`${chart} svg.chart-view.shown g.node.neighbour[id="f--serverRebuild.Initiated--out"]`);
      expect(await chartState(page, 'serverRebuild')).to.include({ view: 'focus', focus: 'serverRebuild.Initiated' });
      await page.click(`${chart} svg.chart-view.shown [id^="a_more--"] a`);
      expect(await chartState(page, 'serverRebuild')).to.include({ view: 'whole' });
      expect(page.url()).to.equal(`${server.url}plan`);
      await page.click(`${chart} button.plan-whole`);
      await page.click(`${chart} button.plan-step[data-step="3"]`);
      await page.locator('section.plan-resource[data-resource="Server/default/web-2"]').screenshot({ path: `${ARTIFACTS}/plan-view.png` });
      console.log(`    screenshot: ${ARTIFACTS}/plan-view.png`);
      expect(problems).to.deep.equal([]);
    });
  });

  it('upload a file instead (read in the browser, sent as text): the same plan; a bad manifest shows its message', async () => {
    await withPage({ width: 1400, height: 900 }, async (page) => {
      const problems = watch(page, server.url.replace(/\/$/, ''));
      await page.goto(`${server.url}plan`);
      await page.waitForFunction(() => document.body.dataset.plan === 'ready');
      expect(await page.getAttribute('#plan-files', 'type')).to.equal('file');
      await page.setInputFiles('#plan-files', [{ name: 'web-2-image-b.yaml', mimeType: 'application/yaml', buffer: Buffer.from(serverManifest('web-2', IMAGES.B)) }]);
      expect(await page.textContent('#plan-file-list')).to.equal('1 file(s): web-2-image-b.yaml');
      await planned(page);
      expect(await page.textContent('section.plan-resource[data-resource="Server/default/web-2"] > p.muted')).to.equal('from web-2-image-b.yaml: document 1');
      await expectRebuildPlan(page);

      // a manifest that does not parse: its message, where the plan would be
      await page.setInputFiles('#plan-files', []);
      await page.fill('#plan-manifests', 'kind: Server\n  metadata: [');
      await page.click('#plan-submit');
      await page.waitForFunction(() => document.body.dataset.plan === 'error');
      expect(await page.textContent('#plan-error')).to.match(/^pasted manifests: document 1: /);
      expect(await page.locator('section.plan-resource').count()).to.equal(0);
      // the only failure is the 400 answer asked for (and the console's note of it)
      expect(problems.filter((p) => !/^400: .*\/plan\/view$/.test(p) && !/^console: Failed to load resource: .*400/.test(p))).to.deep.equal([]);
    });
  });
});
