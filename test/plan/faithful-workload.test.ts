/**
 * A plan is faithful (issue 32, "Guarantees: faithful") for the workload kinds: a property-based test drives a
 * WorkloadCluster, or a WorkloadMachine of a ready cluster, over the simulator to a random reachable state — spec
 * changes with real passes, passes, the simulator's clock (a server BUILD, Octavia PENDING_*), a 409, a 503 or a 400
 * on a create or a delete, an Octavia load balancer that ends in ERROR, a server that boots into ERROR, machines that
 * hold a cluster's deletion, a deletion requested — then plans a random change (a spec, the same spec, or the
 * deletion), runs the real pass (the control plane's wiring over the real store and cloud) and compares what the
 * plan's first pass decides with what the real pass appends, in order: same stream, event, state change, rule,
 * effects (type and parameters) and destructive flag; and the same for the plan's second pass when the first declared
 * no effect. A change `apply` refuses is refused by the plan with apply's message.
 *
 * PLAN_FAITHFUL_RUNS (default 100) is the number of cases in all, half per kind; PLAN_FAITHFUL_SEED replays one run.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { applyManifestFiles } from '../../src/kube/cli/manifests.js';
import type { Plan, PlannedDecision } from '../../src/plan/report.js';
import { IMAGES, clusterManifest, machineManifest, startWorkloadRig, type MachineSpec, type Role, type WorkloadKind, type WorkloadRig } from './support/workload-rig.js';
import { shapeOfPlanned, shapeOfStored } from './support/decision-shape.js';

const TOTAL = Number(process.env.PLAN_FAITHFUL_RUNS ?? 100);
const SEED = process.env.PLAN_FAITHFUL_SEED ? { seed: Number(process.env.PLAN_FAITHFUL_SEED) } : {};

// ─── what is compared ───────────────────────────────────────────────────────────────────────────────



type Final<V> = { kind: 'apply'; variant: V } | { kind: 'same' } | { kind: 'delete' };

interface Tally {
  cases: number;
  nothing: number;
  refused: number;
  secondPasses: number;
  seen: Map<string, number>;
  /** Decisions compared, per machine (the kind's own, its load balancer's or rebuild's, its scope's). */
  decisions: Map<string, number>;
}
const tally = (): Tally => ({ cases: 0, nothing: 0, refused: 0, secondPasses: 0, seen: new Map(), decisions: new Map() });
const print = (machine: string, t: Tally) => {
  console.log(`      ${machine}: ${t.cases} cases compared (${t.nothing} where neither decided anything, ${t.refused} refused by apply in both, ${t.secondPasses} also on the plan's second pass); state before → its first decision (rule):`);
  for (const [key, count] of [...t.seen].sort((a, b) => b[1] - a[1])) console.log(`        ${String(count).padStart(3)}  ${key}`);
  console.log(`      decisions compared per machine: ${[...t.decisions].sort((a, b) => b[1] - a[1]).map(([m, c]) => `${m} ${c}`).join(', ')}`);
};

/**
 * Plans `text` (or its deletion), then does the same for real — apply (or delete), then the real pass — and compares
 * the two; returns the plan's decisions of the first pass.
 */
const compare = async (w: WorkloadRig, kind: WorkloadKind, name: string, text: string, deleting: boolean, t: Tally, why: string): Promise<PlannedDecision[]> => {
  const plan: Plan = await w.plan(text, deleting ? { deleting: true } : {});
  const resource = plan.resources.find((r) => r.kind === kind && r.name === name);
  let refusal: string | undefined;
  try {
    if (deleting) await w.source.delete(kind, 'default', name);
    else await applyManifestFiles(w.source, [{ file: 'plan.yaml', text }]);
  } catch (error) {
    refusal = (error as Error).message;
  }
  if (refusal !== undefined) {
    // apply (or delete) refuses: so does the plan, with its message
    expect(resource?.verdict, `refused ${why}`).to.equal('refused');
    if (!deleting) expect(resource?.refusal, `refusal ${why}`).to.equal(refusal);
    t.refused++;
    return [];
  }
  expect(resource?.verdict, `verdict ${why}: ${resource?.message ?? ''}`).to.equal('planned');
  const planned = resource?.decisions.filter((d) => d.pass === 1) ?? [];
  const realPass = async () => {
    const from = await w.store.lastPosition();
    if (await w.source.get(kind, 'default', name)) await w.pass(kind, name).catch(() => undefined);
    return (await w.store.readAll({ after: from })).filter((e) => e.metadata.source !== 'monitor' && e.metadata.source !== 'effect');
  };
  const real = await realPass();
  // a resource the change creates gets its uid when it is stored: the plan's is its own, the streams named after it
  const uid = (await w.source.get(kind, 'default', name))?.metadata.uid;
  const plannedUid = resource?.apply === 'created' ? /-([0-9a-f-]{36})$/.exec(planned[0]?.stream ?? '')?.[1] : undefined;
  const shapes = (ds: readonly PlannedDecision[]) => {
    const json = JSON.stringify(ds.map(shapeOfPlanned));
    return JSON.parse(plannedUid && uid ? json.split(plannedUid).join(uid) : json) as unknown;
  };
  expect(shapes(planned), `the first pass ${why}`).to.deep.equal(real.map(shapeOfStored));
  const second = resource?.decisions.filter((d) => d.pass === 2) ?? [];
  if (second.length > 0 && planned.every((d) => d.effects.length === 0)) {
    const realSecond = await realPass();
    expect(shapes(second), `the second pass ${why}`).to.deep.equal(realSecond.map(shapeOfStored));
    t.secondPasses++;
  }
  t.cases++;
  if (planned.length === 0) t.nothing++;
  for (const d of [...planned, ...(second.length > 0 && planned.every((x) => x.effects.length === 0) ? second : [])]) t.decisions.set(d.machine, (t.decisions.get(d.machine) ?? 0) + 1);
  return planned;
};

