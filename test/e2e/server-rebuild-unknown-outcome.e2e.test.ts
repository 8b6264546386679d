/**
 * Issue 10, items 1 and 4, end to end over real HTTP against the simulator:
 * - "A rebuild whose outcome is unknown is never submitted again blindly": the rebuild POST is held in
 *   front of Nova past the client's timeout (a delayed fault: the simulator sleeps, then carries the
 *   request out), or answered 503 without Nova ever seeing it. Every scenario counts what Nova accepted.
 * - "An image ref that is present but is not a UUID is unreadable", with the ref forced through /_sim.
 */
import { expect } from 'chai';
import { IMAGES, startRebuildRig, type RebuildRig } from './rebuild-harness.js';
import { serverRebuildStream, UNKNOWN_OUTCOME_WINDOW_MS } from '../../machines/server-rebuild.js';
import { buildHistoryIndex } from '../../src/audit/history/index.js';
import { formatChain, resolveChain } from '../../src/audit/history/chain.js';
import { until } from './support/plane.js';

const CLIENT_TIMEOUT_MS = 300;

describe('e2e: a rebuild whose outcome is unknown is never submitted again blindly (issue 10, item 1)', function () {
  this.timeout(30_000);
  let rig: RebuildRig;
  beforeEach(async () => (rig = await startRebuildRig({ timeoutMs: CLIENT_TIMEOUT_MS })));
  afterEach(async () => rig.close());

  const outcomes = (r: Awaited<ReturnType<RebuildRig['pass']>>) => r.decisions.map((d) => d.outcome);
  /** Rebuild POSTs Nova received, held ones included once they were carried out. */
  const rebuildPosts = (id: string) => rig.rebuildCalls(id).length;

  it('a POST held past the client timeout: recorded as an unknown outcome, never sent again; when it lands the ref proves the accept — one rebuild', async () => {
    const id = await rig.createServer('u1-held');
    expect(outcomes(await rig.pass(id, IMAGES.B))).to.deep.equal(['armed']);
    rig.sim.control.addFault({ method: 'POST', path: `/servers/${id}/action`, bodyIncludes: 'rebuild', delayMs: CLIENT_TIMEOUT_MS * 3, count: 1 });
    const submit = await rig.pass(id, IMAGES.B);
    expect(outcomes(submit)).to.deep.equal(['submitted', 'outcomeUnknown']);
    expect(submit.disposition.kind).to.equal('yield');
    // the next passes read the old image with no task (the held POST has not reached Nova): they wait
    for (let i = 0; i < 3; i++) {
      const wait = await rig.pass(id, IMAGES.B);
      expect(outcomes(wait)).to.deep.equal(['awaitingEvidence']);
      expect(wait.decisions.flatMap((d) => d.effects)).to.deep.equal([]);
    }
    await until('the held POST lands and Nova accepts it', () => rig.acceptedRebuilds(id) === 1, 10_000, 20);
    expect(rig.acceptedRebuilds(id)).to.equal(1);
    expect(outcomes(await rig.pass(id, IMAGES.B))).to.deep.equal(['acceptanceRecorded']);
    rig.advance(1_500);
    await rig.poll();
    expect(outcomes(await rig.pass(id, IMAGES.B))).to.deep.equal(['cleared']);
    expect(outcomes(await rig.pass(id, IMAGES.B))).to.deep.equal(['inSync']);
    expect(rebuildPosts(id)).to.equal(1);
    expect(rig.acceptedRebuilds(id)).to.equal(1);
  });

  it("a POST that never reached Nova (503 from in front of it): submitted again only once the window passed and Nova's record shows no rebuild since — and regent chain says why", async () => {
    const id = await rig.createServer('u2-dropped');
    await rig.pass(id, IMAGES.B);
    rig.sim.control.addFault({ method: 'POST', path: `/servers/${id}/action`, bodyIncludes: 'rebuild', status: 503, count: 1 });
    expect(outcomes(await rig.pass(id, IMAGES.B))).to.deep.equal(['submitted', 'outcomeUnknown']);
    rig.advance(UNKNOWN_OUTCOME_WINDOW_MS / 2);
    expect(outcomes(await rig.pass(id, IMAGES.B))).to.deep.equal(['awaitingEvidence']);
    expect(rig.acceptedRebuilds(id)).to.equal(0);
    rig.advance(UNKNOWN_OUTCOME_WINDOW_MS / 2 + 1_000);
    const again = await rig.pass(id, IMAGES.B);
    expect(outcomes(again)).to.deep.equal(['resubmittedOnEvidence', 'accepted']);
    expect(rig.acceptedRebuilds(id)).to.equal(1);
    expect(rig.rebuildCalls(id).map((c) => c.status)).to.deep.equal([503, 202]);

    const stream = serverRebuildStream(id);
    const types = (await rig.store.readStream(stream)).map((e) => e.type);
    expect(types).to.deep.equal(['serverRebuild.armed', 'serverRebuild.submitted', 'serverRebuild.outcomeUnknown', 'serverRebuild.awaitingEvidence', 'serverRebuild.resubmittedOnEvidence', 'serverRebuild.accepted']);
    // The chain of the second submission shows the evidence it was authorised on and the wait before it.
    const index = await buildHistoryIndex(rig.store, stream, { definition: rig.engine.registry.forStream(stream) });
    expect(index.chains).to.have.length(2);
    const [first, second] = await Promise.all(index.chains.map(async (c) => formatChain(await resolveChain(rig.store, stream, c))));
    expect(first).to.match(/serverRebuild\.outcomeUnknown/);
    expect(first).to.match(/Nova answered HTTP 503/);
    expect(second).to.match(/serverRebuild\.resubmittedOnEvidence/);
    expect(second).to.match(/an earlier submission for \S+ \(decided at [^)]+\) was unanswered: its answer never came \(Nova answered HTTP 503\)/);
    expect(second).to.match(/once the 120 s window had passed and Nova's instance-action record showed no rebuild since the decision \(rebuilds recorded: 0 before the decision, 0 now\)/);
  });

  it('the spec moves on while the answer is unknown: the new image waits for the old request; when it lands late the new one follows — never a third rebuild', async () => {
    const id = await rig.createServer('u3-moved-on');
    await rig.pass(id, IMAGES.B);
    rig.sim.control.addFault({ method: 'POST', path: `/servers/${id}/action`, bodyIncludes: 'rebuild', delayMs: CLIENT_TIMEOUT_MS * 3, count: 1 });
    expect(outcomes(await rig.pass(id, IMAGES.B))).to.deep.equal(['submitted', 'outcomeUnknown']);
    expect(outcomes(await rig.pass(id, IMAGES.C))).to.deep.equal(['rearmed']);
    expect(outcomes(await rig.pass(id, IMAGES.C))).to.deep.equal(['awaitingEvidence']); // not submitted: B may still land
    await until('B lands', () => rig.acceptedRebuilds(id) === 1, 10_000, 20);
    expect(outcomes(await rig.pass(id, IMAGES.C))).to.deep.equal(['foreignTaskBusy']);
    rig.advance(1_500);
    expect(outcomes(await rig.pass(id, IMAGES.C))).to.deep.equal(['staleSubmissionSettled']);
    expect(outcomes(await rig.pass(id, IMAGES.C))).to.deep.equal(['submitted', 'accepted']);
    rig.advance(1_500);
    await rig.poll();
    expect(outcomes(await rig.pass(id, IMAGES.C))).to.deep.equal(['cleared']);
    expect(outcomes(await rig.pass(id, IMAGES.C))).to.deep.equal(['inSync']);
    const server = await rig.os.nova.getServer(id);
    expect(server.imageRef).to.deep.equal({ kind: 'value', value: { source: 'image', id: IMAGES.C } });
    expect(rig.rebuildCalls(id).map((c) => (c.body as { rebuild: { imageRef: string } }).rebuild.imageRef)).to.deep.equal([IMAGES.B, IMAGES.C]);
  });
});

