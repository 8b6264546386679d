/**
 * A plan is faithful (issue 32, "Guarantees: faithful") for the load-balancer machine: a property-based test drives a
 * LoadBalancer over the simulator's Octavia and Neutron to a random reachable state — specs applied with real passes,
 * the clock advanced, 409s, 5xx, 400s and 404s on Octavia's mutations and 5xx on the floating IP's create, Octavia
 * slow enough that PENDING_* lasts across passes, a load balancer held PENDING_UPDATE or ERROR and released, passes
 * until it converges — then applies a random spec change (listeners, pools, members, monitors, allowed CIDRs, idle
 * timeouts, the floating IP added, removed or changed; the spec as it is; or a deletion), plans, then runs the real
 * pass (the control plane's LoadBalancer wiring over the real store and cloud) and compares every decision of the
 * plan's first pass with what the real pass appends — same stream, event, state change, rule, effects (type and
 * parameters), destructive flag — and, when the plan's first pass declared no effect, its second pass with the real
 * next pass.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { applyManifests, deleteResource } from '../../src/kube/cli/manifests.js';
import { loadBalancerManifest, startLoadBalancerRig, type ListenerSpec, type LoadBalancerRig, type LoadBalancerSpecInput } from './support/load-balancer-rig.js';
import { shapeOfPlanned, shapeOfStored } from './support/decision-shape.js';
import { faithfulRuns } from './support/faithful-runs.js';

// ─── specs ──────────────────────────────────────────────────────────────────────────────────────────

/** The listeners a spec may hold: protocol and port fixed per name (they are immutable, so apply never refuses). */
const LISTENERS = { https: { protocol: 'TCP', port: 443 }, api: { protocol: 'TCP', port: 8443 }, dns: { protocol: 'UDP', port: 53 }, admin: { protocol: 'TCP', port: 9443 } } as const;
type ListenerName = keyof typeof LISTENERS;
const NAMES = Object.keys(LISTENERS) as ListenerName[];

const listenerOf = (name: ListenerName): fc.Arbitrary<ListenerSpec> =>
  fc
    .record({
      members: fc.subarray([11, 12, 13], { minLength: 0 }),
      monitor: fc.option(fc.record({ delaySeconds: fc.constantFrom(5, 10), timeoutSeconds: fc.constant(3), maxRetries: fc.constantFrom(3, 5) }), { nil: undefined }),
      cidrs: fc.constantFrom<string[] | undefined>(undefined, ['10.1.0.0/16'], ['10.1.0.0/16', '192.168.0.0/24']),
      clientData: fc.option(fc.constantFrom(300, 600), { nil: undefined }),
    })
    .map(({ members, monitor, cidrs, clientData }) => {
      const { protocol, port } = LISTENERS[name];
      return {
        name,
        protocol,
        port,
        members: members.map((host) => ({ address: `10.0.0.${host}`, port: 8000 + (port % 1000) })),
        ...(monitor ? { monitor } : {}),
        ...(cidrs ? { allowedCIDRs: cidrs } : {}),
        ...(protocol === 'TCP' && clientData !== undefined ? { idleTimeouts: { clientDataSeconds: clientData } } : {}),
      };
    });

const spec: fc.Arbitrary<LoadBalancerSpecInput> = fc
  .record({ names: fc.subarray(NAMES, { minLength: 1 }), https: listenerOf('https'), api: listenerOf('api'), dns: listenerOf('dns'), admin: listenerOf('admin'), floatingIP: fc.boolean() })
  .map((s) => ({ listeners: s.names.map((n) => s[n]), floatingIP: s.floatingIP }));

// ─── the way to a state ─────────────────────────────────────────────────────────────────────────────

type Action =
  | { kind: 'apply'; spec: LoadBalancerSpecInput }
  | { kind: 'pass' }
  | { kind: 'settle' }
  | { kind: 'converge' }
  | { kind: 'advance'; ms: number }
  | { kind: 'fault'; method: 'POST' | 'PUT' | 'DELETE'; status: 400 | 404 | 409 | 500 | 503 }
  | { kind: 'floatingIPFault'; status: 500 | 503 }
  | { kind: 'octaviaDelay'; ms: number }
  | { kind: 'hold'; status: 'PENDING_UPDATE' | 'ERROR' }
  | { kind: 'release' };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 2, arbitrary: spec.map((s) => ({ kind: 'apply' as const, spec: s })) },
  { weight: 4, arbitrary: fc.constant({ kind: 'pass' as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'settle' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'converge' as const }) },
  { weight: 2, arbitrary: fc.integer({ min: 100, max: 3_000 }).map((ms) => ({ kind: 'advance' as const, ms })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fault' as const), method: fc.constantFrom<'POST' | 'PUT' | 'DELETE'>('POST', 'PUT', 'DELETE'), status: fc.constantFrom<400 | 404 | 409 | 500 | 503>(400, 404, 409, 409, 500, 503) }) },
  { weight: 1, arbitrary: fc.constantFrom<500 | 503>(500, 503).map((status) => ({ kind: 'floatingIPFault' as const, status })) },
  { weight: 1, arbitrary: fc.constantFrom(300, 60_000).map((ms) => ({ kind: 'octaviaDelay' as const, ms })) },
  { weight: 1, arbitrary: fc.constantFrom<'PENDING_UPDATE' | 'ERROR'>('PENDING_UPDATE', 'PENDING_UPDATE', 'ERROR').map((status) => ({ kind: 'hold' as const, status })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'release' as const }) },
);

