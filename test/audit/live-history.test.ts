/**
 * Issue 18, "Live history: an open resource page follows new events as they are appended (server-sent events
 * … from the store subscription), without a reload, and says so". Over HTTP (the event stream itself) and in
 * Chromium (the page), with events appended by the engine while the page is open.
 */
import { expect } from 'chai';
import { MemoryEventStore } from '../../src/store/memory.js';
import { Engine } from '../../src/engine/engine.js';
import { createProductRegistry } from '../../machines/index.js';
import { startAuditServer, type AuditServer } from '../../src/audit/web/server.js';
import { recordCleanRebuild } from './support/rebuild-history.js';
import { image, reconcile } from '../machines/server-rebuild-facts.js';
import { withPage } from './support/chromium.js';

const STREAM = 'server-rebuild-live';
const OTHER = 'server-rebuild-live-2';

describe('audit web: live history (issue 18)', function () {
  this.timeout(60_000);
  let server: AuditServer;
  let store: MemoryEventStore;
  let engine: Engine;
  /** One more event on a stream: a monitor observation the settled machine records (health). */
  const append = async (stream = STREAM) => {
    await engine.dispatch(stream, { stimulus: reconcile('D', { imageRef: image('C') }), actor: 'reconciler/server-image' });
  };

  beforeEach(async () => {
    store = new MemoryEventStore();
    await recordCleanRebuild(store, STREAM);
    await recordCleanRebuild(store, OTHER);
    engine = new Engine({ store, registry: createProductRegistry(), handlers: { 'nova.rebuild': async (effect) => ({ type: 'rebuild.accepted', imageId: String(effect.imageId), requestId: 'req-live' }) } });
    server = await startAuditServer({ port: 0, store, registry: createProductRegistry() });
  });
  afterEach(() => server.close());

  it('the live endpoint sends one `appended` message per event appended to that stream from now on, and none for other streams', async () => {
    const controller = new AbortController();
    const res = await fetch(new URL(`/api/streams/${STREAM}/live`, server.url), { signal: controller.signal });
    expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const until = async (done: () => boolean) => {
      const deadline = Date.now() + 5_000;
      while (!done() && Date.now() < deadline) {
        const { value, done: ended } = await reader.read();
        if (ended) break;
        text += decoder.decode(value);
      }
    };
    await until(() => text.includes('event: ready'));
    const head = (await store.streamHead(STREAM)) as number;
    await append(OTHER);
    await append();
    await until(() => text.includes('event: appended'));
    const messages = [...text.matchAll(/event: appended\ndata: (.*)\n/g)].map((m) => JSON.parse(m[1] as string) as { revision: number; type: string });
    expect(messages.map((m) => m.revision)).to.deep.equal([head + 1]);
    expect(messages[0]?.type).to.match(/^serverRebuild\./);
    controller.abort();
  });

  it('in Chromium: the open page says it is live, and a new event appears in the timeline and is selected without a reload (screenshot)', async () => {
    await withPage({ width: 1280, height: 900 }, async (page) => {
      await page.goto(new URL(`/streams/${STREAM}`, server.url).toString());
      await page.waitForFunction(() => document.getElementById('live-status')?.textContent?.startsWith('live: following'));
      const head = (await store.streamHead(STREAM)) as number;
      expect(await page.textContent('#event-count')).to.equal(String(head + 1));
      await page.evaluate(() => ((window as unknown as { loadedOnce: boolean }).loadedOnce = true));
      await append(); // armed
      await append(); // submitted, and the effect's result: accepted
      const newest = (await store.streamHead(STREAM)) as number;
      expect(newest).to.be.greaterThan(head + 1);
      await page.waitForFunction((rev) => document.querySelector(`#timeline-rows tr[data-revision="${rev}"]`) !== null, newest);
      // the same document (no reload), following: the newest event selected, the count and the status updated
      expect(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce)).to.equal(true);
      await page.waitForFunction((rev) => document.querySelector('#timeline-rows tr.selected')?.getAttribute('data-revision') === String(rev), newest);
      expect(await page.textContent('#event-count')).to.equal(String(newest + 1));
      expect(await page.textContent('#live-status')).to.equal(`live: revision ${newest} just recorded`);
      expect(page.url()).to.match(new RegExp(`#rev-${newest}$`));
      await page.screenshot({ path: 'test/artifacts/audit-live-history.png' });
    });
  });

  it('a reader on an older event stays there while new events arrive', async () => {
    await withPage({ width: 1280, height: 900 }, async (page) => {
      await page.goto(new URL(`/streams/${STREAM}#rev-1`, server.url).toString());
      await page.waitForFunction(() => document.getElementById('live-status')?.textContent?.startsWith('live: following'));
      const head = (await store.streamHead(STREAM)) as number;
      await append();
      await page.waitForFunction((n) => document.getElementById('event-count')?.textContent === String(n), head + 2);
      expect(await page.getAttribute('#timeline-rows tr.selected', 'data-revision')).to.equal('1');
    });
  });
});
