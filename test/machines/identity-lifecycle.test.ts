/**
 * The Identity lifecycle (issue 11, "Identity scoping"): table tests per rule (I1–I5, D1–D4) and
 * model-based checks over every reachable state (xstate/graph) with oracles written from the rules.
 */
import { expect } from 'chai';
import { getAdjacencyMap, adjacencyMapToArray } from 'xstate/graph';
import { transition, type AnyMachineSnapshot } from 'xstate';
import { identityLifecycleDefinition as def, buildIdentityMachine, type IdentityContext, type IdentityObservation, type IdentityStimulus } from '../../machines/identity-lifecycle.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const STREAM = 'identity-lifecycle-uid-1';
const absent = { kind: 'absent' } as const;
const present = (id: string) => ({ kind: 'present', id }) as const;
const observed = (over: Partial<IdentityObservation> = {}): IdentityObservation => ({ project: absent, user: absent, missingRoles: [], credential: absent, ...over });
const full = (over: Partial<IdentityObservation> = {}) => observed({ project: present('p1'), user: present('u1'), credential: { kind: 'valid', id: 'c1' }, ...over });
const reconcile = (o: IdentityObservation, extra: Partial<Extract<IdentityStimulus, { type: 'reconcile' }>> = {}): IdentityStimulus => ({
  type: 'reconcile', source: 'reconciler', generation: 1, deletionRequested: false, mode: 'managed', observed: o, dependents: [],
  desired: { domainId: 'd1', projectName: 'regent-uid-1', userName: 'regent-uid-1', roles: ['member'], region: 'default/region-one', secret: 'default/regent-identity-uid-1' }, ...extra,
});
const done = (s: string, extra: Record<string, string> = {}): IdentityStimulus => ({ type: 'stepDone', source: 'effect', step: s as never, ...extra });
const refused = (s: string): IdentityStimulus => ({ type: 'stepRefused', source: 'effect', step: s as never, status: 403, reason: 'forbidden', message: 'You are not authorized' });

const after = (...stimuli: IdentityStimulus[]): AnyMachineSnapshot => {
  let s = initialSnapshot(def, STREAM);
  for (const stimulus of stimuli) s = step(def, s, stimulus).snapshot;
  return s;
};
const decide = (from: AnyMachineSnapshot, stimulus: IdentityStimulus) => {
  const r = step(def, from, stimulus);
  return { value: r.snapshot.value, outcome: r.outcome, effects: r.effects.map((e) => e.type), params: r.effects[0], context: r.snapshot.context as IdentityContext };
};

