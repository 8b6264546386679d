/**
 * Which resource a stream belongs to (src/controllers/stream-owners.ts): one map, built from the kind table's
 * prefixes, with the one join a stream name lacks (a Nova server id → its Server) read back from the store, so a
 * restarted control plane resolves rebuild streams before any pass has run (issue 25: "a restart loses nothing").
 */
import { expect } from 'chai';
import { MemoryEventStore } from '../../src/store/memory.js';
import { Engine } from '../../src/engine/engine.js';
import { createProductRegistry } from '../../machines/index.js';
import { serverLifecycleDefinition, serverLifecycleStream } from '../../machines/server-lifecycle.js';
import { kindTable, streamOwnersOf } from '../../src/app/kinds.js';
import { silentLogger } from '../../src/log/logger.js';

const SERVER = '00000000-0000-4000-8000-000000000001';
const VOLUME = '00000000-0000-4000-8000-000000000002';

describe('stream owners (issue 25: one map from streams to resources)', () => {
  it('names the resource of every kind\'s streams; a prefix several kinds share names the kind that has the uid', () => {
    const owners = streamOwnersOf(kindTable(), (kind, uid) => (kind === 'Volume' && uid === VOLUME) || (kind === 'Server' && uid === SERVER));
    expect(owners.ownerOf(`server-lifecycle-${SERVER}`)).to.deep.equal({ kind: 'Server', uid: SERVER });
    expect(owners.ownerOf(`volume-attachment-${SERVER}-${VOLUME}`)).to.deep.equal({ kind: 'Server', uid: SERVER });
    expect(owners.ownerOf(`volume-lifecycle-${VOLUME}`)).to.deep.equal({ kind: 'Volume', uid: VOLUME });
    expect(owners.ownerOf(`scope-reachability-${VOLUME}`)).to.deep.equal({ kind: 'Volume', uid: VOLUME });
    expect(owners.ownerOf(`scope-reachability-${SERVER}`)).to.deep.equal({ kind: 'Server', uid: SERVER });
    expect(owners.ownerOf('scope-reachability-00000000-0000-4000-8000-000000000099'), 'a uid no kind has').to.equal(undefined);
    expect(owners.ownerOf('toy-a')).to.equal(undefined);
    expect(owners.ownerOf('server-rebuild-nova-1'), 'a Nova id no Server recorded').to.equal(undefined);
  });

  it('a restart loses nothing: the Servers\' recorded Nova ids are read back from the store, so rebuild streams resolve before any pass', async () => {
    const store = new MemoryEventStore();
    const engine = new Engine({ store, registry: createProductRegistry(), logger: silentLogger() });
    const stream = serverLifecycleStream(SERVER);
    await engine.decide(stream, { stimulus: { type: 'reconcile', source: 'reconciler', generation: 1, deletionRequested: false, observed: { kind: 'absent' }, desired: { name: 'web-1' }, at: '2026-01-01T00:00:00Z' }, actor: 'test' });
    await engine.decide(stream, { stimulus: { type: 'created', source: 'effect', id: 'nova-1' }, actor: 'test' });
    const restarted = streamOwnersOf(kindTable(), () => true);
    expect(restarted.ownerOf('server-rebuild-nova-1')).to.equal(undefined);
    expect(await restarted.warm(store, engine, serverLifecycleDefinition)).to.equal(1);
    expect(restarted.ownerOf('server-rebuild-nova-1')).to.deep.equal({ kind: 'Server', uid: SERVER });
    expect(restarted.isManagedNovaServer('nova-1')).to.equal(true);
  });
});
