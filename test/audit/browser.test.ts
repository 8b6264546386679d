/**
 * The resource page in a real browser: headless Debian chromium driven by playwright-core (never a
 * downloaded browser). Loads a real rebuild history's page by deep link, steps with the keyboard
 * across a timeline page boundary, and checks that the highlighted edge, the event panel, the state
 * panel and the URL follow; asserts no request leaves the audit server; takes a screenshot under
 * test/artifacts/. Skipped (with the reason printed) only when /usr/bin/chromium is missing; .ci/run
 * installs it, so CI never skips.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { openStore } from '../../src/store/open.js';
import type { EventStore } from '../../src/store/port.js';
import { createProductRegistry } from '../../machines/index.js';
import { startAuditServer, type AuditServer } from '../../src/audit/web/server.js';
import { recordRebuildHistory, REBUILD_STREAM } from './support/rebuild-history.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
export const SCREENSHOT = 'test/artifacts/audit-resource-page.png';

const R11 = 'e--serverRebuild.Initiated--reconcile--7';
const ACCEPTED = 'e--serverRebuild.Initiated--rebuild.accepted--0';
const OBSERVED_IN_INITIATED = 'e--serverRebuild.Initiated--observed--3';

/** What the page shows as current: the highlighted edge (by body data and by the SVG class), and the panels. */
const shown = (page: Page) =>
  page.evaluate(() => {
    // An edge with a tooltip is drawn as <g id="e--…"> holding <g id="a_e--…">: one edge, two elements.
    const highlighted = [...new Set([...document.querySelectorAll('svg .current')].map((el) => el.id.replace(/^a_/, '')))];
    return {
      edge: document.body.dataset.currentEdge,
      highlighted,
      eventRevision: document.getElementById('event-panel')?.dataset.revision,
      eventTitle: document.querySelector('#event-panel h3')?.textContent,
      stateRevision: document.getElementById('state-panel')?.dataset.revision,
      stateTitle: document.querySelector('#state-panel h3')?.textContent,
      selectedRow: document.querySelector('#timeline-rows tr.selected')?.getAttribute('data-revision'),
      hash: location.hash,
    };
  });

describe('audit web: in headless chromium', function () {
  this.timeout(90_000);
  let dir: string;
  let store: EventStore;
  let server: AuditServer;
  let context: BrowserContext | undefined;
  const requests: string[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    (skipped: ${CHROMIUM} is missing; install it with apt-get install -y chromium, as .ci/run does)`);
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), 'regent-browser-'));
    store = await openStore(`sqlite:${join(dir, 'regent.db')}`);
    await recordRebuildHistory(store);
    // 4 rows per timeline page, so stepping from revision 4 to 3 crosses a page boundary.
    server = await startAuditServer({ port: 0, host: '127.0.0.1', store, registry: createProductRegistry(), pageSize: 4 });
    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1600, height: 1000 } });
    context.on('request', (request) => requests.push(request.url()));
  });

  after(async () => {
    await context?.close();
    await server?.close();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a deep link selects its event; ←/→ step through events and the highlighted edge, the panels and the URL follow', async () => {
    const page = await (context as BrowserContext).newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server.url}streams/${REBUILD_STREAM}#rev-4`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('#state-panel[data-revision="4"]');
    let now = await shown(page);
    expect(now).to.deep.include({ edge: R11, eventRevision: '4', selectedRow: '4', hash: '#rev-4', stateRevision: '4' });
    expect(now.highlighted).to.deep.equal([R11]);
    expect(now.eventTitle).to.equal('Event 4 · serverRebuild.submitted');

    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('#event-panel[data-revision="5"]');
    await page.waitForSelector('#state-panel[data-revision="5"]');
    now = await shown(page);
    expect(now).to.deep.include({ edge: ACCEPTED, eventRevision: '5', selectedRow: '5', hash: '#rev-5' });
    expect(now.highlighted).to.deep.equal([ACCEPTED]);
    expect(now.stateTitle).to.equal('State as of revision 5: Rebuilding');

    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.waitForSelector('#event-panel[data-revision="3"]');
    await page.waitForSelector('#state-panel[data-revision="3"]');
    now = await shown(page);
    expect(now).to.deep.include({ edge: OBSERVED_IN_INITIATED, eventRevision: '3', selectedRow: '3', hash: '#rev-3' });
    expect(now.highlighted).to.deep.equal([OBSERVED_IN_INITIATED]);
    expect(now.eventTitle).to.equal('Event 3 · serverRebuild.observed');
    expect(await page.locator('#timeline-rows tr').count()).to.equal(4);
    expect(await page.locator('#page-info').textContent()).to.equal('events 0–3 of 9');

    // Back to the destructive submit for the screenshot: its edge, its panel, its chain below.
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('#event-panel[data-revision="4"]');
    await page.waitForSelector('#state-panel[data-revision="4"]');
    mkdirSync('test/artifacts', { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    expect(statSync(SCREENSHOT).size).to.be.greaterThan(10_000);
    console.log(`    screenshot: ${SCREENSHOT}`);
    expect(errors).to.deep.equal([]);
  });

  it('going to a revision, clicking a timeline row or a fired transition selects that event', async () => {
    const page = await (context as BrowserContext).newPage();
    await page.goto(`${server.url}streams/${REBUILD_STREAM}`);
    await page.waitForSelector('body[data-ready="true"]');
    expect((await shown(page)).eventRevision).to.equal('8');
    await page.fill('#goto-revision', '7');
    await page.press('#goto-revision', 'Enter');
    await page.waitForSelector('#event-panel[data-revision="7"]');
    expect(await page.locator('#page-info').textContent()).to.equal('events 4–7 of 9');
    await page.click('#timeline-rows tr[data-revision="6"]');
    await page.waitForSelector('#event-panel[data-revision="6"]');
    expect((await shown(page)).edge).to.equal('e--serverRebuild.Rebuilding--observed--4');
    await page.click(`tr.fired-edge[data-edge="${R11}"]`);
    await page.waitForSelector('#event-panel[data-revision="1"]');
    expect((await shown(page)).highlighted).to.deep.equal([R11]);
  });

  it('makes no request outside the audit server', () => {
    expect(requests.length).to.be.greaterThan(0);
    expect(requests.filter((url) => !url.startsWith(server.url))).to.deep.equal([]);
  });
});
