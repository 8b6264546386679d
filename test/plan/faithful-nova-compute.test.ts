/**
 * A plan is faithful (issue 32, "Guarantees: faithful") for the NovaCompute kind — its two machines, novaComputePool
 * (the nodes' phases, the service calls, the trait ledger) and novaComputePipeline (what the eight steps said). A
 * property-based test drives a pool on the Nova plan rig (test/plan/support/nova-rig.ts: the embedded store's Nodes,
 * the local pool cluster starting a stand-in nova-compute process per node, the Nova's status written directly) with
 * Nova and Placement played by a stateful in-memory world (./support/compute-world.ts) to a random reachable state:
 * hosts already running nova-compute or not; real pool passes; Nodes relabelled in and out of the selector and between
 * zones, removed and added back; a rival pool of the same Nova selecting some of them now and then (a leaving node it
 * selects is a handover); services registered, unregistered, re-enabled, hosts mapped, servers counted, a host put
 * into its zone's aggregate by the operator, a trait carried by a resource provider; calls failing for a while; spec
 * changes (the selector, the declared traits, the VPA opt-in); the pool's deletion (kept by its finalizer, so it
 * drains). Then a final spec change, or the deletion (the planner's `deleting`), is planned, made for real, and the
 * real pass runs (the control plane's NovaCompute wiring over the real stores and runtime, its effects run by the
 * engine against the world).
 *
 * What is compared: every decision of the plan's first pass against the events the real pass appends that are not
 * effect answers (`metadata.source` 'effect': a plan never has an answer), in order, each as stream, event, state
 * before and after, rule, effects with their parameters, and destructive flag (test/plan/support/decision-shape.ts):
 *   - the plan stopped at a request the pass itself would send to Nova or Placement (an aggregate created, marked or
 *     deleted, a trait created: "the pass itself would send …: the plan stops before it", its later decisions not
 *     shown): the real pass must have sent that same request as its first write of its own, and only its events
 *     stored before that write are compared (positions ≤ the store's head the rig noted at the write,
 *     `computeWritePositions`, matched to the world's writes in order);
 *   - the plan did not stop: the real pass must have sent no write of its own, and every event it appended is
 *     compared, the effects' writes (a service disabled or deleted, a trait deleted) made as the engine runs them
 *     after their deciding event is stored; a pass that fails (a Nova call the Services step cannot do without) fails
 *     in the plan too, with the same message.
 * A pass's Kubernetes-side writes (the DaemonSet, its config, the finalizer) are recorded by the plan and the pass
 * goes on, so they cut nothing. TR2 (a created trait's answer, which the pass records itself) follows the PUT the
 * plan refuses, so it is never in a plan.
 *
 * Default 120 runs (PLAN_FAITHFUL_RUNS overrides, PLAN_FAITHFUL_SEED replays one). It prints how many cases it
 * compared, the decisions compared per machine, per rule and per effect, and the distribution of the phases of the
 * pool's nodes before → its first decision.
 */
import { config, expect } from 'chai';
import fc from 'fast-check';
import { startNovaPlanRig, novaManifest, secretsManifest, NOVA, type NovaPlanRig } from './support/nova-rig.js';
import { shapeOfPlanned, shapeOfStored } from './support/decision-shape.js';
import { faithfulRuns } from './support/faithful-runs.js';
import { recordsShown } from '../../src/plan/planner.js';
import { ComputeWorld, PASS_WRITES, type ComputeMethod } from './support/compute-world.js';
import { COMPUTE_DRAIN_FINALIZER } from '../../src/controllers/nova-compute/reconcile.js';
import { novaComputePoolDefinition, novaComputePoolStream } from '../../machines/nova-compute-pool.js';
import { ZONE_LABEL } from '../../src/nova/compute/port.js';
import { storedNamespace } from '../../src/kube/kinds.js';
import type { ResourcePlan } from '../../src/plan/report.js';

config.truncateThreshold = 0;
const NODES = 4;
const TRAITS = ['CUSTOM_GOLD', 'CUSTOM_SSD'] as const;
const CONTRACT = `${NOVA}-compute-config`;

