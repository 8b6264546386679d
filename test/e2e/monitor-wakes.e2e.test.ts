/**
 * Wakes (issue 10, item 8): "That retry adoption keys off the Healthy=Errored stamp the monitor's poll
 * writes, so it takes effect at worst one poll later." The monitor's observation wakes the pass that
 * must act on it at once, not at the next resync (there is none: a settled Server is never requeued):
 * - a never-booted server the monitor records Errored → the bounded delete-and-retry is armed;
 * - a rebuild marker the monitor rank-advances to a terminal → the settlement pass clears it.
 * Each bound is counted in monitor polls, never in seconds.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { manifests, planeOptions } from './support/plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import type { RecordedEvent } from '../../src/events/envelope.js';


describe('e2e: monitor observations wake the pass that acts on them (issue 10, item 8)', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane | undefined;

  /** Monitor polls so far (prom counter), and every event with the poll count at which it was seen. */
  const polls = async () => ((await plane?.metrics.monitorPolls.get())?.values ?? []).reduce((n, v) => n + v.value, 0);
  const seen: Array<{ event: RecordedEvent; polls: number }> = [];
  const watch = async () => {
    const known = new Set(seen.map((s) => s.event.id));
    const count = await polls();
    for (const event of (await plane?.store.readAll({})) ?? []) if (!known.has(event.id)) seen.push({ event, polls: count });
  };
  const until = async (what: string, probe: () => boolean, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!probe()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
      await watch();
    }
  };
  const first = (predicate: (e: RecordedEvent) => boolean) => seen.find((s) => predicate(s.event));

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-wakes-'));
    seen.length = 0;
  });
  afterEach(async () => {
    await plane?.stop().catch(() => undefined);
    plane = undefined;
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const start = async () => {
    plane = await startControlPlane(planeOptions(dir, sim, { monitorIntervalMs: 250 }));
    await until('leadership', () => plane?.isLeader() === true);
  };

  it('a never-booted server the monitor records Errored is armed for the delete-and-retry within one poll', async () => {
    // BUILD long enough that the create's follow-up pass adopts it as present (and is done) before it errs
    sim = await startSimulator({ clock: 'real', delays: { serverBuild: 3_500, serverDelete: 100 } });
    sim.control.configure({ nova: { bootRules: [{ match: '^web-1$', outcome: 'error', phase: 'boot' }] } });
    await start();
    await applyManifests(plane!.source, manifests(SEED.images.cirros));
    const errored = (e: RecordedEvent) => e.metadata.source === 'monitor' && JSON.stringify(e.data).includes('"status":"ERROR"');
    await until('the monitor records the ERROR', () => first(errored) !== undefined);
    await until('the delete-and-retry is armed', () => first((e) => e.type === 'serverLifecycle.recreateArmed') !== undefined, 10_000);
    const stamp = first(errored)!;
    const armed = first((e) => e.type === 'serverLifecycle.recreateArmed')!;
    expect(armed.event.metadata.source).to.equal('reconciler');
    expect(armed.polls - stamp.polls, 'monitor polls between the Errored stamp and the arm').to.be.at.most(1);
  });

  it('a rebuild marker the monitor advances to Succeeded is settled (cleared) within one poll', async () => {
    sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 400, serverDelete: 100 } });
    await start();
    await applyManifests(plane!.source, manifests(SEED.images.cirros));
    await until('the server runs', () => first((e) => e.metadata.source === 'monitor' && JSON.stringify(e.data).includes('"status":"ACTIVE"')) !== undefined);
    await applyManifests(plane!.source, manifests(SEED.images.ubuntu));
    await until('the monitor stamps Succeeded', () => first((e) => e.type === 'serverRebuild.observedSucceeded') !== undefined);
    await until('the settlement pass clears the marker', () => first((e) => e.type === 'serverRebuild.cleared') !== undefined, 10_000);
    const stamp = first((e) => e.type === 'serverRebuild.observedSucceeded')!;
    const cleared = first((e) => e.type === 'serverRebuild.cleared')!;
    expect(cleared.polls - stamp.polls, 'monitor polls between the Succeeded stamp and the clear').to.be.at.most(1);
  });
});
