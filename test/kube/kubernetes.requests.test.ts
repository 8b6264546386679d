/**
 * The kubernetes adapter's exact requests, asserted at the HTTP level against the fake API server:
 * paths, query parameters, patch Content-Types, resourceVersion preconditions, and 409/410/500
 * handling. The conformance suite proves the semantics; these tests pin the wire format.
 */
import { expect } from 'chai';
import { Conflict, SourceUnavailable } from '../../src/kube/errors.js';
import { Informer } from '../../src/kube/informer.js';
import { openKubernetesSource, type KubernetesResourceSource } from '../../src/kube/kubernetes/source.js';
import { patchStatusWithRetry } from '../../src/kube/retry.js';
import { FakeApiServer, type RecordedRequest } from './support/fake-apiserver.js';
import { eventually, server } from './support/fixtures.js';

const NS = 'team-a';
const BASE = `/apis/regent.dev/v1alpha1/namespaces/${NS}/servers`;
const line = (r: RecordedRequest): string => `${r.method} ${r.path}`;

describe('kubernetes adapter: requests on the wire', () => {
  let fake: FakeApiServer;
  let source: KubernetesResourceSource;
  beforeEach(async () => {
    fake = await FakeApiServer.start({ changeLogLimit: 10 });
    source = openKubernetesSource({ kubeConfig: fake.kubeConfig() });
  });
  afterEach(async () => {
    await source.close();
    const unexpected = fake.unexpected.map(line);
    await fake.close();
    expect(unexpected, 'requests the fake does not serve').to.deep.equal([]);
  });

  it('create POSTs the object to the namespaced collection, without status', async () => {
    await source.create({ ...server(NS, 'web-1'), status: { phase: 'Running' } });
    const [post] = fake.requests;
    expect(line(post!)).to.equal(`POST ${BASE}`);
    expect(post!.contentType).to.equal('application/json');
    expect(post!.body).to.deep.equal(server(NS, 'web-1'));
  });

  it('patchStatus sends a JSON merge patch to the status subresource with the resourceVersion precondition in the body', async () => {
    const created = await source.create(server(NS, 'web-1'));
    fake.clearRequests();
    await source.patchStatus('Server', NS, 'web-1', { phase: 'Building', macAddress: null }, { resourceVersion: created.metadata.resourceVersion });
    await source.patchStatus('Server', NS, 'web-1', { phase: 'Running' });
    expect(fake.requests).to.deep.equal([
      { method: 'PATCH', path: `${BASE}/web-1/status`, query: {}, contentType: 'application/merge-patch+json', body: { metadata: { resourceVersion: created.metadata.resourceVersion }, status: { phase: 'Building', macAddress: null } } },
      { method: 'PATCH', path: `${BASE}/web-1/status`, query: {}, contentType: 'application/merge-patch+json', body: { status: { phase: 'Running' } } },
    ]);
  });

  it('a 409 on a status patch is a Conflict; patchStatusWithRetry reads again and re-decides', async () => {
    await source.create(server(NS, 'web-1'));
    fake.failNext('PATCH', `${BASE}/web-1/status`, 409, 'Conflict');
    expect(await source.patchStatus('Server', NS, 'web-1', { phase: 'x' }, { resourceVersion: '1' }).catch((e: unknown) => e)).to.be.instanceOf(Conflict);
    fake.failNext('PATCH', `${BASE}/web-1/status`, 409, 'Conflict');
    fake.clearRequests();
    let decisions = 0;
    const result = await patchStatusWithRetry(source, 'Server', NS, 'web-1', () => {
      decisions += 1;
      return { phase: `Decision${decisions}` };
    });
    expect(decisions).to.equal(2);
    expect(result.status?.phase).to.equal('Decision2');
    expect(fake.requests.map(line)).to.deep.equal([`GET ${BASE}/web-1`, `PATCH ${BASE}/web-1/status`, `GET ${BASE}/web-1`, `PATCH ${BASE}/web-1/status`]);
    expect(fake.requests[2]!.body, 'the re-read is a plain GET').to.equal(undefined);
    expect((fake.requests[3]!.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion).to.match(/^\d+$/);
  });

  it('finalizers are merge patches of metadata.finalizers with the read resourceVersion', async () => {
    const created = await source.create(server(NS, 'web-1'));
    fake.clearRequests();
    await source.addFinalizer('Server', NS, 'web-1', 'regent.dev/cleanup');
    expect(fake.requests.map(line)).to.deep.equal([`GET ${BASE}/web-1`, `PATCH ${BASE}/web-1`]);
    expect(fake.requests[1]).to.deep.include({ contentType: 'application/merge-patch+json', body: { metadata: { finalizers: ['regent.dev/cleanup'], resourceVersion: created.metadata.resourceVersion } } });
    fake.clearRequests();
    await source.addFinalizer('Server', NS, 'web-1', 'regent.dev/cleanup');
    expect(fake.requests.map(line), 'an idempotent add reads and writes nothing').to.deep.equal([`GET ${BASE}/web-1`]);
  });

  it('a finalizer patch that meets a 409 reads again and retries', async () => {
    await source.create(server(NS, 'web-1'));
    fake.failNext('PATCH', `${BASE}/web-1`, 409, 'Conflict');
    fake.clearRequests();
    const result = await source.addFinalizer('Server', NS, 'web-1', 'regent.dev/cleanup');
    expect(result.metadata.finalizers).to.deep.equal(['regent.dev/cleanup']);
    expect(fake.requests.map(line)).to.deep.equal([`GET ${BASE}/web-1`, `PATCH ${BASE}/web-1`, `GET ${BASE}/web-1`, `PATCH ${BASE}/web-1`]);
  });

  it('apply GETs, then PUTs the merged object with the read resourceVersion; an unchanged apply writes nothing', async () => {
    const created = await source.create(server(NS, 'web-1', {}, { labels: { a: '1' } }));
    fake.clearRequests();
    const result = await source.apply(server(NS, 'web-1', { image: { name: 'ubuntu-22.04' } }, { labels: { b: '2' } }));
    expect(result.action).to.equal('configured');
    expect(fake.requests.map(line)).to.deep.equal([`GET ${BASE}/web-1`, `PUT ${BASE}/web-1`]);
    const put = fake.requests[1]!.body as { metadata: { resourceVersion: string; labels: Record<string, string> }; spec: { image: unknown } };
    expect(put.metadata.resourceVersion).to.equal(created.metadata.resourceVersion);
    expect(put.metadata.labels).to.deep.equal({ a: '1', b: '2' });
    expect(put.spec.image).to.deep.equal({ name: 'ubuntu-22.04' });
    fake.clearRequests();
    expect((await source.apply(server(NS, 'web-1', { image: { name: 'ubuntu-22.04' } }, { labels: { b: '2' } }))).action).to.equal('unchanged');
    expect(fake.requests.map(line)).to.deep.equal([`GET ${BASE}/web-1`]);
  });

  it('apply retries a PUT that meets a 409 from a fresh GET', async () => {
    await source.create(server(NS, 'web-1'));
    fake.failNext('PUT', `${BASE}/web-1`, 409, 'Conflict');
    fake.clearRequests();
    expect((await source.apply(server(NS, 'web-1', { image: { name: 'ubuntu-22.04' } }))).action).to.equal('configured');
    expect(fake.requests.map(line)).to.deep.equal([`GET ${BASE}/web-1`, `PUT ${BASE}/web-1`, `GET ${BASE}/web-1`, `PUT ${BASE}/web-1`]);
  });

  it('apply of a new object with an unknown field creates it and returns the server warning', async () => {
    const result = await source.apply({ ...server(NS, 'web-1'), spec: { ...server(NS, 'web-1').spec, colour: 'blue' } as never });
    expect(result.action).to.equal('created');
    expect(result.warnings).to.deep.equal(['unknown field "spec.colour"']);
  });

  it('delete sends DeleteOptions with background propagation and the resourceVersion precondition', async () => {
    const created = await source.create(server(NS, 'web-1'));
    fake.clearRequests();
    await source.delete('Server', NS, 'web-1', { resourceVersion: created.metadata.resourceVersion });
    expect(fake.requests).to.have.length(1);
    expect(fake.requests[0]).to.deep.include({ method: 'DELETE', path: `${BASE}/web-1` });
    expect(fake.requests[0]!.body).to.deep.equal({ apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', preconditions: { resourceVersion: created.metadata.resourceVersion } });
  });

  it('list and watch use the collection paths; watch asks for bookmarks from the list resourceVersion', async () => {
    const list = await source.list('Server', NS);
    await source.list('Server');
    const handle = source.watch('Server', { namespace: NS, resourceVersion: list.resourceVersion }, () => undefined);
    const all = source.watch('Server', { resourceVersion: list.resourceVersion }, () => undefined);
    await eventually(() => (fake.requests.filter((r) => r.query.watch === 'true').length === 2 ? true : undefined), 3000, 'two watch requests');
    await handle.close();
    await all.close();
    expect(fake.requests.map(line).slice(0, 2)).to.deep.equal([`GET ${BASE}`, 'GET /apis/regent.dev/v1alpha1/servers']);
    const watches = fake.requests.filter((r) => r.query.watch === 'true');
    expect(watches.map((r) => r.path).sort()).to.deep.equal([BASE, '/apis/regent.dev/v1alpha1/servers']);
    for (const w of watches) expect(w.query).to.deep.equal({ watch: 'true', resourceVersion: list.resourceVersion, allowWatchBookmarks: 'true', timeoutSeconds: '300' });
  });

  it('an in-stream 410 ends the watch with Gone, and the informer relists then watches from the new list version', async () => {
    await source.create(server(NS, 'a'));
    const informer = new Informer(source, 'Server', () => undefined, { namespace: NS, retryDelayMs: 20 });
    await informer.start();
    await eventually(() => (fake.requests.some((r) => r.query.watch === 'true') ? true : undefined), 3000, 'first watch');
    // Expire the informer's version: end its stream, then write more than the fake retains.
    fake.endWatches();
    for (let i = 0; i < 15; i++) await fake.store.patchStatus('Server', NS, 'a', { phase: `P${i}` });
    const requested = () => fake.requests.filter((r) => r.method === 'GET' && r.path === BASE).map((r) => (r.query.watch === 'true' ? `watch@${r.query.resourceVersion ?? ''}` : 'list'));
    // The wait includes the watch after the relist: the relisted cache (P14) is seen before the informer sends that
    // watch, and stopping at the cache alone failed 'a watch follows the relist' when two files ran side by side.
    await eventually(() => (informer.relists >= 1 && informer.get(NS, 'a')?.status?.phase === 'P14' && requested().at(-1)?.startsWith('watch@') ? true : undefined), 5000, 'relist, then a watch');
    await informer.stop();
    const sequence = requested();
    expect(sequence[0]).to.equal('list');
    expect(sequence.filter((s) => s === 'list').length).to.be.at.least(2);
    const secondList = sequence.lastIndexOf('list');
    expect(sequence[secondList + 1], 'a watch follows the relist').to.match(/^watch@\d+$/);
  });

  it('a server error is SourceUnavailable, and the informer keeps retrying until the server answers', async () => {
    fake.failNext('GET', BASE, 500, 'InternalError');
    expect(await source.list('Server', NS).catch((e: unknown) => e)).to.be.instanceOf(SourceUnavailable);
    fake.failNext('GET', BASE, 503, 'ServiceUnavailable');
    await source.create(server(NS, 'a'));
    const informer = new Informer(source, 'Server', () => undefined, { namespace: NS, retryDelayMs: 20 });
    await informer.start();
    await informer.stop();
    expect(informer.list().map((o) => o.metadata.name)).to.deep.equal(['a']);
  });

  it('events are POSTed as core/v1 Events; a repeat PATCHes count and lastTimestamp as a merge patch', async () => {
    const object = await source.create(server(NS, 'web-1'));
    fake.clearRequests();
    await source.recordEvent(object, 'Warning', 'RebuildParked', 'choose another image');
    await source.recordEvent(object, 'Warning', 'RebuildParked', 'choose another image');
    expect(fake.requests.map(line)).to.deep.equal([`POST /api/v1/namespaces/${NS}/events`, `PATCH /api/v1/namespaces/${NS}/events/${(fake.requests[0]!.body as { metadata: { name: string } }).metadata.name}`]);
    const posted = fake.requests[0]!.body as Record<string, unknown>;
    expect(posted).to.deep.include({ type: 'Warning', reason: 'RebuildParked', message: 'choose another image', count: 1, reportingComponent: 'regent' });
    expect(posted.involvedObject).to.deep.include({ kind: 'Server', name: 'web-1', namespace: NS, uid: object.metadata.uid });
    expect(fake.requests[1]).to.deep.include({ contentType: 'application/merge-patch+json' });
    expect((fake.requests[1]!.body as { count: number }).count).to.equal(2);
    fake.clearRequests();
    await source.listEvents({ kind: 'Server', namespace: NS, name: 'web-1' });
    expect(fake.requests[0]).to.deep.include({ method: 'GET', path: `/api/v1/namespaces/${NS}/events`, query: { fieldSelector: 'involvedObject.kind=Server,involvedObject.name=web-1' } });
  });
});
