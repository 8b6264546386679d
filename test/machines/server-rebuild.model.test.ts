/**
 * Model-based check of the server-rebuild machine: xstate/graph enumerates every reachable state
 * under an alphabet of every decision-relevant observation, and rules 1–4 of the issue are checked on
 * every edge. The oracle functions below are written from the spec's sentences, not from the machine.
 */
import { expect } from 'chai';
import { getAdjacencyMap, adjacencyMapToArray } from 'xstate/graph';
import { transition, type AnyMachineSnapshot } from 'xstate';
import { serverRebuildMachine, RANK, type Marker, type MarkerState, type ServerRebuildContext } from '../../machines/server-rebuild.js';
import type { ServerRebuildStimulus } from '../../machines/server-rebuild/stimuli.js';
import type { ServerFacts } from '../../machines/server-rebuild/observation.js';
import { alphabet, STREAM, unknownOutcomeAlphabet } from './server-rebuild-facts.js';
import { serverRebuildAudit } from '../../machines/server-rebuild/audit.js';

/** "a bounded window longer than any request's lifetime": 30 s client timeout, never a retried POST. */
const WINDOW_MS = 120_000;
const ms = (iso: string | null | undefined) => (iso ? Date.parse(iso) : NaN);

type Edge = { state: AnyMachineSnapshot; event: ServerRebuildStimulus; nextState: AnyMachineSnapshot };
const ctx = (s: AnyMachineSnapshot) => s.context as ServerRebuildContext;
const markerStateOfValue = (value: unknown): MarkerState | null =>
  value === 'noMarker' ? null : typeof value === 'string' ? (value as MarkerState) : 'Failed';

// Oracle predicates, from the spec text.
const active = (s: ServerFacts) => s.taskState.kind === 'active' || s.status === 'REBUILD';
const idleTask = (s: ServerFacts) => s.taskState.kind === 'idle' && s.status !== 'REBUILD';
const refId = (s: ServerFacts) => (s.imageRef.kind === 'image' ? s.imageRef.id : undefined);
const converged = (s: ServerFacts, t: string) => refId(s) === t && ['ACTIVE', 'SHUTOFF', 'PAUSED', 'SUSPENDED', 'SHELVED', 'SHELVED_OFFLOADED'].includes(s.status ?? '') && idleTask(s);

/** Rule 3, the monitor's attribution, as the spec states it. */
const monitorExpected = (marker: Marker | null, s: ServerFacts): MarkerState | null => {
  if (!marker) return null;
  const { state, targetImageID: t } = marker;
  const rank = RANK[state];
  const ref = refId(s);
  if (ref === t) {
    if (s.status === 'ERROR') return rank < 3 ? 'Failed' : state;
    if (active(s)) return rank < 2 ? 'Rebuilding' : state;
    if (converged(s, t)) return rank < 3 ? 'Succeeded' : state;
    return state;
  }
  if (ref !== undefined) return state === 'Rebuilding' && (s.status === 'ERROR' || idleTask(s)) ? 'Failed' : state;
  return state === 'Rebuilding' && s.status === 'ERROR' ? 'Failed' : state;
};

type Action = { type: string; params?: { imageId?: string; name?: string } };
type EdgeWithActions = Edge & { actions: Action[] };

/** Every reachable edge under an alphabet, with the actions each transition declares; explored once per run. */
const explorations = new Map<string, EdgeWithActions[]>();
const exploreOnce = (which: 'all facts' | 'unknown outcomes' = 'all facts'): EdgeWithActions[] => {
  const known = explorations.get(which);
  if (known) return known;
  const map = getAdjacencyMap(serverRebuildMachine, {
    input: { stream: STREAM },
    events: which === 'all facts' ? alphabet() : unknownOutcomeAlphabet(),
    // health, MAC, counters, the last answer and the reasons are data no guard reads: fold them out so the
    // graph is finite and small (serverRebuildAudit.stateKey folds the same way)
    serializeState: (s) => serverRebuildAudit.stateKey?.(s) ?? '',
    serializeEvent: (e) => JSON.stringify(e),
  });
  const edges = (adjacencyMapToArray(map) as unknown as Edge[]).map((edge) => {
    // re-run the transition to get its actions (adjacency keeps only snapshots)
    const [, actions] = transition(serverRebuildMachine, edge.state as never, edge.event as never) as unknown as [unknown, Action[]];
    return { ...edge, actions };
  });
  explorations.set(which, edges);
  return edges;
};

