/**
 * The resource recorder (issue 30, "who"): every change of desired state in the resource's own stream, with its
 * author, the field changes and secrets as digests; statuses; deletions; idempotent across restarts and safe with a
 * concurrent writer. Against the real embedded store (SQLite in a temp dir) and the in-memory event store.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { applyManifests, deleteResource } from '../../src/kube/cli/manifests.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { ResourceRecorder, specDigestOf } from '../../src/resource-history/recorder.js';
import { resourceStream, describeAuthor, type SpecChanged, type StatusChanged, type ResourceRecord } from '../../src/resource-history/stream.js';
import { authorOf, stampAuthor } from '../../src/resource-history/author.js';
import type { RecordedObject } from '../../src/resource-history/recorder.js';

const IMAGES: Record<string, string> = { 'image-a': '0b1f0a5e-0000-4000-8000-00000000000a', 'image-b': '0b1f0a5e-0000-4000-8000-00000000000b', 'image-c': '0b1f0a5e-0000-4000-8000-00000000000c' };
const server = (image: string, extra = '') => `apiVersion: regent.dev/v1alpha1
kind: Server
metadata:
  name: web-2
spec:
  name: web-2
  image:
    id: ${IMAGES[image]}
  flavor:
    name: m1.small
  networkID: net-a
${extra}`;

describe('resource recorder (issue 30: who changed what)', () => {
  let dir: string;
  let source: EmbeddedResourceSource;
  let store: MemoryEventStore;
  const recorderFor = (platform: 'embedded' | 'kubernetes' = 'embedded') => new ResourceRecorder({ store, platform, onError: (e) => { throw e; } });
  const records = async (uid: string): Promise<ResourceRecord[]> => (await store.readStream(resourceStream(uid))).map((e) => e.data as unknown as ResourceRecord);
  const web2 = async () => (await source.get('Server', 'default', 'web-2'))!;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-recorder-'));
    source = openEmbeddedSource({ path: join(dir, 'resources.db') });
    store = new MemoryEventStore();
  });
  afterEach(async () => {
    await source.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the CLI author of each generation, the field changes, and nothing for an unchanged re-apply', async () => {
    const recorder = recorderFor();
    await applyManifests(source, server('image-a'), { author: { name: 'alice', channel: 'regent-cli' } });
    await recorder.observe(await web2());
    const again = await applyManifests(source, server('image-a'), { author: { name: 'bob', channel: 'regent-cli' } });
    expect(again[0]!.action).to.equal('unchanged');
    await recorder.observe(await web2());
    await applyManifests(source, server('image-b'), { author: { name: 'bob', channel: 'regent-cli' } });
    const object = await web2();
    await recorder.observe(object);
    const [first, second, ...rest] = await records(object.metadata.uid);
    expect(rest).to.deep.equal([]);
    expect(first).to.include({ type: 'resource.specChanged', generation: 1, previousGeneration: null });
    expect((first as SpecChanged).author).to.deep.equal({ name: 'alice', channel: 'regent-cli', verified: false });
    expect(second).to.include({ type: 'resource.specChanged', generation: 2, previousGeneration: 1 });
    expect((second as SpecChanged).changes).to.deep.equal([{ path: 'spec.image.id', from: IMAGES['image-a'], to: IMAGES['image-b'] }]);
    expect((second as SpecChanged).author.name).to.equal('bob');
    expect(describeAuthor((second as SpecChanged).author)).to.equal('bob via regent CLI (as stated, not authenticated)');
    const events = await store.readStream(resourceStream(object.metadata.uid));
    expect(events[1]!.metadata).to.include({ source: 'operator', actor: 'bob', from: 'generation 1', to: 'generation 2' });
    expect(events[1]!.metadata.subject).to.deep.equal({ kind: 'Server', namespace: 'default', name: 'web-2' });
  });

  it('never credits a later unstamped write to the earlier author (a stale stamp is for another generation)', async () => {
    const recorder = recorderFor();
    await applyManifests(source, server('image-a'), { author: { name: 'alice', channel: 'regent-cli' } });
    await recorder.observe(await web2());
    // a program writing the store without an author (kubectl on Kubernetes does not clear Regent's annotations)
    await source.apply(JSON.parse(JSON.stringify({ ...(await web2()), metadata: { name: 'web-2', namespace: 'default', annotations: (await web2()).metadata.annotations }, spec: { ...(await web2()).spec, image: { id: IMAGES['image-c'] } } })));
    const object = await web2();
    await recorder.observe(object);
    const last = (await records(object.metadata.uid)).at(-1) as SpecChanged;
    expect(last.generation).to.equal(2);
    expect(last.author.name).to.equal(null);
    expect(last.author.unknownReason).to.match(/without an author/);
  });

  it('records secrets and user data as digests, never their values', async () => {
    const recorder = recorderFor();
    await applyManifests(source, server('image-a', '  userData: I2Nsb3VkLWNvbmZpZwpwYXNzd29yZDogaHVudGVyMg=='), { author: { name: 'alice', channel: 'regent-cli' } });
    const object = await web2();
    await recorder.observe(object);
    const events = await store.readStream(resourceStream(object.metadata.uid));
    const text = JSON.stringify(events);
    expect(text).not.to.include('I2Nsb3VkLWNvbmZpZwpwYXNzd29yZDogaHVudGVyMg');
    expect(((events[0]!.data as unknown as SpecChanged).spec as { userData: string }).userData).to.match(/^sha256:[0-9a-f]{64}$/);
  });

  it('records a status when it changes, once', async () => {
    const recorder = recorderFor();
    await applyManifests(source, server('image-a'), { author: { name: 'alice', channel: 'regent-cli' } });
    await source.patchStatus('Server', 'default', 'web-2', { provisioningStatus: 'provisioning' } as never);
    await recorder.observe(await web2());
    await recorder.observe(await web2());
    await source.patchStatus('Server', 'default', 'web-2', { provisioningStatus: 'provisioned' } as never);
    const object = await web2();
    await recorder.observe(object);
    const statuses = (await records(object.metadata.uid)).filter((r): r is StatusChanged => r.type === 'resource.statusChanged');
    expect(statuses.map((s) => s.status.provisioningStatus)).to.deep.equal(['provisioning', 'provisioned']);
    expect(statuses[1]!.changes).to.deep.equal([{ path: 'status.provisioningStatus', from: 'provisioning', to: 'provisioned' }]);
  });

  it('records who asked for a deletion, and the end', async () => {
    const recorder = recorderFor();
    await applyManifests(source, server('image-a'), { author: { name: 'alice', channel: 'regent-cli' } });
    await source.addFinalizer('Server', 'default', 'web-2', 'regent.dev/server');
    await recorder.observe(await web2());
    await deleteResource(source, 'Server', 'web-2', 'default', { name: 'carol', channel: 'regent-cli' });
    const deleting = await web2();
    await recorder.observe(deleting);
    const last = await source.removeFinalizer('Server', 'default', 'web-2', 'regent.dev/server');
    expect(last).to.equal(undefined);
    await recorder.deleted(deleting);
    const types = (await records(deleting.metadata.uid)).map((r) => r.type);
    expect(types).to.deep.equal(['resource.specChanged', 'resource.deletionRequested', 'resource.deleted']);
    const deletion = (await records(deleting.metadata.uid))[1] as { author: { name: string } };
    expect(deletion.author.name).to.equal('carol');
  });

  it('records nothing twice after a restart (a new recorder over the same stream)', async () => {
    await applyManifests(source, server('image-a'), { author: { name: 'alice', channel: 'regent-cli' } });
    await source.patchStatus('Server', 'default', 'web-2', { provisioningStatus: 'provisioning' } as never);
    const object = await web2();
    await recorderFor().observe(object);
    const before = (await records(object.metadata.uid)).length;
    const restarted = recorderFor();
    await restarted.observe(object);
    await restarted.observe(object);
    expect((await records(object.metadata.uid)).length).to.equal(before);
  });

  it('counts the generations it never saw and reads again when another writer appended first', async () => {
    const recorder = recorderFor();
    await applyManifests(source, server('image-a'), { author: { name: 'alice', channel: 'regent-cli' } });
    await recorder.observe(await web2());
    await applyManifests(source, server('image-b'), { author: { name: 'alice', channel: 'regent-cli' } });
    await applyManifests(source, server('image-c'), { author: { name: 'dave', channel: 'regent-cli' } });
    const object = await web2();
    // another writer (the admission webhook) appends to the stream behind the recorder's cached head
    await store.append(resourceStream(object.metadata.uid), [{ id: '00000000-0000-7000-8000-000000000001', type: 'resource.admitted', data: { type: 'resource.admitted', kind: 'Server', namespace: 'default', name: 'web-2', uid: object.metadata.uid, operation: 'UPDATE', specDigest: 'sha256:other', user: { username: 'eve' }, requestUid: 'r1' }, metadata: { machine: 'resource', machineVersion: 1, schemaVersion: 1, source: 'operator', actor: 'eve', correlationId: 'r1', causationId: null, from: null, to: 'admitted', effects: [], recordedAt: new Date().toISOString() } }], { expectedRevision: 'any' });
    await recorder.observe(object);
    const last = (await records(object.metadata.uid)).at(-1) as SpecChanged;
    expect(last).to.include({ type: 'resource.specChanged', generation: 3, previousGeneration: 1, missedGenerations: 1 });
    // the admission record is for another spec: not this change's author
    expect(last.author.name).to.equal('dave');
    expect(last.changes).to.deep.equal([{ path: 'spec.image.id', from: IMAGES['image-a'], to: IMAGES['image-c'] }]);
  });

  it('on Kubernetes: the webhook-authenticated user for the same spec, else the field manager and why the user is unknown', async () => {
    await applyManifests(source, server('image-a'));
    const stored = await web2();
    const object: RecordedObject = { ...stored, metadata: { ...stored.metadata, managedFields: [{ manager: 'kubectl-client-side-apply', operation: 'Update', time: '2026-12-05T00:00:00Z', fieldsV1: { 'f:spec': {} } }, { manager: 'regent', operation: 'Update', subresource: 'status', time: '2026-12-05T00:01:00Z', fieldsV1: { 'f:status': {} } }] } };
    const unknown = authorOf(object, 1, { platform: 'kubernetes' });
    expect(unknown).to.include({ name: null, channel: 'kubernetes', manager: 'kubectl-client-side-apply', verified: false });
    expect(unknown.unknownReason).to.match(/admission webhook/);
    const recorder = recorderFor('kubernetes');
    await store.append(resourceStream(stored.metadata.uid), [{ id: '00000000-0000-7000-8000-000000000002', type: 'resource.admitted', data: { type: 'resource.admitted', kind: 'Server', namespace: 'default', name: 'web-2', uid: stored.metadata.uid, operation: 'CREATE', specDigest: specDigestOf(stored.spec), user: { username: 'system:admin' }, requestUid: 'r2' }, metadata: { machine: 'resource', machineVersion: 1, schemaVersion: 1, source: 'operator', actor: 'system:admin', correlationId: 'r2', causationId: null, from: null, to: 'admitted', effects: [], recordedAt: new Date().toISOString() } }], { expectedRevision: 'no_stream' });
    await recorder.observe(object);
    const change = (await records(stored.metadata.uid)).find((r): r is SpecChanged => r.type === 'resource.specChanged')!;
    expect(change.author).to.deep.equal({ name: 'system:admin', channel: 'kubernetes', verified: true, manager: 'kubectl-client-side-apply' });
  });

  it('is fenced on the lease like the engine: nothing recorded while not leading, every record names its term', async () => {
    await applyManifests(source, server('image-a'), { author: { name: 'alice', channel: 'regent-cli' } });
    const object = await web2();
    const lease: { term: { holder: string; term: number } | undefined } = { term: undefined };
    const recorder = new ResourceRecorder({ store, platform: 'embedded', fence: { current: () => lease.term }, onError: (e) => { throw e; } });
    await recorder.observe(object);
    expect(await store.streamHead(resourceStream(object.metadata.uid))).to.equal(undefined);
    lease.term = { holder: 'replica-a', term: 3 };
    await recorder.observe(object);
    const events = await store.readStream(resourceStream(object.metadata.uid));
    expect(events).to.have.length(1);
    expect(events[0]!.metadata.leader).to.deep.equal({ holder: 'replica-a', term: 3 });
  });

  it('a stamp written on Kubernetes is recorded but never as authenticated', () => {
    const stamped = stampAuthor({ metadata: { annotations: {} } }, { name: 'mallory', channel: 'api' });
    const object = { metadata: { ...stamped.metadata, annotations: { ...stamped.metadata.annotations, 'audit.regent.dev/generation': '1' }, generation: 1 } };
    expect(authorOf(object, 1, { platform: 'kubernetes' })).to.include({ name: 'mallory', verified: false });
    expect(authorOf(object, 1, { platform: 'embedded' })).to.include({ name: 'mallory', verified: true });
  });
});
