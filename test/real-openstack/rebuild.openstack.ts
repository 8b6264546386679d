/**
 * The rebuild protocol (openstack-provider.md, "Rebuild intent is write-ahead") end to end against real
 * Nova: the pass (`reconcileServerImage`), the `nova.rebuild` effect handler and the monitor, wired as the
 * control plane wires them (test/differential/harness.ts). Test titles carry the machine's labels.
 *
 * The spec's Caveats paragraph names two environmental facts the settlement rule rests on (Nova flips the
 * image ref atomically with task_state at accept; task_state is visible to the principal). P1 asserts both
 * on the first GET after the 202, explicitly. That GET can only see the rebuild in flight while the window
 * is held: the sandbox's fake driver finishes a rebuild in 0.3–1 s, and on a loaded machine the first GET
 * after the 202 already read task_state empty (issue 10, item 6). So every test that asserts the accepted
 * view (or any other in-flight read: REBUILD, a task set, a pass deciding rebuildInProgress/foreignTaskBusy)
 * holds `rebuild_spawning` with fault control (`{"delay": {"spawn": WINDOW_SPAWN_S}}`, set before the
 * rebuild is submitted) and is pending without it.
 */
import { expect } from 'chai';
import type { Context } from 'mocha';
import { Conflict } from '../../src/openstack/errors.js';
import type { ServerObservation } from '../../src/openstack/decoders/server.js';
import { rebuildHarness, type RebuildHarness } from '../differential/harness.js';
import { exactNameRegex } from './support/faults.js';
import { realRun, type Fixtures, type RealRun } from './support/run.js';
import { distinct, viewOf, type ServerView } from './support/view.js';
import { sleep, waitFor } from './support/wait.js';

const REBUILD_TASKS = ['rebuilding', 'rebuild_block_device_mapping', 'rebuild_spawning'];
/**
 * Seconds the sandbox holds `rebuild_spawning` in every test that reads a rebuild in flight. The reads that
 * must land in the window follow the 202 by a few requests (under 1 s even with the other core busy).
 */
const WINDOW_SPAWN_S = 3;

/** True when `seen` appears in `order` in the same relative order (gaps allowed). */
const isOrderedSubsequence = (seen: readonly string[], order: readonly string[]): boolean => {
  let at = 0;
  for (const item of seen) {
    const found = order.indexOf(item, at);
    if (found < 0) return false;
    at = found + 1;
  }
  return true;
};

