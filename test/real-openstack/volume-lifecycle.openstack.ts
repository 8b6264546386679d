/**
 * The volume lifecycle (machines/volume-lifecycle.ts, rules V1–V12) and its provider (src/provider/volumes.ts)
 * through the real Engine against the sandbox's real Cinder (issue 12): the rig of test/provider/volumes.test.ts,
 * with the simulator replaced by the real cloud. There is no Volume controller yet, so a test plays the
 * reconciler: each pass observes `volume-<uid>` with observeVolume and dispatches one `reconcile` stimulus.
 *
 * Cinder calls are counted from a session of our own whose logger keeps every `openstack request` line
 * (support/logs.ts), filtered to the `block-storage` service.
 *
 * In-flight windows: the fake driver settles a create in about 0.1 s, an extend in about 0.07 s and a delete
 * in well under a second, so a pass would rarely see `creating`, `extending` or `deleting`. The tests that
 * assert yields hold the window with the sandbox's Cinder fault control (`delay` on `create_volume`,
 * `extend_volume`, `delete_volume`) and are pending without it. The `initialize_connection` delay is not used:
 * it slows attach only, and nothing here attaches. A status the machine does not know (V7) is forced with the
 * admin's `os-reset_status` to `maintenance`, one of the statuses Cinder accepts there.
 *
 * Names: a Volume's Cinder name is `volume-<uid>` (V1), so the uid carries the run prefix
 * (`volume-regent-ci-<pid>-<hex>-<suffix>`). The suite's sweep (support/sweep.ts) matches names that *start*
 * with a run prefix and never sees these, so this file registers an exact-name deletion for every rig with the
 * run's cleanup, removes each test's volume after the test (the demo project's quota is 10 volumes), and
 * sweeps `volume-<prefix>` names itself: leftovers of killed runs before the first test, its own after the last.
 */
import { expect } from 'chai';
import type { Context } from 'mocha';
import type { AnyMachineSnapshot } from 'xstate';
import { hostname } from 'node:os';
import { Engine, type EffectHandler } from '../../src/engine/engine.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { createProductRegistry } from '../../machines/index.js';
import type { Stimulus } from '../../machines/definition.js';
import {
  VOLUME_EFFECTS,
  VOLUME_ERRORED_MESSAGE,
  volumeCloudName,
  volumeLifecycleStream,
  type IdentityScope,
  type VolumeContext,
  type VolumeLookup,
  type VolumeStimulus,
} from '../../machines/volume-lifecycle.js';
import { volumeAvailable } from '../../projections/volume-status.js';
import { LINKAGE_KEYS, METADATA_NAMESPACE, volumeMetadata } from '../../machines/volume-metadata.js';
import { createVolumeHandler, deleteVolumeHandler, extendVolumeHandler, observeVolume } from '../../src/provider/volumes.js';
import { exactNameRegex } from './support/faults.js';
import { captureLogs, type LogCapture, type RequestLine } from './support/logs.js';
import { realRun, type RealRun } from './support/run.js';
import { alive, removeVolumeByName, sweepRunVolumes } from './support/volumes.js';
import { sleep, waitFor } from './support/wait.js';

/** Seconds the sandbox holds an in-flight Cinder status in the tests that assert yields. */
const WINDOW_S = 3;
/** The pass interval of the tests' reconciler. */
const PASS_INTERVAL_MS = 250;

interface PassResult {
  snapshot: AnyMachineSnapshot;
  outcomes: Array<string | undefined>;
  observed: VolumeLookup | undefined;
}

