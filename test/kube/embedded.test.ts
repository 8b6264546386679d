/** What only the embedded adapter promises: durability, the bounded change log, the file itself. */
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { BadRequest, Gone, SourceUnavailable } from '../../src/kube/errors.js';
import { openResourceSource } from '../../src/kube/open.js';
import { network, record, server, sleep, summary } from './support/fixtures.js';

describe('embedded resource store', () => {
  let dir: string;
  let path: string;
  const opened: EmbeddedResourceSource[] = [];
  const open = (options: { changeLogLimit?: number; eventLimit?: number } = {}): EmbeddedResourceSource => {
    const source = openEmbeddedSource({ path, pollIntervalMs: 20, ...options });
    opened.push(source);
    return source;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-embedded-'));
    path = join(dir, 'data', 'resources.db');
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('is one SQLite file in WAL mode, created with its parent directories', () => {
    open();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).to.equal('wal');
    db.close();
  });

  it('objects, versions and status survive closing and reopening; versions continue', async () => {
    const first = open();
    await first.create(server('default', 'web-1'));
    const patched = await first.patchStatus('Server', 'default', 'web-1', { phase: 'Running' });
    await first.close();
    const second = open();
    expect(await second.get('Server', 'default', 'web-1')).to.deep.equal(patched);
    const next = await second.create(server('default', 'web-2'));
    expect(BigInt(next.metadata.resourceVersion) > BigInt(patched.metadata.resourceVersion)).to.equal(true);
  });

  it('two connections writing concurrently get distinct, increasing versions', async () => {
    const a = open();
    const b = open();
    const writes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).create(server('default', `s-${i}`))));
    const versions = writes.map((w) => Number(w.metadata.resourceVersion)).sort((x, y) => x - y);
    expect(new Set(versions).size).to.equal(20);
    expect((await a.list('Server')).resourceVersion).to.equal(String(versions[19]));
  });

  it('a watch from a version older than the retained change log fails with Gone', async () => {
    const source = open({ changeLogLimit: 5 });
    const first = await source.create(server('default', 'a'));
    for (let i = 0; i < 10; i++) await source.patchStatus('Server', 'default', 'a', { phase: `P${i}` });
    const handle = source.watch('Server', { resourceVersion: first.metadata.resourceVersion }, () => undefined);
    const error = await handle.done.catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Gone);
    const fresh = await source.list('Server');
    const ok = source.watch('Server', { resourceVersion: fresh.resourceVersion }, () => undefined);
    await sleep(50);
    await ok.close();
    await ok.done;
  });

  it("a quiet kind's watch moves with the log, so churn in other kinds never expires it", async () => {
    const source = open({ changeLogLimit: 5 });
    const list = await source.list('Server');
    const watch = record(source, 'Server', list.resourceVersion);
    for (let i = 0; i < 20; i++) {
      await source.apply({ ...network('default', 'net-a'), spec: { identityRef: { name: 'acme' }, prefix: '10.0.0.0/24', dnsNameservers: [`10.0.0.${i + 1}`] } });
      await sleep(5);
    }
    await source.create(server('default', 'web-1'));
    expect(summary(await watch.waitFor(1))).to.deep.equal(['ADDED web-1']);
    await watch.handle.close();
    await watch.handle.done;
  });

  it('a watch from a malformed version is BadRequest', async () => {
    const handle = open().watch('Server', { resourceVersion: 'abc' }, () => undefined);
    expect(await handle.done.catch((e: unknown) => e)).to.be.instanceOf(BadRequest);
  });

  it('a handler that throws ends the watch with its error', async () => {
    const source = open();
    const handle = source.watch('Server', { resourceVersion: (await source.list('Server')).resourceVersion }, () => {
      throw new Error('handler broke');
    });
    await source.create(server('default', 'web-1'));
    expect(((await handle.done.catch((e: unknown) => e)) as Error).message).to.equal('handler broke');
  });

  it('recorded events are bounded: the oldest go first', async () => {
    const source = open({ eventLimit: 3 });
    const object = await source.create(server('default', 'web-1'));
    for (let i = 0; i < 5; i++) await source.recordEvent(object, 'Normal', `Step${i}`, 'step');
    expect((await source.listEvents()).map((e) => e.reason)).to.deep.equal(['Step2', 'Step3', 'Step4']);
    expect(await source.recordEvent(object, 'Info' as never, 'X', 'y').catch((e: unknown) => e)).to.be.instanceOf(BadRequest);
    expect(await source.recordEvent(object, 'Normal', 'not camel', 'y').catch((e: unknown) => e)).to.be.instanceOf(BadRequest);
  });

  it('a closed store refuses work with SourceUnavailable', async () => {
    const source = open();
    await source.close();
    expect(() => source.watch('Server', { resourceVersion: '0' }, () => undefined)).to.throw(SourceUnavailable);
    expect(await source.get('Server', 'default', 'x').catch((e: unknown) => e)).to.be.instanceOf(SourceUnavailable);
  });

  it('a file that is not a Regent resource store is refused and left alone', () => {
    const foreign = join(dir, 'other.db');
    const db = new Database(foreign);
    db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('application', 'something-else');`);
    db.close();
    expect(() => openEmbeddedSource({ path: foreign })).to.throw(SourceUnavailable, /not a Regent resource store/);
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'this is not sqlite at all, just text that is long enough to have a header');
    expect(() => openEmbeddedSource({ path: garbage })).to.throw(SourceUnavailable);
  });

  it('openResourceSource understands embedded:<path> and refuses unknown specs', async () => {
    const source = await openResourceSource(`embedded:${path}`);
    opened.push(source as EmbeddedResourceSource);
    expect(source.description).to.equal(`embedded:${path}`);
    expect(await openResourceSource('etcd://x').catch((e: unknown) => e)).to.be.instanceOf(BadRequest);
    expect(await openResourceSource('embedded:').catch((e: unknown) => e)).to.be.instanceOf(BadRequest);
  });
});
