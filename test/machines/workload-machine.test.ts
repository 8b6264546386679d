/**
 * The workload-machine machine (machines/workload-machine.ts; issue 29, openstack-cluster-modules.md's machine role),
 * rule by rule (WM1–WM17) and model-based: xstate/graph enumerates every state the audit alphabet reaches
 * (machines/workload-machine/audit.ts) and every edge is judged against an oracle written from the brief's sentences.
 */
import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { getAdjacencyMap, adjacencyMapToArray } from 'xstate/graph';
import {
  CREATE_GRACE_MS,
  WORKLOAD_MACHINE_EFFECTS as E,
  workloadMachineDefinition as def,
  workloadMachineStream,
  type WorkloadMachineContext,
  type WorkloadMachineStimulus,
} from '../../machines/workload-machine.js';
import { answer, controlPlane, desiredMachine, members, pass, port, server, T0, T1, T2 } from '../../machines/workload-machine/audit.js';
import { createProductRegistry, productMachines } from '../../machines/index.js';
import { checkMachine } from '../../src/audit/checks/rules.js';
import { statechartOfDefinition } from '../../src/audit/graph/statechart.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';
import { DELETE_RETRY_BACKOFF } from '../../machines/write-ahead-delete.js';

const STREAM = workloadMachineStream('u1');
type S = WorkloadMachineStimulus;
const ctx = (s: AnyMachineSnapshot) => s.context as WorkloadMachineContext;
const after = (...stimuli: S[]): AnyMachineSnapshot => stimuli.reduce((s, x) => step(def, s, x).snapshot, initialSnapshot(def, STREAM));
const decide = (s: AnyMachineSnapshot, x: S) => step(def, s, x);
const p = (o: Parameters<typeof pass>[0]) => pass(o) as S;
const ans = (...args: Parameters<typeof answer>) => answer(...args) as S;
const del = (o: Parameters<typeof pass>[0]) => p({ desired: null, deletionRequested: true, ...o });
const effectTypes = (r: { effects: Array<{ type: string }> }) => r.effects.map((e) => e.type);

const s1 = (status = 'ACTIVE', imageId = 'img-1') => server.of('s1', status, imageId);
/** A worker whose port was created (answered) and observed with its address. */
const portReady = () => after(p({}), ans(E.createPort, 'wm-u1', 'accepted', 'p1'));
/** A worker whose server was decided on T0. */
const serverDecided = () => after(p({}), p({ port: port.free }));
/** A worker running s1. */
const running = () => after(p({}), p({ port: port.free }), p({ port: port.bound('s1'), server: s1() }));
/** Running, then armed for s1 by a deletion pass. */
const armed = () => step(def, running(), del({ port: port.bound('s1'), server: s1() })).snapshot;
/** Armed, then s1's delete decided on T0. */
const serverDeleteDecided = () => step(def, armed(), del({ port: port.bound('s1'), server: s1() })).snapshot;