/** One change of a spec: a listener put (added, or its pool, members, monitor, CIDRs, timeouts changed), one removed, the floating IP toggled. */
type Change = { kind: 'put'; listener: ListenerSpec } | { kind: 'remove'; at: number } | { kind: 'floatingIP' };
const change: fc.Arbitrary<Change> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NAMES).chain(listenerOf).map((listener) => ({ kind: 'put' as const, listener })) },
  { weight: 2, arbitrary: fc.nat(3).map((at) => ({ kind: 'remove' as const, at })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'floatingIP' as const }) },
);
const changed = (spec: LoadBalancerSpecInput, c: Change): LoadBalancerSpecInput => {
  if (c.kind === 'floatingIP') return { ...spec, floatingIP: !spec.floatingIP };
  if (c.kind === 'remove') return spec.listeners.length > 1 ? { ...spec, listeners: spec.listeners.filter((_, i) => i !== c.at % spec.listeners.length) } : spec;
  const at = spec.listeners.findIndex((l) => l.name === c.listener.name);
  return { ...spec, listeners: at < 0 ? [...spec.listeners, c.listener] : spec.listeners.map((l, i) => (i === at ? c.listener : l)) };
};

/** What the plan is made of: the spec last applied changed a little, another spec altogether, the same, or a deletion. */
type Final = { kind: 'change'; changes: Change[] } | { kind: 'apply'; spec: LoadBalancerSpecInput } | { kind: 'same' } | { kind: 'delete' };
const final: fc.Arbitrary<Final> = fc.oneof(
  { weight: 5, arbitrary: fc.array(change, { minLength: 1, maxLength: 2 }).map((changes) => ({ kind: 'change' as const, changes })) },
  { weight: 2, arbitrary: spec.map((s) => ({ kind: 'apply' as const, spec: s })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'same' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'delete' as const }) },
);
const finalSpec = (last: Final, applied: LoadBalancerSpecInput): LoadBalancerSpecInput =>
  last.kind === 'apply' ? last.spec : last.kind === 'change' ? last.changes.reduce(changed, applied) : applied;

// ─── what is compared ───────────────────────────────────────────────────────────────────────────────



