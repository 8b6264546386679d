/**
 * `regent plan` of a Volume and of the volume attachments a Server's pass decides (issue 32), over the simulator:
 * - a new Volume: the create (V5) with the request Cinder would get; an unchanged one: nothing to decide (exit 0);
 *   a larger size: one extend (V10); a smaller size or another class: refused with apply's own message (exit 1);
 * - a Server gaining a volume: the attach (A4, nova.attachVolume); losing one: the write-ahead detach, its arm (D3)
 *   then the Nova delete (D4, nova.detachVolume, DESTRUCTIVE, exit 2);
 * - a Volume's deletion (`regent plan --delete`): the arm (V12), then cinder.deleteVolume (V12, DESTRUCTIVE); an
 *   attached Volume's deletion waits for its Server to detach it, naming it, and deletes nothing; a Server's deletion
 *   detaches its volumes first (D3, D4 DESTRUCTIVE);
 * - each plan read-only: only GETs (and Keystone token issue) at the simulator, the event store's head unchanged,
 *   the stored object unchanged;
 * - the rule table true to the source: each row's label is the one the machine's source comment gives a transition
 *   with that outcome (or, on a line with none, the state it is taken in).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { applyManifestFiles } from '../../src/kube/cli/manifests.js';
import { exitCodeOf, type Plan, type ResourcePlan } from '../../src/plan/report.js';
import { planText } from '../../src/plan/text.js';
import { RULE_TABLES, ruleOf } from '../../src/plan/rules.js';
import { isDestructive } from '../../src/plan/destructive.js';
import { volumeAttachmentDefinition } from '../../machines/volume-attachment.js';
import { volumeLifecycleDefinition } from '../../machines/volume-lifecycle.js';
import { CLASSES, serverWithVolumes, startVolumeRig, volumeManifest, type VolumeRig } from './support/volume-rig.js';

const line = (d: ResourcePlan['decisions'][number]) => `${d.pass} ${d.event} ${d.from} → ${d.to} ${d.rule?.id ?? '—'}${d.destructive ? ' DESTRUCTIVE' : ''}`;

describe('plan: a Volume and its attachments', function () {
  this.timeout(120_000);
  let rig: VolumeRig;
  let data1: string;
  let data2: string;
  let web1: string;

  /** A plan, checked read-only: nothing but GETs (and token issue) reached the simulator, the store's head and the stored objects did not move. */
  const readOnlyPlan = async (text: string, extra: Parameters<VolumeRig['plan']>[1] = {}): Promise<Plan> => {
    const head = await rig.store.lastPosition();
    const streams = await rig.store.listStreams();
    const objects = JSON.stringify([(await rig.source.list('Volume')).items, (await rig.source.list('Server')).items]);
    const firstCall = rig.sim.calls().length;
    const plan = await rig.plan(text, extra);
    const calls = rig.sim.calls().slice(firstCall);
    expect(calls.filter((c) => c.method !== 'GET' && c.path !== '/identity/v3/auth/tokens').map((c) => `${c.method} ${c.path}`), 'a mutation reached the cloud').to.deep.equal([]);
    // a plan that runs a pass reads the cloud (a refusal runs none)
    if (plan.resources.some((r) => r.verdict === 'planned')) expect(calls.filter((c) => c.method === 'GET').length, 'the plan read the cloud').to.be.greaterThan(0);
    expect(await rig.store.lastPosition(), "the event store's head").to.equal(head);
    expect(await rig.store.listStreams()).to.deep.equal(streams);
    expect(JSON.stringify([(await rig.source.list('Volume')).items, (await rig.source.list('Server')).items]), 'the stored objects').to.equal(objects);
    return plan;
  };

  before(async () => {
    rig = await startVolumeRig();
    data1 = await rig.bringUpVolume('data-1');
    data2 = await rig.bringUpVolume('data-2', 2);
    web1 = await rig.bringUpServer('web-1', ['data-1']);
    // each Volume's pass has seen the volume as it is now (data-1 in-use)
    await rig.pass('Volume', 'data-1');
    await rig.pass('Volume', 'data-2');
  });
  after(async () => rig?.close());

  it('a new Volume: the create (V5) with the request Cinder would get; not destructive; nothing stored', async () => {
    const plan = await readOnlyPlan(volumeManifest('data-new', 3, CLASSES.ssd, { team: 'db' }));
    const [volume] = plan.resources;
    expect(volume).to.include({ kind: 'Volume', name: 'data-new', verdict: 'planned', apply: 'created', destructive: false });
    const create = volume?.decisions.find((d) => d.machine === 'volumeLifecycle');
    expect(create && line(create)).to.equal('1 volumeLifecycle.createSubmitted ∅ → creating V5');
    expect(create?.then).to.equal('after Cinder accepts the create: waits for the volume to become available');
    const effect = create?.effects[0];
    expect(effect?.type).to.equal('cinder.createVolume');
    expect(effect?.destructive).to.equal(false);
    const name = effect?.params.name as string;
    expect(name).to.match(/^volume-[0-9a-f-]{36}$/);
    const uid = name.slice('volume-'.length);
    const identity = await rig.source.get('Identity', 'default', 'acme');
    const network = await rig.source.get('Network', 'default', 'net-a');
    expect(effect?.calls).to.deep.equal([
      {
        service: 'block-storage',
        method: 'POST',
        path: '/volumes',
        body: {
          volume: {
            name,
            size: 3,
            volume_type: CLASSES.ssd,
            metadata: {
              'regent.dev:team': 'db',
              'regent.dev:identity-id': identity?.metadata.uid,
              'regent.dev:organization-id': 'acme',
              'regent.dev:project-id': 'web',
              'regent.dev:region-id': 'default',
              'regent.dev:network-id': network?.metadata.uid,
              'regent.dev:volume-id': uid,
              'regent.dev:uid': uid,
            },
          },
        },
      },
    ]);
    expect(volume?.stops).to.equal('after Cinder accepts the create: waits for the volume to become available');
    expect(exitCodeOf(plan)).to.equal(0);
    expect(await rig.source.get('Volume', 'default', 'data-new')).to.equal(undefined);
  });

  it('an unchanged Volume: nothing to decide, no destructive decision (exit 0)', async () => {
    const plan = await readOnlyPlan(volumeManifest('data-2', 2));
    const [volume] = plan.resources;
    expect(volume).to.include({ verdict: 'planned', apply: 'unchanged', destructive: false });
    expect(volume?.decisions).to.deep.equal([]);
    expect(volume?.stops).to.match(/^nothing to decide \(next pass in 60 s: available\)$/);
    expect(plan.destructive).to.equal(false);
    expect(exitCodeOf(plan)).to.equal(0);
    expect(planText(plan)).to.include('no destructive decision');
  });

  it('a larger size: one Cinder extend (V10) to the spec size, not destructive', async () => {
    const plan = await readOnlyPlan(volumeManifest('data-2', 5));
    const [volume] = plan.resources;
    expect(volume?.apply).to.equal('configured');
    expect(volume?.decisions.map(line)).to.deep.equal(['1 volumeLifecycle.extendSubmitted available → extending V10']);
    expect(volume?.decisions[0]?.effects.map((e) => ({ type: e.type, destructive: e.destructive, calls: e.calls.map((c) => [c.method, c.path, c.body]) }))).to.deep.equal([
      { type: 'cinder.extendVolume', destructive: false, calls: [['POST', `/volumes/${data2}/action`, { 'os-extend': { new_size: 5 } }]] },
    ]);
    expect(volume?.stops).to.equal('after Cinder accepts the extend: waits for the volume to be available at the new size');
    expect(exitCodeOf(plan)).to.equal(0);
  });

  for (const [what, text, field] of [
    ['a smaller size', () => volumeManifest('data-2', 1), 'spec.size'],
    ['another volume class', () => volumeManifest('data-2', 2, CLASSES.standard), 'spec.volumeClassID'],
    ['other tags', () => volumeManifest('data-2', 2, CLASSES.ssd, { team: 'web' }), 'spec.tags'],
  ] as const) {
    it(`${what}: refused with the message apply gives (exit 1), nothing planned`, async () => {
      let applied: string | undefined;
      try {
        await applyManifestFiles(rig.source, [{ file: 'plan.yaml', text: text() }]);
      } catch (error) {
        applied = (error as Error).message;
      }
      expect(applied).to.include(field);
      const plan = await readOnlyPlan(text());
      expect(plan.resources.map((r) => [r.verdict, r.refusal, r.decisions.length])).to.deep.equal([['refused', applied, 0]]);
      expect(exitCodeOf(plan)).to.equal(1);
    });
  }

  it('a Server gaining a volume: the attach (A4) with the request Nova would get, not destructive', async () => {
    const plan = await readOnlyPlan(serverWithVolumes('web-1', ['data-1', 'data-2']));
    const [server] = plan.resources;
    expect(server).to.include({ kind: 'Server', apply: 'configured', destructive: false });
    const attachments = server?.decisions.filter((d) => d.machine === 'volumeAttachment') ?? [];
    // data-1's pair records the new generation (still attached, A2); data-2's is the attach
    expect(attachments.map(line)).to.deep.equal(['1 volumeAttachment.attached attached → attached A2', '1 volumeAttachment.attachRequested ∅ → attaching A4']);
    expect(attachments[1]?.effects).to.deep.equal([
      {
        type: 'nova.attachVolume',
        params: { serverId: web1, volumeId: data2, device: null },
        destructive: false,
        calls: [{ service: 'compute', method: 'POST', path: `/servers/${web1}/os-volume_attachments`, body: { volumeAttachment: { volumeId: data2 } } }],
      },
    ]);
    expect(server?.stops).to.equal("after Nova accepts the attach: waits for Cinder's attachment to show it");
    expect(exitCodeOf(plan)).to.equal(0);
  });

  it('a Server losing a volume: the detach armed (D3), then on the read-back pass the Nova delete (D4), DESTRUCTIVE (exit 2)', async () => {
    const plan = await readOnlyPlan(serverWithVolumes('web-1', []));
    const [server] = plan.resources;
    expect(server?.destructive).to.equal(true);
    const attachments = server?.decisions.filter((d) => d.machine === 'volumeAttachment') ?? [];
    expect(attachments.map(line)).to.deep.equal(['1 volumeAttachment.detachArmed attached → detaching.armed D3', '2 volumeAttachment.detachRequested detaching.armed → detaching.requested D4 DESTRUCTIVE']);
    expect(attachments[0]?.effects).to.deep.equal([]);
    expect(attachments[1]?.effects).to.deep.equal([
      { type: 'nova.detachVolume', params: { serverId: web1, volumeId: data1 }, destructive: true, calls: [{ service: 'compute', method: 'DELETE', path: `/servers/${web1}/os-volume_attachments/${data1}` }] },
    ]);
    expect(server?.stops).to.equal("after Nova accepts the detach: waits for Cinder's attachment to be gone");
    expect(exitCodeOf(plan)).to.equal(2);
    expect(planText(plan)).to.include('nova.detachVolume on Server default/web-1');
  });

  it("a Server's deletion (--delete) with a volume attached: the detach first (D3, then D4 DESTRUCTIVE), before any Nova delete", async () => {
    const plan = await readOnlyPlan(serverWithVolumes('web-1', ['data-1']), { deleting: true });
    const [server] = plan.resources;
    expect(server?.decisions.map(line)).to.deep.equal(['1 volumeAttachment.detachArmed attached → detaching.armed D3', '2 volumeAttachment.detachRequested detaching.armed → detaching.requested D4 DESTRUCTIVE']);
    expect(server?.decisions[1]?.effects.map((e) => `${e.type} ${e.calls.map((c) => `${c.method} ${c.path}`).join('')}`)).to.deep.equal([`nova.detachVolume DELETE /servers/${web1}/os-volume_attachments/${data1}`]);
    expect(server?.passes[0]).to.equal('next pass in 2 s: detaching 1 volume(s) before the Nova delete');
    expect(exitCodeOf(plan)).to.equal(2);
  });

  it("a Volume's deletion (--delete): the arm (V12), then cinder.deleteVolume (V12), DESTRUCTIVE (exit 2); nothing deleted", async () => {
    const plan = await readOnlyPlan(volumeManifest('data-2', 2), { deleting: true });
    const [volume] = plan.resources;
    expect(volume).to.include({ verdict: 'planned', apply: 'deleted', destructive: true });
    expect(volume?.decisions.map(line)).to.deep.equal(['1 volumeLifecycle.deleteArmed available → deleting.armed V12', '2 volumeLifecycle.deleteSubmitted deleting.armed → deleting.submitted V12 DESTRUCTIVE']);
    expect(volume?.decisions[1]?.effects.map((e) => [e.type, e.destructive, e.calls.map((c) => `${c.method} ${c.path}`)])).to.deep.equal([['cinder.deleteVolume', true, [`DELETE /volumes/${data2}`]]]);
    expect(volume?.stops).to.equal('after Cinder accepts the delete: waits for the volume to be gone');
    expect(exitCodeOf(plan)).to.equal(2);
    expect((await rig.source.get('Volume', 'default', 'data-2'))?.metadata.deletionTimestamp).to.equal(undefined);
  });

  it("an attached Volume's deletion: it waits for its Server to detach it (V12), naming the Server; nothing destructive", async () => {
    const plan = await readOnlyPlan(volumeManifest('data-1', 1), { deleting: true });
    const [volume] = plan.resources;
    expect(volume?.decisions.map(line)).to.deep.equal(['1 volumeLifecycle.waitingForDetach available → deleting.waiting V12']);
    expect(volume?.destructive).to.equal(false);
    expect(volume?.stops).to.equal('waits for the servers to detach the volume (their Server passes detach it); nothing is deleted meanwhile (next pass in 5 s: waiting for web-1 to detach the volume)');
    expect(exitCodeOf(plan)).to.equal(0);
  });

  it('an attached Volume, unchanged, planned as the command plans it: nothing to decide (the plane warms its stream-owner map as the control plane does)', async () => {
    const plan = await readOnlyPlan(volumeManifest('data-1', 1));
    const [volume] = plan.resources;
    expect(volume?.decisions).to.deep.equal([]);
  });

  it("the destructive flags: cinder.deleteVolume and nova.detachVolume are destructive for their machines; create, extend and attach are not", () => {
    expect(['cinder.createVolume', 'cinder.extendVolume', 'cinder.deleteVolume'].map((t) => isDestructive(t, volumeLifecycleDefinition))).to.deep.equal([false, false, true]);
    expect(['nova.attachVolume', 'nova.readVolumeAttachment', 'nova.detachVolume'].map((t) => isDestructive(t, volumeAttachmentDefinition))).to.deep.equal([false, false, true]);
  });
});