describe('workloadMachine: the rules', () => {
  it('is registered: the product registry owns workload-machine-<uid> streams with it; regent check passes every check, none skipped', function () {
    this.timeout(60_000);
    expect(productMachines).to.include(def);
    expect(createProductRegistry().forStream(STREAM).id).to.equal('workloadMachine');
    expect(def.effects).to.have.members(Object.values(E));
    expect(def.destructiveEffects).to.deep.equal([E.deleteServer]);
    const report = checkMachine(def);
    expect(report.results.map((r) => [r.id, r.status])).to.deep.equal([
      ['destructive-needs-arm', 'pass'],
      ['destructive-by-reconciler', 'pass'],
      ['monitor-never-authorises', 'pass'],
      ['every-state-reachable', 'pass'],
      ['no-rank-retreat', 'pass'],
    ]);
    expect(report.truncated).to.equal(false);
  });

  describe('WM1 only the reconciler decides', () => {
    it('WM1 a reconcile pass from another source changes nothing and declares nothing', () => {
      for (const source of ['monitor', 'api', 'effect'] as const) {
        const r = decide(after(), { ...p({}), source } as unknown as S);
        expect([r.changed, r.effects.length], source).to.deep.equal([false, 0]);
        const d = decide(armed(), { ...del({ port: port.bound('s1'), server: s1() }), source } as unknown as S);
        expect([d.changed, d.effects.length], source).to.deep.equal([false, 0]);
      }
    });

    it('WM1 an answer records its result and declares nothing; an answer from another source changes nothing', () => {
      const s = after(p({}));
      const r = decide(s, ans(E.createPort, 'wm-u1', 'accepted', 'p1'));
      expect(r.outcome).to.equal('createAccepted');
      expect(r.effects).to.deep.equal([]);
      expect(ctx(r.snapshot)).to.deep.include({ portId: 'p1', lastAnswer: { effect: E.createPort, answer: 'accepted' } });
      expect(decide(s, { ...ans(E.createPort, 'wm-u1', 'accepted', 'p1'), source: 'reconciler' } as unknown as S).changed).to.equal(false);
      expect(decide(s, ans(E.createServer, 'm1', 'accepted', 's1')).changed, 'an answer to nothing decided').to.equal(false);
    });

    it('WM1 polling: the same pass again stores nothing', () => {
      const s = portReady();
      const again = decide(s, p({ port: port.noAddress }));
      expect(decide(again.snapshot, p({ port: port.noAddress })).changed).to.equal(false);
      expect(decide(running(), p({ port: port.bound('s1'), server: s1() })).changed).to.equal(false);
    });
  });

  it('WM2 no exports yet: waits (WaitingForCluster), nothing created — a deletion still proceeds', () => {
    const r = decide(after(), p({ desired: null }));
    expect(r.effects).to.deep.equal([]);
    expect(r.snapshot.value).to.equal('provisioning');
    expect(ctx(r.snapshot).waiting?.reason).to.equal('WaitingForCluster');
    const d = decide(after(), del({ port: port.free }));
    expect(effectTypes(d)).to.deep.equal([E.deletePort]);
  });

  it('WM3 image or flavor not found: waits (ImageNotFound / FlavorNotFound), no port and no server created; a server already there is not affected', () => {
    const image = decide(after(), p({ desired: desiredMachine({ imageId: null }) }));
    expect([effectTypes(image), ctx(image.snapshot).waiting?.reason]).to.deep.equal([[], 'ImageNotFound']);
    const flavor = decide(after(), p({ desired: desiredMachine({ flavorId: null }), port: port.free }));
    expect([effectTypes(flavor), ctx(flavor.snapshot).waiting?.reason]).to.deep.equal([[], 'FlavorNotFound']);
    const runningAnyway = decide(running(), p({ desired: desiredMachine({ imageId: null }), port: port.bound('s1'), server: s1() }));
    expect([runningAnyway.changed, runningAnyway.snapshot.value]).to.deep.equal([false, 'running']);
  });

  it('WM4 a duplicate port or server is a consistency problem naming the ids: nothing decided, live or deleting', () => {
    const dp = decide(after(), p({ port: port.duplicate }));
    expect([dp.snapshot.value, effectTypes(dp), ctx(dp.snapshot).problem]).to.deep.equal(['inconsistent', [], { kind: 'DuplicatePort', detail: '2 ports carry the machine\'s port name', ids: ['p1', 'p9'] }]);
    const ds = decide(after(), p({ port: port.free, server: server.duplicate }));
    expect([ds.snapshot.value, effectTypes(ds), ctx(ds.snapshot).problem?.kind, ctx(ds.snapshot).problem?.ids]).to.deep.equal(['inconsistent', [], 'DuplicateServer', ['s1', 's9']]);
    const deleting = decide(running(), del({ port: port.bound('s1'), server: server.duplicate }));
    expect([deleting.snapshot.value, effectTypes(deleting), ctx(deleting.snapshot).problem?.kind, ctx(deleting.snapshot).deletion?.serverId]).to.deep.equal([{ deleting: 'blocked' }, [], 'DuplicateServer', null]);
  });

  it('WM5 a foreign server is ServerNameTaken: never adopted (no create, not recorded as ours), never deleted', () => {
    const r = decide(after(), p({ port: port.free, server: server.foreign }));
    expect([r.snapshot.value, effectTypes(r), ctx(r.snapshot).problem?.kind, ctx(r.snapshot).serverId]).to.deep.equal(['inconsistent', [], 'ServerNameTaken', null]);
    let s = after();
    for (let i = 0; i < 3; i++) {
      const d = decide(s, del({ server: server.foreign, at: [T0, T1, T2][i] }));
      expect(effectTypes(d)).to.not.include(E.deleteServer);
      s = d.snapshot;
    }
    expect(s.value, 'its name holds no server of Regent\'s: released').to.equal('released');
  });

  it('WM6 the port first, with the contract\'s params; a port without an address waits', () => {
    const r = decide(after(), p({ desired: controlPlane() }));
    expect(r.outcome).to.equal('portCreateDecided');
    expect(r.effects).to.deep.equal([
      { type: E.createPort, subject: 'wm-u1', name: 'wm-u1', networkId: 'net-1', subnetId: 'subnet-1', securityGroupIds: ['sg-cp', 'sg-node'], allowedAddressCIDRs: ['10.244.0.0/16'], tags: ['captf.io:cluster=demo'] },
    ]);
    const w = decide(r.snapshot, p({ desired: controlPlane(), port: port.noAddress }));
    expect([effectTypes(w), ctx(w.snapshot).waiting?.reason]).to.deep.equal([[], 'WaitingForAddress']);
  });

  it('WM7 register before boot: a control plane creates its server only once every desired pool shows it a member; a worker never waits', () => {
    const s = after(p({ desired: controlPlane() }));
    for (const membership of [[], members(true, null), members(true, false), members(false, false)]) {
      const r = decide(s, p({ desired: controlPlane(), port: port.free, membership }));
      expect(effectTypes(r), JSON.stringify(membership)).to.deep.equal([]);
      expect(ctx(r.snapshot).waiting?.reason).to.equal('WaitingForPoolMembership');
    }
    expect(ctx(decide(s, p({ desired: controlPlane(), port: port.free, membership: members(true, false) })).snapshot).waiting?.detail).to.equal('not yet a member of rke2_supervisor');
    expect(ctx(decide(s, p({ desired: controlPlane(), port: port.free })).snapshot).waiting?.detail).to.equal('not yet a member of kube_apiserver, rke2_supervisor');
    const all = decide(s, p({ desired: controlPlane(), port: port.free, membership: members(true, true) }));
    expect(effectTypes(all)).to.deep.equal([E.createServer]);
    const worker = decide(after(p({})), p({ port: port.free }));
    expect(effectTypes(worker)).to.deep.equal([E.createServer]);
  });

  describe('WM8 the server create', () => {
    it('WM8 params: name, uid, image, flavor, the observed port, the user data digest (never the data), zone, server group, metadata', () => {
      const r = decide(after(p({ desired: controlPlane() })), p({ desired: controlPlane(), port: port.free, membership: members(true, true) }));
      expect(r.outcome).to.equal('serverCreateDecided');
      expect(r.effects).to.deep.equal([
        {
          type: E.createServer, subject: 'm1', uid: 'u1', name: 'm1', imageId: 'img-1', flavorId: 'flavor-1', portId: 'p1', userDataDigest: 'a'.repeat(64),
          availabilityZone: 'az1', serverGroupId: 'sg-group', metadata: { 'captf.io:cluster': 'demo', 'regent.dev:uid': 'u1' },
        },
      ]);
    });

    it(`WM8 an unknown outcome: a fresh lookup that still shows no server waits ${CREATE_GRACE_MS / 1000} s (CreateMayStillLand), then creates again`, () => {
      const unknown = decide(serverDecided(), ans(E.createServer, 'm1', 'outcomeUnknown'));
      expect([unknown.outcome, unknown.effects.length]).to.deep.equal(['createOutcomeUnknown', 0]);
      const soon = decide(unknown.snapshot, p({ port: port.free, at: '2026-12-04T10:00:59Z' }));
      expect([effectTypes(soon), ctx(soon.snapshot).waiting?.reason]).to.deep.equal([[], 'CreateMayStillLand']);
      const later = decide(soon.snapshot, p({ port: port.free, at: '2026-12-04T10:01:00Z' }));
      expect(effectTypes(later)).to.deep.equal([E.createServer]);
      const found = decide(unknown.snapshot, p({ port: port.bound('s1'), server: s1('BUILD'), at: '2026-12-04T10:00:10Z' }));
      expect([effectTypes(found), ctx(found.snapshot).serverId]).to.deep.equal([[], 's1']);
      expect(effectTypes(decide(unknown.snapshot, p({ port: port.free, at: 'not a time' }))), 'an unparseable clock never elapses').to.deep.equal([]);
    });

    it('WM8 the same for the port, and for a create with no answer at all', () => {
      const s = after(p({}));
      expect(effectTypes(decide(s, p({ at: '2026-12-04T10:00:30Z' })))).to.deep.equal([]);
      expect(effectTypes(decide(s, p({ at: T1 })))).to.deep.equal([E.createPort]);
    });

    it('WM8 a refused create is recorded and parks until a new generation', () => {
      const r = decide(serverDecided(), ans(E.createServer, 'm1', 'rejected'));
      expect(r.snapshot.value).to.equal('failed');
      expect(ctx(r.snapshot).failure).to.deep.equal({ effect: E.createServer, subject: 'm1', status: 400, reason: 'BadRequest', generation: 1 });
      const stands = decide(r.snapshot, p({ port: port.free, at: T2 }));
      expect([stands.snapshot.value, effectTypes(stands)]).to.deep.equal(['failed', []]);
      const retried = decide(stands.snapshot, p({ port: port.free, generation: 2, at: T2 }));
      expect([retried.snapshot.value, effectTypes(retried), ctx(retried.snapshot).failure]).to.deep.equal(['provisioning', [E.createServer], null]);
    });
  });

  it('WM9 ACTIVE → running, ERROR → errored (never deleted), BUILD waits; an image change while running declares nothing', () => {
    const s = running();
    expect(s.value).to.equal('running');
    expect(ctx(s)).to.deep.include({ serverId: 's1', serverStatus: 'ACTIVE', imageId: 'img-1', portId: 'p1', address: '10.0.0.5' });
    const image = decide(s, p({ desired: desiredMachine({ imageId: 'img-2' }), port: port.bound('s1'), server: s1() }));
    expect([image.changed, image.effects]).to.deep.equal([false, []]);
    const rebuilt = decide(s, p({ desired: desiredMachine({ imageId: 'img-2' }), port: port.bound('s1'), server: s1('ACTIVE', 'img-2') }));
    expect([effectTypes(rebuilt), ctx(rebuilt.snapshot).imageId]).to.deep.equal([[], 'img-2']);
    const errored = decide(s, p({ port: port.bound('s1'), server: s1('ERROR') }));
    expect([errored.snapshot.value, effectTypes(errored), ctx(errored.snapshot).serverStatus]).to.deep.equal(['errored', [], 'ERROR']);
    expect(effectTypes(decide(errored.snapshot, p({ port: port.bound('s1'), server: s1('ERROR'), at: T2 })))).to.deep.equal([]);
    const build = decide(after(p({}), p({ port: port.free })), p({ port: port.bound('s1'), server: s1('BUILD') }));
    expect([build.snapshot.value, ctx(build.snapshot).waiting?.reason]).to.deep.equal(['provisioning', 'ServerNotActive']);
  });

  it('WM10 leave before delete: nothing is armed or deleted while any observed pool shows the machine a member', () => {
    const cp = after(p({ desired: controlPlane() }), p({ desired: controlPlane(), port: port.free, membership: members(true, true) }), p({ desired: controlPlane(), port: port.bound('s1'), server: s1(), membership: members(true, true) }));
    const leaving = decide(cp, del({ port: port.bound('s1'), server: s1(), membership: members(false, true) }));
    expect([leaving.snapshot.value, effectTypes(leaving), ctx(leaving.snapshot).waiting, ctx(leaving.snapshot).deletion?.serverId]).to.deep.equal([{ deleting: 'waiting' }, [], { reason: 'LeavingPools', detail: 'still a member of rke2_supervisor' }, null]);
    const still = decide(leaving.snapshot, del({ port: port.bound('s1'), server: s1(), membership: members(false, true), at: T2 }));
    expect(effectTypes(still)).to.deep.equal([]);
    const left = decide(still.snapshot, del({ port: port.bound('s1'), server: s1(), membership: members(false, false) }));
    expect([left.outcome, left.snapshot.value]).to.deep.equal(['deleteArmed', { deleting: 'armed' }]);
    // members back after the arm: the arm is dropped, nothing deleted
    const back = decide(left.snapshot, del({ port: port.bound('s1'), server: s1(), membership: members(true, false) }));
    expect([effectTypes(back), ctx(back.snapshot).deletion?.serverId]).to.deep.equal([[], null]);
  });

  it('WM11 a deletion pass arms the observed server id (an event, no effect); another id is armed instead', () => {
    const s = armed();
    expect([s.value, ctx(s).deletion?.step, ctx(s).deletion?.serverId]).to.deep.equal([{ deleting: 'armed' }, 'armed', 's1']);
    const first = decide(running(), del({ port: port.bound('s1'), server: s1() }));
    expect([first.outcome, first.effects]).to.deep.equal(['deleteArmed', []]);
    const other = decide(s, del({ port: port.bound('s2'), server: server.of('s2', 'ACTIVE') }));
    expect([other.outcome, effectTypes(other), ctx(other.snapshot).deletion?.serverId]).to.deep.equal(['deleteArmed', [], 's2']);
  });

  it('WM12 a later pass seeing the armed id again deletes it (destructive); absence confirms; still there after the backoff: sent again', () => {
    const r = decide(armed(), del({ port: port.bound('s1'), server: s1() }));
    expect([r.outcome, r.effects]).to.deep.equal(['deleteSubmitted', [{ type: E.deleteServer, subject: 'm1', id: 's1' }]]);
    const s = r.snapshot;
    expect(decide(s, del({ port: port.bound('s1'), server: s1() })).effects, 'not before the backoff').to.deep.equal([]);
    const again = decide(s, del({ port: port.bound('s1'), server: s1(), at: '2026-12-04T10:00:15Z' }));
    expect([again.outcome, effectTypes(again)]).to.deep.equal(['deleteResubmitted', [E.deleteServer]]);
    expect(DELETE_RETRY_BACKOFF.firstMs).to.equal(15_000);
    const refused = decide(s, ans(E.deleteServer, 'm1', 'rejected'));
    expect([refused.outcome, refused.effects, ctx(refused.snapshot).deletion?.refusal]).to.deep.equal(['deleteRejected', [], { effect: E.deleteServer, status: 400, reason: 'BadRequest' }]);
    const gone = decide(s, del({ port: port.bound('s1') }));
    expect([gone.snapshot.value, effectTypes(gone)]).to.deep.equal([{ deleting: 'deletingPort' }, [E.deletePort]]);
  });

  it('WM13 the port once no server of Regent\'s is observed: only one bound to nothing or to the server this machine deleted; re-sent after the backoff', () => {
    const r = decide(serverDeleteDecided(), del({ port: port.bound('s1') }));
    expect(r.effects).to.deep.equal([{ type: E.deletePort, subject: 'wm-u1', id: 'p1' }]);
    expect(def.destructiveEffects).to.not.include(E.deletePort);
    const bound = decide(running(), del({ port: port.bound('s1') }));
    expect([effectTypes(bound), ctx(bound.snapshot).problem?.kind], 'bound to a server this machine never deleted').to.deep.equal([[], 'PortInUse']);
    const other = decide(serverDeleteDecided(), del({ port: port.bound('other') }));
    expect([other.snapshot.value, effectTypes(other)]).to.deep.equal([{ deleting: 'blocked' }, []]);
    expect(effectTypes(decide(after(), del({ port: port.free })))).to.deep.equal([E.deletePort]);
    expect(effectTypes(decide(r.snapshot, del({ port: port.bound('s1') }))), 'in progress').to.deep.equal([]);
    expect(effectTypes(decide(r.snapshot, del({ port: port.bound('s1'), at: T1 }))), 'after the backoff').to.deep.equal([E.deletePort]);
  });

  it('WM14 released once port and server are both observed absent, final; a deletion of nothing releases at once', () => {
    const port0 = decide(serverDeleteDecided(), del({ port: port.bound('s1') })).snapshot;
    const r = decide(port0, del({}));
    expect([r.outcome, r.snapshot.value, ctx(r.snapshot).released]).to.deep.equal(['released', 'released', true]);
    expect(decide(r.snapshot, p({})).changed, 'final').to.equal(false);
    expect(decide(after(), del({})).snapshot.value).to.equal('released');
    expect(decide(running(), del({ port: port.bound('s1') })).snapshot.value, 'not while the port is there').to.not.equal('released');
  });

  it('WM15 a deletion never releases under a create that may still land', () => {
    const s = decide(serverDecided(), del({ port: port.free })).snapshot;
    expect([s.value, ctx(s).waiting?.reason]).to.deep.equal([{ deleting: 'waiting' }, 'CreateMayStillLand']);
    const portCreate = decide(after(p({})), del({}));
    expect([portCreate.snapshot.value, ctx(portCreate.snapshot).waiting?.reason]).to.deep.equal([{ deleting: 'waiting' }, 'CreateMayStillLand']);
    expect(decide(portCreate.snapshot, del({ at: T1 })).snapshot.value).to.equal('released');
  });

  it('WM16 a rejected spec parks in invalid and decides nothing; a deletion proceeds; the next decodable pass continues', () => {
    const s = decide(after(), { type: 'specRejected', source: 'reconciler', generation: 3, problems: ['spec.flavor: required'] });
    expect([s.snapshot.value, s.effects, ctx(s.snapshot).invalidSpec]).to.deep.equal(['invalid', [], { generation: 3, problems: ['spec.flavor: required'] }]);
    expect(effectTypes(decide(s.snapshot, p({})))).to.deep.equal([E.createPort]);
    const deleting = decide(armed(), { type: 'specRejected', source: 'reconciler', generation: 3, problems: ['x'] });
    expect(deleting.snapshot.value).to.deep.equal({ deleting: 'armed' });
  });

  it('WM17 a deletion pass without the request drops the arm and decides nothing', () => {
    const r = decide(armed(), p({ port: port.bound('s1'), server: s1() }));
    expect([r.outcome, r.effects, ctx(r.snapshot).deletion]).to.deep.equal(['deletionWithdrawn', [], null]);
    expect(effectTypes(decide(r.snapshot, del({ port: port.bound('s1'), server: s1() }))), 'a new deletion arms again first').to.deep.equal([]);
  });

  it('context: what the controller and the status read', () => {
    const c = ctx(after(p({ desired: controlPlane() }), p({ desired: controlPlane(), port: port.free, membership: members(true, false) })));
    expect(c).to.deep.equal({
      uid: 'u1', name: 'm1', portName: 'wm-u1', role: 'controlPlane', portId: 'p1', address: '10.0.0.5', serverId: null, serverStatus: null, imageId: null,
      membership: [
        { name: 'kube_apiserver', poolId: 'pool-a', member: true, provisioningStatus: 'ACTIVE' },
        { name: 'rke2_supervisor', poolId: 'pool-b', member: false, provisioningStatus: 'ACTIVE' },
      ],
      waiting: { reason: 'WaitingForPoolMembership', detail: 'not yet a member of rke2_supervisor' },
      problem: null, failure: null, invalidSpec: null, lastAnswer: null,
      create: null, // the port create landed: the port is observed
      decidedGeneration: 1, deletion: null, released: false,
    });
  });
});