describe('plan: faithful to the real pass (load balancer, property-based)', function () {
  this.timeout(900_000);
  let rig: LoadBalancerRig;
  before(async () => {
    rig = await startLoadBalancerRig();
  });
  after(async () => rig?.close());

  /** The load balancer's Octavia id as the machine recorded it, or as Octavia shows it by its exact name. */
  const octaviaId = async (name: string): Promise<string | undefined> => {
    const context = (await rig.machine(name))?.context;
    if (context?.loadBalancerId) return context.loadBalancerId;
    return context?.name ? (await rig.os.octavia.listLoadBalancers({ name: context.name }))[0]?.id : undefined;
  };

  /** Out of the next case's way: its floating IPs released, the load balancer cascade-deleted, Octavia as configured. */
  const clearAway = async (name: string) => {
    rig.sim.control.clearFaults();
    rig.sim.control.configure({ delays: { lbCreate: 300, lbUpdate: 300, lbDelete: 300 } });
    const id = await octaviaId(name);
    if (!id) return;
    rig.sim.control.forceLoadBalancer(id, { provisioning_status: 'ACTIVE' });
    const lb = await rig.os.octavia.getLoadBalancer(id).catch(() => undefined);
    const port = lb?.vipPortId.kind === 'value' ? lb.vipPortId.value : undefined;
    if (port) for (const fip of await rig.os.neutron.listFloatingIps({ port_id: port })) await rig.os.neutron.deleteFloatingIp(fip.id);
    await rig.os.octavia.deleteLoadBalancer(id, { cascade: true }).catch(() => undefined);
    rig.sim.clock.advance(1_000);
  };

  it("the plan's first pass is the real pass's (rule, effects, destructive), for random states and spec changes", async () => {
    let cases = 0;
    let nothing = 0;
    let secondPasses = 0;
    let refusals = 0;
    const seen = new Map<string, number>();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(spec, fc.array(action, { maxLength: 14 }), fc.boolean(), final, async (initial, actions, quiet, last) => {
        const name = `lb-f${n++}`;
        let applied = initial;
        try {
          await applyManifests(rig.source, loadBalancerManifest(name, initial));
          for (const a of actions) {
            if (a.kind === 'apply') {
              applied = a.spec;
              await applyManifests(rig.source, loadBalancerManifest(name, a.spec));
              await rig.pass(name).catch(() => undefined);
            } else if (a.kind === 'pass') await rig.pass(name).catch(() => undefined);
            else if (a.kind === 'settle') {
              rig.sim.clock.advance(1_000);
              await rig.pass(name).catch(() => undefined);
            } else if (a.kind === 'converge') {
              // settle passes until Provisioned (or a state no pass leaves by itself: parked, failed, awaiting a create)
              for (let i = 0; i < 20 && (await rig.machine(name))?.state !== 'provisioned'; i++) {
                rig.sim.clock.advance(1_000);
                await rig.pass(name).catch(() => undefined);
              }
            } else if (a.kind === 'advance') rig.sim.clock.advance(a.ms);
            else if (a.kind === 'fault') rig.sim.control.addFault({ method: a.method, path: '/lbaas/', status: a.status, count: 1 });
            else if (a.kind === 'floatingIPFault') rig.sim.control.addFault({ method: 'POST', path: '/floatingips', status: a.status, count: 1 });
            else if (a.kind === 'octaviaDelay') rig.sim.control.configure({ delays: { lbCreate: a.ms, lbUpdate: a.ms, lbDelete: a.ms } });
            else {
              const id = await octaviaId(name);
              if (id && a.kind === 'hold') rig.sim.control.forceLoadBalancer(id, { provisioning_status: a.status, keepPending: true });
              if (id && a.kind === 'release') rig.sim.control.forceLoadBalancer(id, { provisioning_status: 'ACTIVE', keepPending: true });
            }
          }
          // quiet: Octavia has had time to settle what the last pass sent (else the plan may meet it PENDING_*)
          if (quiet) rig.sim.clock.advance(1_000);
          const manifest = loadBalancerManifest(name, finalSpec(last, applied));
          const before = (await rig.machine(name))?.state ?? 'absent';
          const plan = await rig.plan(manifest, last.kind === 'delete' ? { deleting: true } : {});
          const resource = plan.resources[0];
          const planned = resource?.decisions.filter((d) => d.pass === 1) ?? [];
          const why = `after ${JSON.stringify(initial)}, ${JSON.stringify(actions)}${quiet ? ', quiet' : ''} → ${JSON.stringify(last)}`;
          expect(resource?.verdict, `${why}: ${resource?.message ?? resource?.refusal ?? ''}`).to.be.oneOf(['planned', 'refused']);

          // the real thing: apply (or delete), then the real pass; what it appends, in order (its effects' results aside:
          // a plan never has them, it stops the branch at the effect)
          const realPass = async () => {
            const from = await rig.store.lastPosition();
            await rig.pass(name).catch(() => undefined);
            return (await rig.store.readAll({ after: from })).filter((e) => e.metadata.source !== 'effect');
          };
          if (last.kind === 'delete') await deleteResource(rig.source, 'LoadBalancer', name);
          else {
            let refused: string | undefined;
            await applyManifests(rig.source, manifest).catch((error: unknown) => void (refused = (error as Error).message));
            if (resource?.verdict === 'refused' || refused !== undefined) {
              expect(resource?.refusal, `the refusal ${why}`).to.equal(refused?.replace(/^[^:]*: /, 'plan.yaml: '));
              refusals++;
              return;
            }
          }
          const real = await realPass();
          expect(planned.map(shapeOfPlanned), `the first pass ${why}`).to.deep.equal(real.map(shapeOfStored));
          const second = resource?.decisions.filter((d) => d.pass === 2) ?? [];
          if (second.length > 0 && planned.every((d) => d.effects.length === 0)) {
            const realSecond = await realPass();
            expect(second.map(shapeOfPlanned), `the second pass ${why}`).to.deep.equal(realSecond.map(shapeOfStored));
            secondPasses++;
          }
          cases++;
          const first = planned.find((d) => d.machine === 'loadBalancer');
          if (!first) nothing++;
          const key = `${before} → ${first ? `${first.event.slice('loadBalancer.'.length)} (${first.rule?.id ?? '—'})${first.destructive ? ' DESTRUCTIVE' : ''}` : 'nothing decided'}${last.kind === 'delete' ? ' [delete]' : ''}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        } finally {
          await clearAway(name);
        }
      }),
      faithfulRuns(100),
    );
    console.log(`      loadBalancer: ${cases} cases compared (${nothing} where neither decided anything; ${secondPasses} also on the plan's second pass; ${refusals} refused alike); state before → the machine's first decision:`);
    for (const [key, count] of [...seen].sort((a, b) => b[1] - a[1])) console.log(`        ${String(count).padStart(3)}  ${key}`);
    expect(cases).to.be.greaterThan(0);
  });
});