describe('e2e: an image ref that is present but not a UUID is unreadable (issue 10, item 4)', function () {
  this.timeout(30_000);
  let rig: RebuildRig;
  beforeEach(async () => (rig = await startRebuildRig()));
  afterEach(async () => rig.close());

  const outcomes = (r: Awaited<ReturnType<RebuildRig['pass']>>) => r.decisions.map((d) => d.outcome);

  it('with no marker the pass yields and stores nothing, however often it runs', async () => {
    const id = await rig.createServer('u4-garbage');
    rig.sim.control.forceServer(id, { image: 'not-a-uuid' });
    for (let i = 0; i < 3; i++) {
      const r = await rig.pass(id, IMAGES.B);
      expect(outcomes(r)).to.deep.equal(['refUnreadable']);
      expect(r.disposition.kind).to.equal('yield');
      expect(r.decisions.every((d) => !d.changed)).to.equal(true);
    }
    expect(await rig.store.readStream(serverRebuildStream(id))).to.have.length(0);
    expect(rig.rebuildCalls(id)).to.have.length(0);
  });

  it('with a Rebuilding marker the monitor advances only acceptance plus ERROR to Failed; ACTIVE with a garbage ref stays Rebuilding', async () => {
    const id = await rig.createServer('u4-rebuilding');
    await rig.pass(id, IMAGES.B);
    expect(outcomes(await rig.pass(id, IMAGES.B))).to.deep.equal(['submitted', 'accepted']);
    rig.advance(1_500);
    rig.sim.control.forceServer(id, { image: 'not-a-uuid', status: 'ACTIVE' });
    await rig.poll();
    expect((await rig.marker(id))?.state).to.equal('Rebuilding');
    expect(outcomes(await rig.pass(id, IMAGES.B))).to.deep.equal(['refUnreadable']);
    rig.sim.control.forceServer(id, { status: 'ERROR' });
    await rig.poll();
    expect((await rig.marker(id))?.state).to.equal('Failed');
    expect(rig.acceptedRebuilds(id)).to.equal(1);
  });

  it('an armed marker over a garbage ref is never submitted', async () => {
    const id = await rig.createServer('u4-armed');
    await rig.pass(id, IMAGES.B);
    rig.sim.control.forceServer(id, { image: 'not-a-uuid' });
    for (let i = 0; i < 3; i++) expect(outcomes(await rig.pass(id, IMAGES.B))).to.deep.equal(['refUnreadable']);
    expect(rig.rebuildCalls(id)).to.have.length(0);
  });
});