const note = (t: Tally, before: string, planned: readonly PlannedDecision[], machine: string) => {
  const first = planned.find((d) => d.machine === machine) ?? planned[0];
  const key = `${before} → ${first ? `${first.event} (${first.rule?.id ?? '—'})` : 'nothing'}`;
  t.seen.set(key, (t.seen.get(key) ?? 0) + 1);
};

// ─── the WorkloadCluster ────────────────────────────────────────────────────────────────────────────

const CLUSTER_VARIANTS = {
  base: '',
  port: '  apiServerPort: 7443\n', // a guarded field (WC4)
  policy: '  serverGroupPolicy: soft-anti-affinity\n', // Nova cannot change it (WC7, WC8)
  noGroup: '  serverGroupPolicy: None\n',
  rke2: '  distribution: rke2\n', // more rules, a second listener
  tags: '  additionalTags: { team.example/owner: bob }\n',
  ovn: '  apiEndpoint: { provider: ovn, allowedCIDRs: [203.0.113.0/24] }\n', // a precondition (WC2)
  cidrs: '  apiEndpoint: { allowedCIDRs: [10.0.0.0/8] }\n', // the listeners' allowed CIDRs
  supplied: '  controlPlaneEndpoint: { host: api.example.com, port: 6443 }\n', // apply refuses it on a stored cluster
} as const;
type ClusterVariant = keyof typeof CLUSTER_VARIANTS;
const clusterVariant = fc.constantFrom(...(Object.keys(CLUSTER_VARIANTS) as ClusterVariant[]));

const CLUSTER_CREATES = ['/v2.0/security-groups$', '/v2.0/security-group-rules$', '/os-server-groups$', '/lbaas/loadbalancers$', '/lbaas/listeners$', '/lbaas/pools$'];
const CLUSTER_DELETES = ['/v2.0/security-groups/', '/os-server-groups/', '/lbaas/loadbalancers/'];

type ClusterAction =
  | { kind: 'apply'; variant: ClusterVariant }
  | { kind: 'pass' }
  | { kind: 'passes'; n: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'fault'; method: 'POST' | 'DELETE'; path: string; status: 409 | 503 | 400 }
  | { kind: 'lbError' }
  | { kind: 'machine' }
  | { kind: 'dropMachines' }
  | { kind: 'delete' };

const clusterAction: fc.Arbitrary<ClusterAction> = fc.oneof(
  { weight: 3, arbitrary: clusterVariant.map((variant) => ({ kind: 'apply' as const, variant })) },
  { weight: 4, arbitrary: fc.constant({ kind: 'pass' as const }) },
  { weight: 4, arbitrary: fc.integer({ min: 2, max: 12 }).map((n) => ({ kind: 'passes' as const, n })) },
  { weight: 2, arbitrary: fc.integer({ min: 100, max: 3_000 }).map((ms) => ({ kind: 'advance' as const, ms })) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.record({ kind: fc.constant('fault' as const), method: fc.constant('POST' as const), path: fc.constantFrom(...CLUSTER_CREATES), status: fc.constantFrom<409 | 503 | 400>(409, 503, 400) }),
      fc.record({ kind: fc.constant('fault' as const), method: fc.constant('DELETE' as const), path: fc.constantFrom(...CLUSTER_DELETES), status: fc.constantFrom<409 | 503 | 400>(409, 503) }),
    ),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'lbError' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'machine' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'dropMachines' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'delete' as const }) },
);
const clusterFinal: fc.Arbitrary<Final<ClusterVariant>> = fc.oneof(
  { weight: 4, arbitrary: clusterVariant.map((variant) => ({ kind: 'apply' as const, variant })) },
  { weight: 3, arbitrary: fc.constant({ kind: 'same' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'delete' as const }) },
);

