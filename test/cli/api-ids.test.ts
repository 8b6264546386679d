/**
 * Issue 24, item 5: "`regent history api-server-<id>` with the id the API returned answers 'no stream'; the stream
 * is keyed by the resource uid." Through the CLI entry (bin/regent.js, a real process) on an sqlite store holding
 * what the API and a machine write for one Server created through the API: its `api-server-<uid>` stream (the
 * API's own writer, src/api/audit.ts) and a machine stream keyed by the same uid.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';
import { Engine } from '../../src/engine/engine.js';
import { MachineRegistry } from '../../machines/registry.js';
import { appendAudit, auditStream, type AuditRecord } from '../../src/api/audit.js';
import { toyDefinition } from '../fixtures/toy-machine.js';
import { newEvents, metadata } from '../store/helpers.js';

const ID = '0b6f4f2e-3c2e-5d7a-9a51-2f6f0f1c9d11'; // what POST /api/v2/servers returned as metadata.id
const UID = '6a0c3a43-92a4-4bb4-8a0f-5e8f2f6d7c21'; // the resource uid its streams are keyed by
const TWICE = '7c7c7c7c-3c2e-5d7a-9a51-2f6f0f1c9d11'; // an id two Servers had: created, deleted, created again
const [FIRST, SECOND] = ['11111111-2222-4333-8444-555555555555', '66666666-7777-4888-8999-aaaaaaaaaaaa'];

const record = (uid: string, id: string, serverName: string, action: AuditRecord['action'] = 'created'): AuditRecord => ({
  action,
  actor: 'alice@acme',
  requestId: `req-${uid}`,
  apiVersion: 2,
  server: { uid, namespace: 'default', name: id, serverName, organizationId: 'acme', projectId: 'web' },
  at: '2026-12-01T10:00:00.000Z',
});

describe('regent history / replay / streams take the id the server API returned (issue 24, item 5)', function () {
  this.timeout(60_000);
  let dir: string;
  let toy: string[];
  const regent = (args: string[]) => {
    const result = spawnSync(process.execPath, ['bin/regent.js', ...args], { encoding: 'utf8', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } });
    return { code: result.status, out: result.stdout, err: result.stderr };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-api-ids-'));
    toy = ['--store', `sqlite:${join(dir, 'regent.db')}`, '--machines', 'test/fixtures/toy-registry.ts'];
    const store = await openStore(`sqlite:${join(dir, 'regent.db')}`);
    await appendAudit(store, record(UID, ID, 'api-1'));
    await appendAudit(store, record(UID, ID, 'api-1', 'softreboot'));
    // the Server's lifecycle stream, keyed by its uid (what the lifecycle controller writes; history reads it raw)
    await store.append(`server-lifecycle-${UID}`, newEvents(2).map((e) => ({ ...e, metadata: metadata({ subject: { kind: 'Server', namespace: 'default', name: ID } }) })), { expectedRevision: 'no_stream' });
    // a machine stream keyed by the uid that `regent replay` can fold (the toy machine as a --machines module)
    const engine = new Engine({ store, registry: new MachineRegistry([toyDefinition()]), subjectOf: () => ({ kind: 'Server', namespace: 'default', name: ID }), handlers: { 'toy.create': async () => undefined } });
    await engine.dispatch(`toy-${UID}`, { stimulus: { type: 'reconcile', source: 'reconciler', desired: 'lamp', exists: false }, actor: 'reconciler/toy' });
    // one id, two Servers
    await appendAudit(store, record(FIRST, TWICE, 'again-1'));
    await appendAudit(store, record(FIRST, TWICE, 'again-1', 'deleted'));
    await appendAudit(store, record(SECOND, TWICE, 'again-1'));
    await store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('history api-server-<the id the API returned> is the API\'s record of that Server (its stream is keyed by the uid)', () => {
    const { code, out, err } = regent([...toy, 'history', `api-server-${ID}`]);
    expect(err).to.equal('');
    expect(code).to.equal(0);
    expect(out.split('\n')[0]).to.equal(`stream ${auditStream(UID)}`);
    expect(out).to.match(/^0\s+2026-12-01T10:00:00.000Z\s+api\.server\.created\s+api\s/m);
    expect(out).to.match(/^1\s+.*api\.server\.softreboot\s+api\s/m);
  });

  it('the uid still names the stream itself; a short name with the API id names the Server\'s own stream', () => {
    const byUid = regent([...toy, 'history', auditStream(UID)]);
    expect(byUid.code).to.equal(0);
    expect(byUid.out).to.not.include('stream api-server-');
    const short = regent([...toy, 'history', `server-${ID}`]);
    expect(short.code, short.err).to.equal(0);
    expect(short.out.split('\n')[0]).to.equal(`stream server-lifecycle-${UID}`);
  });

  it('an id no Server had is still "no stream" (exit 2); an id two Servers had is refused naming both streams', () => {
    const none = regent([...toy, 'history', 'api-server-00000000-0000-4000-8000-000000000000']);
    expect(none.code).to.equal(2);
    expect(none.err).to.match(/^regent: no stream api-server-00000000-0000-4000-8000-000000000000 in /);
    const twice = regent([...toy, 'history', `api-server-${TWICE}`]);
    expect(twice.code).to.equal(2);
    expect(twice.err.trim()).to.equal(`regent: api-server-${TWICE}: the server API gave the id ${TWICE} to 2 Servers (one deleted and created again); name one of ${auditStream(FIRST)}, ${auditStream(SECOND)}`);
  });

  it('replay <machine stream with the API id> replays the stream keyed by the uid; replay of the API\'s record says there is nothing to replay', () => {
    const replay = regent([...toy, 'replay', `toy-${ID}`]);
    expect(replay.code, replay.err).to.equal(0);
    expect(replay.out.split('\n')[0]).to.equal(`stream toy-${UID}`);
    expect(replay.out.split('\n')[1], replay.out).to.match(new RegExp(`^toy-${UID} \\(toy`));
    const api = regent([...toy, 'replay', `api-server-${ID}`]);
    expect(api.code).to.equal(2);
    expect(api.err.trim()).to.equal(`regent: ${auditStream(UID)} is the server API's record of the calls made for a Server: no machine decides it, so there is nothing to replay (regent history ${auditStream(UID)} lists it)`);
  });

  it('streams --resource finds the Server by the name the API was given, and shows that name with its id', () => {
    const { code, out } = regent([...toy, 'streams', '--resource', 'api-1']);
    expect(code).to.equal(0);
    const streams = out.trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0]);
    expect(streams.sort()).to.deep.equal([auditStream(UID), `server-lifecycle-${UID}`, `toy-${UID}`].sort());
    expect(out).to.include(`Server default/api-1 (id ${ID})`);
    expect(regent([...toy, 'streams', '--resource', `default/${ID}`]).out).to.include(`toy-${UID}`);
    const json = JSON.parse(regent([...toy, 'streams', '--resource', 'server/default/api-1', '--json']).out) as Array<{ stream: string; displayName?: string }>;
    expect(json.map((r) => r.displayName)).to.deep.equal(['api-1', 'api-1', 'api-1']);
  });
});
