import { expect } from 'chai';
import { WorkQueue } from '../../src/controllers/work-queue.js';
import { Controller } from '../../src/controllers/controller.js';
import { silentLogger } from '../../src/log/logger.js';
import type { Disposition } from '../../src/controllers/disposition.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('work queue', () => {
  it('deduplicates a key that is already queued', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.length).to.equal(2);
    expect(await q.get()).to.equal('a');
    expect(await q.get()).to.equal('b');
  });

  it('never hands out a key that is being processed; re-adds it once processing ends', async () => {
    const q = new WorkQueue();
    q.add('a');
    const key = await q.get();
    q.add('a');
    expect(q.length).to.equal(0);
    q.done(key as string);
    expect(q.length).to.equal(1);
  });

  it('addAfter schedules a key and the earliest schedule wins', async () => {
    const q = new WorkQueue();
    // If the later schedule won, get() would wait a minute and the test would time out.
    q.addAfter('a', 60_000);
    q.addAfter('a', 20);
    expect(await q.get()).to.equal('a');
    q.shutDown();
  });

  it('addRateLimited backs off exponentially per key until forgotten', () => {
    const q = new WorkQueue({ baseMs: 100, maxMs: 350 });
    expect([q.addRateLimited('a'), q.addRateLimited('a'), q.addRateLimited('a'), q.addRateLimited('a')]).to.deep.equal([100, 200, 350, 350]);
    q.forget('a');
    expect(q.addRateLimited('a')).to.equal(100);
    q.shutDown();
  });

  it('shutDown releases waiting workers', async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.shutDown();
    expect(await waiting).to.equal(undefined);
  });
});

describe('controller', () => {
  it('requeues a yield after its interval, backs off on failure, and stops on done or park', async () => {
    const passes: string[] = [];
    const script: Record<string, Disposition[]> = {
      y: [{ kind: 'yield', afterMs: 30, why: 'wait' }, { kind: 'done', why: 'ok' }],
      f: [{ kind: 'fail', error: new Error('boom') }, { kind: 'done', why: 'ok' }],
      p: [{ kind: 'park', reason: 'R', message: 'm' }],
    };
    const controller = new Controller({
      name: 'test',
      logger: silentLogger(),
      reconcile: async (key) => {
        passes.push(key);
        return script[key]?.shift() ?? { kind: 'done', why: 'extra pass' };
      },
    });
    controller.start();
    for (const key of ['y', 'f', 'p']) controller.enqueue(key);
    // exact counts ("stops on done or park") make this a negative check, so a fixed wait: the failure's retry comes
    // after the default 250 ms backoff, and as long again shows no pass after done or park
    await sleep(500);
    await controller.stop();
    expect(passes.filter((k) => k === 'y')).to.have.length(2);
    expect(passes.filter((k) => k === 'f')).to.have.length(2);
    expect(passes.filter((k) => k === 'p')).to.have.length(1);
  });

  it('a thrown error is a failure with backoff, never a crash', async () => {
    let calls = 0;
    const controller = new Controller({ name: 't', logger: silentLogger(), reconcile: async () => { calls++; if (calls === 1) throw new Error('x'); return { kind: 'done', why: 'ok' }; } });
    controller.start();
    controller.enqueue('k');
    // a negative check too (exactly two calls): the retry after the 250 ms backoff, then no third
    await sleep(400);
    await controller.stop();
    expect(calls).to.equal(2);
    expect(controller.queue.failuresOf('k')).to.equal(0);
  });
});