describe('plan: the volume rule tables where two transitions record one outcome', () => {
  const rule = (machine: string, outcome: string, from: string, data: Record<string, unknown>) => ruleOf({ type: `${machine}.${outcome}`, data: data as never, metadata: { machine, from } as never })?.id;
  const pass = (o: Record<string, unknown>) => ({ type: 'reconcile', deletionRequested: false, identity: { kind: 'realized', projectId: 'p' }, observed: { kind: 'absent' }, ...o });

  it('volumeLifecycle: the transition the stimulus took (V11 or V12, V6 or V12, V5 or none)', () => {
    // DELETION: an identity without a project proves nothing exists (V11); a realized one found nothing (V12)
    expect(rule('volumeLifecycle', 'nothingToDelete', 'absent', pass({ deletionRequested: true, identity: { kind: 'unrealized' } }))).to.equal('V11');
    expect(rule('volumeLifecycle', 'nothingToDelete', 'absent', pass({ deletionRequested: true }))).to.equal('V12');
    // a create that may still land: outside a deletion V6 (creating); in one, an absence that is not yet proof (V12)
    expect(rule('volumeLifecycle', 'awaitingCreate', 'creating', pass({}))).to.equal('V6');
    expect(rule('volumeLifecycle', 'awaitingCreate', 'creating', pass({ deletionRequested: true }))).to.equal('V12');
    expect(rule('volumeLifecycle', 'awaitingCreate', 'deleting.armed', pass({ deletionRequested: true }))).to.equal('V12');
    // VANISHED (V5: the next pass decides) — not extending's other volume under the name, which the source leaves unlabelled
    expect(rule('volumeLifecycle', 'vanished', 'available', pass({}))).to.equal('V5');
    expect(rule('volumeLifecycle', 'vanished', 'extending', pass({ observed: { kind: 'present', id: 'other', status: 'available', size: 1, attachments: [] } }))).to.equal(undefined);
  });

  it('volumeAttachment: the transition the stimulus took (P4 or A6, D9 or D8)', () => {
    expect(rule('volumeAttachment', 'conflictUnresolved', 'readingAfterConflict', { type: 'attach' })).to.equal('P4');
    expect(rule('volumeAttachment', 'conflictUnresolved', 'readingAfterConflict', { type: 'read.notFound' })).to.equal('A6');
    expect(rule('volumeAttachment', 'conflictUnresolved', 'readingAfterConflict', { type: 'read.failed' })).to.equal('A6');
    expect(rule('volumeAttachment', 'detachInProgress', 'detaching.requested', { type: 'attach' })).to.equal('D9');
    expect(rule('volumeAttachment', 'detachInProgress', 'detaching.requested', { type: 'detach' })).to.equal('D8');
  });
});