interface Labels {
  /** Selected by the `regent.dev/pool` selector. */
  pool: boolean;
  /** Selected by the `regent.dev/alt` selector (a spec change moves the pool to it). */
  alt: boolean;
  /** Selected by the rival pool. */
  rival: boolean;
  zone: 'az1' | 'az2' | null;
}

interface PoolSpec {
  selector: 'pool' | 'alt';
  traits: string[];
  vpa?: boolean;
}

type Action =
  | { kind: 'passes'; count: number }
  | { kind: 'label'; node: number; labels: Labels }
  | { kind: 'node'; node: number; present: boolean }
  | { kind: 'rival'; on: boolean }
  | { kind: 'register'; node: number | 'all'; on: boolean; mapped: boolean }
  | { kind: 'map'; node: number; on: boolean }
  | { kind: 'servers'; node: number; count: number }
  | { kind: 'enable'; node: number }
  | { kind: 'fail'; what: ComputeMethod | 'reads' | 'writes'; on: boolean }
  | { kind: 'carry'; trait: string }
  | { kind: 'addHost'; node: number }
  | { kind: 'spec'; spec: PoolSpec }
  | { kind: 'delete' };

type Final = { kind: 'spec'; spec: PoolSpec } | { kind: 'delete' };

const node = fc.integer({ min: 0, max: NODES - 1 });
const labels: fc.Arbitrary<Labels> = fc.record({
  pool: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  alt: fc.boolean(),
  rival: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  zone: fc.constantFrom<Labels['zone']>('az1', 'az1', 'az2', null),
});
const spec: fc.Arbitrary<PoolSpec> = fc.record({
  selector: fc.oneof({ weight: 4, arbitrary: fc.constant('pool' as const) }, { weight: 1, arbitrary: fc.constant('alt' as const) }),
  traits: fc.subarray([...TRAITS]),
  vpa: fc.option(fc.boolean(), { nil: undefined }),
});
const failing = fc.constantFrom<ComputeMethod | 'reads' | 'writes'>('reads', 'writes', 'listComputeServices', 'listAggregates', 'createAggregate', 'createTrait', 'deleteTrait', 'disableService', 'deleteService', 'serversOnHost');

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1, max: 3 }).map((count) => ({ kind: 'passes' as const, count })) },
  { weight: 4, arbitrary: fc.record({ node, labels }).map((a) => ({ kind: 'label' as const, ...a })) },
  { weight: 1, arbitrary: fc.record({ node, present: fc.boolean() }).map((a) => ({ kind: 'node' as const, ...a })) },
  { weight: 2, arbitrary: fc.boolean().map((on) => ({ kind: 'rival' as const, on })) },
  { weight: 5, arbitrary: fc.record({ node: fc.oneof(node, fc.constant('all' as const)), on: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }), mapped: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }) }).map((a) => ({ kind: 'register' as const, ...a })) },
  { weight: 1, arbitrary: fc.record({ node, on: fc.boolean() }).map((a) => ({ kind: 'map' as const, ...a })) },
  { weight: 2, arbitrary: fc.record({ node, count: fc.constantFrom(0, 0, 1, 3) }).map((a) => ({ kind: 'servers' as const, ...a })) },
  { weight: 1, arbitrary: node.map((n) => ({ kind: 'enable' as const, node: n })) },
  { weight: 1, arbitrary: fc.record({ what: failing, on: fc.boolean() }).map((a) => ({ kind: 'fail' as const, ...a })) },
  { weight: 1, arbitrary: fc.constantFrom(...TRAITS).map((trait) => ({ kind: 'carry' as const, trait })) },
  { weight: 2, arbitrary: node.map((n) => ({ kind: 'addHost' as const, node: n })) },
  { weight: 3, arbitrary: spec.map((s) => ({ kind: 'spec' as const, spec: s })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'delete' as const }) },
);
const final: fc.Arbitrary<Final> = fc.oneof({ weight: 5, arbitrary: spec.map((s) => ({ kind: 'spec' as const, spec: s })) }, { weight: 1, arbitrary: fc.constant({ kind: 'delete' as const }) });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const contractManifest = (): string => `apiVersion: v1
kind: Secret
metadata: { name: ${CONTRACT} }
stringData:
  transport_url: "rabbit://nova:mq-s3cret-plan-value@10.0.0.5:5672/"
  auth_url: http://127.0.0.1:5000/v3
  compute.conf: "[DEFAULT]\\n"
`;

