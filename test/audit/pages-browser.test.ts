/**
 * The audit site in headless Debian chromium (playwright-core, /usr/bin/chromium; skipped with the
 * reason printed only when it is missing — .ci/run installs it): the main pages load without a single
 * console error or failed request (the favicon included); an unknown path, stream or machine answers
 * the site's 404 page whose links lead back; `?` opens the page's key help; the timeline shows its
 * source and from → to columns whole at 800 and 1280 px, and a row it scrolls to never hides under
 * its sticky header. Screenshots go to test/artifacts/.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry } from '../../machines/index.js';
import { startAuditServer, type AuditServer } from '../../src/audit/web/server.js';
import { recordCleanRebuild, recordRebuildHistory, REBUILD_STREAM } from './support/rebuild-history.js';
import { writeLongHistory } from './fixtures/long-history.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = 'test/artifacts';

/** Console errors, page errors and failed (>= 400 or aborted) requests of one page, as text. */
const watch = (page: Page): string[] => {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  return problems;
};

describe('audit web: the site in headless chromium (favicon, 404 page)', function () {
  this.timeout(90_000);
  let dir: string;
  let server: AuditServer;
  let context: BrowserContext | undefined;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    (skipped: ${CHROMIUM} is missing; install it with apt-get install -y chromium, as .ci/run does)`);
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), 'regent-site-'));
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    await recordCleanRebuild(store, 'server-rebuild-srv-2');
    server = await startAuditServer({ port: 0, host: '127.0.0.1', store, registry: createProductRegistry() });
    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 } });
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  after(async () => {
    await context?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const [name, path] of [
    ['the index', ''],
    ['a machine page', 'machines/serverRebuild'],
    ['a resource page', `streams/${REBUILD_STREAM}`],
  ] as const) {
    it(`${name} loads with no console error and no failed request, and names its icon`, async () => {
      const page = await (context as BrowserContext).newPage();
      const problems = watch(page);
      await page.goto(`${server.url}${path}`);
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(300);
      expect(problems).to.deep.equal([]);
      const icon = await page.locator('link[rel="icon"]').getAttribute('href', { timeout: 1000 });
      expect(icon).to.equal('/assets/favicon.svg');
      const served = await page.request.get(new URL(icon as string, server.url).href);
      expect(served.status()).to.equal(200);
      expect(served.headers()['content-type']).to.match(/^image\/svg\+xml/);
      await page.close();
    });
  }

  it('/favicon.ico answers 200 with the icon (for clients that ask for it without reading the page)', async () => {
    const res = await fetch(new URL('favicon.ico', server.url));
    expect(res.status).to.equal(200);
    expect(await res.text()).to.match(/^<svg /);
  });

  it('an unknown path, stream or machine answers the 404 page in the site style, whose links lead back', async () => {
    const page = await (context as BrowserContext).newPage();
    const problems = watch(page);
    for (const path of ['no/such/page', 'streams/server-rebuild-nope', 'machines/noSuchMachine']) {
      const response = await page.goto(`${server.url}${path}`);
      expect(response?.status(), path).to.equal(404);
      expect(response?.headers()['content-type'], path).to.match(/^text\/html/);
      expect(await page.textContent('h1')).to.equal('Not found');
      expect(await page.textContent('#not-found-what')).to.include(`/${path}`);
      // Styled like the rest of the site: the stylesheet applied to the header.
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('header.top') as Element).borderBottomStyle)).to.equal('solid');
    }
    await page.goto(`${server.url}streams/server-rebuild-nope`);
    expect(await page.textContent('#not-found-what')).to.include('no stream server-rebuild-nope');
    await page.screenshot({ path: `${ARTIFACTS}/audit-404.png` });
    console.log(`    screenshot: ${ARTIFACTS}/audit-404.png`);

    await page.click('#link-resources');
    await page.waitForURL(`${server.url}#streams`);
    expect(await page.locator(`#streams a[href="/streams/${REBUILD_STREAM}"]`).isVisible()).to.equal(true);
    await page.goBack();
    await page.click('#link-home');
    await page.waitForURL(server.url);
    expect(await page.textContent('h1')).to.equal('Regent audit');
    await page.goto(`${server.url}nowhere`);
    await page.click('#link-machines');
    await page.waitForURL(`${server.url}#machines`);
    expect(await page.locator('#machines a[href="/machines/serverRebuild?version=2"]').isVisible()).to.equal(true);
    // The only failures are the three 404 documents asked for (and the console's note of each).
    expect(problems.filter((p) => !/^404: .*\/(no\/such\/page|streams\/server-rebuild-nope|machines\/noSuchMachine|nowhere)$/.test(p) && !/^console: Failed to load resource: .*404/.test(p))).to.deep.equal([]);
    await page.close();
  });
});

