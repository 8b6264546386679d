/** Store URLs: what each form opens, and one clear StoreUnavailable for everything that cannot be opened. */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { InvalidStoreUrl, StoreUnavailable } from '../../src/store/errors.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { DEFAULT_STORE_URL, STORE_URL_FORMS, openStore, parseStoreUrl } from '../../src/store/open.js';
import { SqliteEventStore } from '../../src/store/sqlite/store.js';
import { rejectionOf, thrownBy } from './helpers.js';

describe('store URLs', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'regent-open-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('the default store is the sqlite file ./data/regent.db', () => {
    expect(parseStoreUrl(DEFAULT_STORE_URL)).to.deep.equal({ kind: 'sqlite', path: './data/regent.db', synchronous: 'normal' });
  });

  it('postgres:// (and postgresql://) name the PostgreSQL adapter, esdb:// the EventStoreDB one (issue 15)', () => {
    expect(parseStoreUrl('postgres://regent:pw@127.0.0.1:5432/regent')).to.deep.equal({ kind: 'postgres', url: 'postgres://regent:pw@127.0.0.1:5432/regent' });
    expect(parseStoreUrl('postgresql://db/regent?schema=one').kind).to.equal('postgres');
    expect(parseStoreUrl('esdb://127.0.0.1:2113?tls=false')).to.deep.equal({ kind: 'eventstoredb', url: 'esdb://127.0.0.1:2113?tls=false' });
  });

  it('sqlite:<path>?synchronous=full selects FULL durability', () => {
    expect(parseStoreUrl('sqlite:/var/lib/regent.db?synchronous=full')).to.deep.equal({ kind: 'sqlite', path: '/var/lib/regent.db', synchronous: 'full' });
  });

  it('an unknown scheme, an empty path, :memory: or an unknown option is an InvalidStoreUrl (a StoreUnavailable) naming the accepted forms', () => {
    for (const url of ['mysql://localhost/regent', 'sqlite:', 'sqlite::memory:', 'sqlite:/x.db?journal=off', 'sqlite:/x.db?synchronous=off', 'memory', '']) {
      const error = thrownBy(() => parseStoreUrl(url));
      expect(error, url).to.be.instanceOf(InvalidStoreUrl).and.to.be.instanceOf(StoreUnavailable);
      expect((error as Error).message, url).to.include(JSON.stringify(url)).and.to.include(`expected ${STORE_URL_FORMS}`);
      expect(STORE_URL_FORMS).to.match(/^sqlite:<path>\[\?synchronous=normal\|full\], postgres:\/\/.*, esdb:\/\/.* or memory:$/);
    }
  });

  it('memory: opens a fresh in-process store', async () => {
    const store = await openStore('memory:');
    expect(store).to.be.instanceOf(MemoryEventStore);
    await store.close();
  });

  it('sqlite:<relative path> creates the missing parent directories, relative to the working directory', async () => {
    const path = join(root, 'a', 'b', 'regent.db');
    const store = await openStore(`sqlite:${relative(process.cwd(), path)}`);
    expect(store).to.be.instanceOf(SqliteEventStore);
    expect(existsSync(path)).to.equal(true);
    await store.close();
  });

  it('a path that cannot be opened (a directory, or under a regular file) is one StoreUnavailable', async () => {
    const directory = join(root, 'is-a-directory');
    mkdirSync(directory);
    const file = join(root, 'plain-file');
    writeFileSync(file, 'x');
    for (const url of [`sqlite:${directory}`, `sqlite:${join(file, 'regent.db')}`]) {
      expect(await rejectionOf(openStore(url)), url).to.be.instanceOf(StoreUnavailable);
    }
  });
});
