/**
 * The kubernetes secret store's exact requests, asserted at the HTTP level against the fake API
 * server: core/v1 paths, Opaque bodies with base64 data and the managed-by label, the read's
 * resourceVersion on a PUT, 404/409 handling, label selectors — and errors that carry neither a value
 * nor the API server's text. The conformance suite proves the semantics; these tests pin the wire.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { BadRequest, Conflict, Invalid, SourceUnavailable } from '../../src/kube/errors.js';
import { openKubernetesSource, type KubernetesResourceSource } from '../../src/kube/kubernetes/source.js';
import { FakeApiServer, type RecordedRequest } from './support/fake-apiserver.js';
import { errorTexts, leaksIn } from './secrets.conformance.js';

const NS = 'regent-system';
const BASE = `/api/v1/namespaces/${NS}/secrets`;
const line = (r: RecordedRequest): string => `${r.method} ${r.path}`;
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const MANAGED = { 'app.kubernetes.io/managed-by': 'regent' };

describe('kubernetes secret store: requests on the wire', () => {
  let fake: FakeApiServer;
  let source: KubernetesResourceSource;
  const values = new Set<string>();
  const value = (label: string): string => {
    const v = `v-${label}-${randomBytes(9).toString('hex')}`;
    values.add(v);
    return v;
  };
  beforeEach(async () => {
    fake = await FakeApiServer.start();
    source = openKubernetesSource({ kubeConfig: fake.kubeConfig() });
  });
  afterEach(async () => {
    await source.close();
    const unexpected = fake.unexpected.map(line);
    await fake.close();
    expect(unexpected, 'requests the fake does not serve').to.deep.equal([]);
  });

  it('put of a new secret is GET (404) then POST of an Opaque Secret: data base64, labels managed-by plus the caller\'s', async () => {
    const password = value('pw');
    const result = await source.secrets.put(NS, 'region-one', { password, user: 'admin' }, { labels: { 'regent.dev/region': 'region-one' } });
    expect(fake.requests.map(line)).to.deep.equal([`GET ${BASE}/region-one`, `POST ${BASE}`]);
    expect(fake.requests[1]!.contentType).to.equal('application/json');
    expect(fake.requests[1]!.body).to.deep.equal({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'region-one', namespace: NS, labels: { 'regent.dev/region': 'region-one', ...MANAGED } },
      type: 'Opaque',
      data: { password: b64(password), user: b64('admin') },
    });
    expect(result).to.deep.equal({ version: (fake.secrets.get(`${NS}/region-one`)!.metadata as { resourceVersion: string }).resourceVersion, created: true });
  });

  it('put over an existing secret is GET then PUT with the read\'s resourceVersion; what others set (annotations, owners) is kept', async () => {
    await source.secrets.put(NS, 'cred', { token: value('old') });
    const stored = fake.secrets.get(`${NS}/cred`)! as { metadata: Record<string, unknown> };
    stored.metadata.annotations = { 'example.com/note': 'kept' };
    stored.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1' }];
    const read = stored.metadata.resourceVersion as string;
    fake.clearRequests();
    const token = value('new');
    const result = await source.secrets.put(NS, 'cred', { token });
    expect(fake.requests.map(line)).to.deep.equal([`GET ${BASE}/cred`, `PUT ${BASE}/cred`]);
    expect(fake.requests[1]!.body).to.deep.equal({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'cred', namespace: NS, resourceVersion: read, labels: MANAGED, annotations: { 'example.com/note': 'kept' }, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1' }] },
      type: 'Opaque',
      data: { token: b64(token) },
    });
    expect(BigInt(result.version) > BigInt(read)).to.equal(true);
  });

  it('a put that changes nothing is one GET and no write', async () => {
    const data = { token: value('same') };
    const first = await source.secrets.put(NS, 'cred', data);
    fake.clearRequests();
    expect(await source.secrets.put(NS, 'cred', { ...data })).to.deep.equal({ version: first.version, created: false });
    expect(fake.requests.map(line)).to.deep.equal([`GET ${BASE}/cred`]);
  });

  it('a 409 on the PUT (another writer) reads again and writes over the newer secret: the last write wins', async () => {
    await source.secrets.put(NS, 'cred', { token: value('v1') });
    fake.failNext('PUT', `${BASE}/cred`, 409, 'Conflict');
    fake.clearRequests();
    const token = value('v2');
    await source.secrets.put(NS, 'cred', { token });
    expect(fake.requests.map(line)).to.deep.equal([`GET ${BASE}/cred`, `PUT ${BASE}/cred`, `GET ${BASE}/cred`, `PUT ${BASE}/cred`]);
    expect((await source.secrets.get(NS, 'cred'))?.data).to.deep.equal({ token });
  });

  it('a 409 AlreadyExists on the POST (a writer created it first) reads again and replaces it', async () => {
    fake.failNext('POST', BASE, 409, 'AlreadyExists');
    await source.secrets.put(NS, 'raced', { token: value('first') }).catch(() => undefined);
    expect(fake.requests.map(line).slice(0, 3)).to.deep.equal([`GET ${BASE}/raced`, `POST ${BASE}`, `GET ${BASE}/raced`]);
  });

  it('a writer that keeps losing gives up after ten attempts with Conflict', async () => {
    await source.secrets.put(NS, 'cred', { token: value('v1') });
    for (let i = 0; i < 10; i++) fake.failNext('PUT', `${BASE}/cred`, 409, 'Conflict');
    fake.clearRequests();
    expect(await source.secrets.put(NS, 'cred', { token: value('v2') }).catch((e: unknown) => e)).to.be.instanceOf(Conflict);
    expect(fake.requests.filter((r) => r.method === 'PUT')).to.have.length(10);
  });

  it('delete is one DELETE; a 404 answers false', async () => {
    await source.secrets.put(NS, 'cred', { token: value('del') });
    fake.clearRequests();
    expect(await source.secrets.delete(NS, 'cred')).to.equal(true);
    expect(await source.secrets.delete(NS, 'cred')).to.equal(false);
    expect(fake.requests.map(line)).to.deep.equal([`DELETE ${BASE}/cred`, `DELETE ${BASE}/cred`]);
  });

  it('list asks the API server for the managed-by label (and the caller\'s selector): a Secret Regent does not manage is not listed', async () => {
    await source.secrets.put(NS, 'ours', { token: value('ours') }, { labels: { tier: 'region' } });
    fake.secrets.set(`${NS}/theirs`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'theirs', namespace: NS, resourceVersion: '1' }, type: 'Opaque', data: { x: b64('y') } });
    fake.clearRequests();
    expect((await source.secrets.list(NS)).map((s) => s.name)).to.deep.equal(['ours']);
    expect((await source.secrets.list(undefined, 'tier=region')).map((s) => s.name)).to.deep.equal(['ours']);
    expect(fake.requests.map((r) => `${line(r)} ${r.query.labelSelector}`)).to.deep.equal([
      `GET ${BASE} app.kubernetes.io/managed-by=regent`,
      'GET /api/v1/secrets app.kubernetes.io/managed-by=regent,tier=region',
    ]);
    expect(await source.secrets.list(NS, 'tier in region').catch((e: unknown) => e), 'refused before a request').to.be.instanceOf(BadRequest);
    expect(fake.requests).to.have.length(2);
  });

  it('get reads any Secret (a Region may name one an operator created); a key that is not UTF-8 is Invalid naming the key', async () => {
    fake.secrets.set(`${NS}/operator-made`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'operator-made', namespace: NS, resourceVersion: '7' }, type: 'Opaque', data: { 'clouds.yaml': b64('clouds: {}') } });
    expect(await source.secrets.get(NS, 'operator-made')).to.deep.equal({ data: { 'clouds.yaml': 'clouds: {}' }, version: '7', labels: {} });
    fake.secrets.set(`${NS}/binary`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'binary', namespace: NS, resourceVersion: '8' }, type: 'Opaque', data: { key: Buffer.from([0xff, 0xfe, 0x00]).toString('base64') } });
    const error = await source.secrets.get(NS, 'binary').catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Invalid);
    expect((error as Invalid).causes.map((c) => c.path)).to.deep.equal(['data[key]']);
  });

  it('a Secret of another type is never overwritten: Invalid naming type, and no write is sent', async () => {
    fake.secrets.set(`${NS}/tls`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls', namespace: NS, resourceVersion: '9' }, type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k') } });
    const error = await source.secrets.put(NS, 'tls', { token: value('tls') }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Invalid);
    expect((error as Invalid).causes.map((c) => c.path)).to.deep.equal(['type']);
    expect(fake.requests.map(line)).to.deep.equal([`GET ${BASE}/tls`]);
  });

  it('an error carries no value and none of the API server\'s text, even when the server echoes the request (422, 400, 500, a network failure)', async () => {
    const token = value('echoed');
    const errors: unknown[] = [];
    const attempt = async (status: number, reason: string, method = 'POST', path = BASE): Promise<unknown> => {
      fake.failNext(method, path, status, reason, `admission webhook "x" denied the request: data.token=${token} (${b64(token)})`);
      const error = await source.secrets.put(NS, 'echo', { token }).catch((e: unknown) => e);
      errors.push(error);
      return error;
    };
    expect(await attempt(422, 'Invalid')).to.be.instanceOf(Invalid);
    expect(await attempt(400, 'BadRequest')).to.be.instanceOf(BadRequest);
    const unavailable = await attempt(500, 'InternalError');
    expect(unavailable).to.be.instanceOf(SourceUnavailable);
    expect(await attempt(503, 'ServiceUnavailable', 'GET', `${BASE}/echo`)).to.be.instanceOf(SourceUnavailable);
    await source.secrets.put(NS, 'echo', { token: value('before') });
    expect(await attempt(500, 'InternalError', 'PUT', `${BASE}/echo`)).to.be.instanceOf(SourceUnavailable);
    await fake.close(); // the API server goes away
    const gone = await source.secrets.put(NS, 'echo', { token }).catch((e: unknown) => e);
    errors.push(gone);
    expect(gone).to.be.instanceOf(SourceUnavailable);
    fake = await FakeApiServer.start(); // for afterEach
    expect(leaksIn(errors.flatMap(errorTexts), values)).to.deep.equal([]);
    expect(errors.flatMap(errorTexts).some((t) => t.includes('admission webhook')), "the server's text").to.equal(false);
    expect((unavailable as Error).message).to.equal('Secret "regent-system/echo": the API server answered 500 InternalError');
    expect((gone as Error).message).to.match(/^Secret "regent-system\/echo": cannot reach the Kubernetes API/);
  });
});