describe('identity lifecycle: realizing, one step per pass, in order', () => {
  const cases: Array<[string, () => AnyMachineSnapshot, IdentityStimulus, { outcome: string; effects: string[]; value?: unknown }]> = [
    ['I1 nothing exists: create the project', () => after(), reconcile(observed()), { outcome: 'projectRequested', effects: ['keystone.createProject'] }],
    ['I2 the project exists, the user not: create the user', () => after(), reconcile(observed({ project: present('p1') })), { outcome: 'userRequested', effects: ['keystone.createUser'] }],
    ['I3 project and user exist, managed roles missing: grant exactly the missing ones', () => after(), reconcile(observed({ project: present('p1'), user: present('u1'), missingRoles: ['member', 'load-balancer_member'] })), { outcome: 'rolesRequested', effects: ['keystone.grantRoles'] }],
    ['I4 no credential yet: issue one', () => after(), reconcile(observed({ project: present('p1'), user: present('u1') })), { outcome: 'credentialRequested', effects: ['keystone.issueCredential'] }],
    ['I5 everything present and the credential accepted: realized, nothing to do', () => after(), reconcile(full()), { outcome: 'realized', effects: [], value: 'realized' }],
    ['I4 a realized identity whose credential Keystone now refuses (revoked, expired) rotates it', () => after(reconcile(full())), reconcile(full({ credential: { kind: 'refused', id: 'c1' } })), { outcome: 'credentialRotating', effects: ['keystone.issueCredential'], value: 'realizing' }],
    ['I1 a realized identity whose project vanished creates it again', () => after(reconcile(full())), reconcile(observed()), { outcome: 'projectRequested', effects: ['keystone.createProject'] }],
  ];
  for (const [title, from, stimulus, expected] of cases) {
    it(title, () => {
      const r = decide(from(), stimulus);
      expect(r.outcome).to.equal(expected.outcome);
      expect(r.effects).to.deep.equal(expected.effects);
      if (expected.value !== undefined) expect(r.value).to.deep.equal(expected.value);
    });
  }

  it('I1/I2 the creates carry the deterministic names in the managed domain', () => {
    expect(decide(after(), reconcile(observed())).params).to.deep.include({ domainId: 'd1', name: 'regent-uid-1', region: 'default/region-one', secret: 'default/regent-identity-uid-1' });
    expect(decide(after(), reconcile(observed({ project: present('p1') }))).params).to.deep.include({ domainId: 'd1', name: 'regent-uid-1', projectId: 'p1' });
  });

  it('I3 the grant carries the roles that are missing, on the observed project and user', () => {
    const r = decide(after(), reconcile(observed({ project: present('p1'), user: present('u1'), missingRoles: ['member'] })));
    expect(r.params).to.deep.include({ projectId: 'p1', userId: 'u1', roles: ['member'] });
  });

  it('I4 a rotation names the refused credential so the handler deletes it once the new one is stored', () => {
    const r = decide(after(reconcile(full())), reconcile(full({ credential: { kind: 'refused', id: 'c1' } })));
    expect(r.params).to.deep.include({ replaces: 'c1' });
  });

  it('the credential is recorded by reference and digest only: no secret in the context or the stimulus', () => {
    const s = after(reconcile(observed({ project: present('p1'), user: present('u1') })), done('credential', { id: 'c9', secretRef: 'identity-uid-1', digest: 'sha256:0123' }));
    expect((s.context as IdentityContext).credential).to.deep.equal({ id: 'c9', secretRef: 'identity-uid-1', digest: 'sha256:0123' });
    expect(def.stimulus.is({ type: 'stepDone', source: 'effect', step: 'credential', id: 'c9', secretRef: 'x', digest: 'y' })).to.equal(true);
  });

  it('a refused create parks the identity (failed) until a new generation; the same generation does nothing', () => {
    const parked = after(reconcile(observed()), refused('project'));
    expect(parked.value).to.equal('failed');
    expect(decide(parked, reconcile(observed())).effects).to.deep.equal([]);
    const retried = decide(parked, reconcile(observed(), { generation: 2 }));
    expect(retried.value).to.equal('realizing');
    expect(retried.outcome).to.equal('retrying');
  });

  const kp = { absent: { kind: 'absent', name: 'regent-uid-1' }, present: { kind: 'present', name: 'regent-uid-1', fingerprint: 'SHA256:fp1' }, lost: { kind: 'unusable', name: 'regent-uid-1', why: 'privateKeyMissing' } } as const;
  it('I7 the keypair is absent: import one, before the credential, under the observed deterministic name', () => {
    const r = decide(after(), reconcile(observed({ project: present('p1'), user: present('u1'), keypair: kp.absent })));
    expect(r.outcome).to.equal('keypairRequested');
    expect(r.effects).to.deep.equal(['nova.importKeypair']);
    expect(r.params).to.deep.include({ name: 'regent-uid-1', projectId: 'p1', userId: 'u1', replace: false, secret: 'default/regent-identity-uid-1' });
  });
  it('I7 present in Nova but the Secret lost the private key: replaced under the same name (recorded)', () => {
    const r = decide(after(reconcile(full({ keypair: kp.present }))), reconcile(full({ keypair: kp.lost })));
    expect(r.outcome).to.equal('keypairReplaced');
    expect(r.effects).to.deep.equal(['nova.importKeypair']);
    expect(r.params).to.deep.include({ name: 'regent-uid-1', replace: true });
    expect(r.value).to.equal('realizing');
  });
  it('I7 a realized identity whose keypair was deleted in Nova imports it again', () => {
    const r = decide(after(reconcile(full({ keypair: kp.present }))), reconcile(full({ keypair: kp.absent })));
    expect([r.outcome, r.effects]).to.deep.equal(['keypairRequested', ['nova.importKeypair']]);
  });
  it('I7 the keypair is recorded by name and fingerprint; realized once it is present', () => {
    const s = after(reconcile(observed({ project: present('p1'), user: present('u1'), keypair: kp.absent })), done('keypair', { id: 'regent-uid-1', fingerprint: 'SHA256:fp1' }));
    expect((s.context as IdentityContext).keypair).to.deep.equal({ name: 'regent-uid-1', fingerprint: 'SHA256:fp1' });
    const r = decide(s, reconcile(full({ keypair: kp.present })));
    expect([r.value, r.effects]).to.deep.equal(['realized', []]);
    expect(r.context.keypair).to.deep.equal({ name: 'regent-uid-1', fingerprint: 'SHA256:fp1' });
  });
  it('I7 a refused import parks the identity like any refused create', () => {
    const s = after(reconcile(full({ keypair: kp.absent })), refused('keypair'));
    expect(s.value).to.equal('failed');
  });

  it('every pass records the generation it decided from', () => {
    expect(decide(after(), reconcile(full(), { generation: 7 })).context.decidedGeneration).to.equal(7);
  });
});

