/**
 * A plan is faithful (issue 32, "Guarantees: faithful") for the volume machines: a property-based test drives a
 * Volume — and, in some cases, a Server attaching and detaching it — over the simulator to a random reachable state
 * (real Volume and Server passes, clock advances, a larger size, a 409 or a 503 on Cinder's create, extend or delete
 * and on Nova's attach or detach, the volume forced into a status and left there, a second volume of the same name),
 * applies a random change (the Volume's size, its deletion, or the Server's volumes), plans it, then runs the real
 * pass (the control plane's wiring over the real store and cloud) and compares the plan's first pass with what the
 * real pass appends — event, state before and after, rule, effects with their parameters, destructive flag — and the
 * plan's second pass with the real second pass when the first declared no effect.
 *
 * The plan's plane warms its stream-owner map from the stored Server lifecycles, as the control plane does at start:
 * without it a plan of an attached Volume named its Server "a server Regent does not manage" and decided a change the
 * real pass does not (this test found it).
 *
 * Runs: PLAN_FAITHFUL_RUNS (default 100); PLAN_FAITHFUL_SEED replays a seed.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { applyManifests, deleteResource } from '../../src/kube/cli/manifests.js';
import { volumeLifecycleStream, volumeCloudName } from '../../machines/volume-lifecycle.js';
import { volumeAttachmentStream } from '../../machines/volume-attachment.js';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { stateText } from '../../src/plan/rules.js';
import { serverWithVolumes, startVolumeRig, volumeManifest, type VolumeRig } from './support/volume-rig.js';
import { shapeOfPlanned, shapeOfStored } from './support/decision-shape.js';
import { faithfulRuns } from './support/faithful-runs.js';

type Fault = { method: 'POST' | 'DELETE'; path: string; what: string };
const FAULTS: readonly Fault[] = [
  { method: 'POST', path: '/volumes$', what: 'cinder create' },
  { method: 'POST', path: '/volumes/[^/]+/action$', what: 'cinder extend' },
  { method: 'DELETE', path: '/volumes/[^/]+$', what: 'cinder delete' },
  { method: 'POST', path: '/os-volume_attachments$', what: 'nova attach' },
  { method: 'DELETE', path: '/os-volume_attachments/', what: 'nova detach' },
];
const STATUSES = ['error', 'creating', 'extending', 'error_extending', 'error_deleting', 'maintenance', 'available', 'in-use', 'attaching', 'detaching', 'reserved'] as const;

type Action =
  | { kind: 'volumePass' }
  | { kind: 'serverPass' }
  | { kind: 'advance'; ms: number }
  | { kind: 'settle' }
  | { kind: 'grow' }
  | { kind: 'attach' }
  | { kind: 'detach' }
  | { kind: 'fault'; fault: number; status: 409 | 503 }
  | { kind: 'stuck'; status: (typeof STATUSES)[number] }
  | { kind: 'duplicate' };
type Final = { kind: 'size'; grow: 0 | 1 | 2 } | { kind: 'delete' } | { kind: 'server'; attach: boolean };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ kind: 'volumePass' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'serverPass' as const }) },
  { weight: 2, arbitrary: fc.integer({ min: 100, max: 2_000 }).map((ms) => ({ kind: 'advance' as const, ms })) },
  { weight: 4, arbitrary: fc.constant({ kind: 'settle' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'grow' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'attach' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'detach' as const }) },
  { weight: 2, arbitrary: fc.record({ fault: fc.integer({ min: 0, max: FAULTS.length - 1 }), status: fc.constantFrom<409 | 503>(409, 503) }).map((f) => ({ kind: 'fault' as const, ...f })) },
  { weight: 1, arbitrary: fc.constantFrom(...STATUSES).map((status) => ({ kind: 'stuck' as const, status })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'duplicate' as const }) },
);
/** Where a case starts: the Volume just applied or brought up available; with a Server that lists it or not. */
type Start = 'fresh' | 'available' | 'fresh, a server' | 'available, a server' | 'attached';
const start: fc.Arbitrary<Start> = fc.constantFrom<Start>('fresh', 'available', 'fresh, a server', 'available, a server', 'attached');
const final: fc.Arbitrary<Final> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<0 | 1 | 2>(0, 1, 2).map((grow) => ({ kind: 'size' as const, grow })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'delete' as const }) },
  { weight: 2, arbitrary: fc.boolean().map((attach) => ({ kind: 'server' as const, attach })) },
);