/** One case's names: the pool, its rival, its Nodes and their label values. */
class Names {
  constructor(readonly run: number) {}
  get pool(): string {
    return `pc${this.run}`;
  }
  get rival(): string {
    return `pc${this.run}-rival`;
  }
  node(i: number): string {
    return `n${this.run}-${String.fromCharCode(97 + i)}`;
  }
  poolManifest(s: PoolSpec): string {
    return `apiVersion: regent.dev/v1alpha1
kind: NovaCompute
metadata: { name: ${this.pool} }
spec:
  novaRef: { name: ${NOVA} }
  nodeSelector: { regent.dev/${s.selector}: p${this.run} }
${s.traits.length > 0 ? `  traits: [${s.traits.join(', ')}]\n` : ''}${s.vpa === undefined ? '' : `  vpa: { enabled: ${s.vpa} }\n`}`;
  }
  rivalManifest(): string {
    return `apiVersion: regent.dev/v1alpha1
kind: NovaCompute
metadata: { name: ${this.rival} }
spec: { novaRef: { name: ${NOVA} }, nodeSelector: { regent.dev/rival: p${this.run} } }
`;
  }
  nodeManifest(i: number, l: Labels): string {
    const pairs = [
      ...(l.pool ? [`regent.dev/pool: p${this.run}`] : []),
      ...(l.alt ? [`regent.dev/alt: p${this.run}`] : []),
      ...(l.rival ? [`regent.dev/rival: p${this.run}`] : []),
      ...(l.zone ? [`${ZONE_LABEL}: ${l.zone}`] : []),
    ];
    return `apiVersion: v1
kind: Node
metadata: { name: ${this.node(i)}, labels: { ${pairs.join(', ')} } }
`;
  }
}

