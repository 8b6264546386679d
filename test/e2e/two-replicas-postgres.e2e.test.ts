/**
 * Several replicas on a shared store (issue 15): two `regent serve` processes on one PostgreSQL event store and one
 * resource store. One leads; it is SIGKILLed with a rebuild armed; the other takes over within the lease and carries
 * the decision out: exactly one rebuild accepted by Nova, one history with no duplicate and no gap, every event with
 * the term it was decided under; the status runner's checkpoint is saved in PostgreSQL. Skipped with a printed reason when no PostgreSQL answers (REGENT_TEST_POSTGRES_URL).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { openStore } from '../../src/store/open.js';
import { migratePostgresStore } from '../../src/store/postgres/store.js';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { manifests, until } from './support/plane.js';
import { startReplica, type Replica } from './support/replica.js';

const BASE = process.env.REGENT_TEST_POSTGRES_URL ?? 'postgres://regent:regent@127.0.0.1:5432/regent_test';

describe('e2e: two replicas on one PostgreSQL event store (issue 15)', function () {
  this.timeout(120_000);
  const schema = `replicas_${process.pid}_${Date.now().toString(36)}`;
  const url = `${BASE}${BASE.includes('?') ? '&' : '?'}schema=${schema}`;
  let sim: RunningSimulator;
  let dir: string;
  let replicas: Replica[] = [];

  before(async function () {
    const client = new pg.Client({ connectionString: BASE, connectionTimeoutMillis: 3_000 });
    try {
      await client.connect();
    } catch (error) {
      console.log(`    (skipped: no PostgreSQL at ${BASE.replace(/:[^:@/]*@/, ':***@')}: ${(error as Error).message}; set REGENT_TEST_POSTGRES_URL)`);
      this.skip();
    } finally {
      await client.end().catch(() => undefined);
    }
    await migratePostgresStore(url);
  });
  beforeEach(async () => {
    sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 300, serverDelete: 100, serverAction: 100 } });
    dir = mkdtempSync(join(tmpdir(), 'regent-pg-replicas-'));
    writeFileSync(join(dir, 'clouds.yaml'), sim.cloudsYaml());
    replicas = [];
  });
  afterEach(async () => {
    for (const r of replicas) r.proc.kill('SIGKILL');
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  after(async () => {
    const client = new pg.Client({ connectionString: BASE });
    await client.connect().then(() => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)).catch(() => undefined);
    await client.end().catch(() => undefined);
  });

  it('one leads; killed with a rebuild armed, the other takes over and carries it out: one rebuild, one history', async () => {
    const clouds = join(dir, 'clouds.yaml');
    const a = startReplica(clouds, dir, url);
    replicas.push(a);
    await a.ready;
    await until('a leads', () => a.lines.at(-1)?.leading, 15_000);
    const b = startReplica(clouds, dir, url);
    replicas.push(b);
    await b.ready;
    // a negative check (the standby does not lead), so a fixed wait: two of its lease retries (200 ms)
    await new Promise((r) => setTimeout(r, 500));
    expect(b.lines.some((l) => l.leading), 'the standby does not lead while the leader lives').to.equal(false);
    const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
    const store = await openStore(url);
    const events = () => store.readAll({});
    try {
      await applyManifests(source, manifests(SEED.images.cirros));
      await until('web-1 running', async () => ((await source.get('Server', 'default', 'web-1'))?.status as { phase?: string } | undefined)?.phase === 'Running', 30_000);
      await applyManifests(source, manifests(SEED.images.ubuntu));
      await until('rebuild armed', async () => (await events()).some((e) => e.type === 'serverRebuild.armed'), 20_000);
      a.proc.kill('SIGKILL');
      const killedAt = new Date().toISOString();
      const bLeads = await until('b takes over', () => b.lines.find((l) => l.leading), 15_000);
      // Killed before it decided the submit (the usual case: the armed pass yields a second first), B reads the
      // intent back, submits once and settles. Killed between appending `submitted` and sending the POST, the
      // outcome is unknown to B: it records the wait for evidence (U1, a 120 s window) and submits nothing blindly.
      const underB = (e: RecordedEvent) => e.metadata.leader?.holder === bLeads.term?.holder;
      const outcome = await until('b settles the rebuild, or waits for evidence of the submission A left unanswered', async () => {
        const now = await events();
        if (now.some((e) => e.type === 'serverRebuild.cleared')) return 'settled' as const;
        if (now.some((e) => e.type === 'serverRebuild.awaitingEvidence' && underB(e))) return 'awaitingEvidence' as const;
        return undefined;
      }, 60_000);
      console.log(`      B after the takeover: ${outcome}`);
      const all: RecordedEvent[] = await events();
      expect(new Set(all.map((e) => e.id)).size, 'no event twice').to.equal(all.length);
      const positions = all.map((e) => e.position);
      expect([...positions].sort((x, y) => x - y)).to.deep.equal(positions);
      for (const stream of new Set(all.map((e) => e.stream))) {
        expect(all.filter((e) => e.stream === stream).map((e) => e.revision), stream).to.deep.equal([...Array(all.filter((e) => e.stream === stream).length).keys()]);
      }
      expect(all.every((e) => e.metadata.leader !== undefined), 'every event records its term').to.equal(true);
      const aHolder = a.lines.find((l) => l.leading)?.term?.holder;
      expect(all.filter((e) => e.metadata.leader?.holder === aHolder && e.metadata.recordedAt > killedAt)).to.deep.equal([]);
      expect(all.some((e) => e.metadata.leader?.holder === bLeads.term?.holder), 'b decided after the takeover').to.equal(true);
      const accepted = sim.calls({ method: 'POST' }).filter((c) => c.action === 'rebuild' && c.status === 202);
      if (outcome === 'settled') expect(accepted, 'exactly one rebuild reached Nova').to.have.length(1);
      else {
        expect(all.filter((e) => e.type === 'serverRebuild.submitted').map(underB), 'only A decided a submit').to.deep.equal([false]);
        expect(accepted, 'A died before its POST, and B sent none without evidence').to.have.length(0);
      }
      // The status runner's checkpoint lives in the store, not in a replica's files: B's clean stop saves
      // where its rendering got to, for whichever replica leads next.
      const exited = new Promise((resolve) => b.proc.once('exit', resolve));
      b.proc.kill('SIGTERM');
      await exited;
      const row = new pg.Client({ connectionString: BASE });
      await row.connect();
      const saved = await row.query<{ position: string }>(`SELECT position FROM "${schema}".checkpoints WHERE name = 'status-runner'`).finally(() => row.end());
      const position = Number(saved.rows[0]?.position ?? -1);
      expect(position, 'the status checkpoint in PostgreSQL').to.be.greaterThan(0);
      expect(position).to.be.at.most(await store.lastPosition());
    } finally {
      await store.close();
      await source.close();
    }
  });
});