describe('identity lifecycle: an unmanaged region (no managed domain)', () => {
  const unmanaged = (o: IdentityObservation, extra = {}) => reconcile(o, { mode: 'unmanaged', ...extra });
  it('U the identity stands on the region credentials\' own project: realized, nothing created', () => {
    const r = decide(after(), unmanaged(observed({ project: present('region-project') })));
    expect(r.value).to.equal('realized');
    expect(r.outcome).to.equal('regionProject');
    expect(r.effects).to.deep.equal([]);
    expect(r.context.projectId).to.equal('region-project');
  });
  it('deleting an unmanaged identity never deletes the region\'s project: deleted once its dependents are gone', () => {
    const s = after(unmanaged(observed({ project: present('region-project') })));
    expect(decide(s, unmanaged(observed({ project: present('region-project') }), { deletionRequested: true, dependents: ['Network/net-a'] })).outcome).to.equal('waitingForDependents');
    const r = decide(s, unmanaged(observed({ project: present('region-project') }), { deletionRequested: true }));
    expect(r.value).to.equal('deleted');
    expect(r.effects).to.deep.equal([]);
  });
});

describe('identity lifecycle: deletion', () => {
  const deleting = (o: IdentityObservation, dependents: string[] = []) => reconcile(o, { deletionRequested: true, dependents });
  it('D4 a never-realized identity deletes as a no-op', () => {
    const r = decide(after(), deleting(observed()));
    expect(r.value).to.equal('deleted');
    expect(r.effects).to.deep.equal([]);
  });
  it('D1 while dependents remain it waits and names them, deleting nothing', () => {
    const r = decide(after(reconcile(full())), deleting(full(), ['Server/web-1', 'Network/net-a']));
    expect(r.outcome).to.equal('waitingForDependents');
    expect(r.effects).to.deep.equal([]);
    expect(r.context.dependents).to.deep.equal(['Network/net-a', 'Server/web-1']);
  });
  it('D2 with no dependents it arms first (write-ahead) and deletes nothing in that pass', () => {
    const r = decide(after(reconcile(full())), deleting(full()));
    expect(r.outcome).to.equal('deleteArmed');
    expect(r.effects).to.deep.equal([]);
  });
  it('D3 read back, it deletes the credential, then the user, then the project, one per pass', () => {
    let s = after(reconcile(full()), deleting(full()));
    const r1 = decide(s, deleting(full()));
    expect(r1.effects).to.deep.equal(['keystone.deleteCredential']);
    s = step(def, s, deleting(full())).snapshot;
    const noCred = full({ credential: absent });
    expect(decide(s, deleting(noCred)).effects).to.deep.equal(['keystone.deleteUser']);
    expect(decide(s, deleting(observed({ project: present('p1') }))).effects).to.deep.equal(['keystone.deleteProject']);
    expect(decide(s, deleting(observed())).value).to.equal('deleted');
  });
  it('D3 the keypair goes first, as its user, while the user can still log in', () => {
    const withKey = full({ keypair: { kind: 'present', name: 'regent-uid-1', fingerprint: 'SHA256:fp1' } });
    const s = after(reconcile(withKey), deleting(withKey));
    const r = decide(s, deleting(withKey));
    expect(r.effects).to.deep.equal(['nova.deleteKeypair']);
    expect(r.params).to.deep.include({ name: 'regent-uid-1', userId: 'u1', projectId: 'p1' });
    expect(decide(s, deleting(full({ keypair: { kind: 'unusable', name: 'regent-uid-1', why: 'privateKeyMissing' } }))).effects).to.deep.equal(['nova.deleteKeypair']);
    expect(decide(s, deleting(full({ keypair: { kind: 'absent', name: 'regent-uid-1' } }))).effects).to.deep.equal(['keystone.deleteCredential']);
  });
  it('a dependent that appears after the arm disarms it: nothing is deleted', () => {
    const armed = after(reconcile(full()), deleting(full()));
    const r = decide(armed, deleting(full(), ['Volume/data-1']));
    expect(r.effects).to.deep.equal([]);
    expect(r.value).to.deep.equal({ deleting: 'waiting' });
  });
  it('a refused delete does not park: a later pass decides it again', () => {
    const armed = after(reconcile(full()), deleting(full()), deleting(full()), deleting(full()));
    const s = step(def, armed, refused('deleteCredential')).snapshot;
    expect(s.value).to.deep.equal({ deleting: 'armed' });
    expect(decide(s, deleting(full())).effects).to.deep.equal(['keystone.deleteCredential']);
  });
});