// ─── model-based: every reachable edge of the audit alphabet ────────────────────────────────────────

type Edge = { before: AnyMachineSnapshot; event: S; next: AnyMachineSnapshot; effects: Array<{ type: string; [k: string]: unknown }>; outcome: string | undefined; changed: boolean };
type Rec = Extract<S, { type: 'reconcile' }>;

describe('workloadMachine: model-based, every reachable edge', function () {
  this.timeout(180_000);
  let edges: Edge[];
  before(() => {
    const map = getAdjacencyMap(def.machine, {
      input: { stream: STREAM },
      events: def.audit?.alphabet() as never,
      serializeState: (s) => def.audit?.stateKey?.(s as AnyMachineSnapshot) ?? '',
      serializeEvent: (e) => JSON.stringify(e),
      limit: 1_000_000,
    });
    edges = (adjacencyMapToArray(map) as unknown as Array<{ state: AnyMachineSnapshot; event: S }>).map(({ state, event }) => {
      const r = step(def, state, event);
      return { before: state, event, next: r.snapshot, effects: r.effects as Edge['effects'], outcome: r.outcome, changed: r.changed };
    });
  });
  const recs = () => edges.filter((e) => e.event.type === 'reconcile').map((e) => ({ ...e, rec: e.event as Rec }));
  const ours = (o: Rec['observed']) => (o.server.kind === 'present' && !o.server.foreign ? o.server : null);
  const graceOver = (c: WorkloadMachineContext, effect: string, at: string) =>
    c.create === null || c.create.effect !== effect || Date.parse(at) - Date.parse(c.create.decidedAt) >= CREATE_GRACE_MS;

  it('explores every state and takes every transition the statechart declares', () => {
    const values = new Set(edges.map((e) => JSON.stringify(e.next.value)));
    expect([...values]).to.include.members(['"running"', '"errored"', '"failed"', '"invalid"', '"inconsistent"', '"released"', '{"deleting":"deletingServer"}', '{"deleting":"deletingPort"}', '{"deleting":"blocked"}']);
    const declared = new Set(statechartOfDefinition(def).edges.filter((e) => e.outcome).map((e) => `${e.event}/${e.outcome}`));
    const taken = new Set(edges.filter((e) => e.outcome).map((e) => `${e.event.type}/${e.outcome}`));
    expect([...declared].filter((x) => !taken.has(x)), 'never taken').to.deep.equal([]);
  });

  it('WM1 only a reconcile pass declares, at most one effect per pass; answers declare nothing', () => {
    for (const e of edges) {
      if (e.event.type !== 'reconcile') expect(e.effects, JSON.stringify(e.event)).to.deep.equal([]);
      expect(e.effects.length).to.be.at.most(1);
    }
  });

  it('WM1 no other source decides: every stimulus from another source changes nothing', () => {
    for (const { before, event } of edges) {
      for (const source of event.source === 'reconciler' ? (['monitor', 'api', 'effect'] as const) : (['reconciler', 'monitor'] as const)) {
        const r = step(def, before, { ...event, source } as unknown as S);
        expect(r.changed || r.effects.length > 0, `${source}: ${JSON.stringify(event)}`).to.equal(false);
      }
    }
  });

  it('WM1 polling: the same pass repeated settles within three passes, then stores and declares nothing', () => {
    for (const { before, event } of edges) {
      if (event.type !== 'reconcile') continue;
      let s = before;
      for (let i = 0; i < 3; i++) s = step(def, s, event).snapshot;
      const r = step(def, s, event);
      expect(r.changed || r.effects.length > 0, JSON.stringify(event)).to.equal(false);
    }
  });

  it('WM2–WM8 a create is decided only as the rules allow', () => {
    let ports = 0;
    let servers = 0;
    for (const { before, rec, effects } of recs()) {
      const c = ctx(before);
      for (const e of effects) {
        if (e.type !== E.createPort && e.type !== E.createServer) continue;
        const o = rec.observed;
        expect(rec.deletionRequested).to.equal(false);
        expect(rec.desired).to.not.equal(null);
        expect(rec.desired?.imageId).to.not.equal(null);
        expect(rec.desired?.flavorId).to.not.equal(null);
        expect(o.server.kind, 'no server by the name').to.equal('absent');
        expect(o.port.kind).to.not.equal('duplicate');
        expect(graceOver(c, e.type, rec.at), 'WM8 grace').to.equal(true);
        if (before.value === 'failed') expect(rec.generation).to.be.greaterThan(c.failure?.generation ?? Infinity);
        if (e.type === E.createPort) {
          ports++;
          expect(o.port.kind).to.equal('absent');
        } else {
          servers++;
          expect(o.port.kind === 'present' && o.port.address !== null, 'WM6 port with an address').to.equal(true);
          expect(e.portId).to.equal(o.port.kind === 'present' ? o.port.id : null);
          if (rec.desired?.role === 'controlPlane') for (const pool of rec.desired.pools) expect(o.membership.some((m) => m.poolId === pool.poolId && m.member), 'WM7').to.equal(true);
        }
      }
    }
    expect([ports, servers].every((n) => n > 0)).to.equal(true);
  });

  it('WM9 a running server is never recreated or deleted without a deletion; ERROR is never deleted automatically', () => {
    for (const { before, rec, effects } of recs()) {
      if (rec.deletionRequested) continue;
      expect(effects.filter((e) => e.type === E.deleteServer || e.type === E.deletePort)).to.deep.equal([]);
      if (before.value === 'running' && ours(rec.observed)) expect(effects).to.deep.equal([]);
    }
  });

  it('WM10–WM12 deleteServer: only on a deletion pass, no member left, for the Regent server armed in an earlier event and observed again', () => {
    let deletes = 0;
    for (const { before, rec, effects } of recs()) {
      for (const e of effects) {
        if (e.type !== E.deleteServer) continue;
        deletes++;
        const d = ctx(before).deletion;
        expect(rec.deletionRequested).to.equal(true);
        expect(rec.observed.membership.every((m) => !m.member), 'WM10').to.equal(true);
        expect(['armed', 'server']).to.include(d?.step);
        expect(d?.serverId).to.equal(e.id);
        expect(ours(rec.observed)?.id, 'observed again, not foreign').to.equal(e.id);
        expect(e.id).to.not.equal('f1');
      }
    }
    expect(deletes).to.be.greaterThan(0);
  });

  it('WM13 deletePort: only on a deletion pass with no server of Regent\'s observed, for a port bound to nothing or to the server this machine deleted', () => {
    let deletes = 0;
    for (const { before, rec, effects } of recs()) {
      for (const e of effects) {
        if (e.type !== E.deletePort) continue;
        deletes++;
        expect(rec.deletionRequested).to.equal(true);
        expect(ours(rec.observed)).to.equal(null);
        expect(rec.observed.membership.every((m) => !m.member)).to.equal(true);
        const device = rec.observed.port.kind === 'present' ? rec.observed.port.deviceId : 'absent';
        expect([null, ctx(before).deletion?.deletedServerId ?? null]).to.include(device);
      }
    }
    expect(deletes).to.be.greaterThan(0);
  });

  it('WM14/WM15 released only by a deletion pass observing no port and no server of Regent\'s, with no create in its grace', () => {
    let releases = 0;
    for (const { before, event, next } of edges) {
      if (next.value !== 'released' || before.value === 'released') continue;
      releases++;
      const rec = event as Rec;
      expect(rec.type).to.equal('reconcile');
      expect(rec.deletionRequested).to.equal(true);
      expect(rec.observed.port.kind).to.equal('absent');
      expect(ours(rec.observed)).to.equal(null);
      expect(rec.observed.server.kind).to.not.equal('duplicate');
      for (const effect of [E.createPort, E.createServer]) expect(graceOver(ctx(before), effect, rec.at)).to.equal(true);
    }
    expect(releases).to.be.greaterThan(0);
  });
});