describe('plan: faithful to the real pass (volumeLifecycle, volumeAttachment; property-based)', function () {
  this.timeout(1_200_000);
  let rig: VolumeRig;
  before(async () => {
    rig = await startVolumeRig();
  });
  after(async () => rig?.close());

  it("the plan's first pass is the real pass's appended events (rule, effects, destructive), for random volume states and changes", async () => {
    let cases = 0;
    let nothing = 0;
    let secondPasses = 0;
    let cutAtEffect = 0;
    let failedBoth = 0;
    const seen = new Map<string, number>();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(start, fc.array(action, { maxLength: 10 }), final, async (begin, actions, last) => {
        const volume = `vol-f${n}`;
        const server = `web-f${n}`;
        n++;
        const withServer = begin !== 'fresh' && begin !== 'available';
        let size = 1;
        let wanted: string[] = begin === 'attached' ? [volume] : [];
        /** The real pass's appended decisions (its effects' results aside: a plan never has them), and whether it threw. */
        const realPass = async (kind: 'Volume' | 'Server', name: string) => {
          const from = await rig.store.lastPosition();
          const threw = await rig.pass(kind, name).then(
            () => false,
            () => true,
          );
          return { threw, events: (await rig.store.readAll({ after: from })).filter((e) => e.metadata.source !== 'monitor' && e.metadata.source !== 'effect') };
        };
        try {
          if (begin === 'fresh' || begin === 'fresh, a server') await applyManifests(rig.source, volumeManifest(volume, size));
          else await rig.bringUpVolume(volume, size);
          if (withServer) await rig.bringUpServer(server, wanted);
          const uid = (await rig.source.get('Volume', 'default', volume))?.metadata.uid as string;
          const serverUid = withServer ? ((await rig.source.get('Server', 'default', server))?.metadata.uid as string) : '';
          const serverPass = async () => {
            if (withServer) await rig.pass('Server', server).catch(() => undefined);
          };
          for (const a of actions) {
            if (a.kind === 'volumePass') await rig.pass('Volume', volume).catch(() => undefined);
            else if (a.kind === 'serverPass') await serverPass();
            else if (a.kind === 'advance') rig.sim.clock.advance(a.ms);
            else if (a.kind === 'settle') {
              rig.sim.clock.advance(1_000);
              await rig.pass('Volume', volume).catch(() => undefined);
              await serverPass();
            } else if (a.kind === 'grow') {
              size += 1;
              await applyManifests(rig.source, volumeManifest(volume, size));
              await rig.pass('Volume', volume).catch(() => undefined);
            } else if ((a.kind === 'attach' || a.kind === 'detach') && withServer) {
              wanted = a.kind === 'attach' ? [volume] : [];
              await applyManifests(rig.source, serverWithVolumes(server, wanted));
              await serverPass();
            } else if (a.kind === 'fault') {
              const f = FAULTS[a.fault] as Fault;
              rig.sim.control.addFault({ method: f.method, path: f.path, status: a.status, count: 1 });
            } else if (a.kind === 'stuck') {
              const id = await rig.volumeId(volume);
              if (id) rig.sim.control.forceVolume(id, { status: a.status });
            } else if (a.kind === 'duplicate') {
              await rig.os.cinder.createVolume({ name: volumeCloudName(uid), size: 1 }).catch(() => undefined);
            }
          }

          // the change, planned, then made and passed for real
          const target = last.kind === 'server' && withServer ? 'Server' : 'Volume';
          const stream = target === 'Server' ? volumeAttachmentStream(serverUid, uid) : volumeLifecycleStream(uid);
          const before = stateText((await rig.engine.load(stream)).snapshot.value);
          let plan;
          let real: { threw: boolean; events: RecordedEvent[] };
          if (target === 'Server') {
            const attach = last.kind === 'server' && last.attach;
            const manifest = serverWithVolumes(server, attach ? [volume] : []);
            plan = await rig.plan(manifest);
            await applyManifests(rig.source, manifest);
            real = await realPass('Server', server);
          } else if (last.kind === 'delete') {
            plan = await rig.plan(volumeManifest(volume, size), { deleting: true });
            await deleteResource(rig.source, 'Volume', volume);
            real = await realPass('Volume', volume);
          } else {
            const manifest = volumeManifest(volume, size + (last.kind === 'size' ? last.grow : 0));
            plan = await rig.plan(manifest);
            await applyManifests(rig.source, manifest);
            real = await realPass('Volume', volume);
          }
          const resource = plan.resources[0];
          const why = `from ${begin}, after ${JSON.stringify(actions)} → ${JSON.stringify(last)}`;
          // a pass that fails (two volumes of the name: ErrConsistency, fail closed) fails in the plan too, after the same decisions
          expect(resource?.verdict, `${why}: ${resource?.message ?? resource?.refusal ?? ''}`).to.equal(real.threw && resource?.verdict === 'failed' ? 'failed' : 'planned');
          if (resource?.verdict === 'failed') failedBoth++;
          const planned = resource?.decisions.filter((d) => d.pass === 1) ?? [];
          // up to the first effect, always; past it, when the effect's answer did not fail the real pass (a 5xx the
          // pass throws is recorded by its scope reachability: a decision on an answer the plan never has, and says so)
          const upToEffect = <T extends { effects: readonly unknown[] }>(list: readonly T[]) => {
            const at = list.findIndex((x) => x.effects.length > 0);
            return at < 0 ? list : list.slice(0, at + 1);
          };
          expect(upToEffect(planned.map(shapeOfPlanned)), `the first pass ${why}`).to.deep.equal(upToEffect(real.events.map(shapeOfStored)));
          if (real.threw) cutAtEffect++;
          else expect(planned.map(shapeOfPlanned), `the whole first pass ${why}`).to.deep.equal(real.events.map(shapeOfStored));
          // the plan's next pass, when the first declared no effect: the real next pass decides the same
          const second = resource?.decisions.filter((d) => d.pass === 2) ?? [];
          if (second.length > 0 && planned.every((d) => d.effects.length === 0)) {
            const realSecond = await realPass(target, target === 'Server' ? server : volume);
            expect(upToEffect(second.map(shapeOfPlanned)), `the second pass ${why}`).to.deep.equal(upToEffect(realSecond.events.map(shapeOfStored)));
            secondPasses++;
          }
          cases++;
          if (planned.length === 0) nothing++;
          const machine = target === 'Server' ? 'volumeAttachment' : 'volumeLifecycle';
          const first = planned.find((d) => d.machine === machine);
          const key = `${machine}: ${before} → ${first ? `${first.event.slice(machine.length + 1)} (${first.rule?.id ?? '—'})${first.destructive ? ' DESTRUCTIVE' : ''}` : 'no decision'}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        } finally {
          rig.sim.control.clearFaults();
        }
      }),
      faithfulRuns(100),
    );
    console.log(`      ${cases} cases compared (${nothing} where neither decided anything; ${secondPasses} also on the plan's second pass; ${cutAtEffect} compared up to the effect, whose failure failed the real pass; ${failedBoth} where the plan's pass and the real one both failed); state before → the machine's first decision (rule):`);
    for (const [key, count] of [...seen].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) console.log(`        ${String(count).padStart(3)}  ${key}`);
    expect(cases).to.be.greaterThan(0);
  });
});
