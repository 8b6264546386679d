/** Rules specific to the sqlite file: identity, schema version, pragmas, lock waits. */
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreUnavailable, UnreadableStoredEvent, WrongExpectedVersion } from '../../src/store/errors.js';
import { APPLICATION_ID, SCHEMA_VERSION, assertRegentStore, migrate } from '../../src/store/sqlite/schema.js';
import { SqliteEventStore } from '../../src/store/sqlite/store.js';
import { newEvents, thrownBy, rejectionOf } from './helpers.js';

describe('sqlite store file', () => {
  let root: string;
  let counter = 0;
  const fresh = (): string => join(root, `file-${(counter += 1)}.db`);
  const stores: SqliteEventStore[] = [];
  const open = (path: string, options?: ConstructorParameters<typeof SqliteEventStore>[1]): SqliteEventStore => {
    const store = new SqliteEventStore(path, options);
    stores.push(store);
    return store;
  };

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'regent-sqlite-file-'));
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('a new store is in WAL mode, marked as a Regent store and at the current schema version', async () => {
    const path = fresh();
    const store = open(path);
    expect(store.connectionSettings()).to.deep.equal({ journalMode: 'wal', synchronous: 'normal', busyTimeoutMs: 5000 });
    await store.close();
    const raw = new Database(path, { readonly: true });
    expect([raw.pragma('application_id', { simple: true }), raw.pragma('user_version', { simple: true })]).to.deep.equal([APPLICATION_ID, SCHEMA_VERSION]);
    raw.close();
  });

  it('synchronous=FULL and a custom busy timeout are applied to the connection when asked for', () => {
    expect(open(fresh(), { synchronous: 'full', busyTimeoutMs: 1234 }).connectionSettings()).to.include({ synchronous: 'full', busyTimeoutMs: 1234 });
  });

  it('reopening a current store migrates nothing and keeps its data', async () => {
    const path = fresh();
    await open(path).append('s', newEvents(2), { expectedRevision: 'no_stream' });
    const again = open(path);
    expect(await again.streamHead('s')).to.equal(1);
  });

  it('a file that is not an SQLite database is refused with StoreUnavailable and left unchanged', () => {
    const path = fresh();
    const content = 'this is a text file, not a database\n'.repeat(200);
    writeFileSync(path, content);
    expect(thrownBy(() => open(path))).to.be.instanceOf(StoreUnavailable);
    expect(readFileSync(path, 'utf8')).to.equal(content);
  });

  it('an SQLite database of another application is refused with StoreUnavailable and not modified', () => {
    const path = fresh();
    const foreign = new Database(path);
    foreign.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)');
    foreign.close();
    expect(thrownBy(() => open(path))).to.be.instanceOf(StoreUnavailable);
    const check = new Database(path, { readonly: true });
    expect(check.pragma('journal_mode', { simple: true })).to.equal('delete');
    expect(check.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all()).to.deep.equal(['invoices']);
    check.close();
  });

  it('a fresh file migrated by another connection between the header reads is still recognised: the header is one snapshot', () => {
    // Three processes opening one fresh file raced like this in CI: one read application_id 0 before
    // another's migration committed and the tables after it, and refused its own store as foreign.
    const path = fresh();
    const setup = new Database(path);
    setup.pragma('journal_mode = WAL');
    setup.close();
    const reader = new Database(path);
    const other = new Database(path);
    let migrated = false;
    const racing = new Proxy(reader, {
      get(target, key) {
        if (key === 'pragma') {
          return (source: string, options?: Database.PragmaOptions) => {
            const result = target.pragma(source, options);
            if (source === 'application_id' && !migrated) {
              migrated = true;
              migrate(other, path);
            }
            return result;
          };
        }
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    try {
      expect(() => assertRegentStore(racing, path)).not.to.throw();
      expect(migrated).to.equal(true);
      expect(assertRegentStore(reader, path)).to.deep.equal({ applicationId: APPLICATION_ID, userVersion: SCHEMA_VERSION, tables: 2 });
    } finally {
      reader.close();
      other.close();
    }
  });

  it('a store written by a newer schema version is refused with StoreUnavailable', async () => {
    const path = fresh();
    await open(path).close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(thrownBy(() => open(path))).to.be.instanceOf(StoreUnavailable);
  });

  it('a write that cannot get the lock within busy_timeout fails with StoreUnavailable and writes nothing', async () => {
    const path = fresh();
    const store = open(path, { busyTimeoutMs: 50 });
    const holder = new Database(path);
    holder.exec('BEGIN IMMEDIATE');
    try {
      expect(await rejectionOf(store.append('s', newEvents(1), { expectedRevision: 'any' }))).to.be.instanceOf(StoreUnavailable);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(await store.readAll()).to.deep.equal([]);
    await store.append('s', newEvents(1), { expectedRevision: 'no_stream' });
  });

  it('a row the streams table does not know about still cannot be overwritten: UNIQUE(stream, revision) turns it into WrongExpectedVersion', async () => {
    const path = fresh();
    const store = open(path);
    await store.append('s', newEvents(1), { expectedRevision: 'no_stream' });
    // Simulate a head that lags behind the events table (it must never happen; this is the backstop).
    const raw = new Database(path);
    raw.prepare('DELETE FROM streams').run();
    raw.close();
    const error = await rejectionOf(store.append('s', newEvents(1), { expectedRevision: 'no_stream' }));
    expect(error).to.be.instanceOf(WrongExpectedVersion);
    expect(error).to.have.property('actualRevision', 0);
    expect(await store.readStream('s')).to.have.length(1);
  });

  it('a row whose JSON was cut short is an UnreadableStoredEvent naming its stream, revision and position, on every read path', async () => {
    const path = fresh();
    const store = open(path);
    await store.append('s', newEvents(3), { expectedRevision: 'no_stream' });
    const raw = new Database(path);
    raw.prepare("UPDATE events SET metadata = substr(metadata, 1, 7) WHERE stream = 's' AND revision = 1").run();
    const position = (raw.prepare("SELECT position FROM events WHERE stream = 's' AND revision = 1").get() as { position: number }).position;
    raw.close();
    for (const read of [() => store.readStream('s'), () => store.readAll({ after: 0, maxCount: 10 })]) {
      const error = await rejectionOf(read());
      expect(error).to.be.instanceOf(UnreadableStoredEvent);
      expect(error).to.include({ stream: 's', revision: 1, position });
      expect((error as UnreadableStoredEvent).problem).to.match(/^the stored row is not valid JSON \(/);
    }
    expect(await store.readStream('s', { fromRevision: 2 })).to.have.length(1);
  });
});