const LONG_STREAM = 'server-rebuild-long';

/** The timeline's rows as laid out: every source and from → to cell against the scroll box and the window. */
const timelineLayout = (page: Page) =>
  page.evaluate(() => {
    const wrap = document.getElementById('timeline-wrap') as HTMLElement;
    const box = wrap.getBoundingClientRect();
    // The part of the timeline one can see without scrolling it sideways, and inside the window.
    const visibleLeft = Math.max(box.left + wrap.clientLeft, 0);
    const visibleRight = Math.min(box.left + wrap.clientLeft + wrap.clientWidth, window.innerWidth);
    const cells = [...document.querySelectorAll<HTMLElement>('#timeline thead th, #timeline-rows td.source, #timeline-rows td.from-to')].map((cell) => {
      const r = cell.getBoundingClientRect();
      // Every piece of text in the cell (the state names, the source badge) lies inside the cell.
      const parts = [...cell.querySelectorAll<HTMLElement>('span')].map((span) => span.getBoundingClientRect());
      return {
        text: cell.textContent ?? '',
        kind: cell.tagName === 'TH' ? 'header' : cell.className,
        width: r.width,
        visible: r.left >= visibleLeft - 0.5 && r.right <= visibleRight + 0.5,
        truncated: cell.scrollWidth > cell.clientWidth || parts.some((p) => p.left < r.left - 0.5 || p.right > r.right + 0.5),
      };
    });
    return { sideways: wrap.scrollWidth > wrap.clientWidth, cells };
  });

/** Where the selected timeline row is against the sticky column header and the bottom of the scroll box. */
const selectedRowPlace = (page: Page) =>
  page.evaluate(() => {
    const wrap = document.getElementById('timeline-wrap') as HTMLElement;
    const box = wrap.getBoundingClientRect();
    // The sticky cells, not the <thead> (which scrolls away under them).
    const header = (wrap.querySelector('thead th') as HTMLElement).getBoundingClientRect();
    const row = (document.querySelector('#timeline-rows tr.selected') as HTMLElement).getBoundingClientRect();
    return { revision: document.querySelector('#timeline-rows tr.selected')?.getAttribute('data-revision'), belowHeader: row.top >= header.bottom - 0.5, aboveBottom: row.bottom <= box.top + wrap.clientTop + wrap.clientHeight + 0.5, scrollTop: wrap.scrollTop };
  });

