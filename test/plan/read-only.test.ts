/**
 * A plan only reads (issue 32, "Guarantees: read-only"): a plan of a Server image change over the simulator sends
 * only GETs (the simulator's call log), leaves the event store's head and every stream's revision as they were,
 * leaves every resource and Kubernetes event as it was — with tripwires planted under everything it is given (every
 * HttpSession in the process, the event store's append, the resource source's writes) that fail on any mutation. And
 * the guard is proven on a mutation that is tried: directly through a guarded session, and from a pass.
 */
import { expect } from 'chai';
import { HttpSession, type RequestSpec } from '../../src/openstack/http.js';
import type { EventStore } from '../../src/store/port.js';
import type { ResourceSource } from '../../src/kube/port.js';
import { KIND_NAMES } from '../../src/resources/index.js';
import { BranchStops, GuardLog, readOnlySession } from '../../src/plan/read-only-cloud.js';
import type { KindWiring } from '../../src/controllers/kind.js';
import { done } from '../../src/controllers/disposition.js';
import { IMAGES, serverManifest, startPlanRig, type PlanRig } from './support/rig.js';

const WRITES = ['create', 'apply', 'update', 'patchStatus', 'addFinalizer', 'removeFinalizer', 'delete', 'recordEvent'] as const;

/** Every mutating request any HttpSession of this process sends is refused and counted (Keystone token issue aside). */
const plantHttpTripwire = () => {
  const trips: string[] = [];
  const original = Object.getOwnPropertyDescriptor(HttpSession.prototype, 'request')?.value as HttpSession['request'];
  HttpSession.prototype.request = function (this: HttpSession, spec: RequestSpec) {
    if (spec.method !== 'GET' && spec.method !== 'HEAD' && !spec.path.endsWith('/auth/tokens')) {
      trips.push(`${spec.method} ${spec.path}`);
      return Promise.reject(new Error(`tripwire: ${spec.method} ${spec.path}`));
    }
    return original.call(this, spec);
  };
  return { trips, remove: () => void (HttpSession.prototype.request = original) };
};