describe('rebuild protocol against real Nova', function () {
  let run: RealRun;
  let fx: Fixtures;
  let h: RebuildHarness;

  before(async function () {
    run = await realRun();
    fx = await run.fixtures();
    h = rebuildHarness(run.tenant.nova, run.logger);
  });
  afterEach(() => {
    h.beforeSubmit = undefined;
  });

  const needFaults = (ctx: Context): NonNullable<RealRun['faults']> => {
    if (!run.faults) ctx.skip();
    return run.faults as NonNullable<RealRun['faults']>;
  };

  /** Hold the rebuild window (and any `fail` rules) for the rebuilds submitted from now on. */
  const holdWindow = (faults: NonNullable<RealRun['faults']>, fail?: Record<string, string>): void => {
    faults.set('nova', { delay: { spawn: WINDOW_SPAWN_S }, ...(fail !== undefined ? { fail } : {}) });
  };

  /** Boot, wait ACTIVE, hand the server to Regent. */
  const managedServer = async (suffix: string): Promise<{ id: string; name: string }> => {
    const server = await run.bootServer(suffix);
    await run.waitActive(server.id);
    h.managed.add(server.id);
    return server;
  };

  /** GET every 150 ms until `done`; returns every observation (the poller's view of the window). */
  const watch = async (id: string, done: (v: ServerView) => boolean, timeoutMs = 90_000): Promise<ServerView[]> => {
    const seen: ServerView[] = [];
    await waitFor(`server ${id}`, async () => viewOf(await run.tenant.nova.getServer(id)), (v) => {
      seen.push(v);
      return done(v);
    }, { timeoutMs, intervalMs: 150 });
    return seen;
  };

  const settledOn = (image: string, status = 'ACTIVE') => (v: ServerView): boolean => v.status === status && v.task === null && v.image === image;

  /** The explicit environmental assertion (spec, Caveats): task_state visible and non-empty, ref already the target. */
  const assertAcceptedView = (first: ServerObservation | undefined, target: string): void => {
    if (!first) throw new Error('no GET was recorded after the 202');
    const v = viewOf(first);
    expect(first.taskState.kind, 'OS-EXT-STS:task_state must be visible to this principal (absent = policy hides it)').to.equal('value');
    expect(v.task, 'task_state on the first GET after the 202').to.be.a('string').and.not.equal('');
    expect(v.image, 'image ref on the first GET after the 202 (flipped atomically with task_state)').to.equal(target);
    expect(v.status).to.equal('REBUILD');
  };

  it('P1: create, change the desired image, arm, submit; the first GET after the 202 shows task_state non-empty with the target ref; settle (monitor: Succeeded); clear', async function () {
    const faults = needFaults(this); // the first GET after the 202 and the pass in the window need the window held
    const { id } = await managedServer('rb-main');
    expect((await h.pass(id, fx.imageA)).outcomes, 'desired = current image').to.deep.equal(['inSync']);
    expect(await h.eventTypes(id)).to.deep.equal([]);
    holdWindow(faults);

    const armed = await h.pass(id, fx.imageB);
    expect(armed.outcomes).to.deep.equal(['armed']);
    expect(armed.disposition).to.deep.include({ kind: 'yield', afterMs: 1_000 });
    expect(await h.marker(id)).to.deep.equal({ targetImageID: fx.imageB, state: 'Initiated' });
    expect(h.submits(id), 'arming never submits: the yield is the durable commit point').to.equal(0);

    const submitted = await h.pass(id, fx.imageB);
    expect(submitted.outcomes).to.deep.equal(['submitted', 'accepted']);
    expect(submitted.disposition.kind).to.equal('done');
    expect(h.submits(id)).to.equal(1);
    assertAcceptedView(h.firstGetsAfterAccept(id)[0], fx.imageB);
    expect(await h.marker(id)).to.deep.equal({ targetImageID: fx.imageB, state: 'Rebuilding' });

    // While the task runs: every observation with a task set already shows the target (no old-ref window),
    // status is REBUILD throughout, and a pass in the window neither clears nor submits again.
    const inWindow = await h.pass(id, fx.imageB);
    expect(inWindow.outcomes).to.deep.equal(['rebuildInProgress']);
    const seen = await watch(id, settledOn(fx.imageB));
    for (const v of seen.filter((x) => x.task !== null)) {
      expect(v.image).to.equal(fx.imageB);
      expect(v.status).to.equal('REBUILD');
    }
    // launched_at stays set through the rebuild (Nova refreshes it at the end), so R0 never mistakes a
    // rebuild in flight for a server that has not booted yet.
    expect(seen.every((v) => v.launched === true), 'launched_at stays set during the rebuild').to.equal(true);
    const tasks = distinct(seen.map((v) => v.task)).filter((t): t is string => t !== null);
    expect(isOrderedSubsequence(tasks, REBUILD_TASKS), `task_state sequence ${tasks.join(' → ')}`).to.equal(true);
    expect(tasks, `the ${WINDOW_SPAWN_S} s spawn delay holds rebuild_spawning`).to.include('rebuild_spawning');

    const polled = await h.poll();
    expect(polled.advanced).to.include(id);
    expect(await h.marker(id)).to.deep.equal({ targetImageID: fx.imageB, state: 'Succeeded' });
    const cleared = await h.pass(id, fx.imageB);
    expect(cleared.outcomes).to.deep.equal(['cleared']);
    expect(await h.marker(id)).to.equal(null);
    const confirmed = await h.pass(id, fx.imageB);
    expect(confirmed.outcomes).to.deep.equal(['inSync']);
    expect(confirmed.disposition.kind).to.equal('done');
    expect(h.submits(id), 'exactly one rebuild submission').to.equal(1);
    expect(await h.eventTypes(id)).to.deep.equal([
      'serverRebuild.armed', 'serverRebuild.submitted', 'serverRebuild.accepted', 'serverRebuild.observedSucceeded', 'serverRebuild.cleared',
    ]);
  });

  it('E2: a second action while task_state is set answers 409 conflictingRequest; Regent yields on it and converges afterwards', async function () {
    const faults = needFaults(this);
    const { id } = await managedServer('rb-409');
    holdWindow(faults); // for the foreign rebuild (409, foreignTaskBusy) and for Regent's own later (accepted view)

    // A foreign rebuild, then a second one right after its 202: Nova's one-task-at-a-time guard.
    await run.tenant.nova.rebuildServer(id, fx.imageB);
    const refused = await run.tenant.nova.rebuildServer(id, fx.imageA).then(() => undefined, (error: unknown) => error);
    expect(refused).to.be.instanceOf(Conflict);
    expect((refused as Conflict).status).to.equal(409);
    expect((refused as Conflict).fault).to.match(/^Cannot 'rebuild' instance [0-9a-f-]{36} while it is in task_state rebuild/);

    // Regent, desiring image A while the foreign task holds the server: it arms (the server has booted and its
    // ref is off the desired image), then yields on the busy task without submitting (R10).
    expect((await h.pass(id, fx.imageA)).outcomes).to.deep.equal(['armed']);
    const busy = await h.pass(id, fx.imageA);
    expect(busy.outcomes).to.deep.equal(['foreignTaskBusy']);
    expect(busy.disposition).to.deep.include({ kind: 'yield', afterMs: 10_000 });
    expect(h.submits(id)).to.equal(0);
    await watch(id, settledOn(fx.imageB));

    // The foreign task is done; a foreign os-stop lands between Regent's GET and its POST: Nova answers 409 to Regent.
    // The power-off is held 3 s (fault control), so its task_state is surely still set when Regent's POST arrives
    // (unheld it takes well under a second: on a loaded machine the stop could finish first and the rebuild be accepted).
    faults.set('nova', { delay: { spawn: WINDOW_SPAWN_S, power_off: 3 } });
    h.beforeSubmit = async () => {
      await run.tenant.nova.stopServer(id);
    };
    const raced = await h.pass(id, fx.imageA);
    expect(raced.outcomes).to.deep.equal(['submitted', 'conflict']);
    expect(raced.disposition).to.deep.include({ kind: 'yield', afterMs: 10_000 });
    expect(await h.marker(id), 'a 409 is pre-acceptance: the marker stays Initiated').to.deep.equal({ targetImageID: fx.imageA, state: 'Initiated' });
    expect((await h.context(id)).lastSubmission).to.equal('conflict');
    h.beforeSubmit = undefined;

    await watch(id, settledOn(fx.imageB, 'SHUTOFF'));
    const retried = await h.pass(id, fx.imageA);
    expect(retried.outcomes).to.deep.equal(['submitted', 'accepted']);
    assertAcceptedView(h.firstGetsAfterAccept(id)[0], fx.imageA);
    await watch(id, settledOn(fx.imageA, 'SHUTOFF'));
    expect((await h.pass(id, fx.imageA)).outcomes).to.deep.equal(['cleared']);
    expect((await h.pass(id, fx.imageA)).outcomes).to.deep.equal(['inSync']);
    expect(h.submits(id)).to.equal(2);
  });

  it('R5/R6/M1: a rebuild failed through fault control parks (monitor path and reconciler-only path); no second submission', async function () {
    const faults = needFaults(this);
    const [viaMonitor, viaReconciler] = await Promise.all([managedServer('rb-fail-m'), managedServer('rb-fail-r')]);
    holdWindow(faults, { spawn: `^${run.prefix}-rb-fail-[mr]$` }); // the delay comes before the failure

    for (const { id } of [viaMonitor, viaReconciler]) {
      expect((await h.pass(id, fx.imageB)).outcomes).to.deep.equal(['armed']);
      expect((await h.pass(id, fx.imageB)).outcomes).to.deep.equal(['submitted', 'accepted']);
      assertAcceptedView(h.firstGetsAfterAccept(id)[0], fx.imageB);
    }
    for (const { id } of [viaMonitor, viaReconciler]) {
      const seen = await watch(id, (v) => v.status === 'ERROR' && v.task === null);
      expect(seen.at(-1)?.image, 'a failed rebuild keeps the target ref').to.equal(fx.imageB);
      const server = await run.tenant.nova.getServer(id);
      expect(server.fault.kind).to.equal('value');
      if (server.fault.kind === 'value') expect(server.fault.value.message).to.match(/spawn failure requested/);
    }

    // Monitor path: M1 stamps Failed; the next pass reads it back durable and parks at once.
    h.managed.delete(viaReconciler.id);
    await h.poll();
    expect(await h.marker(viaMonitor.id)).to.deep.equal({ targetImageID: fx.imageB, state: 'Failed' });
    const parked = await h.pass(viaMonitor.id, fx.imageB);
    expect(parked.outcomes).to.deep.equal(['parked']);
    expect(parked.disposition).to.deep.include({ kind: 'park', reason: 'RebuildFailed' });

    // Reconciler-only path: R6 stamps and yields, R5 parks on the read-back.
    const stamped = await h.pass(viaReconciler.id, fx.imageB);
    expect(stamped.outcomes).to.deep.equal(['failureStamped']);
    expect(stamped.disposition).to.deep.include({ kind: 'yield', afterMs: 1_000 });
    expect((await h.pass(viaReconciler.id, fx.imageB)).outcomes).to.deep.equal(['parked']);

    for (const { id } of [viaMonitor, viaReconciler]) {
      expect((await h.pass(id, fx.imageB)).outcomes, 'parked stays parked: no automatic retry').to.deep.equal(['parked']);
      expect(h.submits(id)).to.equal(1);
      expect((await h.context(id)).parked).to.equal(true);
    }
  });

  it('R0: a never-booted server defers the image change (BUILD with launched_at null; ERROR before first boot); after first boot the change is armed and submitted', async function () {
    const faults = needFaults(this);
    faults.set('nova', { delay: { spawn: 8 }, fail: { spawn: `^${run.prefix}-rb-neverboot-err$` } });
    const building = await run.bootServer('rb-neverboot');
    const errored = await run.bootServer('rb-neverboot-err');
    h.managed.add(building.id);
    h.managed.add(errored.id);

    const inBuild = await waitFor('BUILD with launched_at null', () => run.tenant.nova.getServer(building.id), (s) => viewOf(s).status === 'BUILD');
    expect(viewOf(inBuild).launched).to.equal(false);
    const deferred = await h.pass(building.id, fx.imageB);
    expect(deferred.outcomes).to.deep.equal(['deferred']);
    expect(deferred.disposition).to.deep.include({ kind: 'yield', afterMs: 10_000 });
    expect(await h.marker(building.id)).to.equal(null);
    expect(await h.eventTypes(building.id), 'a deferral stores nothing').to.deep.equal([]);

    await watch(errored.id, (v) => v.status === 'ERROR');
    const errorView = viewOf(await run.tenant.nova.getServer(errored.id));
    expect(errorView.launched).to.equal(false);
    expect((await h.pass(errored.id, fx.imageB)).outcomes, 'ERROR before first boot: deferred, no health stamp').to.deep.equal(['deferred']);
    expect(await h.eventTypes(errored.id)).to.deep.equal([]);
    expect(h.submits(errored.id)).to.equal(0);

    await run.waitActive(building.id);
    // The 8 s boot delay is over; hold the rebuild's window so that the first GET after the 202 sees it in
    // flight (this was `faults.reset()`: the rebuild then finished before that GET on a loaded machine).
    holdWindow(faults);
    expect((await h.pass(building.id, fx.imageB)).outcomes).to.deep.equal(['armed']);
    expect((await h.pass(building.id, fx.imageB)).outcomes).to.deep.equal(['submitted', 'accepted']);
    assertAcceptedView(h.firstGetsAfterAccept(building.id)[0], fx.imageB);
    await watch(building.id, settledOn(fx.imageB));
    expect((await h.pass(building.id, fx.imageB)).outcomes).to.deep.equal(['cleared']);
  });

  it('R8: a server stopped (SHUTOFF) is rebuilt and settles; the monitor stamps Succeeded only on a converged read (ref on target, task empty); exactly one submission', async function () {
    const faults = needFaults(this); // the accepted view needs the window held
    const { id } = await managedServer('rb-shutoff');
    await run.tenant.nova.stopServer(id);
    await watch(id, settledOn(fx.imageA, 'SHUTOFF'));
    holdWindow(faults);

    expect((await h.pass(id, fx.imageB)).outcomes).to.deep.equal(['armed']);
    expect((await h.pass(id, fx.imageB)).outcomes).to.deep.equal(['submitted', 'accepted']);
    assertAcceptedView(h.firstGetsAfterAccept(id)[0], fx.imageB);

    // Poll as the monitor does (and read the server beside it) until the server rests SHUTOFF on the target.
    // Real Nova rebuilds a stopped server by spawning it and stopping it again: after rebuild_spawning the
    // server reads ACTIVE (vm_state active) with task_state null for a moment (the rebuild's own final save),
    // then ACTIVE/powering-off, then SHUTOFF. That ACTIVE/null read is converged on the target, so a monitor
    // poll that lands there stamps Succeeded before the server is stopped again: the image change is complete
    // at that point; the power-off that follows is Nova restoring the original power state.
    const trail: Array<{ view: ServerView; marker: string | null }> = [];
    await waitFor('SHUTOFF on the target', async () => {
      await h.poll();
      const v = viewOf(await run.tenant.nova.getServer(id));
      trail.push({ view: v, marker: (await h.marker(id))?.state ?? null });
      return v;
    }, settledOn(fx.imageB, 'SHUTOFF'), { timeoutMs: 90_000, intervalMs: 100 });
    await h.poll(); // the last round's poll may have preceded the SHUTOFF read
    trail.push({ view: viewOf(await run.tenant.nova.getServer(id)), marker: (await h.marker(id))?.state ?? null });
    const reads = distinct(trail.map((x) => x.view));
    expect(reads.filter((v) => v.status === 'REBUILD').every((v) => v.task !== null && v.image === fx.imageB), JSON.stringify(reads)).to.equal(true);
    expect(reads.filter((v) => v.status === 'ACTIVE').every((v) => v.image === fx.imageB && (v.task === null || v.task === 'powering-off')), JSON.stringify(reads)).to.equal(true);
    const firstSucceeded = trail.findIndex((x) => x.marker === 'Succeeded');
    expect(firstSucceeded, `the monitor stamped Succeeded: ${JSON.stringify(trail)}`).to.be.greaterThan(-1);
    expect(trail.slice(0, firstSucceeded).every((x) => x.marker === 'Rebuilding'), 'Rebuilding until the stamp').to.equal(true);
    // The read that carried the stamp (the poll precedes the GET in each round, so look at the round before too).
    const converged = (v: ServerView): boolean => v.image === fx.imageB && v.task === null && (v.status === 'ACTIVE' || v.status === 'SHUTOFF');
    expect(converged(trail[firstSucceeded]?.view as ServerView) || converged(trail[firstSucceeded - 1]?.view as ServerView), JSON.stringify(trail)).to.equal(true);

    expect((await h.pass(id, fx.imageB)).outcomes).to.deep.equal(['cleared']);
    expect((await h.pass(id, fx.imageB)).outcomes).to.deep.equal(['inSync']);
    expect(h.submits(id)).to.equal(1);
    await sleep(500);
    expect(viewOf(await run.tenant.nova.getServer(id)).status).to.equal('SHUTOFF');
  });

  it('fault control is scoped by name: a failure regex for one server does not touch another rebuilt while it is set', async function () {
    const faults = needFaults(this);
    const [victim, bystander] = await Promise.all([managedServer('rb-scope-x'), managedServer('rb-scope-y')]);
    faults.set('nova', { fail: { spawn: exactNameRegex(victim.name) } });
    // One after the other: two rebuilds submitted in the same instant hung the sandbox's nova-compute
    // twice (docs/testing-real-openstack.md); the scoping under test does not need them simultaneous.
    await run.tenant.nova.rebuildServer(victim.id, fx.imageB);
    await watch(victim.id, (v) => v.status === 'ERROR');
    await run.tenant.nova.rebuildServer(bystander.id, fx.imageB);
    await watch(bystander.id, settledOn(fx.imageB));
  });
});
