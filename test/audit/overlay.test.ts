/**
 * The overlay of one resource's real history on its statechart, and the authorization chain of each
 * destructive effect, on a rebuild history recorded by the engine (support/rebuild-history.ts).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryEventStore } from '../../src/store/memory.js';
import { openStore } from '../../src/store/open.js';
import { buildHistoryIndex, extendHistoryIndex } from '../../src/audit/history/index.js';
import { resolveChain, formatChain } from '../../src/audit/history/chain.js';
import { serverRebuildDefinition } from '../../machines/server-rebuild.js';
import { newEventId } from '../../src/events/ids.js';
import { reconcile } from '../machines/server-rebuild-facts.js';
import { serverRebuildV3 } from './fixtures/server-rebuild-candidate.js';
import { recordRebuildHistory, REBUILD_STREAM } from './support/rebuild-history.js';

const R11 = 'e--serverRebuild.Initiated--reconcile--7';
const ARM = 'e--serverRebuild.noMarker--reconcile--2';

const regent = (args: string[]) => {
  const result = spawnSync(process.execPath, ['bin/regent.js', ...args], { encoding: 'utf8', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } });
  return { code: result.status, out: result.stdout, err: result.stderr };
};

describe('audit: history overlay', function () {
  this.timeout(30_000);

  it('ties every stored event to the exact transition the machine takes on replay', async () => {
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    const index = await buildHistoryIndex(store, REBUILD_STREAM, { definition: serverRebuildDefinition });
    expect(index.head).to.equal(8);
    expect(index.divergence).to.equal(undefined);
    expect(index.matches.map((m) => m.kind)).to.deep.equal(Array(9).fill('exact'));
    expect(index.matches[0]?.edges).to.deep.equal([ARM]);
    expect(index.matches[1]?.edges).to.deep.equal([R11]);
    expect(index.matches[4]?.edges).to.deep.equal([R11]);
    expect(index.matches[3]?.edges).to.deep.equal(['e--serverRebuild.Initiated--observed--3']);
    expect(index.matches[8]?.edges).to.deep.equal(['e--serverRebuild.Succeeded--reconcile--3']);
  });

  it('counts each fired edge with its first and last time and its sources', async () => {
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    const index = await buildHistoryIndex(store, REBUILD_STREAM, { definition: serverRebuildDefinition });
    expect(index.stats.get(R11)).to.deep.equal({ edge: R11, count: 2, first: { revision: 1, at: '2026-11-29T10:02:00.000Z' }, last: { revision: 4, at: '2026-11-29T10:05:00.000Z' }, sources: { reconciler: 2 } });
    expect(index.stats.get('e--serverRebuild.Rebuilding--observed--4')?.sources).to.deep.equal({ monitor: 1 });
    expect([...index.visited].sort()).to.deep.equal(['serverRebuild', 'serverRebuild.Initiated', 'serverRebuild.Rebuilding', 'serverRebuild.Succeeded', 'serverRebuild.noMarker']);
  });

  it('extends an index with only the events appended since, giving the same result as a full pass', async () => {
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    const partial = await buildHistoryIndex(store, REBUILD_STREAM, { definition: serverRebuildDefinition });
    await recordRebuildHistory(store); // the same lifecycle again on the same stream: arm, submit, 409, …
    await extendHistoryIndex(store, partial);
    const full = await buildHistoryIndex(store, REBUILD_STREAM, { definition: serverRebuildDefinition });
    expect(partial.head).to.equal(full.head);
    expect([...partial.stats.entries()]).to.deep.equal([...full.stats.entries()]);
    expect(partial.chains.map((c) => [c.arm, c.decision, c.results])).to.deep.equal(full.chains.map((c) => [c.arm, c.decision, c.results]));
  });

  it('against a machine that no longer reproduces the history, names where and matches the rest by recorded states, listing ambiguity', async () => {
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    const index = await buildHistoryIndex(store, REBUILD_STREAM, { definition: serverRebuildV3 });
    expect(index.divergence).to.deep.include({ revision: 4, reason: 'ignored', expected: 'Initiated', actual: 'Initiated' });
    expect(index.divergence?.expectedEffects.map((e) => e.type)).to.deep.equal(['nova.rebuild']);
    expect(index.divergence?.actualEffects).to.deep.equal([]);
    expect(index.matches.slice(0, 4).map((m) => m.kind)).to.deep.equal(['exact', 'exact', 'exact', 'exact']);
    // Initiated → Initiated on reconcile: several guarded transitions fit the recorded states.
    expect(index.matches[4]?.kind).to.equal('ambiguous');
    expect(index.matches[4]?.edges).to.include(R11);
    expect(index.matches[4]?.edges.length).to.be.greaterThan(1);
    // Initiated → Rebuilding on rebuild.accepted: only one does.
    expect(index.matches[5]).to.deep.equal({ kind: 'by-state', edges: ['e--serverRebuild.Initiated--rebuild.accepted--0'] });
  });
});

describe('audit: authorization chain', function () {
  this.timeout(30_000);

  it('for each rebuild submit: the reconciler arm, the read-back state, the decision on a fresh observation, and its result', async () => {
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    const index = await buildHistoryIndex(store, REBUILD_STREAM, { definition: serverRebuildDefinition });
    expect(index.chains.map((c) => ({ decision: c.decision, arm: c.arm, armSource: c.armSource, results: c.results, between: c.between, problems: c.problems }))).to.deep.equal([
      { decision: 1, arm: 0, armSource: 'reconciler', results: [2], between: 0, problems: [] },
      { decision: 4, arm: 0, armSource: 'reconciler', results: [5], between: 3, problems: [] },
    ]);
    expect(index.chains[1]?.readBack).to.deep.equal({ revision: 3, state: 'Initiated', intent: { target: 'B', state: 'Initiated' } });
    const chain = await resolveChain(store, REBUILD_STREAM, index.chains[1] as never);
    expect(chain.authorised).to.equal(true);
    expect(chain.links.map((l) => [l.role, l.revision, l.type])).to.deep.equal([
      ['arm', 0, 'serverRebuild.armed'],
      ['read-back', 3, undefined],
      ['decision', 4, 'serverRebuild.submitted'],
      ['result', 5, 'serverRebuild.accepted'],
      // the event that cleared the intent the decision was taken on (issue 30)
      ['settle', 8, 'serverRebuild.cleared'],
    ]);
    const decision = chain.links.find((l) => l.role === 'decision');
    expect(decision?.data).to.deep.include({ desiredImage: 'B' });
    expect((decision?.data as { server: { imageRef: unknown } }).server.imageRef).to.deep.equal({ kind: 'image', id: 'A' });
    expect(chain.links.find((l) => l.role === 'result')?.causationId).to.equal(decision?.eventId);
    expect(formatChain(chain)).to.match(/nova\.rebuild \{"serverId":"srv-1","imageId":"B"\} decided at revision 4: AUTHORISED/);
  });

  it('a destructive decision with no earlier arm (a forged history) is NOT authorised, and says why', async () => {
    const store = new MemoryEventStore();
    const stimulus = reconcile('B');
    await store.append(REBUILD_STREAM, [{
      id: newEventId(),
      type: 'serverRebuild.submitted',
      data: stimulus,
      metadata: { machine: 'serverRebuild', machineVersion: 1, schemaVersion: 1, source: 'reconciler', actor: 'forger', correlationId: 'c', causationId: null, from: 'Initiated', to: 'Initiated', effects: [{ type: 'nova.rebuild', serverId: 'srv-1', imageId: 'B' }], recordedAt: '2026-11-29T10:00:00Z' },
    }], { expectedRevision: 'no_stream' });
    const index = await buildHistoryIndex(store, REBUILD_STREAM, { definition: serverRebuildDefinition });
    expect(index.divergence?.revision).to.equal(0);
    expect(index.chains).to.have.length(1);
    expect(index.chains[0]?.method).to.equal('entered-state');
    expect(index.chains[0]?.problems).to.deep.equal(['no earlier event entered the state the decision was taken in']);
    const chain = await resolveChain(store, REBUILD_STREAM, index.chains[0] as never);
    expect(chain.authorised).to.equal(false);
    expect(formatChain(chain)).to.match(/NOT AUTHORISED[\s\S]*✗ no earlier event entered the state/);
  });

  it('regent chain prints every chain; regent viz --stream writes one self-contained page with the overlay and the chains', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-chain-'));
    try {
      const db = join(dir, 'regent.db');
      const store = await openStore(`sqlite:${db}`);
      await recordRebuildHistory(store);
      await store.close();
      const chain = regent(['--store', `sqlite:${db}`, 'chain', REBUILD_STREAM]);
      expect(chain.code, chain.err).to.equal(0);
      // a history without the resource's own stream says the change (and so who asked) is unknown, and why (issue 30)
      expect(chain.out).to.match(/1\. change {4}rev \? *\n *the decision names no resource/);
      expect(chain.out).to.match(/2\. arm {7}rev 0 {5}serverRebuild\.armed {2}reconciler/);
      expect(chain.out).to.match(/4\. decision {2}rev 4 {5}serverRebuild\.submitted {2}reconciler/);
      expect(chain.out).to.include('2 destructive decision(s), 0 not authorised');
      const out = join(dir, 'history.html');
      const viz = regent(['--store', `sqlite:${db}`, 'viz', '--stream', REBUILD_STREAM, '--out', out]);
      expect(viz.code, viz.err).to.equal(0);
      expect(viz.out).to.include('9 events, 8 transitions fired, 2 destructive decision(s)');
      const html = readFileSync(out, 'utf8');
      expect(html).to.include('id="regent-data"');
      expect(html).to.match(/class="fired-edge destructive" data-edge="e--serverRebuild.Initiated--reconcile--7" data-first="1"><td>[^<]+<\/td><td>2<\/td>/);
      expect(html).to.include('data-decision="4"');
      expect(html).to.not.match(/(?:href|src)="(?:https?:)?\/\//);
      expect(html).to.not.match(/<link |<script src=/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