// ─── the WorkloadMachine ────────────────────────────────────────────────────────────────────────────

const MACHINE_VARIANTS = {
  a: { image: IMAGES.A, userData: '#cloud-config\nrole: one\n' },
  b: { image: IMAGES.B, userData: '#cloud-config\nrole: one\n' }, // a running machine's image: the rebuild
  c: { image: IMAGES.C },
  flavor: { image: IMAGES.A, flavor: 'm1.medium', userData: '#cloud-config\nrole: one\n' },
  noFlavor: { image: IMAGES.A, flavor: 'm1.none' }, // FlavorNotFound (WM3)
  userData: { image: IMAGES.A, userData: '#cloud-config\nrole: two\n' },
  tags: { image: IMAGES.A, userData: '#cloud-config\nrole: one\n', tags: { 'team.example/owner': 'carol' } },
  otherRole: { image: IMAGES.A, userData: '#cloud-config\nrole: one\n' }, // the role flipped: apply refuses it (immutable)
} satisfies Record<string, Omit<MachineSpec, 'role'>>;
type MachineVariant = keyof typeof MACHINE_VARIANTS;
const machineVariant = fc.constantFrom(...(Object.keys(MACHINE_VARIANTS) as MachineVariant[]));

type MachineAction =
  | { kind: 'apply'; variant: MachineVariant }
  | { kind: 'pass' }
  | { kind: 'clusterPass' }
  | { kind: 'settle' }
  | { kind: 'advance'; ms: number }
  | { kind: 'fault'; method: 'POST' | 'DELETE'; path: string; bodyIncludes?: string; status: 409 | 503 | 400 }
  | { kind: 'failBoot' }
  | { kind: 'delete' };

const machineAction: fc.Arbitrary<MachineAction> = fc.oneof(
  { weight: 3, arbitrary: machineVariant.map((variant) => ({ kind: 'apply' as const, variant })) },
  { weight: 4, arbitrary: fc.constant({ kind: 'pass' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'clusterPass' as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'settle' as const }) },
  { weight: 2, arbitrary: fc.integer({ min: 100, max: 3_000 }).map((ms) => ({ kind: 'advance' as const, ms })) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.record({ kind: fc.constant('fault' as const), method: fc.constant('POST' as const), path: fc.constantFrom('/v2.0/ports$', '/servers$'), status: fc.constantFrom<409 | 503 | 400>(409, 503, 400) }),
      fc.record({ kind: fc.constant('fault' as const), method: fc.constant('POST' as const), path: fc.constant('/action$'), bodyIncludes: fc.constant('rebuild'), status: fc.constantFrom<409 | 503 | 400>(409, 503) }),
      fc.record({ kind: fc.constant('fault' as const), method: fc.constant('DELETE' as const), path: fc.constantFrom('/servers/', '/v2.0/ports/'), status: fc.constantFrom<409 | 503 | 400>(409, 503, 400) }),
    ),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'failBoot' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'delete' as const }) },
);
const machineFinal: fc.Arbitrary<Final<MachineVariant>> = fc.oneof(
  { weight: 4, arbitrary: machineVariant.map((variant) => ({ kind: 'apply' as const, variant })) },
  { weight: 3, arbitrary: fc.constant({ kind: 'same' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'delete' as const }) },
);

