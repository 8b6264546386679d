/** `regent history volume-<uid>`: a short name resolves to the resource's own stream, and only to one. */
import { expect } from 'chai';
import { MemoryEventStore } from '../../src/store/memory.js';
import { resolveStreamName } from '../../src/cli/stream-alias.js';
import { newEvents } from '../store/helpers.js';

const VOLUME = '57fcb876-455b-4b63-9263-b79569272ae6';
const SERVER = '4fd28c39-30c6-4fee-bfc3-7b6c910ec9ba';

describe('cli: short stream names', () => {
  const store = new MemoryEventStore();
  before(async () => {
    for (const stream of [`volume-lifecycle-${VOLUME}`, `volume-attachment-${SERVER}-${VOLUME}`, `server-lifecycle-${SERVER}`, `server-rebuild-${SERVER}`, `odd-one-${SERVER}`]) {
      await store.append(stream, newEvents(1), { expectedRevision: 'no_stream' });
    }
  });

  it('volume-<uid> is the volume lifecycle stream (not the attachment streams that also carry the uid)', async () => {
    expect(await resolveStreamName(store, `volume-${VOLUME}`)).to.equal(`volume-lifecycle-${VOLUME}`);
  });
  it('a stream name is always itself', async () => {
    expect(await resolveStreamName(store, `server-rebuild-${SERVER}`)).to.equal(`server-rebuild-${SERVER}`);
  });
  it('a short name matching two streams, or none, is left as given (the command then says no such stream)', async () => {
    expect(await resolveStreamName(store, `server-${SERVER}`)).to.equal(`server-${SERVER}`);
    expect(await resolveStreamName(store, `network-${VOLUME}`)).to.equal(`network-${VOLUME}`);
  });
});
