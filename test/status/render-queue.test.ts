/** The status runner's render queue: coalescing, one render per resource at a time, and the checkpoint it allows. */
import { expect } from 'chai';
import { RenderQueue } from '../../src/status/render-queue.js';

/** A render that waits until the test lets it finish. */
const gatedRenders = () => {
  const started: string[] = [];
  const gates: Array<() => void> = [];
  let active = 0;
  let maxActive = 0;
  const activeByKey = new Map<string, number>();
  let overlap = false;
  const renderNow = (ref: string): Promise<void> => {
    started.push(ref);
    active++;
    maxActive = Math.max(maxActive, active);
    activeByKey.set(ref, (activeByKey.get(ref) ?? 0) + 1);
    if ((activeByKey.get(ref) ?? 0) > 1) overlap = true;
    return new Promise((resolve) =>
      gates.push(() => {
        active--;
        activeByKey.set(ref, (activeByKey.get(ref) ?? 1) - 1);
        resolve();
      }),
    );
  };
  const releaseAll = async (): Promise<void> => {
    while (gates.length > 0) {
      for (const open of gates.splice(0)) open();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { started, gates, renderNow, releaseAll, maxActive: () => maxActive, overlapped: () => overlap };
};

const tick = () => new Promise((r) => setImmediate(r));

describe('status render queue', () => {
  it('a burst of events on one resource is rendered at most twice: once now, once after the burst', async () => {
    const r = gatedRenders();
    const queue = new RenderQueue<string>((k) => k, r.renderNow);
    for (let position = 1; position <= 100; position++) void queue.render('web-1', position);
    await tick();
    expect(r.started).to.deep.equal(['web-1']);
    await r.releaseAll();
    await queue.idle();
    expect(r.started).to.deep.equal(['web-1', 'web-1']);
  });

  it('renders of one resource never overlap; different resources run side by side up to the concurrency', async () => {
    const r = gatedRenders();
    const queue = new RenderQueue<string>((k) => k, r.renderNow, 3);
    for (const key of ['a', 'b', 'c', 'd', 'a', 'b']) void queue.render(key);
    await tick();
    expect(r.started).to.deep.equal(['a', 'b', 'c']);
    await r.releaseAll();
    await queue.idle();
    expect(r.overlapped()).to.equal(false);
    expect(r.maxActive()).to.equal(3);
    expect([...r.started].sort()).to.deep.equal(['a', 'a', 'b', 'b', 'c', 'd']);
  });

  it('render() resolves only after a render that began after the call has finished', async () => {
    const r = gatedRenders();
    const queue = new RenderQueue<string>((k) => k, r.renderNow);
    void queue.render('web-1');
    await tick();
    let resolved = false;
    const second = queue.render('web-1').then(() => (resolved = true));
    r.gates.shift()?.();
    await tick();
    await tick();
    expect(resolved, 'the first render began before the call').to.equal(false);
    expect(r.started).to.have.length(2);
    r.gates.shift()?.();
    await second;
    expect(resolved).to.equal(true);
  });

  it('the checkpoint stays before the oldest event whose render is waiting or running', async () => {
    const r = gatedRenders();
    const queue = new RenderQueue<string>((k) => k, r.renderNow, 1);
    void queue.render('a', 10);
    void queue.render('b', 11);
    void queue.render('a', 12);
    await tick();
    expect(queue.safePosition(12)).to.equal(9);
    r.gates.shift()?.(); // a's first render (event 10) done; b (11) starts, a waits again for 12
    await tick();
    expect(queue.safePosition(12)).to.equal(10);
    await r.releaseAll();
    await queue.idle();
    expect(queue.safePosition(12)).to.equal(12);
    expect(queue.pending).to.equal(0);
  });

  it('a render that fails does not stop the queue', async () => {
    const seen: string[] = [];
    const queue = new RenderQueue<string>((k) => k, async (k) => {
      seen.push(k);
      if (k === 'bad') throw new Error('boom');
    });
    await Promise.all([queue.render('bad', 1), queue.render('good', 2)]);
    expect(seen).to.deep.equal(['bad', 'good']);
    expect(queue.safePosition(2)).to.equal(2);
  });
});