describe('plan: faithful to the real pass (the workload kinds, property-based)', function () {
  this.timeout(1_200_000);
  let w: WorkloadRig;
  before(async () => {
    w = await startWorkloadRig();
    await w.bringUpCluster('fm');
  });
  after(async () => w?.close());
  afterEach(() => {
    w.sim.control.clearFaults();
    w.sim.control.configure({ nova: { bootRules: [] }, octavia: { failProvisioning: null } });
  });

  const stateOf = async (read: () => Promise<{ state: string }>): Promise<string> => {
    try {
      return (await read()).state;
    } catch {
      return 'not stored';
    }
  };

  it("a WorkloadCluster: the plan's first pass is the real pass's (rule, effects, destructive), for random states and changes", async () => {
    const t = tally();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(clusterAction, { maxLength: 14 }), clusterFinal, async (actions, final) => {
        const name = `fc${n++}`;
        const text = (variant: ClusterVariant) => clusterManifest(name, w.subnetId, CLUSTER_VARIANTS[variant]);
        const machines: string[] = [];
        let applied: ClusterVariant = 'base';
        const pass = () => w.pass('WorkloadCluster', name).catch(() => undefined);
        try {
          await applyManifestFiles(w.source, [{ file: 'start.yaml', text: text('base') }]);
          for (const a of actions) {
            if (a.kind === 'apply') {
              await applyManifestFiles(w.source, [{ file: 'a.yaml', text: text(a.variant) }]).then(() => (applied = a.variant), () => undefined);
              await pass();
            } else if (a.kind === 'pass') await pass();
            else if (a.kind === 'passes') {
              for (let i = 0; i < a.n; i++) {
                await pass();
                w.sim.clock.advance(1_500);
              }
            } else if (a.kind === 'advance') w.sim.clock.advance(a.ms);
            else if (a.kind === 'fault') w.sim.control.addFault({ method: a.method, path: a.path, status: a.status, count: 1 });
            else if (a.kind === 'lbError') w.sim.control.configure({ octavia: { failProvisioning: `^lb-${(await w.cluster(name).catch(() => ({ uid: 'none' }))).uid}$` } });
            else if (a.kind === 'machine') {
              const m = `${name}-m${machines.length}`;
              machines.push(m);
              await applyManifestFiles(w.source, [{ file: 'm.yaml', text: machineManifest(m, name, { image: IMAGES.A }) }]);
            } else if (a.kind === 'dropMachines') {
              for (const m of machines.splice(0)) await w.source.delete('WorkloadMachine', 'default', m).catch(() => undefined);
            } else {
              await w.source.delete('WorkloadCluster', 'default', name).catch(() => undefined);
              await pass();
            }
          }
          const before = await stateOf(() => w.cluster(name));
          const variant = final.kind === 'apply' ? final.variant : applied;
          const planned = await compare(w, 'WorkloadCluster', name, text(variant), final.kind === 'delete', t, `after ${JSON.stringify(actions)} → ${JSON.stringify(final)}`);
          note(t, before, planned, 'workloadCluster');
        } finally {
          w.sim.control.clearFaults();
          w.sim.control.configure({ octavia: { failProvisioning: null } });
          for (const m of machines) await w.source.delete('WorkloadMachine', 'default', m).catch(() => undefined);
        }
      }),
      { numRuns: Math.ceil(TOTAL / 2), ...SEED },
    );
    print('workloadCluster (with its load balancer)', t);
    expect(t.cases).to.be.greaterThan(0);
  });

  it("a WorkloadMachine: the plan's first pass is the real pass's (rule, effects, destructive), for random states and changes", async () => {
    const t = tally();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<Role>('Worker', 'ControlPlane'), fc.array(machineAction, { maxLength: 14 }), machineFinal, async (role, actions, final) => {
        const name = `fm${n++}`;
        const flipped: Role = role === 'Worker' ? 'ControlPlane' : 'Worker';
        const text = (variant: MachineVariant) => machineManifest(name, 'fm', { ...MACHINE_VARIANTS[variant], role: variant === 'otherRole' ? flipped : role } as MachineSpec);
        let applied: MachineVariant = 'a';
        const pass = () => w.pass('WorkloadMachine', name).catch(() => undefined);
        const clusterPass = () => w.pass('WorkloadCluster', 'fm').catch(() => undefined);
        try {
          await applyManifestFiles(w.source, [{ file: 'start.yaml', text: text('a') }]);
          for (const a of actions) {
            if (a.kind === 'apply') {
              await applyManifestFiles(w.source, [{ file: 'a.yaml', text: text(a.variant) }]).then(() => (applied = a.variant), () => undefined);
              await pass();
            } else if (a.kind === 'pass') await pass();
            else if (a.kind === 'clusterPass') await clusterPass();
            else if (a.kind === 'settle') {
              w.sim.clock.advance(1_500);
              await pass();
              await clusterPass();
            } else if (a.kind === 'advance') w.sim.clock.advance(a.ms);
            else if (a.kind === 'fault') w.sim.control.addFault({ method: a.method, path: a.path, status: a.status, count: 1, ...(a.bodyIncludes ? { bodyIncludes: a.bodyIncludes } : {}) });
            else if (a.kind === 'failBoot') w.sim.control.configure({ nova: { bootRules: [{ match: `^${name}$`, outcome: 'error', phase: 'any' }] } });
            else {
              await w.source.delete('WorkloadMachine', 'default', name).catch(() => undefined);
              await pass();
            }
          }
          const before = await stateOf(() => w.machine(name));
          const variant = final.kind === 'apply' ? final.variant : applied;
          const planned = await compare(w, 'WorkloadMachine', name, text(variant), final.kind === 'delete', t, `${role} after ${JSON.stringify(actions)} → ${JSON.stringify(final)}`);
          note(t, before, planned, 'workloadMachine');
        } finally {
          w.sim.control.clearFaults();
          w.sim.control.configure({ nova: { bootRules: [] } });
        }
      }),
      { numRuns: Math.floor(TOTAL / 2), ...SEED },
    );
    print('workloadMachine (with its rebuild)', t);
    expect(t.cases).to.be.greaterThan(0);
  });
});
