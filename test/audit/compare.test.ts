/**
 * Issue 18, "Compare: pick two revisions and see what changed in state and context between them (a
 * structural diff)". The diff's rules, the route over HTTP on a real rebuild history, and the page in Chromium.
 */
import { expect } from 'chai';
import { structuralDiff } from '../../src/audit/history/diff.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry } from '../../machines/index.js';
import { startAuditServer, type AuditServer } from '../../src/audit/web/server.js';
import { recordRebuildHistory, REBUILD_STREAM } from './support/rebuild-history.js';
import { withPage } from './support/chromium.js';

describe('audit: compare two revisions (issue 18)', function () {
  this.timeout(60_000);

  describe('structuralDiff', () => {
    it('equal values: no change', () => {
      expect(structuralDiff({ a: 1, b: [1, { c: 'x' }] }, { a: 1, b: [1, { c: 'x' }] })).to.deep.equal([]);
    });
    it('a changed leaf by its dotted path, with before and after', () => {
      expect(structuralDiff({ marker: { state: 'Initiated', target: 'B' } }, { marker: { state: 'Rebuilding', target: 'B' } })).to.deep.equal([{ path: 'marker.state', kind: 'changed', before: 'Initiated', after: 'Rebuilding' }]);
    });
    it('added and removed keys; null is a value', () => {
      expect(structuralDiff({ a: 1, gone: true, n: null }, { a: 1, n: 2, fresh: 'y' })).to.deep.equal([
        { path: 'gone', kind: 'removed', before: true },
        { path: 'n', kind: 'changed', before: null, after: 2 },
        { path: 'fresh', kind: 'added', after: 'y' },
      ]);
    });
    it('arrays index by index: a grown array shows the new indexes; a shrunk one the removed', () => {
      expect(structuralDiff({ h: [{ id: 1 }] }, { h: [{ id: 1 }, { id: 2 }] })).to.deep.equal([{ path: 'h[1]', kind: 'added', after: { id: 2 } }]);
      expect(structuralDiff({ h: [1, 2, 3] }, { h: [1, 5] })).to.deep.equal([{ path: 'h[1]', kind: 'changed', before: 2, after: 5 }, { path: 'h[2]', kind: 'removed', before: 3 }]);
    });
    it('a value replaced by an object (or the reverse) is one change at that path', () => {
      expect(structuralDiff({ marker: null }, { marker: { state: 'Initiated' } })).to.deep.equal([{ path: 'marker', kind: 'changed', before: null, after: { state: 'Initiated' } }]);
    });
  });

  describe('over HTTP and in the page', () => {
    let server: AuditServer;
    before(async () => {
      const store = new MemoryEventStore();
      await recordRebuildHistory(store);
      server = await startAuditServer({ port: 0, store, registry: createProductRegistry() });
    });
    after(() => server.close());

    it('/compare names both revisions with their states and every context change between them', async () => {
      const res = await fetch(new URL(`/api/streams/${REBUILD_STREAM}/compare?from=0&to=5`, server.url));
      const diff = (await res.json()) as { from: { revision: number; state: unknown }; to: { revision: number; state: unknown }; changes: Array<{ path: string; kind: string; before?: unknown; after?: unknown }> };
      expect(diff.from).to.include({ revision: 0, state: 'Initiated' });
      expect(diff.to).to.include({ revision: 5, state: 'Rebuilding' });
      expect(diff.changes.find((c) => c.path === 'state')).to.deep.equal({ path: 'state', kind: 'changed', before: 'Initiated', after: 'Rebuilding' });
      expect(diff.changes.length).to.be.greaterThan(1);
      // a revision compared with itself: nothing changed
      const same = (await (await fetch(new URL(`/api/streams/${REBUILD_STREAM}/compare?from=3&to=3`, server.url))).json()) as { changes: unknown[] };
      expect(same.changes).to.deep.equal([]);
      expect((await fetch(new URL('/api/streams/no-such-stream/compare?from=0&to=1', server.url))).status).to.equal(404);
    });

    it('in Chromium: two revisions typed in, the changes listed (screenshot)', async () => {
      await withPage({ width: 1280, height: 1000 }, async (page) => {
        await page.goto(new URL(`/streams/${REBUILD_STREAM}`, server.url).toString());
        await page.waitForFunction(() => document.body.dataset.ready === 'true');
        await page.fill('#compare-from', '0');
        await page.fill('#compare-to', '5');
        await page.click('#compare button[type="submit"]');
        await page.waitForSelector('#compare-changes');
        expect(await page.textContent('#compare-title')).to.match(/^revision 0 \(Initiated\) → revision 5 \(Rebuilding\): \d+ change\(s\)$/);
        const paths = await page.$$eval('#compare-changes tbody tr td:first-child', (tds) => tds.map((td) => td.textContent));
        expect(paths).to.include('state');
        await (await page.$('#compare-panel'))!.screenshot({ path: 'test/artifacts/audit-compare.png' });
      });
    });
  });
});
