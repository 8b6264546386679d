/**
 * The embedded default's ConfigPort (src/nova/config/local.ts): a config is a directory named by its content, written
 * whole or not at all, never rewritten; the three most recently published and the live one are kept; `current` is the
 * live API's config (or the last published), read back only when its files still hash to its name.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalConfigStore } from '../../src/nova/config/local.js';
import { ConfigStoreError } from '../../src/nova/config/port.js';
import { renderNovaConfig, type RenderedConfig } from '../../src/nova/config/render.js';
import { NAME, NS, REF, SETTINGS, baseSpec } from './support/config-fixtures.js';

/** The n-th distinct config (an extraConfig value apart). */
const config = (n: number): RenderedConfig => {
  const result = renderNovaConfig({ name: NAME, spec: baseSpec((s) => (s.extraConfig = { DEFAULT: { debug: `v${n}` } })), settings: SETTINGS });
  if (!result.ok) throw new Error('refused');
  return result.config;
};

describe('Nova config: the local store', () => {
  let dir: string;
  let clock: number;
  const open = (options: Partial<ConstructorParameters<typeof LocalConfigStore>[0]> = {}) => new LocalConfigStore({ dir, now: () => new Date((clock += 1000)), ...options });
  const configsOnDisk = (): string[] => readdirSync(join(dir, NS, NAME)).filter((e) => e.startsWith(`${NAME}-config-`)).sort();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-config-'));
    clock = Date.parse('2026-01-01T00:00:00Z');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('publish writes every file into <dir>/<namespace>/<nova>/<name>/, files 0644 in a 0755 directory, and nothing else beside them', async () => {
    const store = open();
    const c = config(1);
    expect(await store.publish(REF, c)).to.deep.equal({ created: true, pruned: [] });
    const target = join(dir, NS, NAME, c.name);
    expect(readdirSync(target).sort()).to.deep.equal(Object.keys(c.files).sort());
    for (const [file, text] of Object.entries(c.files)) {
      expect(readFileSync(join(target, file), 'utf8'), file).to.equal(text);
      expect(statSync(join(target, file)).mode & 0o777, file).to.equal(0o644);
    }
    expect(statSync(target).mode & 0o777).to.equal(0o755);
    expect(readdirSync(join(dir, NS, NAME)).sort()).to.deep.equal([c.name, 'locks', 'published.json', 'state'].sort());
  });

  it('a config already there is never rewritten (its name is its content): created false, the files untouched', async () => {
    const store = open();
    const c = config(1);
    await store.publish(REF, c);
    const file = join(dir, NS, NAME, c.name, 'nova.conf');
    const before = statSync(file);
    expect(await store.publish(REF, c)).to.deep.equal({ created: false, pruned: [] });
    expect(statSync(file).ino).to.equal(before.ino);
    expect(statSync(file).mtimeMs).to.equal(before.mtimeMs);
  });

  it('the roles\' state and lock directories are made private (0700)', async () => {
    await open().publish(REF, config(1));
    for (const sub of ['state', 'locks']) expect(statSync(join(dir, NS, NAME, sub)).mode & 0o777, sub).to.equal(0o700);
  });

  it('current is the most recently published config, read back with its files and hash', async () => {
    const store = open();
    expect(await store.current(NS, NAME)).to.equal(undefined);
    await store.publish(REF, config(1));
    await store.publish(REF, config(2));
    expect(await store.current(NS, NAME)).to.deep.equal(config(2));
    await store.publish(REF, config(1));
    expect((await store.current(NS, NAME))?.name).to.equal(config(1).name);
  });

  it('current asks the live hook when there is one (the config the API process runs)', async () => {
    const live = config(1).name;
    const store = open({ liveConfig: async () => live });
    await store.publish(REF, config(1));
    await store.publish(REF, config(2));
    expect((await store.current(NS, NAME))?.name).to.equal(live);
  });

  it('a config directory whose files no longer hash to its name is not answered (a hand edit, a torn copy)', async () => {
    const store = open();
    const c = config(1);
    await store.publish(REF, c);
    writeFileSync(join(dir, NS, NAME, c.name, 'nova.conf'), '[DEFAULT]\nedited = by hand\n');
    expect(await store.current(NS, NAME)).to.equal(undefined);
  });

  it('the three most recently published stay, older ones go', async () => {
    const store = open();
    for (const n of [1, 2, 3]) expect((await store.publish(REF, config(n))).pruned).to.deep.equal([]);
    expect((await store.publish(REF, config(4))).pruned).to.deep.equal([config(1).name]);
    expect(configsOnDisk()).to.deep.equal([config(2), config(3), config(4)].map((c) => c.name).sort());
  });

  it('"newest" is the most recently published: a spec gone back to an earlier config keeps it over younger ones', async () => {
    const store = open();
    for (const n of [1, 2, 3]) await store.publish(REF, config(n));
    await store.publish(REF, config(1)); // back to the first: it is the newest now
    expect((await store.publish(REF, config(4))).pruned).to.deep.equal([config(2).name]);
    expect(configsOnDisk()).to.deep.equal([config(1), config(3), config(4)].map((c) => c.name).sort());
  });

  it('the config the live API runs is never pruned, however old', async () => {
    const store = open({ liveConfig: async () => config(1).name });
    for (const n of [1, 2, 3, 4, 5]) await store.publish(REF, config(n));
    expect(configsOnDisk()).to.deep.equal([config(1), config(3), config(4), config(5)].map((c) => c.name).sort());
  });

  it('another Nova\'s configs are not touched (names are per Nova)', async () => {
    const store = open();
    const other = { ...REF, name: 'nova-b', uid: 'b' };
    const result = renderNovaConfig({ name: 'nova-b', spec: baseSpec(), settings: SETTINGS });
    if (!result.ok) throw new Error('refused');
    await store.publish(other, result.config);
    for (const n of [1, 2, 3, 4, 5]) await store.publish(REF, config(n));
    expect(existsSync(join(dir, NS, 'nova-b', result.config.name))).to.equal(true);
  });

  const refused: Array<[string, () => Promise<unknown>]> = [
    ['a namespace that is not a DNS name', () => open().publish({ ...REF, namespace: '../etc' }, config(1))],
    ['a config name of another Nova', () => open().publish({ ...REF, name: 'other' }, config(1))],
    ['a file name that is not plain', () => open().publish(REF, { ...config(1), files: { '../nova.conf': 'x' } })],
  ];
  for (const [title, run] of refused) {
    it(`refused, nothing written: ${title}`, async () => {
      const error = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(ConfigStoreError);
      expect((error as ConfigStoreError).status).to.equal(422);
      expect(readdirSync(dir)).to.deep.equal([]);
    });
  }

  it('settings: the local roles listen on loopback, keep state and locks under the Nova\'s directory; the runtime\'s settings win', () => {
    const settings = open({ settings: { keystoneURL: 'http://127.0.0.1:5000/v3' } }).settings(NS, NAME);
    expect(settings).to.include({ listenHost: '127.0.0.1', statePath: join(dir, NS, NAME, 'state'), lockPath: join(dir, NS, NAME, 'locks'), keystoneURL: 'http://127.0.0.1:5000/v3' });
    expect(settings.ports).to.deep.equal({ api: 8774, metadata: 8775, novncproxy: 6080 });
  });
});