describe('audit web: keyboard help and the timeline in headless chromium', function () {
  this.timeout(120_000);
  let dir: string;
  let server: AuditServer;
  let context: BrowserContext | undefined;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    (skipped: ${CHROMIUM} is missing; install it with apt-get install -y chromium, as .ci/run does)`);
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), 'regent-keys-'));
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    await writeLongHistory(store, LONG_STREAM, 40);
    server = await startAuditServer({ port: 0, host: '127.0.0.1', store, registry: createProductRegistry() });
    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 } });
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  after(async () => {
    await context?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const helpKeys = (page: Page) => page.locator('#help-keys kbd').allTextContents();

  it('? opens a help overlay listing the keys of the page, Esc closes it (index, machine and resource pages)', async () => {
    const page = await (context as BrowserContext).newPage();
    const problems = watch(page);
    for (const [path, keys] of [
      ['', ['?', 'Esc']],
      ['machines/serverRebuild', ['+', '-', '0', '?', 'Esc']],
      [`streams/${REBUILD_STREAM}`, ['→', '←', 'Home', 'End', 'Enter', '+', '-', '0', '?', 'Esc']],
    ] as const) {
      await page.goto(`${server.url}${path}`);
      await page.waitForLoadState('networkidle');
      expect(await page.isVisible('#help'), path).to.equal(false);
      await page.keyboard.press('?');
      await page.waitForSelector('#help', { state: 'visible' });
      expect(await helpKeys(page), path).to.deep.equal(keys);
      if (path === '') {
        await page.screenshot({ path: `${ARTIFACTS}/audit-help-index.png` });
      }
      await page.keyboard.press('Escape');
      await page.waitForSelector('#help', { state: 'hidden' });
      // The header's ? button opens it too; ? again closes it.
      await page.click('#help-open');
      await page.waitForSelector('#help', { state: 'visible' });
      await page.keyboard.press('?');
      await page.waitForSelector('#help', { state: 'hidden' });
    }
    expect(problems).to.deep.equal([]);
    await page.close();
  });

  it('on the resource page the listed keys do what the help says, and they do not step while it is open', async () => {
    const page = await (context as BrowserContext).newPage();
    await page.goto(`${server.url}streams/${REBUILD_STREAM}#rev-4`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.keyboard.press('?');
    await page.waitForSelector('#help', { state: 'visible' });
    await page.screenshot({ path: `${ARTIFACTS}/audit-help-resource.png` });
    console.log(`    screenshots: ${ARTIFACTS}/audit-help-index.png, ${ARTIFACTS}/audit-help-resource.png`);
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(200);
    expect(await page.getAttribute('#event-panel', 'data-revision')).to.equal('4');
    await page.keyboard.press('Escape');
    for (const [key, revision] of [['ArrowRight', '5'], ['ArrowLeft', '4'], ['End', '8'], ['Home', '0']] as const) {
      await page.keyboard.press(key);
      await page.waitForSelector(`#event-panel[data-revision="${revision}"]`);
    }
    await page.fill('#goto-revision', '6');
    await page.press('#goto-revision', 'Enter');
    await page.waitForSelector('#event-panel[data-revision="6"]');
    // ? typed into the revision box is text, not the help.
    await page.press('#goto-revision', '?');
    expect(await page.isVisible('#help')).to.equal(false);
    await page.close();
  });

  for (const width of [800, 1280]) {
    it(`at ${width} px the timeline shows its source and from → to columns whole (no cell cut, none off to the side)`, async () => {
      const page = await (context as BrowserContext).newPage();
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${server.url}streams/${REBUILD_STREAM}#rev-5`);
      await page.waitForSelector('body[data-ready="true"]');
      const layout = await timelineLayout(page);
      const headers = layout.cells.filter((c) => c.kind === 'header').map((c) => c.text);
      expect(headers).to.deep.equal(['rev', 'time', 'event · effects', 'source', 'from → to']);
      const body = layout.cells.filter((c) => c.kind !== 'header');
      expect(body.filter((c) => c.kind === 'source')).to.have.length(9);
      expect(body.filter((c) => c.kind === 'from-to').map((c) => c.text)).to.include.members(['∅ → Initiated', 'Initiated → Rebuilding', 'Rebuilding → Succeeded', 'Succeeded → noMarker']);
      expect(layout.cells.filter((c) => !c.visible || c.truncated || c.width < 20), JSON.stringify(layout.cells)).to.deep.equal([]);
      expect(layout.sideways, 'the timeline scrolls sideways').to.equal(false);
      await page.locator('#timeline-wrap').scrollIntoViewIfNeeded();
      const shot = `${ARTIFACTS}/audit-timeline-${width}.png`;
      await page.screenshot({ path: shot });
      console.log(`    screenshot: ${shot}`);
      await page.close();
    });
  }

  it('a row the timeline scrolls to never hides under its sticky header (from the last event ← back twenty, then Home and End)', async () => {
    const page = await (context as BrowserContext).newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}streams/${LONG_STREAM}#rev-39`);
    await page.waitForSelector('body[data-ready="true"]');
    const places = [await selectedRowPlace(page)];
    for (let revision = 38; revision >= 20; revision--) {
      await page.keyboard.press('ArrowLeft');
      await page.waitForSelector(`#event-panel[data-revision="${revision}"]`);
      places.push(await selectedRowPlace(page));
    }
    await page.keyboard.press('Home');
    await page.waitForSelector('#event-panel[data-revision="0"]');
    places.push(await selectedRowPlace(page));
    await page.keyboard.press('End');
    await page.waitForSelector('#event-panel[data-revision="39"]');
    places.push(await selectedRowPlace(page));
    // The box did scroll (40 rows do not fit; stepping back scrolled it up), and every selected row was whole below the header.
    expect(places[0]?.scrollTop).to.be.greaterThan(0);
    expect(places[19]?.scrollTop).to.be.lessThan(places[0]?.scrollTop as number);
    expect(places.filter((p) => !p.belowHeader || !p.aboveBottom), JSON.stringify(places)).to.deep.equal([]);
    await page.close();
  });
});
