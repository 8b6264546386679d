/**
 * The unknown-outcome rule of the rebuild protocol (machines/server-rebuild.ts U1/U2) against real Nova, with
 * the field incident reproduced in front of it: "A rebuild POST that outlived the 30 s client timeout (held in
 * front of Nova) was recorded as submitted with no result; the next pass 250 ms later read the old image with
 * no task and R11 submitted again; both POSTs were then accepted — two root-disk wipes".
 *
 * Regent's client reaches Nova through a loopback proxy (support/holding-proxy.ts) with a short timeout
 * (CLIENT_TIMEOUT_MS). The proxy takes the rebuild POST aside: it holds it past the client's timeout and then
 * forwards it (Nova receives and accepts it after the client gave up), or answers 503 itself (Nova never saw
 * it). Passes (`reconcileServerImage` with an engine, a MemoryEventStore and `novaRebuildHandler`, as the control
 * plane wires them) run every PASS_INTERVAL_MS; the proxy counts the rebuild POSTs and Nova's
 * os-instance-actions record is the judge of how many rebuilds Nova accepted.
 */
import { expect } from 'chai';
import type { Context } from 'mocha';
import { Engine } from '../../src/engine/engine.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry } from '../../machines/index.js';
import { serverRebuildStream, UNKNOWN_OUTCOME_WINDOW_MS, type ServerRebuildContext } from '../../machines/server-rebuild.js';
import { reconcileServerImage, type ServerImagePassResult } from '../../src/controllers/server-rebuild/reconcile.js';
import { novaRebuildHandler } from '../../src/controllers/server-rebuild/nova-rebuild-effect.js';
import { connect } from '../../src/openstack/session.js';
import { isRebuildPost, startHoldingProxy, type HoldingProxy, type ProxiedRequest } from './support/holding-proxy.js';
import { realRun, type Fixtures, type RealRun } from './support/run.js';
import { viewOf } from './support/view.js';
import { sleep, waitFor } from './support/wait.js';

/** Regent's client gives up after this (the product's is 30 s; the rule does not depend on the figure). */
const CLIENT_TIMEOUT_MS = 2_000;
/** The proxy holds the rebuild POST this long before Nova gets it: well past the client's timeout. */
const HOLD_MS = 5_000;
/** The incident's cadence: the next pass 250 ms after the last. */
const PASS_INTERVAL_MS = 250;
/** The sandbox holds rebuild_spawning this long, so that the pass after the landing reads the rebuild in flight. */
const WINDOW_SPAWN_S = 3;

interface Rig {
  proxy: HoldingProxy;
  engine: Engine;
  pass(now?: () => Date): Promise<ServerImagePassResult>;
  context(): Promise<ServerRebuildContext>;
  eventTypes(): Promise<string[]>;
  /** Rebuild POSTs that reached the proxy (whatever became of them). */
  rebuildPosts(): ProxiedRequest[];
}

const outcomes = (r: ServerImagePassResult): Array<string | undefined> => r.decisions.map((d) => d.outcome);
const effects = (r: ServerImagePassResult): unknown[] => r.decisions.flatMap((d) => d.effects);