/**
 * Where each labelled transition of a machine's source is, and the labels its comments give it: the label comment on
 * its own line and the comment lines right above it, or else the comment above the state it is taken in.
 */
const SOURCES: Record<string, readonly string[]> = {
  volumeLifecycle: ['machines/volume-lifecycle.ts', 'machines/volume-lifecycle/transitions.ts'],
  volumeAttachment: ['machines/volume-attachment.ts'],
};

/** The write-ahead delete's step builders (machines/write-ahead-delete.ts) and the outcome each records unless named. */
const STEP_OUTCOMES: Record<string, string> = { arm: 'deleteArmed', submit: 'deleteSubmitted', resend: 'deleteResubmitted', inProgress: 'deleteInProgress', confirm: 'deleted', withdraw: 'deletionWithdrawn' };

const LABEL = /\b([VADPMWL]\d+)\b/g;
const commentOf = (text: string): string => {
  const at = text.indexOf('//');
  return at < 0 ? '' : text.slice(at);
};
const isComment = (text: string): boolean => /^\s*(\/\/|\/\*\*?|\*)/.test(text);
const labelsIn = (text: string): string[] => [...text.matchAll(LABEL)].map((m) => m[1] as string);
const indentOf = (text: string): number => text.length - text.trimStart().length;

/** The outcomes a source line's transition records. */
const outcomesOn = (text: string): string[] => {
  const out = [...text.matchAll(/outcome\('(\w+)'\)/g)].map((m) => m[1] as string);
  for (const m of text.matchAll(/\b(settled|pending): '(\w+)'/g)) out.push(`${m[1]}:${m[2]}`);
  for (const [step, fallback] of Object.entries(STEP_OUTCOMES)) {
    if (!new RegExp(`\\b${step}\\(\\{`).test(text)) continue;
    const named = /\},\s*'(\w+)'\)/.exec(text);
    out.push(named ? (named[1] as string) : fallback);
  }
  if (text.includes('outcome(names.settled)')) out.push('classify:settled');
  if (text.includes('outcome(names.pending)')) out.push('classify:pending');
  return out;
};