describe('identity lifecycle: model-based, every reachable state', function () {
  this.timeout(60_000);
  type Edge = { state: AnyMachineSnapshot; event: IdentityStimulus; nextState: AnyMachineSnapshot; actions: Array<{ type: string }> };
  let edges: Edge[];
  before(() => {
    const machine = buildIdentityMachine();
    const map = getAdjacencyMap(machine, { events: def.audit?.alphabet() as never, serializeState: (s) => def.audit?.stateKey?.(s as AnyMachineSnapshot) ?? '', serializeEvent: (e) => JSON.stringify(e) });
    edges = (adjacencyMapToArray(map) as unknown as Edge[]).map((e) => ({ ...e, actions: (transition(machine, e.state as never, e.event as never) as unknown as [unknown, Array<{ type: string }>])[1] }));
  });
  const effectsOf = (e: Edge) => e.actions.filter((a) => a.type.startsWith('keystone.') || a.type.startsWith('quotas.') || a.type.endsWith('Keypair')).map((a) => a.type);
  const isDelete = (t: string) => t.startsWith('keystone.delete') || t === 'nova.deleteKeypair';

  it('explores realizing, realized, failed, waiting, armed and deleted', () => {
    const values = new Set(edges.map((e) => JSON.stringify(e.nextState.value)));
    for (const v of ['"realizing"', '"realized"', '"failed"', '{"deleting":"waiting"}', '{"deleting":"armed"}', '"deleted"']) expect(values, v).to.include(v);
  });
  it('at most one Keystone step per pass, and only reconciler passes decide one', () => {
    for (const e of edges) {
      expect(effectsOf(e).length, JSON.stringify(e.event)).to.be.at.most(1);
      if (effectsOf(e).length > 0) expect(e.event.source).to.equal('reconciler');
    }
  });
  it('an unmanaged identity (the region\'s own project) never creates or deletes anything', () => {
    let checked = 0;
    for (const e of edges) {
      if (e.event.type !== 'reconcile' || e.event.mode !== 'unmanaged') continue;
      checked++;
      expect(effectsOf(e), JSON.stringify(e.event)).to.deep.equal([]);
    }
    expect(checked).to.be.greaterThan(0);
  });
  it('deleted only once no dependent remains', () => {
    for (const e of edges) {
      if (e.nextState.value !== 'deleted' || e.state.value === 'deleted' || e.event.type !== 'reconcile') continue;
      expect(e.event.dependents).to.deep.equal([]);
    }
  });
  it('a deletion request never creates anything', () => {
    for (const e of edges) {
      if (e.event.type !== 'reconcile' || !e.event.deletionRequested) continue;
      expect(effectsOf(e).filter((t) => !isDelete(t)), JSON.stringify(e.event)).to.deep.equal([]);
    }
  });
  it('a delete only from an arm read back (an earlier event), never while dependents remain', () => {
    let deletes = 0;
    for (const e of edges) {
      if (!effectsOf(e).some(isDelete)) continue;
      deletes++;
      expect(e.state.value).to.deep.equal({ deleting: 'armed' });
      expect((e.event as Extract<IdentityStimulus, { type: 'reconcile' }>).dependents).to.deep.equal([]);
      expect((e.event as Extract<IdentityStimulus, { type: 'reconcile' }>).deletionRequested).to.equal(true);
    }
    expect(deletes).to.be.greaterThan(0);
  });
  it('steps in order: no user before the project, no roles or credential before both', () => {
    for (const e of edges) {
      if (e.event.type !== 'reconcile') continue;
      const o = e.event.observed;
      for (const t of effectsOf(e)) {
        if (t === 'keystone.createUser') expect(o.project.kind).to.equal('present');
        if (t === 'keystone.grantRoles' || t === 'keystone.issueCredential') expect([o.project.kind, o.user.kind]).to.deep.equal(['present', 'present']);
        if (t === 'keystone.issueCredential') expect(o.missingRoles).to.deep.equal([]);
      }
    }
  });
  it('I7 a keypair is imported only when observed absent or unusable, on a project and user with every role, and never by a deletion', () => {
    let imports = 0;
    let replaces = 0;
    for (const e of edges) {
      if (!effectsOf(e).includes('nova.importKeypair')) continue;
      imports++;
      const event = e.event as Extract<IdentityStimulus, { type: 'reconcile' }>;
      const o = event.observed;
      expect(['absent', 'unusable'], JSON.stringify(event)).to.include(o.keypair?.kind);
      expect([o.project.kind, o.user.kind, o.missingRoles.length, event.deletionRequested, event.mode]).to.deep.equal(['present', 'present', 0, false, 'managed']);
      const params = e.actions.find((a) => a.type === 'nova.importKeypair') as unknown as { params: { replace: boolean; name: string } };
      expect(params.params.replace).to.equal(o.keypair?.kind === 'unusable');
      expect(params.params.name).to.equal(o.keypair?.name);
      if (params.params.replace) replaces++;
    }
    expect(imports).to.be.greaterThan(0);
    expect(replaces).to.be.greaterThan(0);
  });
  it('I7 the keypair is imported before the credential is issued (servers are gated on the credential)', () => {
    for (const e of edges) {
      if (!effectsOf(e).includes('keystone.issueCredential') || e.event.type !== 'reconcile') continue;
      expect(['absent', 'unusable']).not.to.include(e.event.observed.keypair?.kind);
    }
  });
  it('D3 the keypair is deleted before the credential, the user and the project', () => {
    let checked = 0;
    for (const e of edges) {
      if (e.event.type !== 'reconcile') continue;
      const later = effectsOf(e).filter((t) => t === 'keystone.deleteCredential' || t === 'keystone.deleteUser' || t === 'keystone.deleteProject');
      if (later.length === 0) continue;
      checked++;
      expect(['present', 'unusable'], JSON.stringify(e.event)).not.to.include(e.event.observed.keypair?.kind);
    }
    expect(checked).to.be.greaterThan(0);
  });
  it('realized only when everything is present and Keystone accepts the credential', () => {
    for (const e of edges) {
      if (e.nextState.value !== 'realized' || e.state.value === 'realized' || e.event.type !== 'reconcile' || e.event.mode !== 'managed') continue;
      const o = e.event.observed;
      expect([o.project.kind, o.user.kind, o.credential.kind, o.missingRoles.length]).to.deep.equal(['present', 'present', 'valid', 0]);
      // a keypair that was observed is present and usable
      if (o.keypair !== undefined) expect(o.keypair.kind).to.equal('present');
    }
  });
});