describe('rebuild: an unanswered submission is never submitted again without evidence (U1/U2) against real Nova, through a holding proxy', function () {
  let run: RealRun;
  let fx: Fixtures;
  const proxies: HoldingProxy[] = [];

  before(async () => {
    run = await realRun();
    fx = await run.fixtures();
  });
  afterEach(async () => {
    await Promise.all(proxies.splice(0).map((p) => p.close()));
  });

  const needFaults = (ctx: Context): NonNullable<RealRun['faults']> => {
    if (!run.faults) ctx.skip();
    return run.faults as NonNullable<RealRun['faults']>;
  };

  /** Regent's rebuild path for one server, its compute calls through a fresh proxy in front of Nova. */
  const rig = async (serverId: string, desiredImage: string): Promise<Rig> => {
    const proxy = await startHoldingProxy(run.tenant.endpoint('compute'));
    proxies.push(proxy);
    const session = await connect(run.target.tenantCloud, { logger: run.logger, timeoutMs: CLIENT_TIMEOUT_MS, endpointOverrides: { compute: proxy.url } });
    expect(session.endpoint('compute'), 'the client talks to Nova through the proxy').to.equal(proxy.url);
    const engine = new Engine({ store: new MemoryEventStore(), registry: createProductRegistry(), logger: run.logger, handlers: { 'nova.rebuild': novaRebuildHandler(session.nova) } });
    const stream = serverRebuildStream(serverId);
    return {
      proxy,
      engine,
      pass: (now) => reconcileServerImage({ engine, nova: session.nova, logger: run.logger, ...(now !== undefined ? { now } : {}) }, { serverId, desiredImage }),
      context: async () => (await engine.load(stream)).snapshot.context as ServerRebuildContext,
      eventTypes: async () => (await engine.store.readStream(stream)).map((e) => e.type),
      rebuildPosts: () => proxy.requests.filter((r) => r.method === 'POST' && r.action === 'rebuild'),
    };
  };

  /** The rebuild actions Nova recorded for the server (read directly, not through the proxy). */
  const novaRebuilds = async (serverId: string): Promise<string[]> =>
    (await run.tenant.nova.listInstanceActions(serverId)).filter((a) => a.action === 'rebuild').map((a) => a.requestId);

  const settledOn = (serverId: string, image: string) =>
    waitFor(`server ${serverId} ACTIVE on ${image}`, async () => viewOf(await run.tenant.nova.getServer(serverId)), (v) => v.status === 'ACTIVE' && v.task === null && v.image === image, { timeoutMs: 90_000, intervalMs: 250 });

  it('U1: a rebuild POST held in front of Nova past the client timeout is an unknown outcome; the passes 250 ms apart wait (no second POST); when Nova accepts the held POST the ref records the acceptance; Nova shows ONE rebuild', async function () {
    const faults = needFaults(this); // the pass after the landing reads the rebuild in flight
    const server = await run.bootServer('rb-unknown-held');
    await run.waitActive(server.id);
    const r = await rig(server.id, fx.imageB);
    faults.set('nova', { delay: { spawn: WINDOW_SPAWN_S } });

    expect(outcomes(await r.pass())).to.deep.equal(['armed']);
    r.proxy.holdNext(isRebuildPost(server.id), HOLD_MS);
    const started = Date.now();
    const submit = await r.pass();
    const submitMs = Date.now() - started;
    expect(outcomes(submit), 'the timed-out submit is an unknown outcome, not a refusal').to.deep.equal(['submitted', 'outcomeUnknown']);
    expect(submitMs, 'the pass waited for the client timeout').to.be.at.least(CLIENT_TIMEOUT_MS - 100);
    expect(submit.disposition).to.deep.include({ kind: 'yield' });
    const unknown = await r.context();
    expect(unknown.marker).to.deep.equal({ targetImageID: fx.imageB, state: 'Initiated' });
    expect(unknown.lastSubmission).to.equal('unknown');
    expect(unknown.outstanding).to.deep.include({ imageId: fx.imageB, answer: 'unknown', reason: 'no answer within the client timeout', baseline: [] });
    expect(await r.eventTypes()).to.deep.equal(['serverRebuild.armed', 'serverRebuild.submitted', 'serverRebuild.outcomeUnknown']);
    const held = r.rebuildPosts();
    expect(held, 'one rebuild POST, taken aside by the proxy').to.have.length(1);
    const heldPost = held[0] as ProxiedRequest; // updated in place by the proxy
    expect(heldPost).to.deep.include({ handling: 'held', forwardedAt: null, upstreamStatus: null });
    expect(await novaRebuilds(server.id), 'Nova has not seen the held POST yet').to.deep.equal([]);

    // The incident's next passes: every 250 ms, reading the old image with no task (the held POST has not
    // reached Nova). Each waits for evidence; none submits.
    const waits: Array<{ endedAt: number; outcomes: Array<string | undefined>; effects: number }> = [];
    while (heldPost.forwardedAt === null) {
      await sleep(PASS_INTERVAL_MS);
      const p = await r.pass();
      waits.push({ endedAt: Date.now(), outcomes: outcomes(p), effects: effects(p).length });
    }
    const landed = await r.proxy.taken();
    const forwardedAt = landed.forwardedAt as number;
    const before = waits.filter((w) => w.endedAt < forwardedAt);
    expect(before.length, `passes while the POST was held: ${JSON.stringify(waits)}`).to.be.at.least(3);
    for (const w of before) expect(w, 'a pass before the held POST landed').to.deep.equal({ endedAt: w.endedAt, outcomes: ['awaitingEvidence'], effects: 0 });
    // A pass that overlapped the landing read either side of it.
    for (const w of waits.filter((x) => x.endedAt >= forwardedAt)) expect([['awaitingEvidence'], ['acceptanceRecorded']]).to.deep.include(w.outcomes);
    expect(r.rebuildPosts(), 'no second rebuild POST while the first was unanswered').to.have.length(1);

    // Nova got the held POST after the client had given up, and accepted it.
    expect(landed).to.deep.include({ handling: 'held', upstreamStatus: 202, clientGone: true, clientStatus: null });
    expect(landed.upstreamRequestId).to.match(/^req-[0-9a-f-]{36}$/);
    expect(await novaRebuilds(server.id)).to.deep.equal([landed.upstreamRequestId]);

    // The next pass reads the ref on the target with the task set: that is the evidence of acceptance (R9).
    const accepted = waits.some((w) => w.outcomes[0] === 'acceptanceRecorded') ? undefined : await r.pass();
    if (accepted) expect(outcomes(accepted)).to.deep.equal(['acceptanceRecorded']);
    const recorded = await r.context();
    expect(recorded.marker).to.deep.equal({ targetImageID: fx.imageB, state: 'Rebuilding' });
    expect(recorded.outstanding, 'acceptance settles the unanswered submission').to.equal(null);

    await settledOn(server.id, fx.imageB);
    expect(outcomes(await r.pass())).to.deep.equal(['cleared']);
    expect(outcomes(await r.pass())).to.deep.equal(['inSync']);
    expect(r.rebuildPosts(), 'exactly one rebuild POST in all').to.have.length(1);
    expect(await novaRebuilds(server.id), "Nova's record: exactly ONE rebuild").to.deep.equal([landed.upstreamRequestId]);
    const types = await r.eventTypes();
    expect(types.filter((t) => t === 'serverRebuild.submitted' || t === 'serverRebuild.resubmittedOnEvidence')).to.deep.equal(['serverRebuild.submitted']);
    expect(types).to.deep.equal([
      'serverRebuild.armed', 'serverRebuild.submitted', 'serverRebuild.outcomeUnknown', 'serverRebuild.awaitingEvidence', 'serverRebuild.acceptanceRecorded', 'serverRebuild.cleared',
    ]);
  });

  it("U2: a rebuild POST answered 503 in front of Nova (Nova never saw it) waits; once the pass clock is past the 120 s window and Nova's record shows no rebuild since the decision it is resubmitted on evidence and accepted; Nova shows ONE rebuild", async function () {
    const server = await run.bootServer('rb-unknown-503');
    await run.waitActive(server.id);
    const r = await rig(server.id, fx.imageB);

    expect(outcomes(await r.pass())).to.deep.equal(['armed']);
    r.proxy.answerNext(isRebuildPost(server.id), 503, { error: { code: 503, message: 'Service Unavailable (holding proxy)' } });
    const submit = await r.pass();
    expect(outcomes(submit)).to.deep.equal(['submitted', 'outcomeUnknown']);
    const dropped = await r.proxy.taken();
    expect(dropped).to.deep.include({ handling: 'answered', forwardedAt: null, upstreamStatus: null, clientStatus: 503 });
    const unknown = await r.context();
    expect(unknown.outstanding).to.deep.include({ imageId: fx.imageB, answer: 'unknown', reason: 'Nova answered HTTP 503', baseline: [] });
    const decidedAt = Date.parse(unknown.outstanding?.decidedAt ?? '');
    expect(Number.isNaN(decidedAt), 'the decision carries the pass clock').to.equal(false);

    // Inside the window: the passes wait, whatever the server looks like (old image, no task).
    for (let i = 0; i < 3; i++) {
      await sleep(PASS_INTERVAL_MS);
      const p = await r.pass();
      expect(outcomes(p)).to.deep.equal(['awaitingEvidence']);
      expect(effects(p)).to.deep.equal([]);
    }
    // Still inside the window by the pass clock, one second before its end: no resubmission.
    const almost = await r.pass(() => new Date(decidedAt + UNKNOWN_OUTCOME_WINDOW_MS - 1_000));
    expect(outcomes(almost)).to.deep.equal(['awaitingEvidence']);
    expect(r.rebuildPosts()).to.have.length(1);
    expect(await novaRebuilds(server.id), 'Nova never saw the dropped POST').to.deep.equal([]);

    // Past the window by the pass clock, the ref still off the target and Nova's record showing no rebuild
    // since the decision: the evidence U2 needs. Submitted again, and accepted.
    const again = await r.pass(() => new Date(decidedAt + UNKNOWN_OUTCOME_WINDOW_MS + 1_000));
    expect(outcomes(again)).to.deep.equal(['resubmittedOnEvidence', 'accepted']);
    const posts = r.rebuildPosts();
    expect(posts.map((p) => [p.handling, p.upstreamStatus, p.clientStatus])).to.deep.equal([['answered', null, 503], ['forwarded', 202, 202]]);
    const resubmitted = posts[1]?.upstreamRequestId;
    expect(resubmitted).to.match(/^req-[0-9a-f-]{36}$/);
    expect((await r.context()).outstanding).to.equal(null);

    await settledOn(server.id, fx.imageB);
    expect(outcomes(await r.pass())).to.deep.equal(['cleared']);
    expect(outcomes(await r.pass())).to.deep.equal(['inSync']);
    expect(r.rebuildPosts()).to.have.length(2);
    expect(await novaRebuilds(server.id), "Nova's record: exactly ONE rebuild, the resubmission").to.deep.equal([resubmitted]);
    expect(await r.eventTypes()).to.deep.equal([
      'serverRebuild.armed', 'serverRebuild.submitted', 'serverRebuild.outcomeUnknown', 'serverRebuild.awaitingEvidence', 'serverRebuild.resubmittedOnEvidence', 'serverRebuild.accepted', 'serverRebuild.cleared',
    ]);
  });
});