describe('server-rebuild machine: model-based, every reachable state', function () {
  this.timeout(120_000);
  let edges: EdgeWithActions[];

  before(() => (edges = exploreOnce()));

  it('explores every marker state and the park', () => {
    const values = new Set(edges.map((e) => JSON.stringify(e.nextState.value)));
    for (const v of ['"noMarker"', '"Initiated"', '"Rebuilding"', '"Succeeded"', '{"Failed":"stamped"}', '{"Failed":"parked"}']) {
      expect(values, v).to.include(v);
    }
    expect(edges.length).to.be.greaterThan(10_000);
  });

  it('the state value always mirrors the marker in context', () => {
    for (const { nextState } of edges) {
      expect(markerStateOfValue(nextState.value), JSON.stringify(nextState.value)).to.equal(ctx(nextState).marker?.state ?? null);
      expect(ctx(nextState).parked).to.equal(JSON.stringify(nextState.value) === '{"Failed":"parked"}');
    }
  });

  it('rule 1: every advance is forward-only by rank; no terminal flip except the reconciler park over Succeeded', () => {
    for (const { state, event, nextState } of edges) {
      const before = ctx(state).marker;
      const after = ctx(nextState).marker;
      if (!before || !after || before.targetImageID !== after.targetImageID) continue;
      if (RANK[after.state] < RANK[before.state]) {
        // a re-arm to the same target never happens; anything else is a retreat
        expect.fail(`retreat ${before.state} → ${after.state} on ${event.type}/${event.source}`);
      }
      if (before.state !== after.state && RANK[before.state] === 3) {
        expect(before.state, `terminal flip on ${event.type}`).to.equal('Succeeded');
        expect(after.state).to.equal('Failed');
        expect(event.source, 'only the reconciler park may overwrite Succeeded').to.equal('reconciler');
      }
    }
  });

  it('rule 2: only reconciler stimuli create, retarget, clear the marker or park', () => {
    for (const { state, event, nextState } of edges) {
      const before = ctx(state).marker;
      const after = ctx(nextState).marker;
      const created = !before && !!after;
      const cleared = !!before && !after;
      const retargeted = !!before && !!after && before.targetImageID !== after.targetImageID;
      const parked = !ctx(state).parked && ctx(nextState).parked;
      if (created || cleared || retargeted || parked) expect(event.source, `${event.type} ${JSON.stringify({ created, cleared, retargeted, parked })}`).to.equal('reconciler');
    }
  });

  it('rule 2: a monitor stimulus only rank-advances, exactly as attribution allows (rule 3)', () => {
    for (const { state, event, nextState } of edges) {
      if (event.type !== 'observed') continue;
      const expected = monitorExpected(ctx(state).marker, event.server);
      expect(ctx(nextState).marker?.state ?? null, `${JSON.stringify(state.value)} + ${JSON.stringify(event.server)}`).to.equal(expected);
      expect(ctx(nextState).marker?.targetImageID).to.equal(ctx(state).marker?.targetImageID);
    }
  });

  it('rule 3: an Initiated marker observed with ref ≠ target advances nothing', () => {
    let checked = 0;
    for (const { state, event, nextState } of edges) {
      if (event.type !== 'observed' || ctx(state).marker?.state !== 'Initiated') continue;
      if (refId(event.server) === ctx(state).marker?.targetImageID) continue;
      checked++;
      expect(nextState.value).to.equal('Initiated');
    }
    expect(checked).to.be.greaterThan(0);
  });

  it('rule 4: Succeeded and a clear happen only on convergence (ref == target ∧ stable non-ERROR ∧ task_state empty)', () => {
    let checked = 0;
    for (const { state, event, nextState } of edges) {
      if (!('server' in event)) continue;
      const before = ctx(state).marker;
      const becameSucceeded = ctx(nextState).marker?.state === 'Succeeded' && before?.state !== 'Succeeded';
      const cleared = !!before && ctx(nextState).marker === null;
      if (!becameSucceeded && !cleared) continue;
      checked++;
      expect(converged(event.server, before?.targetImageID ?? ''), `${event.type} ${JSON.stringify(event.server)}`).to.equal(true);
    }
    expect(checked).to.be.greaterThan(0);
  });

  it('the reconciler writes health only when it decides a park; while it waits the monitor owns observed state', () => {
    let checked = 0;
    for (const { state, event, nextState } of edges) {
      if (event.source !== 'reconciler') continue;
      if (JSON.stringify(ctx(state).health) === JSON.stringify(ctx(nextState).health)) continue;
      checked++;
      expect(ctx(nextState).marker?.state, `${JSON.stringify(state.value)} + ${JSON.stringify(event)}`).to.equal('Failed');
      expect(ctx(nextState).health?.writtenBy).to.equal('reconciler');
    }
    expect(checked).to.be.greaterThan(0);
  });

  it('a hidden task_state never counts as settled', () => {
    for (const { state, event, nextState } of edges) {
      if (!('server' in event) || event.server.taskState.kind !== 'unknown') continue;
      expect(ctx(nextState).marker?.state === 'Succeeded' && ctx(state).marker?.state !== 'Succeeded').to.equal(false);
      expect(!!ctx(state).marker && !ctx(nextState).marker).to.equal(false);
    }
  });
});