/** The store with append refused and counted. */
const appendTripwire = (store: EventStore, trips: string[]): EventStore =>
  new Proxy(store, {
    get: (target, property) => {
      if (property === 'append') return async (stream: string) => {
        trips.push(`append ${stream}`);
        throw new Error(`tripwire: append to ${stream}`);
      };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });

/** The source with every write (and the secret store's) refused and counted. */
const sourceTripwire = (source: ResourceSource, trips: string[]): ResourceSource => {
  const refuse = (what: string) => async () => {
    trips.push(what);
    throw new Error(`tripwire: ${what}`);
  };
  const secrets = { ...source.secrets, get: source.secrets.get.bind(source.secrets), list: source.secrets.list.bind(source.secrets), put: refuse('secrets.put'), delete: refuse('secrets.delete') };
  return new Proxy(source, {
    get: (target, property) => {
      if (property === 'secrets') return secrets;
      if ((WRITES as readonly (string | symbol)[]).includes(property)) return refuse(String(property));
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
};

const snapshotOf = async (rig: PlanRig) => ({
  last: await rig.store.lastPosition(),
  heads: await rig.store.listStreams(),
  resources: await Promise.all(KIND_NAMES.map(async (kind) => JSON.stringify((await rig.source.list(kind)).items))),
  events: await rig.source.listEvents(),
});

describe('plan: read-only', function () {
  this.timeout(60_000);
  let rig: PlanRig;
  let serverId: string;
  before(async () => {
    rig = await startPlanRig();
    serverId = await rig.bringUp('web-2', IMAGES.A);
  });
  after(async () => rig?.close());

  it('a Server image change: only GETs reach the simulator, every store and stream as it was, no resource or Kubernetes write', async () => {
    const before = await snapshotOf(rig);
    const firstCall = rig.sim.calls().length;
    const http = plantHttpTripwire();
    const trips: string[] = [];
    let plan;
    try {
      plan = await rig.plan(serverManifest('web-2', IMAGES.B), { store: appendTripwire(rig.store, trips), source: sourceTripwire(rig.source, trips) });
    } finally {
      http.remove();
    }
    expect(http.trips, 'a mutating request under the guard').to.deep.equal([]);
    expect(trips, 'a write to the stores').to.deep.equal([]);
    // the plan did decide something destructive: it ran the passes, it did not just stop early
    expect(plan.destructive).to.equal(true);
    const calls = rig.sim.calls().slice(firstCall);
    expect(calls.length).to.be.greaterThan(0);
    expect(calls.filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.path}`)).to.deep.equal([]);
    expect(await snapshotOf(rig)).to.deep.equal(before);
    // what the passes would have written is recorded instead: the rebuild's Kubernetes event
    expect(plan.resources[0]?.writes.map((w) => `${w.op} ${w.detail ?? ''}`)).to.include('recordEvent Normal RebuildArmed: a rebuild to the new image is armed (write-ahead)');
  });

  it('the tripwire itself trips on a mutation (so its silence above means something)', async () => {
    const http = plantHttpTripwire();
    try {
      await rig.os.nova.stopServer(serverId).catch(() => undefined);
    } finally {
      http.remove();
    }
    expect(http.trips).to.deep.equal([`POST /servers/${serverId}/action`]);
  });

  it('a planted mutation through a guarded session is stopped before it leaves: BranchStops, kept in the log, nothing at the simulator', async () => {
    const log = new GuardLog();
    const guarded = readOnlySession(rig.os, log);
    const firstCall = rig.sim.calls().length;
    const http = plantHttpTripwire();
    let error: unknown;
    try {
      await guarded.nova.rebuildServer(serverId, IMAGES.C).catch((e: unknown) => (error = e));
      // through every door: the raw service session, a per-call microversion session, another service
      await guarded.http('compute').post(`/servers/${serverId}/action`, { 'os-stop': null }).catch(() => undefined);
      await guarded.nova.http.withHeaders({ 'OpenStack-API-Version': 'compute 2.90' }).delete(`/servers/${serverId}`).catch(() => undefined);
      await guarded.cinder.http.put('/volumes/x', { volume: { name: 'y' } }).catch(() => undefined);
      // a read goes through
      expect((await guarded.nova.getServer(serverId)).id).to.equal(serverId);
    } finally {
      http.remove();
    }
    expect(error).to.be.instanceOf(BranchStops);
    expect((error as BranchStops).call).to.deep.equal({ service: 'compute', method: 'POST', path: `/servers/${serverId}/action`, body: { rebuild: { imageRef: IMAGES.C } } });
    expect(log.refused.map((c) => `${c.method} ${c.service} ${c.path}`)).to.deep.equal([
      `POST compute /servers/${serverId}/action`,
      `POST compute /servers/${serverId}/action`,
      `DELETE compute /servers/${serverId}`,
      'PUT block-storage /volumes/x',
    ]);
    expect(http.trips).to.deep.equal([]);
    expect(rig.sim.calls().slice(firstCall).map((c) => c.method)).to.deep.equal(['GET']);
  });

  it("a planted pass that tries a mutation itself: the plan stops the branch there and says so; nothing reaches the cloud", async () => {
    const planted: KindWiring = {
      kind: 'Server',
      streams: [],
      wakes: [],
      build: (services) => ({
        reconcile: async (key) => {
          const [namespace, name] = key.split('/') as [string, string];
          const object = services.lookups.get('Server', namespace, name);
          if (!object) throw new Error('no object');
          const scope = await services.scopes.onNetwork(object);
          await scope.session.nova.stopServer(serverId).catch(() => undefined); // swallowed: the guard's log still has it
          return done('planted');
        },
      }),
    };
    const firstCall = rig.sim.calls().length;
    const plan = await rig.plan(serverManifest('web-2', IMAGES.B), { table: [planted] });
    const resource = plan.resources[0];
    expect(resource?.verdict).to.equal('planned');
    expect(resource?.stops).to.equal(`the pass itself would send POST /servers/${serverId}/action {"os-stop":null} to compute: the plan stops before it`);
    expect(plan.guarded).to.have.length(1);
    expect(rig.sim.calls().slice(firstCall).filter((c) => c.method !== 'GET')).to.deep.equal([]);
  });
});
