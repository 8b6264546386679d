/** What only the embedded secret store promises: the file's mode, the schema step, where the bytes are. */
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCHEMA_VERSION } from '../../src/kube/embedded/database.js';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { SourceUnavailable } from '../../src/kube/errors.js';
import { server } from './support/fixtures.js';

const mode = (file: string): string => (statSync(file).mode & 0o777).toString(8).padStart(4, '0');
const marker = (label: string): string => `v-${label}-${randomBytes(9).toString('hex')}`;

describe('embedded secret store: the file', () => {
  let dir: string;
  let path: string;
  const opened: EmbeddedResourceSource[] = [];
  const open = (): EmbeddedResourceSource => {
    const source = openEmbeddedSource({ path, pollIntervalMs: 20 });
    opened.push(source);
    return source;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-secrets-'));
    path = join(dir, 'data', 'resources.db');
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('a file Regent creates is 0600, and so are the -wal and -shm files SQLite creates next to it, whatever the umask', async () => {
    const previous = process.umask(0o000); // the most permissive umask: the mode cannot come from it
    let source: EmbeddedResourceSource;
    try {
      source = open();
      await source.secrets.put('default', 'creds', { token: marker('mode') });
    } finally {
      process.umask(previous);
    }
    expect([`${path}-wal`, `${path}-shm`].every(existsSync), 'WAL mode keeps both files while open').to.equal(true);
    expect({ db: mode(path), wal: mode(`${path}-wal`), shm: mode(`${path}-shm`) }).to.deep.equal({ db: '0600', wal: '0600', shm: '0600' });
  });

  it('a file that already exists keeps its mode (an older store: the README says to chmod it)', async () => {
    open();
    await Promise.all(opened.splice(0).map((s) => s.close()));
    chmodSync(path, 0o640);
    open();
    expect(mode(path)).to.equal('0640');
  });

  it('a schema-1 file (a store from before secrets) is upgraded in place: objects, versions and leases stay; the secrets table is added', async () => {
    const first = open();
    const created = await first.create(server('default', 'web-1'));
    await Promise.all(opened.splice(0).map((s) => s.close()));
    // What schema 1 wrote: the same tables without `secrets`, schema_version 1, no secret counter.
    const raw = new Database(path);
    raw.exec(`DROP TABLE secrets; DELETE FROM meta WHERE key = 'secret_version'; UPDATE meta SET value = '1' WHERE key = 'schema_version';`);
    expect(raw.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).pluck().all()).to.deep.equal(['changes', 'events', 'leases', 'meta', 'objects']);
    raw.close();

    const upgraded = open();
    expect(await upgraded.get('Server', 'default', 'web-1')).to.deep.equal(created);
    const put = await upgraded.secrets.put('default', 'creds', { token: marker('upgrade') });
    expect(put).to.deep.equal({ version: '1', created: true });
    const next = await upgraded.create(server('default', 'web-2'));
    expect(Number(next.metadata.resourceVersion)).to.equal(Number(created.metadata.resourceVersion) + 1);
    const check = new Database(path, { readonly: true });
    expect(check.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).pluck().get()).to.equal(String(SCHEMA_VERSION));
    check.close();
    expect(SCHEMA_VERSION).to.equal(2);
  });

  it('a file written by a newer Regent (schema 3) is refused and left alone', () => {
    open();
    return Promise.all(opened.splice(0).map((s) => s.close())).then(() => {
      const raw = new Database(path);
      raw.exec(`UPDATE meta SET value = '3' WHERE key = 'schema_version'`);
      raw.close();
      expect(() => openEmbeddedSource({ path })).to.throw(SourceUnavailable, /newer Regent \(schema 3 > 2\)/);
    });
  });

  it('an SQLite file with tables but no meta table (some other program\'s) is refused and left alone', () => {
    const foreign = join(dir, 'other.db');
    const raw = new Database(foreign);
    raw.exec(`CREATE TABLE accounts (id INTEGER PRIMARY KEY)`);
    raw.close();
    expect(() => openEmbeddedSource({ path: foreign })).to.throw(SourceUnavailable, /not a Regent resource store/);
    const check = new Database(foreign, { readonly: true });
    expect(check.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table'`).pluck().all()).to.deep.equal(['accounts']);
    check.close();
  });

  it('values live in the secrets table only: never in objects, the change log, events, leases or meta', async () => {
    const source = open();
    const values = [marker('a'), marker('b')];
    const object = await source.create(server('default', 'web-1'));
    await source.secrets.put('default', 'creds', { a: values[0]!, b: values[1]! }, { ownerUid: object.metadata.uid });
    await source.recordEvent(object, 'Normal', 'CredentialsStored', 'stored Secret default/creds');
    await source.patchStatus('Server', 'default', 'web-1', { phase: 'Running' });
    const raw = new Database(path, { readonly: true });
    const tables = raw.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'secrets'`).pluck().all() as string[];
    const everythingElse = tables.map((t) => JSON.stringify(raw.prepare(`SELECT * FROM ${t}`).all())).join('\n');
    const secretsTable = JSON.stringify(raw.prepare(`SELECT * FROM secrets`).all());
    raw.close();
    expect(tables).to.include.members(['objects', 'changes', 'events', 'leases', 'meta']);
    for (const value of values) {
      expect(secretsTable).to.include(value);
      expect(everythingElse).to.not.include(value);
    }
  });

  it('a replaced or deleted value is overwritten in the database file (secure_delete), not left in its free pages', async () => {
    const source = open();
    const small = marker('small');
    const large = marker('large').padEnd(20_000, '#'); // overflow pages
    await source.secrets.put('default', 'rotated', { token: small, blob: large });
    await source.secrets.put('default', 'rotated', { token: marker('new') });
    await source.secrets.put('default', 'gone', { blob: large.replace('large', 'gone!') });
    await source.secrets.delete('default', 'gone');
    // Move every committed page from the WAL into the database file and empty the WAL.
    source.database.pragma('wal_checkpoint(TRUNCATE)');
    const bytes = readFileSync(path).toString('latin1');
    expect(bytes.includes(small), 'the replaced small value').to.equal(false);
    expect(bytes.includes(large.slice(0, 30)), 'the replaced large value').to.equal(false);
    expect(bytes.includes(large.replace('large', 'gone!').slice(0, 30)), 'the deleted value').to.equal(false);
  });

  it('a garbage file stays garbage: opening it fails before Regent writes anything', () => {
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'not sqlite at all, just text long enough to look like a header of some kind');
    expect(() => openEmbeddedSource({ path: garbage })).to.throw(SourceUnavailable);
    expect(readFileSync(garbage, 'utf8')).to.match(/^not sqlite/);
  });
});