describe('volume lifecycle against real Cinder (issue 12)', function () {
  let run: RealRun;
  let logs: LogCapture;
  /** The tenant, through a session whose requests are counted. */
  let demo: OpenStackSession;
  let volumeType: { id: string; name: string };
  /** The names created in the current test, removed after it. */
  let created: string[] = [];
  const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => silent };

  const cinderCalls = (since: number): RequestLine[] => logs.requests().slice(since).filter((l) => l.service === 'block-storage');
  const mark = (): number => logs.requests().length;
  const posts = (calls: RequestLine[], suffix: string): RequestLine[] => calls.filter((c) => c.method === 'POST' && c.path.endsWith(suffix));

  /** Every volume named exactly `name` deleted and gone (support/volumes.ts). */
  const removeByName = (name: string): Promise<void> => removeVolumeByName(run, name);

  before(async () => {
    run = await realRun();
    logs = captureLogs();
    demo = await connect(run.target.tenantCloud, { logger: logs.logger });
    const types = await demo.cinder.listVolumeTypes();
    volumeType = types.find((t) => t.name === '__DEFAULT__') ?? (types[0] as { id: string; name: string });
    if (!run.target.keep) {
      const swept = await sweepRunVolumes(run, (prefix, pid) => prefix === run.prefix || alive(pid));
      if (swept.length > 0) console.log(`      swept ${swept.length} volume-<prefix> volumes killed runs left: ${swept.join(', ')}`);
    }
  });
  afterEach(async () => {
    const names = created;
    created = [];
    if (!run.target.keep) for (const name of names) await removeByName(name);
  });
  after(async () => {
    if (!run || run.target.keep) return;
    const left = await sweepRunVolumes(run, (prefix) => prefix !== run.prefix);
    if (left.length > 0) console.log(`      swept volumes of this run that escaped their test's cleanup: ${left.join(', ')}`);
  });

  const needFaults = (ctx: Context): NonNullable<RealRun['faults']> => {
    if (!run.faults) ctx.skip();
    return run.faults as NonNullable<RealRun['faults']>;
  };

  /** One Volume: its stream in a memory store, an engine with the provider's handlers, and a test reconciler. */
  const rig = (suffix: string, options: { tags?: Record<string, string> } = {}) => {
    const uid = `${run.prefix}-${suffix}`;
    const name = volumeCloudName(uid);
    created.push(name);
    run.cleanup.add(`volume ${name}`, () => removeByName(name), 'volumes');
    const store = new MemoryEventStore();
    const stream = volumeLifecycleStream(uid);
    const linkage = { identityID: `identity-${suffix}`, organizationID: `org-${suffix}`, projectID: `project-${suffix}`, regionID: `region-${suffix}`, networkID: `network-${suffix}` };
    const tags = options.tags ?? { team: 'storage' };
    const defaults: Record<string, EffectHandler> = {
      [VOLUME_EFFECTS.create]: createVolumeHandler(demo.cinder),
      [VOLUME_EFFECTS.extend]: extendVolumeHandler(demo.cinder),
      [VOLUME_EFFECTS.delete]: deleteVolumeHandler(demo.cinder),
    };
    const engineWith = (handlers: Record<string, EffectHandler> = {}) => new Engine({ store, registry: createProductRegistry(), handlers: { ...defaults, ...handlers }, logger: run.logger });
    let engine = engineWith();
    let passes = 0;
    const state = { size: 1, deleting: false };

    /** One reconcile pass: a fresh exact-name lookup (none without a project, as the reconciler does), then dispatch. */
    const pass = async (over: { identity?: IdentityScope } = {}): Promise<PassResult> => {
      passes += 1;
      const identity: IdentityScope = over.identity ?? { kind: 'realized', projectId: demo.projectId ?? '' };
      const observed = identity.kind === 'realized' ? await observeVolume(demo.cinder, uid, (serverId) => serverId) : undefined;
      const stimulus: VolumeStimulus = {
        type: 'reconcile', source: 'reconciler', generation: 1, deletionRequested: state.deleting, at: new Date().toISOString(), identity,
        desired: { size: state.size, volumeClassID: volumeType.id, linkage, tags },
        exportedClasses: [volumeType.id],
        ...(observed ? { observed } : {}),
      };
      const decisions = await engine.dispatch(stream, { stimulus: stimulus as unknown as Stimulus, actor: 'test/volume-lifecycle' });
      const last = decisions.at(-1);
      if (!last) throw new Error('dispatch decided nothing');
      return { snapshot: last.snapshot, outcomes: decisions.map((d) => d.outcome), observed };
    };

    /** Passes every PASS_INTERVAL_MS until `done`; every pass's result, the last one included. */
    const until = async (what: string, done: (p: PassResult) => boolean, timeoutMs = 60_000): Promise<PassResult[]> => {
      const seen: PassResult[] = [];
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const p = await pass();
        seen.push(p);
        if (done(p)) return seen;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; passes: ${JSON.stringify(seen.map((s) => [s.snapshot.value, s.outcomes, s.observed]))}`);
        await sleep(PASS_INTERVAL_MS);
      }
    };

    return {
      uid, name, stream, store, linkage, tags, state, pass, until,
      passes: () => passes,
      /** A fresh engine on the same store (a restarted process): nothing of the old one's memory survives. */
      restart: (handlers: Record<string, EffectHandler> = {}) => void (engine = engineWith(handlers)),
      events: (): Promise<RecordedEvent[]> => store.readStream(stream),
      types: async (): Promise<string[]> => (await store.readStream(stream)).map((e) => e.type.replace(/^volumeLifecycle\./, '')),
      context: (p: PassResult): VolumeContext => p.snapshot.context as VolumeContext,
    };
  };
  type Rig = ReturnType<typeof rig>;

  const stateOf = (p: PassResult): string => (typeof p.snapshot.value === 'string' ? p.snapshot.value : JSON.stringify(p.snapshot.value));
  const statusOf = (p: PassResult): string | undefined => (p.observed?.kind === 'present' ? p.observed.status : p.observed?.kind);
  /** A pass that yielded: the volume is not reported available, nothing settled yet. */
  const yielded = (p: PassResult): boolean => volumeAvailable(p.snapshot).status === 'False';

  /** Create → available through the machine (the first pass creates, later ones yield). */
  const toAvailable = async (r: Rig): Promise<PassResult[]> => r.until(`${r.name} available`, (p) => stateOf(p) === 'available');

  it('1. create → available: the first pass creates volume-<uid> with regent.dev: metadata (linkage keys win over user tags, no camelCase keys); later passes yield until Cinder says available', async () => {
    // a user tag tries every linkage key, bare and namespaced (M1/M2)
    const linkageNames = Object.values(LINKAGE_KEYS).map((k) => k.slice(METADATA_NAMESPACE.length));
    const tags: Record<string, string> = { team: 'storage' };
    for (const key of linkageNames) {
      tags[key] = `user-${key}`;
      tags[`${METADATA_NAMESPACE}${key}`] = `user-namespaced-${key}`;
    }
    const r = rig('create', { tags });
    const since = mark();
    const seen = await toAvailable(r);
    const calls = cinderCalls(since);
    console.log(`      create → available: ${r.passes()} passes, ${calls.length} Cinder calls (${calls.filter((c) => c.method === 'POST').length} POST)`);
    expect(seen[0]?.outcomes, 'the first pass decides the create and records its acceptance').to.deep.equal(['createSubmitted', 'createAccepted']);
    expect(stateOf(seen[0] as PassResult)).to.equal('creating');
    for (const p of seen.slice(0, -1)) expect(yielded(p), `pass ${stateOf(p)} / ${statusOf(p)} yields`).to.equal(true);
    expect(volumeAvailable((seen.at(-1) as PassResult).snapshot)).to.deep.equal({ status: 'True', reason: 'Provisioned', message: 'the volume is available' });
    expect(posts(calls, '/volumes'), 'one Cinder create').to.have.length(1);
    expect(calls.filter((c) => c.method !== 'GET' && c.method !== 'POST'), 'nothing but lookups and the create').to.deep.equal([]);

    const volume = await demo.cinder.findVolumeByName(r.name);
    expect(r.context(seen.at(-1) as PassResult).volumeId).to.equal(volume.id);
    expect(volume.size).to.deep.equal({ kind: 'value', value: 1 });
    expect(volume.volumeType).to.deep.equal({ kind: 'value', value: volumeType.name });
    const expected: Record<string, string> = {
      'regent.dev:team': 'storage',
      'regent.dev:identity-id': r.linkage.identityID,
      'regent.dev:organization-id': r.linkage.organizationID,
      'regent.dev:project-id': r.linkage.projectID,
      'regent.dev:region-id': r.linkage.regionID,
      'regent.dev:network-id': r.linkage.networkID,
      'regent.dev:volume-id': r.uid,
      'regent.dev:uid': r.uid,
    };
    expect(volume.metadata, 'the real volume\'s metadata: Regent\'s linkage values, the user tag namespaced').to.deep.equal({ kind: 'value', value: expected });
    const metadata = volume.metadata.kind === 'value' ? volume.metadata.value : {};
    expect(Object.keys(metadata).filter((k) => !k.startsWith(METADATA_NAMESPACE)), 'no bare key').to.deep.equal([]);
    expect(Object.keys(metadata).filter((k) => /[A-Z]/.test(k)), 'no legacy camelCase key (identityID, organizationID, …)').to.deep.equal([]);
    // the metadata sent is the one recorded in the decision, and Cinder stores it as sent
    const decision = (await r.events()).find((e) => e.metadata.effects.some((x) => x.type === VOLUME_EFFECTS.create));
    expect(decision?.metadata.effects[0]?.metadata).to.deep.equal(volumeMetadata({ volumeUid: r.uid, linkage: r.linkage, tags }));
    expect(decision?.metadata.effects[0]?.metadata).to.deep.equal(expected);

    // Cinder's `name=` is not byte-exact on MySQL (case- and accent-insensitive, trailing spaces ignored): the
    // upper-cased name finds this volume, and observeVolume's exact post-filter is what keeps it from being
    // adopted by a Volume whose uid differs only in case
    expect((await demo.cinder.listVolumes({ name: r.name.toUpperCase() })).map((v) => v.id), 'name= with the name upper-cased').to.deep.equal([volume.id]);
    expect(await observeVolume(demo.cinder, r.uid.toUpperCase(), String)).to.deep.equal({ kind: 'absent' });
  });

  describe('2. adopt after a crash between Cinder\'s 202 and the recorded result', () => {
    it('2a. the handler creates through the real Cinder, then the process dies before the result is recorded: a fresh engine on the same store adopts (V2), one volume, no second POST', async () => {
      const r = rig('adopt');
      let landed: string | undefined;
      r.restart({
        [VOLUME_EFFECTS.create]: async (effect, context) => {
          const answer = await createVolumeHandler(demo.cinder)(effect, context);
          landed = answer?.type === 'createAccepted' ? String(answer.id) : undefined;
          throw new Error('simulated crash: Cinder answered 202, the process died before the result was recorded');
        },
      });
      const crashed = await r.pass().then(() => 'no crash', (error: unknown) => (error instanceof Error ? error.message : String(error)));
      expect(crashed).to.match(/^simulated crash/);
      expect(landed, 'the real create landed').to.be.a('string');
      expect(await r.types(), 'only the decision is recorded').to.deep.equal(['createSubmitted']);

      r.restart();
      const since = mark();
      const seen = await toAvailable(r);
      const calls = cinderCalls(since);
      expect(posts(calls, '/volumes'), 'the restarted engine sends no create').to.deep.equal([]);
      expect(seen[0]?.observed).to.deep.include({ kind: 'present', id: landed });
      expect(r.context(seen.at(-1) as PassResult).volumeId, 'the landed volume is adopted').to.equal(landed);
      expect((await demo.cinder.listVolumes({ name: r.name })).filter((v) => v.name === r.name).map((v) => v.id), `exactly one ${r.name} in Cinder`).to.deep.equal([landed]);
      expect(await r.types()).to.not.include('createResubmitted');

      // the create handler itself, retried for the name Cinder already took, adopts it by exact name: no POST
      const before = mark();
      const answer = await createVolumeHandler(demo.cinder)({ type: VOLUME_EFFECTS.create, name: r.name, size: 1, volumeType: volumeType.id, metadata: {} }, { logger: silent } as never);
      expect(answer).to.deep.equal({ type: 'createAccepted', id: landed });
      expect(posts(cinderCalls(before), '/volumes')).to.deep.equal([]);
    });

    it('2b. the process dies after the decision, before the POST; the lost create lands late (created out of band with the exact name): the fresh engine waits on the absence (V6), then adopts; one volume', async () => {
      const r = rig('late');
      r.restart({
        [VOLUME_EFFECTS.create]: async () => {
          throw new Error('simulated crash: the process died after the decision was recorded, before the POST');
        },
      });
      await r.pass().then(() => expect.fail('the crash should propagate'), () => undefined);
      expect(await r.types()).to.deep.equal(['createSubmitted']);

      r.restart();
      const since = mark();
      const waiting = await r.pass();
      expect(waiting.observed).to.deep.equal({ kind: 'absent' });
      expect(waiting.outcomes, 'an absence inside the window is no proof: nothing is sent again').to.deep.equal(['awaitingCreate']);
      expect(posts(cinderCalls(since), '/volumes')).to.deep.equal([]);

      // the create that was lost lands now (as if the POST had been in flight all along)
      const late = await run.tenant.cinder.createVolume({ name: r.name, size: 1, volumeType: volumeType.id });
      const seen = await toAvailable(r);
      expect(r.context(seen.at(-1) as PassResult).volumeId).to.equal(late.id);
      expect(posts(cinderCalls(since), '/volumes'), 'the engine never created').to.deep.equal([]);
      expect((await demo.cinder.listVolumes({ name: r.name })).filter((v) => v.name === r.name).map((v) => v.id)).to.deep.equal([late.id]);
    });
  });

  it('3. create_volume failing (fault control) → errored: Available=False, Reason=Errored, the fixed message; no event carries Cinder\'s diagnostics; the errored volume is deleted write-ahead', async function () {
    const faults = needFaults(this);
    const r = rig('vfail');
    faults.set('cinder', { fail: { create_volume: exactNameRegex(r.name) } });
    const seen = await r.until(`${r.name} errored`, (p) => stateOf(p) === 'errored');
    const last = seen.at(-1) as PassResult;
    expect(statusOf(last)).to.equal('error');
    expect(volumeAvailable(last.snapshot)).to.deep.equal({ status: 'False', reason: 'Errored', message: VOLUME_ERRORED_MESSAGE });
    const id = r.context(last).volumeId as string;
    expect(id).to.match(/^[0-9a-f-]{36}$/);

    // what Cinder says about it: its user messages (scheduler and driver texts, request ids) and the service hosts
    const messages = await waitFor('cinder user messages for the volume', async () => {
      const body = (await demo.http('block-storage').get('/messages')).data as { messages: Array<Record<string, string>> };
      return body.messages.filter((m) => m.resource_uuid === id);
    }, (list) => list.length > 0, { timeoutMs: 15_000 });
    const diagnostics = new Set<string>(['sandbox control', 'failure requested', 'weighted backend', 'Driver failed', 'VolumeBackendAPIException', 'schedule allocate volume', 'NoValidBackend']);
    for (const m of messages) for (const key of ['id', 'user_message', 'request_id', 'event_id']) if (m[key]) diagnostics.add(m[key] as string);
    if (run.admin) {
      const services = ((await run.admin.http('block-storage').get('/os-services')).data as { services: Array<{ host: string }> }).services;
      for (const s of services) if (s.host.length >= 5) diagnostics.add(s.host);
    }
    if (hostname().length >= 4) diagnostics.add(hostname());

    const events = await r.events();
    const text = JSON.stringify(events);
    for (const d of diagnostics) expect(text, `no event carries ${JSON.stringify(d)}`).to.not.include(d);
    expect(JSON.stringify(last.snapshot.context)).to.not.include('weighted backend');
    // the volume id appears only as an id (a field equal to it), never inside a message
    const embedding: string[] = [];
    const walk = (value: unknown, path: string): void => {
      if (typeof value === 'string') {
        if (value !== id && value.includes(id)) embedding.push(`${path}: ${value}`);
      } else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`));
      else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`);
    };
    walk(events, 'events');
    expect(embedding, 'strings that embed the volume id').to.deep.equal([]);

    // `error` is a status Cinder deletes: the deletion arms, submits, and is confirmed by absence
    r.state.deleting = true;
    const deleted = await r.until(`${r.name} deleted`, (p) => stateOf(p) === 'deleted');
    expect(deleted.flatMap((p) => p.outcomes)).to.include.members(['deleteArmed', 'deleteSubmitted', 'deleteAccepted', 'deleted']);
  });

  it('4a. a volume `creating` for a while (create_volume held 3 s) yields on every pass until available; one create', async function () {
    const faults = needFaults(this);
    const r = rig('slow');
    faults.set('cinder', { delay: { create_volume: WINDOW_S } });
    const since = mark();
    const seen = await toAvailable(r);
    const creating = seen.filter((p) => statusOf(p) === 'creating');
    expect(creating.length, 'passes that saw Cinder say creating').to.be.at.least(3);
    for (const p of creating) {
      expect(yielded(p)).to.equal(true);
      expect(volumeAvailable(p.snapshot)).to.deep.include({ reason: 'Provisioning' });
    }
    expect([...new Set(creating.map(stateOf))], 'the machine waits in pending').to.deep.equal(['pending']);
    expect(seen.flatMap((p) => p.outcomes).filter((o) => o === 'createInProgress').length).to.equal(1);
    expect(posts(cinderCalls(since), '/volumes'), 'one create').to.have.length(1);
  });

  it('4b. a status the machine does not know (admin os-reset_status → maintenance) yields; back to available it settles; nothing sent', async function () {
    if (!run.admin) this.skip();
    const admin = run.admin as OpenStackSession;
    const r = rig('unknown');
    await toAvailable(r);
    const id = (await demo.cinder.findVolumeByName(r.name)).id;
    await admin.cinder.resetVolumeStatus(id, { status: 'maintenance' });
    const since = mark();
    const held = await r.pass();
    expect(statusOf(held)).to.equal('maintenance');
    expect(held.outcomes).to.deep.equal(['settling']);
    expect(stateOf(held)).to.equal('pending');
    expect(volumeAvailable(held.snapshot)).to.deep.include({ status: 'False', reason: 'Provisioning' });
    const again = await r.pass();
    expect(stateOf(again), 'still yielding').to.equal('pending');
    await admin.cinder.resetVolumeStatus(id, { status: 'available' });
    const settled = await r.pass();
    expect(stateOf(settled)).to.equal('available');
    expect(cinderCalls(since).filter((c) => c.method !== 'GET'), 'no write while the status is unknown').to.deep.equal([]);
  });

  it('5. extend 1 → 2 GiB (extend_volume held 3 s): decided once, yields while extending, then available at 2 GiB', async function () {
    const faults = needFaults(this);
    const r = rig('grow');
    await toAvailable(r);
    faults.set('cinder', { delay: { extend_volume: WINDOW_S } });
    r.state.size = 2;
    const since = mark();
    const seen = await r.until(`${r.name} extended`, (p) => stateOf(p) === 'available');
    expect(seen[0]?.outcomes).to.deep.equal(['extendSubmitted', 'extendAccepted']);
    expect(stateOf(seen[0] as PassResult)).to.equal('extending');
    const extending = seen.filter((p) => statusOf(p) === 'extending');
    expect(extending.length, 'passes that saw Cinder say extending').to.be.at.least(3);
    for (const p of extending) {
      expect(stateOf(p)).to.equal('extending');
      expect(volumeAvailable(p.snapshot)).to.deep.equal({ status: 'False', reason: 'Provisioning', message: 'extending the volume to 2 GiB' });
    }
    expect(seen.at(-1)?.outcomes).to.deep.equal(['extended']);
    expect(seen.at(-1)?.observed).to.deep.include({ status: 'available', size: 2 });
    expect(posts(cinderCalls(since), '/action'), 'one os-extend').to.have.length(1);
    expect((await r.events()).filter((e) => e.metadata.effects.some((x) => x.type === VOLUME_EFFECTS.extend)), 'one extend decided').to.have.length(1);
    expect((await demo.cinder.findVolumeByName(r.name)).size).to.deep.equal({ kind: 'value', value: 2 });
  });

  it('6a. delete (delete_volume held 3 s): one pass arms, the next submits, passes yield while deleting until a lookup confirms absence; one DELETE', async function () {
    const faults = needFaults(this);
    const r = rig('delete');
    await toAvailable(r);
    faults.set('cinder', { delay: { delete_volume: WINDOW_S } });
    r.state.deleting = true;
    const since = mark();
    const armed = await r.pass();
    expect(armed.outcomes).to.deep.equal(['deleteArmed']);
    expect(armed.snapshot.value).to.deep.equal({ deleting: 'armed' });
    expect(cinderCalls(since).filter((c) => c.method === 'DELETE'), 'arming sends nothing').to.deep.equal([]);
    const submitted = await r.pass();
    expect(submitted.outcomes).to.deep.equal(['deleteSubmitted', 'deleteAccepted']);
    expect(submitted.snapshot.value).to.deep.equal({ deleting: 'submitted' });
    const seen = await r.until(`${r.name} deleted`, (p) => stateOf(p) === 'deleted');
    const deleting = seen.filter((p) => statusOf(p) === 'deleting');
    expect(deleting.length, 'passes that saw Cinder say deleting').to.be.at.least(3);
    for (const p of deleting) {
      expect(p.outcomes).to.deep.equal(['deleteInProgress']);
      expect(volumeAvailable(p.snapshot).status).to.equal('False');
      expect(volumeAvailable(p.snapshot).message).to.match(/^deleting the volume/);
    }
    expect(seen.at(-1)?.observed, 'deleted on a lookup that found nothing').to.deep.equal({ kind: 'absent' });
    expect(seen.at(-1)?.outcomes).to.deep.equal(['deleted']);
    expect(cinderCalls(since).filter((c) => c.method === 'DELETE'), 'one DELETE').to.have.length(1);
    expect(await demo.cinder.lookupVolumeByName(r.name)).to.equal(undefined);
  });

  it('6b. a never-realized identity (no project) deletes at once: nothing to delete, zero Cinder calls', async () => {
    const r = rig('unrealized');
    r.state.deleting = true;
    const since = mark();
    const p = await r.pass({ identity: { kind: 'unrealized' } });
    expect(p.outcomes).to.deep.equal(['nothingToDelete']);
    expect(stateOf(p)).to.equal('deleted');
    expect(logs.requests().slice(since), 'no request at all').to.deep.equal([]);
    expect(await r.types()).to.deep.equal(['nothingToDelete']);
  });
});
