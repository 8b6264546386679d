/**
 * A plan is faithful (issue 32, "Guarantees: faithful") for the tenancy kinds: a property-based test drives an
 * Identity, a Network (on a plain Region, or on one with VLAN provider networks), a SecurityGroup or a Region over the
 * simulator to a random reachable state — real passes, the simulator's clock, 409/403/5xx answers to the cloud
 * changes the passes send, parts deleted behind Regent's back, deletions requested, dependents added and removed, a
 * Region's Secret broken — then applies a random spec change (or the manifest as it is, or `regent delete`), plans,
 * runs the real pass (the control plane's wiring over the real store and cloud) and compares the plan's first pass
 * with what the real pass appends, decision by decision: event, state before and after, rule, effects with their
 * parameters, destructive flag; and the plan's second pass with the real next pass when the first declared no effect.
 *
 * Faults are cleared before the plan: the plan stops a branch at an effect, so what an effect's answer makes the
 * rest of that pass decide (a 503 on the create makes its scope `unreachable`) is the next plan's to show.
 *
 * PLAN_FAITHFUL_RUNS (default 100, over all the kinds), PLAN_FAITHFUL_SEED.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { deleteResource } from '../../src/kube/cli/manifests.js';
import { canonicalJson } from '../../src/resources/codec/transitions.js';
import type { RecordedEvent } from '../../src/events/envelope.js';
import type { PlannedDecision } from '../../src/plan/report.js';
import { identityLifecycleStream, type IdentityContext } from '../../machines/identity-lifecycle.js';
import { networkLifecycleStream } from '../../machines/network-lifecycle.js';
import { securityGroupLifecycleStream } from '../../machines/security-group-lifecycle.js';
import type { LifecycleContext } from '../../machines/lifecycle.js';
import {
  apply,
  connected,
  identityManifest,
  networkManifest,
  present,
  realized,
  regionManifest,
  securityGroupManifest,
  startTenancyRig,
  type Rule,
  type TenancyKind,
  type TenancyRig,
} from './support/tenancy-rig.js';
import { shapeOfPlanned, shapeOfStored } from './support/decision-shape.js';
import { faithfulRuns } from './support/faithful-runs.js';

type Fault = { method: string; path: string };
const FAULTS: Record<'Identity' | 'Network' | 'SecurityGroup', readonly Fault[]> = {
  Identity: [
    { method: 'POST', path: '/identity/v3/projects$' },
    { method: 'POST', path: '/identity/v3/users$' },
    { method: 'PUT', path: '/roles/' },
    { method: 'POST', path: '/os-keypairs$' },
    { method: 'POST', path: '/application_credentials$' },
    { method: 'DELETE', path: '/identity/v3/(projects|users)/' },
  ],
  Network: [
    { method: 'POST', path: '/networks$' },
    { method: 'DELETE', path: '/networks/' },
  ],
  SecurityGroup: [
    { method: 'POST', path: '/security-groups$' },
    { method: 'POST', path: '/security-group-rules$' },
    { method: 'DELETE', path: '/security-groups/' },
  ],
};

type Common = { kind: 'pass' } | { kind: 'settle' } | { kind: 'advance'; ms: number } | { kind: 'requestDelete' };
type Action =
  | Common
  | { kind: 'fault'; fault: number; status: 409 | 403 | 503 }
  | { kind: 'behind'; what: 'project' | 'user' | 'resource' }
  | { kind: 'dependent' }
  | { kind: 'dropDependent' }
  | { kind: 'spec'; variant: number }
  | { kind: 'secret'; which: Secret };
type Secret = 'good' | 'elsewhere' | 'badPassword' | 'missing';
type Final = { kind: 'same' } | { kind: 'spec'; variant: number } | { kind: 'delete' };

const common: Array<fc.WeightedArbitrary<Action>> = [
  { weight: 5, arbitrary: fc.constant({ kind: 'pass' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'settle' as const }) },
  { weight: 2, arbitrary: fc.integer({ min: 200, max: 20_000 }).map((ms) => ({ kind: 'advance' as const, ms })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'requestDelete' as const }) },
];
const variant = fc.integer({ min: 0, max: 3 });
const fault = (kind: keyof typeof FAULTS): fc.Arbitrary<Action> =>
  fc.record({ fault: fc.integer({ min: 0, max: FAULTS[kind].length - 1 }), status: fc.constantFrom<409 | 403 | 503>(409, 403, 503) }).map((f) => ({ kind: 'fault' as const, ...f }));

const ACTIONS: Record<TenancyKind, fc.Arbitrary<Action>> = {
  Identity: fc.oneof(
    ...common,
    { weight: 2, arbitrary: fault('Identity') },
    { weight: 1, arbitrary: fc.constantFrom('project' as const, 'user' as const).map((what) => ({ kind: 'behind' as const, what })) },
    { weight: 1, arbitrary: fc.constant({ kind: 'dependent' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'dropDependent' as const }) },
    { weight: 1, arbitrary: variant.map((v) => ({ kind: 'spec' as const, variant: v })) },
  ),
  Network: fc.oneof(
    ...common,
    { weight: 2, arbitrary: fault('Network') },
    { weight: 1, arbitrary: fc.constant({ kind: 'behind' as const, what: 'resource' as const }) },
    { weight: 1, arbitrary: variant.map((v) => ({ kind: 'spec' as const, variant: v })) },
  ),
  SecurityGroup: fc.oneof(
    ...common,
    { weight: 2, arbitrary: fault('SecurityGroup') },
    { weight: 1, arbitrary: fc.constant({ kind: 'behind' as const, what: 'resource' as const }) },
    { weight: 2, arbitrary: variant.map((v) => ({ kind: 'spec' as const, variant: v })) },
  ),
  Region: fc.oneof(
    ...common,
    { weight: 2, arbitrary: fc.constantFrom<Secret>('good', 'elsewhere', 'badPassword', 'missing').map((which) => ({ kind: 'secret' as const, which })) },
    { weight: 1, arbitrary: fc.constant({ kind: 'dependent' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'dropDependent' as const }) },
    { weight: 1, arbitrary: variant.map((v) => ({ kind: 'spec' as const, variant: v })) },
  ),
};
const FINAL: fc.Arbitrary<Final> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'same' as const }) },
  { weight: 4, arbitrary: variant.map((v) => ({ kind: 'spec' as const, variant: v })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'delete' as const }) },
);
const CASE = fc
  .oneof(
    { weight: 3, arbitrary: fc.constant<TenancyKind>('Identity') },
    { weight: 3, arbitrary: fc.constant<TenancyKind>('Network') },
    { weight: 3, arbitrary: fc.constant<TenancyKind>('SecurityGroup') },
    { weight: 1, arbitrary: fc.constant<TenancyKind>('Region') },
  )
  .chain((kind) => fc.record({ kind: fc.constant(kind), vlan: fc.boolean(), actions: fc.array(ACTIONS[kind], { maxLength: 10 }), final: FINAL }));

/** Spec variants per kind: what `spec` (an action, or the final change) applies. */
const RULES: readonly (readonly Rule[])[] = [
  [{ direction: 'ingress', protocol: 'tcp', port: 22 }],
  [{ direction: 'ingress', protocol: 'tcp', port: 22 }, { direction: 'ingress', protocol: 'tcp', port: 443, remoteIPPrefix: '10.0.0.0/8' }],
  [],
  [{ direction: 'egress', protocol: 'any' }, { direction: 'ingress', protocol: 'icmp' }],
];
const DNS: readonly (readonly string[])[] = [[], ['192.0.2.53'], ['192.0.2.53', '198.51.100.53'], ['203.0.113.53']];



