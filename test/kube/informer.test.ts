/**
 * Informer behaviour that the conformance suite cannot provoke on demand, against a scripted source:
 * resuming after a broken watch without relisting, surviving a throwing handler, and delivering
 * only real differences on relist.
 */
import { expect } from 'chai';
import { Gone, SourceUnavailable } from '../../src/kube/errors.js';
import { Informer } from '../../src/kube/informer.js';
import type { ObjectList, ResourceSource, WatchEvent, WatchHandle, WatchHandler, WatchOptions } from '../../src/kube/port.js';
import type { ObjectOf } from '../../src/resources/index.js';
import { eventually } from './support/fixtures.js';

const obj = (name: string, rv: number): ObjectOf<'Server'> => ({
  apiVersion: 'regent.dev/v1alpha1',
  kind: 'Server',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: String(rv), generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { name, image: { name: 'cirros' }, flavor: { name: 'm1.small' }, networkID: 'net-a' },
});

/** Each watch() call takes the next script: events to deliver, then how the watch ends. */
interface Script {
  events: WatchEvent<'Server'>[];
  end: 'gone' | 'error' | 'server-close' | 'hold';
}

class ScriptedSource {
  readonly watches: WatchOptions[] = [];
  lists = 0;
  constructor(
    private listings: ObjectList<'Server'>[],
    private readonly scripts: Script[],
  ) {}

  async list(): Promise<ObjectList<'Server'>> {
    this.lists += 1;
    const listing = this.listings.shift();
    if (!listing) throw new Error('unexpected list');
    return listing;
  }

  watch(_kind: 'Server', options: WatchOptions, handler: WatchHandler<'Server'>): WatchHandle {
    this.watches.push(options);
    const script = this.scripts.shift() ?? { events: [], end: 'hold' };
    let version = options.resourceVersion;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const done = (async () => {
      for (const event of script.events) {
        await handler(event);
        version = event.object.metadata.resourceVersion;
      }
      if (script.end === 'gone') throw new Gone(version);
      if (script.end === 'error') throw new SourceUnavailable('connection reset');
      if (script.end === 'hold') await held;
    })();
    done.catch(() => undefined);
    return {
      done,
      get resourceVersion() {
        return version;
      },
      async close() {
        release();
        await done.catch(() => undefined);
      },
    };
  }
}

const asSource = (s: ScriptedSource): ResourceSource => s as unknown as ResourceSource;

describe('Informer', () => {
  it('a broken watch resumes from the last delivered version, without relisting or redelivering', async () => {
    const source = new ScriptedSource(
      [{ items: [obj('a', 1)], resourceVersion: '1' }],
      [
        { events: [{ type: 'ADDED', object: obj('b', 2) }], end: 'error' },
        { events: [{ type: 'MODIFIED', object: obj('b', 3) }], end: 'server-close' },
        { events: [], end: 'hold' },
      ],
    );
    const seen: string[] = [];
    const informer = new Informer(asSource(source), 'Server', (e) => void seen.push(`${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`), { retryDelayMs: 5 });
    await informer.start();
    await eventually(() => (source.watches.length === 3 ? true : undefined), 2000, 'three watches');
    await informer.stop();
    expect(seen).to.deep.equal(['ADDED a@1', 'ADDED b@2', 'MODIFIED b@3']);
    expect(source.watches.map((w) => w.resourceVersion)).to.deep.equal(['1', '2', '3']);
    expect(source.lists).to.equal(1);
    expect(informer.relists).to.equal(0);
  });

  it('on Gone it relists and delivers only differences: new, changed, and vanished objects', async () => {
    const source = new ScriptedSource(
      [
        { items: [obj('keep', 1), obj('change', 2), obj('vanish', 3)], resourceVersion: '3' },
        { items: [obj('keep', 1), obj('change', 9), obj('new', 10)], resourceVersion: '10' },
      ],
      [{ events: [], end: 'gone' }, { events: [], end: 'hold' }],
    );
    const seen: string[] = [];
    const informer = new Informer(asSource(source), 'Server', (e) => void seen.push(`${e.type} ${e.object.metadata.name}`));
    await informer.start();
    await eventually(() => (source.watches.length === 2 ? true : undefined), 2000, 'the watch after the relist');
    await informer.stop();
    expect(seen).to.deep.equal(['ADDED keep', 'ADDED change', 'ADDED vanish', 'MODIFIED change', 'ADDED new', 'DELETED vanish']);
    expect(source.watches.map((w) => w.resourceVersion)).to.deep.equal(['3', '10']);
    expect(informer.relists).to.equal(1);
    expect(informer.list().map((o) => o.metadata.name).sort()).to.deep.equal(['change', 'keep', 'new']);
  });

  it('a throwing handler is logged and the informer goes on', async () => {
    const source = new ScriptedSource(
      [{ items: [], resourceVersion: '1' }],
      [{ events: [{ type: 'ADDED', object: obj('bad', 2) }, { type: 'ADDED', object: obj('good', 3) }], end: 'hold' }],
    );
    const seen: string[] = [];
    const informer = new Informer(asSource(source), 'Server', (e) => {
      seen.push(e.object.metadata.name);
      if (e.object.metadata.name === 'bad') throw new Error('boom');
    });
    await informer.start();
    await eventually(() => (seen.length === 2 ? true : undefined), 2000, 'both events');
    await informer.stop();
    expect(informer.get('default', 'good')).to.not.equal(undefined);
    expect(informer.get('default', 'bad'), 'the cache still holds an object whose handler failed').to.not.equal(undefined);
  });
});
