/**
 * The audit site in headless Debian chromium (playwright-core, /usr/bin/chromium; skipped with the
 * reason printed only when it is missing — .ci/run installs it): the main pages load without a single
 * console error or failed request (the favicon included), and an unknown path, stream or machine
 * answers the site's 404 page whose links lead back. Screenshots go to test/artifacts/.
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