const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/**
 * A resource the final apply creates anew has one uid in the plan and another for real: the real events read with
 * the plan's uid (before their secret-shaped members are digested, as the plan's were).
 */
const withUid = (events: readonly RecordedEvent[], real: string | undefined, planned: string | undefined): RecordedEvent[] =>
  real === undefined || planned === undefined || real === planned ? [...events] : (JSON.parse(JSON.stringify(events).replaceAll(real, planned)) as RecordedEvent[]);

/** Plan and real pass decide the same; else both, in full (fast-check's report keeps only the message). */
const agree = (planned: unknown, real: unknown, what: string): void => {
  if (canonicalJson(planned) !== canonicalJson(real)) throw new Error(`${what}:\n  plan: ${canonicalJson(planned)}\n  real: ${canonicalJson(real)}`);
  expect(planned).to.deep.equal(real);
};

describe('plan: faithful to the real pass (tenancy kinds, property-based)', function () {
  this.timeout(1_800_000);
  let rig: TenancyRig;
  let n = 0;
  before(async () => {
    rig = await startTenancyRig();
    await apply(rig, [rig.region('region-one'), rig.region('region-vlan', { vlan: true }), identityManifest('base', 'region-one'), identityManifest('vbase', 'region-vlan')].join('---\n'));
    await rig.settle('Region', 'region-one', connected);
    await rig.settle('Region', 'region-vlan', connected);
    await rig.settle('Identity', 'base', realized);
    await rig.settle('Identity', 'vbase', realized);
    await apply(rig, networkManifest('base-net', 'base'));
    await rig.settle('Network', 'base-net', present);
  });
  after(async () => rig?.close());

  const contextOf = async <C>(stream: (uid: string) => string, kind: TenancyKind, name: string): Promise<C | undefined> => {
    const object = await rig.source.get(kind, 'default', name);
    return object ? ((await rig.engine.load(stream(object.metadata.uid))).snapshot.context as C) : undefined;
  };
  const quietly = async (work: () => Promise<unknown>) => {
    await work().catch(() => undefined);
  };

  /** One kind's world: its manifest for a spec variant, and what each action does to it. */
  const worldOf = (kind: TenancyKind, name: string, vlan: boolean) => {
    const secretOf = (which: Secret): Record<string, string> | undefined => {
      const yaml = rig.sim.cloudsYaml();
      if (which === 'missing') return undefined;
      if (which === 'elsewhere') return { 'clouds.yaml': yaml.replaceAll(rig.sim.url, 'http://127.0.0.1:9'), cloud: 'sim-admin' };
      const password = String((rig.adminCloud.auth as { password?: string }).password);
      return { 'clouds.yaml': which === 'badPassword' ? yaml.replaceAll(password, 'not-the-password') : yaml, cloud: 'sim-admin' };
    };
    const manifest = (v: number): string => {
      switch (kind) {
        case 'Identity':
          return identityManifest(name, 'region-one', v === 0 ? {} : { tag: `t${v}` });
        case 'Network':
          return networkManifest(name, vlan ? 'vbase' : 'base', { dns: DNS[v] ?? [] });
        case 'SecurityGroup':
          return securityGroupManifest(name, 'base-net', RULES[v] ?? []);
        case 'Region':
          return regionManifest(name, { endpoint: `${rig.sim.url}/identity/v3`, domainId: rig.domainId, secret: v % 2 === 0 ? `${name}-credentials` : `${name}-other` });
      }
    };
    const dependent = kind === 'Identity' ? networkManifest(`${name}-dep`, name) : identityManifest(`${name}-dep`, name);
    const act = async (a: Action): Promise<void> => {
      switch (a.kind) {
        case 'pass':
          return quietly(() => rig.pass(kind, name));
        case 'settle':
          // passes (the clock moved between them) until the kind rests: an Identity realized, a resource present
          for (let i = 0; i < (kind === 'Identity' ? 10 : 4); i++) {
            const d = await rig.pass(kind, name).catch(() => undefined);
            if (!d || d.kind !== 'yield' || d.why === 'realized') return;
            rig.sim.clock.advance(d.afterMs);
          }
          return;
        case 'advance':
          rig.sim.clock.advance(a.ms);
          return;
        case 'requestDelete':
          return quietly(() => deleteResource(rig.source, kind, name));
        case 'fault': {
          const f = FAULTS[kind as keyof typeof FAULTS][a.fault] as Fault;
          rig.sim.control.addFault({ method: f.method, path: f.path, status: a.status, count: 1 });
          return;
        }
        case 'behind': {
          if (kind === 'Identity') {
            const context = await contextOf<IdentityContext>(identityLifecycleStream, kind, name);
            const id = a.what === 'project' ? context?.projectId : context?.userId;
            if (id) await quietly(() => (a.what === 'project' ? rig.admin.identityAdmin.deleteProject(id) : rig.admin.identityAdmin.deleteUser(id)));
            return;
          }
          const stream = kind === 'Network' ? networkLifecycleStream : securityGroupLifecycleStream;
          const id = (await contextOf<LifecycleContext>(stream, kind, name))?.resourceId;
          if (id) await quietly(() => (kind === 'Network' ? rig.admin.neutron.deleteNetwork(id) : rig.admin.neutron.deleteSecurityGroup(id)));
          return;
        }
        case 'dependent':
          return quietly(() => apply(rig, dependent));
        case 'dropDependent':
          return quietly(() => deleteResource(rig.source, kind === 'Identity' ? 'Network' : 'Identity', `${name}-dep`));
        case 'spec':
          return quietly(() => apply(rig, manifest(a.variant)));
        case 'secret': {
          const data = secretOf(a.which);
          if (data) await rig.source.secrets.put('default', `${name}-credentials`, data);
          else await rig.source.secrets.delete('default', `${name}-credentials`);
          return;
        }
      }
    };
    const setUp = async () => {
      if (kind === 'Region') {
        await rig.source.secrets.put('default', `${name}-credentials`, secretOf('good') as Record<string, string>);
        await rig.source.secrets.put('default', `${name}-other`, secretOf('elsewhere') as Record<string, string>);
      }
      await apply(rig, manifest(0));
    };
    /** A VLAN network gives its id back (the Region's range is small), as far as passes get it gone. */
    const tearDown = async () => {
      if (kind !== 'Network' || !vlan || !(await rig.source.get(kind, 'default', name))) return;
      await quietly(() => deleteResource(rig.source, kind, name));
      for (let i = 0; i < 8 && (await rig.source.get(kind, 'default', name)); i++) {
        await quietly(() => rig.pass(kind, name));
        rig.sim.clock.advance(1_000);
      }
    };
    return { manifest, act, setUp, tearDown };
  };

  it("the plan's first pass is the real pass's (rule, effects, destructive), for random states and spec changes of Identity, Network, SecurityGroup and Region", async () => {
    const perKind = new Map<string, number>();
    const perMachine = new Map<string, Map<string, number>>();
    let cases = 0;
    let nothing = 0;
    let secondPasses = 0;
    await fc.assert(
      fc.asyncProperty(CASE, async ({ kind, vlan, actions, final }) => {
        const name = `f${kind.slice(0, 1).toLowerCase()}${n++}`;
        const world = worldOf(kind, name, vlan);
        try {
          await world.setUp();
          let last = 0;
          for (const a of actions) {
            if (a.kind === 'spec') last = a.variant;
            await world.act(a);
          }
          rig.sim.control.clearFaults();
          const manifest = world.manifest(final.kind === 'spec' ? final.variant : last);
          const existed = (await rig.source.get(kind, 'default', name)) !== undefined;
          const plan = await rig.plan(manifest, final.kind === 'delete' ? { deleting: true } : {});
          const resource = plan.resources[0];
          const planned = resource?.decisions.filter((d) => d.pass === 1) ?? [];

          // the real thing: apply (or delete), then the real pass; what it appends, in order (its effects' results
          // aside: a plan never has them, it stops the branch at the effect)
          const realPass = async () => {
            const from = await rig.store.lastPosition();
            if (await rig.source.get(kind, 'default', name)) await quietly(() => rig.pass(kind, name));
            return (await rig.store.readAll({ after: from })).filter((e) => e.metadata.source !== 'effect');
          };
          if (final.kind === 'delete') await quietly(() => deleteResource(rig.source, kind, name));
          else await apply(rig, manifest);
          const real = await realPass();

          const why = `${kind} ${name}${vlan && kind === 'Network' ? ' (vlan)' : ''} after ${JSON.stringify(actions)} → ${JSON.stringify(final)}`;
          // created anew: the plan's uid is the one its resource's streams carry (a VLAN ledger's is its Region's)
          const planUid = existed ? undefined : planned.filter((d) => d.machine !== 'vlanAllocation').map((d) => UUID.exec(d.stream)?.[0]).find((u) => u !== undefined);
          const realUid = (await rig.source.get(kind, 'default', name))?.metadata.uid;
          expect(resource?.verdict, `the plan of ${why}: ${resource?.message ?? resource?.refusal ?? resource?.stops ?? ''}`).to.be.oneOf(['planned', final.kind === 'delete' && !existed ? 'refused' : 'planned']);
          agree(planned.map(shapeOfPlanned), withUid(real, realUid, planUid).map(shapeOfStored), `the first pass ${why}`);
          const second = resource?.decisions.filter((d) => d.pass === 2) ?? [];
          if (second.length > 0 && planned.every((d) => d.effects.length === 0)) {
            const realSecond = await realPass();
            agree(second.map(shapeOfPlanned), withUid(realSecond, realUid, planUid).map(shapeOfStored), `the second pass ${why}`);
            secondPasses++;
          }
          cases++;
          perKind.set(kind, (perKind.get(kind) ?? 0) + 1);
          if (planned.length === 0) nothing++;
          const firsts = new Map<string, PlannedDecision>();
          for (const d of planned) if (!firsts.has(d.machine)) firsts.set(d.machine, d);
          for (const [machine, d] of firsts) {
            const counts = perMachine.get(machine) ?? new Map<string, number>();
            const key = `${d.from} → ${d.event.slice(machine.length + 1)} (${d.rule?.id ?? '—'})${d.destructive ? ' DESTRUCTIVE' : ''}`;
            counts.set(key, (counts.get(key) ?? 0) + 1);
            perMachine.set(machine, counts);
          }
        } finally {
          rig.sim.control.clearFaults();
          await world.tearDown();
        }
      }),
      faithfulRuns(100),
    );
    console.log(`      ${cases} cases compared (${[...perKind].map(([k, c]) => `${k} ${c}`).join(', ')}; ${nothing} where neither decided anything; ${secondPasses} also on the plan's second pass)`);
    console.log("      per machine, its first decision in the plan's first pass (state before → outcome (rule)), as often as compared:");
    for (const [machine, counts] of [...perMachine].sort()) {
      console.log(`        ${machine}: ${[...counts.values()].reduce((a, b) => a + b, 0)} cases`);
      for (const [key, count] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`          ${String(count).padStart(3)}  ${key}`);
    }
    expect(cases).to.be.greaterThan(0);
  });
});