describe('plan: faithful to the real pass (NovaCompute, property-based)', function () {
  this.timeout(1_800_000);
  const world = new ComputeWorld();
  let rig: NovaPlanRig;
  const workloads = () => rig.runtime.compute!.cluster.workloads;

  before(async () => {
    rig = await startNovaPlanRig({ computeApi: world });
    await rig.apply(secretsManifest());
    await rig.apply(contractManifest());
    await rig.apply(novaManifest({ release: '2025.1' }));
    // the Nova as its status says once synced (no Nova pass runs here): its release, its contract, its API
    await rig.source.patchStatus('Nova', 'default', NOVA, { installedRelease: '2025.1', computeConfigSecretRef: { name: CONTRACT }, endpoint: 'http://127.0.0.1:9/' } as never);
  });
  after(async () => rig?.close());

  /** Waits until the pool's processes are up (a pass that started one reads it ready on the next), bounded. */
  const settle = async (pool: string): Promise<void> => {
    for (let i = 0; i < 80; i++) {
      const status = await workloads().daemonSet('default', pool);
      if (!status.present || (status.rolledOut && status.numberReady === status.desiredNumberScheduled)) return;
      await sleep(50);
    }
  };

  const poolContext = async (uid: string) => (await rig.engine.load(novaComputePoolDefinition, novaComputePoolStream(uid))).context;

  it("every decision of the plan's first pass is what the real pass appends, up to its first write to Nova or Placement where the plan stops (stream, event, states, rule, effects, destructive), for random pool states and spec changes", async () => {
    let cases = 0;
    let nothing = 0;
    let stopped = 0;
    let gone = 0;
    const perMachine = new Map<string, number>();
    const perRule = new Map<string, number>();
    const perEffect = new Map<string, number>();
    const seen = new Map<string, number>();
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.record({ labels, registered: fc.boolean(), servers: fc.constantFrom(0, 0, 2) }), { minLength: NODES, maxLength: NODES }), spec, fc.array(action, { minLength: 2, maxLength: 14 }), final, async (initial, first, actions, last) => {
          const names = new Names(run++);
          const pool = names.pool;
          const nodeLabels = initial.map((n) => n.labels);
          const present = initial.map(() => true);
          let current = first;
          let deleting = false;
          let rival = false;
          world.reset();
          const pass = async () => {
            await rig.poolPass(pool).catch(() => undefined);
            await settle(pool);
          };
          try {
            // the Nodes, and the hosts already running nova-compute (registered and mapped) with their servers
            for (const [i, n] of initial.entries()) {
              await rig.apply(names.nodeManifest(i, n.labels));
              if (n.registered) {
                world.register(names.node(i), n.labels.zone);
                world.map(names.node(i));
              }
              world.setServers(names.node(i), n.servers);
            }
            await rig.apply(names.poolManifest(first));
            // the finalizer's pass, then the pool's first decisions
            await pass();
            await pass();
            for (const a of actions) {
              switch (a.kind) {
                case 'passes':
                  for (let i = 0; i < a.count; i++) await pass();
                  break;
                case 'label':
                  nodeLabels[a.node] = a.labels;
                  if (present[a.node]) await rig.apply(names.nodeManifest(a.node, a.labels));
                  break;
                case 'node':
                  if (a.present && !present[a.node]) await rig.apply(names.nodeManifest(a.node, nodeLabels[a.node]!));
                  if (!a.present && present[a.node]) await rig.source.delete('Node', storedNamespace('Node', 'default'), names.node(a.node));
                  present[a.node] = a.present;
                  break;
                case 'rival':
                  if (a.on && !rival) await rig.apply(names.rivalManifest());
                  if (!a.on && rival) await rig.source.delete('NovaCompute', 'default', names.rival);
                  rival = a.on;
                  break;
                case 'register':
                  for (const i of a.node === 'all' ? nodeLabels.keys() : [a.node]) {
                    if (a.on) world.register(names.node(i), nodeLabels[i]!.zone);
                    else world.unregister(names.node(i));
                    world.map(names.node(i), a.mapped);
                  }
                  break;
                case 'map':
                  world.map(names.node(a.node), a.on);
                  break;
                case 'servers':
                  world.setServers(names.node(a.node), a.count);
                  break;
                case 'enable':
                  world.enable(names.node(a.node));
                  break;
                case 'fail':
                  world.fail(a.what, a.on ? 'unavailable' : null);
                  break;
                case 'carry':
                  world.carry(a.trait);
                  break;
                case 'addHost':
                  // the operator puts the host into the aggregate of its zone (the pool never does)
                  if (nodeLabels[a.node]!.zone) world.addHost(nodeLabels[a.node]!.zone!, names.node(a.node));
                  break;
                case 'spec':
                  if (deleting) break;
                  current = a.spec;
                  await rig.apply(names.poolManifest(a.spec));
                  break;
                case 'delete':
                  if (deleting) break;
                  deleting = true;
                  await rig.source.delete('NovaCompute', 'default', pool);
                  break;
              }
            }
            const object = await rig.source.get('NovaCompute', 'default', pool);
            if (!object) {
              // released by its passes: nothing left to plan
              gone++;
              return;
            }
            const before = await poolContext(object.metadata.uid);
            const phases = [...new Set(Object.values(before.nodes).map((n) => n.phase))].sort().join('+') || 'no node';
            const deletes = last.kind === 'delete' || deleting;
            const manifest = names.poolManifest(last.kind === 'spec' && !deleting ? last.spec : current);

            const tripped = rig.tripwires.tripped.length;
            const plan = await rig.plan(manifest, deletes ? { deleting: true } : {});
            expect(rig.tripwires.tripped.slice(tripped), 'no write during the plan').to.deep.equal([]);
            const resource = plan.resources.find((r) => r.kind === 'NovaCompute' && r.name === pool) as ResourcePlan;
            expect(resource?.verdict, resource?.message ?? resource?.refusal).to.be.oneOf(['planned', 'failed']);
            const planned = resource.decisions.filter((d) => d.pass === 1);
            const refusedByPass = resource.stops?.startsWith('the pass itself would send') === true;

            // the real thing: the change made, then the real pass; what it appends that is not an effect's answer
            if (deletes && !deleting) await rig.source.delete('NovaCompute', 'default', pool);
            else if (!deletes) await rig.apply(manifest);
            const from = await rig.store.lastPosition();
            const positionsBefore = rig.computeWritePositions.length;
            const writesBefore = world.writes.length;
            const failed = await rig.poolPass(pool).then(
              () => undefined,
              (error: unknown) => (error instanceof Error ? error.message : String(error)),
            );
            const writes = world.writes.slice(writesBefore);
            const positions = rig.computeWritePositions.slice(positionsBefore);
            expect(positions.length, 'one noted position per write that reached the world').to.equal(writes.length);
            const own = writes.findIndex((w) => PASS_WRITES.includes(w.method));
            let real = (await rig.store.readAll({ after: from })).filter((e) => e.metadata.source !== 'effect');
            const why = `after ${JSON.stringify(actions)} → ${JSON.stringify(last)} (pool ${pool}: ${phases}${deleting ? ', deleting' : ''}; world: ${world.describe()}; the real pass wrote ${writes.map((w) => `${w.method} ${w.what}`).join(', ') || 'nothing'}; the plan stops: ${resource.stops ?? '-'})`;
            // a pass that fails (a Nova call the Services step cannot do without) fails in the plan too, with its message,
            // unless the plan stopped before it at a request of the pass
            if (!refusedByPass) expect(resource.verdict === 'failed' ? resource.message : undefined, `the pass's failure ${why}`).to.equal(failed);
            else expect(resource.verdict, `the plan stops at the request, before any failure ${why}`).to.equal('planned');
            if (refusedByPass) {
              expect(own, `the real pass sent the request the plan stopped at, ${why}`).to.be.greaterThan(-1);
              expect(writes[own]?.what, `the same request ${why}`).to.equal(plan.guarded[0]?.path);
              real = real.filter((e) => e.position <= positions[own]!);
              stopped++;
            } else {
              expect(own, `the real pass sent no request of its own the plan did not stop at, ${why}`).to.equal(-1);
            }
            // a step record after an effect quotes its answer: the plan leaves it out, and so does the comparison (recordsShown)
            expect(planned.map(shapeOfPlanned), `the first pass ${why}`).to.deep.equal(recordsShown(real).map(shapeOfStored));

            cases++;
            if (planned.length === 0) nothing++;
            for (const d of planned) {
              perMachine.set(d.machine, (perMachine.get(d.machine) ?? 0) + 1);
              const rule = `${d.machine === 'novaComputePool' ? '' : 'pipeline '}${d.rule?.id ?? '—'} ${d.event.slice(d.machine.length + 1)}`;
              perRule.set(rule, (perRule.get(rule) ?? 0) + 1);
              for (const e of d.effects) {
              const effect = `${e.type}${e.destructive ? ' (destructive)' : ''}`;
              perEffect.set(effect, (perEffect.get(effect) ?? 0) + 1);
            }
            }
            const decision = planned.find((d) => d.machine === 'novaComputePool');
            const key = `${deletes ? 'deleting; ' : ''}${phases} → ${decision ? `${decision.event.slice('novaComputePool.'.length)} (${decision.rule?.id ?? '—'})` : 'no pool decision'}`;
            seen.set(key, (seen.get(key) ?? 0) + 1);
          } finally {
            world.clearFailures();
            await workloads().removeAll('default', pool).catch(() => undefined);
            for (const name of [pool, names.rival]) {
              await rig.source.delete('NovaCompute', 'default', name).catch(() => undefined);
              await rig.source.removeFinalizer('NovaCompute', 'default', name, COMPUTE_DRAIN_FINALIZER).catch(() => undefined);
            }
            for (let i = 0; i < NODES; i++) await rig.source.delete('Node', storedNamespace('Node', 'default'), names.node(i)).catch(() => undefined);
          }
        }),
        faithfulRuns(120),
      );
    } finally {
      console.log(`      ${cases} cases compared (${stopped} where the plan stopped at a request of the pass, ${nothing} where neither decided anything; ${gone} pools released before the final change, not compared)`);
      console.log(`      decisions compared per machine: ${[...perMachine].map(([m, c]) => `${m} ${c}`).join(', ')}`);
      console.log(`      per rule: ${[...perRule].sort((a, b) => b[1] - a[1]).map(([r, c]) => `${r} ${c}`).join(', ')}`);
      console.log(`      effects: ${[...perEffect].map(([e, c]) => `${e} ${c}`).join(', ') || 'none'}`);
      console.log("      the phases of the pool's nodes before → its first decision:");
      for (const [key, count] of [...seen].sort((a, b) => b[1] - a[1])) console.log(`        ${String(count).padStart(3)}  ${key}`);
    }
    expect(cases).to.be.greaterThan(0);
  });
});