/** Per outcome, the labels the source gives each transition that records it. */
const sourceLabels = (files: readonly string[]): Map<string, Set<string>> => {
  const labels = new Map<string, Set<string>>();
  const add = (outcome: string, found: readonly string[]) => {
    const set = labels.get(outcome) ?? new Set<string>();
    for (const l of found) set.add(l);
    labels.set(outcome, set);
  };
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((text, index) => {
      if (isComment(text)) return;
      const outcomes = outcomesOn(text);
      if (outcomes.length === 0) return;
      const found = labelsIn(commentOf(text));
      for (let i = index - 1; i >= 0 && isComment(lines[i] as string); i--) found.push(...labelsIn(lines[i] as string));
      if (found.length === 0) {
        // the state it is taken in: each enclosing `name: {` above, with the comment lines right above it
        let indent = indentOf(text);
        for (let i = index - 1; i >= 0; i--) {
          const above = lines[i] as string;
          if (above.trim() === '' || isComment(above) || indentOf(above) >= indent) continue;
          indent = indentOf(above);
          if (!/^\s*[\w'.#-]+: \{\s*$/.test(above)) continue;
          for (let j = i - 1; j >= 0 && isComment(lines[j] as string); j--) found.push(...labelsIn(lines[j] as string));
        }
      }
      for (const outcome of outcomes) add(outcome, found);
    });
  }
  // a name given to classify() (machines/volume-lifecycle/transitions.ts) is also recorded by its settled/pending transitions
  for (const [key, set] of [...labels]) {
    const [slot, name] = key.split(':');
    if (name === undefined || slot === 'classify') continue;
    add(name, [...set, ...(labels.get(`classify:${slot}`) ?? [])]);
  }
  return labels;
};

describe('plan: the volume rule tables against their sources', () => {
  for (const machine of Object.keys(SOURCES)) {
    it(`${machine}: each row's label is one the source's comments give a transition recording that outcome`, () => {
      const labels = sourceLabels(SOURCES[machine] as readonly string[]);
      const rows = RULE_TABLES[machine] ?? [];
      expect(rows.length).to.be.greaterThan(0);
      const wrong = rows.filter((row) => !labels.get(row.outcome)?.has(row.rule.id)).map((row) => `${row.outcome}: table ${row.rule.id}, source ${[...(labels.get(row.outcome) ?? [])].join('/') || 'none'}`);
      expect(wrong).to.deep.equal([]);
    });
  }
});