describe('server-rebuild machine: the destructive step, over every reachable state', function () {
  this.timeout(120_000);

  it('a rebuild is submitted only by the reconciler, from Initiated, ref ≠ target, no task running, booted, and never after an accept for the same target', () => {
    let submits = 0;
    for (const { state, event: e, actions } of [...exploreOnce(), ...exploreOnce('unknown outcomes')]) {
      const submit = actions.find((a) => a.type === 'nova.rebuild');
      if (!submit) continue;
      submits++;
      const before = ctx(state);
      expect(e.source).to.equal('reconciler');
      expect(state.value).to.equal('Initiated');
      const server = (e as Extract<ServerRebuildStimulus, { type: 'reconcile' }>).server;
      expect(refId(server)).to.not.equal(undefined);
      expect(refId(server)).to.not.equal(before.marker?.targetImageID);
      expect(active(server)).to.equal(false);
      expect(server.launchedAt.kind).to.equal('launched');
      expect(before.lastSubmission).to.not.equal('accepted');
      expect(submit.params?.imageId).to.equal(before.marker?.targetImageID);
    }
    expect(submits).to.be.greaterThan(0);
  });
});

describe('server-rebuild machine: an unknown outcome is never submitted again blindly (U1–U4), over every reachable state', function () {
  this.timeout(120_000);
  let edges: EdgeWithActions[];

  before(() => (edges = [...exploreOnce('unknown outcomes'), ...exploreOnce()]));

  it('explores unanswered submissions: timed out, crashed (no answer at all), re-armed over, resubmitted on evidence', () => {
    const answers = new Set(edges.map((e) => ctx(e.nextState).outstanding?.answer ?? 'none'));
    expect([...answers].sort()).to.deep.equal(['none', 'pending', 'unknown']);
    const outcomes = new Set(edges.map((e) => `${e.event.type}:${e.actions.find((a) => a.type === 'outcome')?.params?.name}`));
    for (const o of ['reconcile:resubmittedOnEvidence', 'reconcile:awaitingEvidence', 'reconcile:staleSubmissionSettled', 'reconcile:outcomeUnresolvable', 'rebuild.outcomeUnknown:outcomeUnknown']) expect(outcomes, o).to.include(o);
  });

  it('every submission leaves an unanswered record until an answer or evidence arrives', () => {
    for (const { event, nextState, actions } of edges) {
      const submit = actions.find((a) => a.type === 'nova.rebuild');
      if (!submit) continue;
      expect(ctx(nextState).outstanding, JSON.stringify(event)).to.include({ imageId: submit.params?.imageId, answer: 'pending' });
    }
  });

  it('no path submits while an earlier submission is unanswered, unless the window has passed and Nova recorded no rebuild since the decision', () => {
    let resubmits = 0;
    for (const { state, event, actions } of edges) {
      if (!actions.some((a) => a.type === 'nova.rebuild')) continue;
      const o = ctx(state).outstanding;
      if (!o) continue;
      resubmits++;
      const pass = event as Extract<ServerRebuildStimulus, { type: 'reconcile' }>;
      const what = `${JSON.stringify(o)} + ${JSON.stringify(event)}`;
      expect(o.imageId, what).to.equal(ctx(state).marker?.targetImageID);
      expect(ms(pass.at) - ms(o.decidedAt ?? o.waitingSince), what).to.be.at.least(WINDOW_MS);
      expect(pass.rebuildActions?.kind, what).to.equal('read');
      expect(o.baseline, what).to.not.equal(null);
      const since = (pass.rebuildActions as { requestIds: string[] }).requestIds.filter((id) => !(o.baseline ?? []).includes(id));
      expect(since, what).to.deep.equal([]);
      expect(refId(pass.server), what).to.not.equal(o.imageId);
    }
    expect(resubmits).to.be.greaterThan(0);
  });

  it('an unanswered submission is settled only by an answer for its image, its image on the ref, or (for a superseded target) the window passing', () => {
    let settled = 0;
    for (const { state, event, nextState } of edges) {
      const o = ctx(state).outstanding;
      if (!o || ctx(nextState).outstanding !== null) continue;
      settled++;
      const what = `${JSON.stringify(o)} + ${JSON.stringify(event)}`;
      if (event.source === 'effect') {
        expect(event.type, what).to.not.equal('rebuild.outcomeUnknown');
        expect((event as { imageId: string }).imageId, what).to.equal(o.imageId);
        continue;
      }
      // the rebuild was accepted (its image on the ref, as a pass or the monitor read it), or the target
      // moved on and the old request can no longer land (the window passed, on a reconciler pass's clock)
      const server = (event as { server: ServerFacts }).server;
      const refOnIt = refId(server) === o.imageId;
      const superseded = o.imageId !== ctx(state).marker?.targetImageID;
      const windowPassed = event.type === 'reconcile' && ms(event.at) - ms(o.decidedAt ?? o.waitingSince) >= WINDOW_MS;
      expect(refOnIt || (superseded && windowPassed), what).to.equal(true);
    }
    expect(settled).to.be.greaterThan(0);
  });

  it('a re-arm over an unanswered submission keeps it: the new target waits for the old request too', () => {
    let checked = 0;
    for (const { state, nextState } of edges) {
      const o = ctx(state).outstanding;
      if (!o || state.value !== 'Initiated' || ctx(nextState).marker?.targetImageID === ctx(state).marker?.targetImageID || !ctx(nextState).marker) continue;
      checked++;
      expect(ctx(nextState).outstanding).to.deep.equal(o);
    }
    expect(checked).to.be.greaterThan(0);
  });
});
