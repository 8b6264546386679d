/**
 * The admission webhook (issue 30: who changed it on Kubernetes): a real HTTPS server on 127.0.0.1 with a
 * self-signed certificate made by the openssl CLI, over the in-memory event store. Every well-formed review is
 * allowed; a write of Regent's kinds appends `resource.admitted` with the authenticated user; a dry run appends
 * nothing; a broken body is a 400; a failing or slow store still allows. End to end with the recorder: the user the
 * webhook recorded is the verified author of the generation with the same spec. And the TLS pair is reloaded when
 * the files change (cert-manager's rotation).
 */
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import winston from 'winston';
import { MemoryEventStore } from '../../src/store/memory.js';
import type { EventStore } from '../../src/store/port.js';
import { startAdmissionWebhook, type AdmissionWebhook, type AdmissionWebhookOptions } from '../../src/kube/kubernetes/admission-webhook.js';
import { admissionEventOf, admittedRecordOf, parseAdmissionReview, type AdmissionRequest } from '../../src/resource-history/admission.js';
import { ResourceRecorder, specDigestOf, type RecordedObject } from '../../src/resource-history/recorder.js';
import { resourceStream, type Admitted, type ResourceRecord, type SpecChanged } from '../../src/resource-history/stream.js';
import { admissionWebhookOptionsOf, type StartCommandOptions } from '../../src/cli/commands/start.js';
import { UsageError } from '../../src/cli/errors.js';
import { startControlPlane } from '../../src/app/control-plane.js';
import { silentLogger } from '../../src/log/logger.js';

const OPENSSL = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;

/** A self-signed certificate for 127.0.0.1 in `dir` (tls.crt, tls.key). */
const makeCertificate = (dir: string, cn = '127.0.0.1'): void => {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${cn}`, '-addext', 'subjectAltName=IP:127.0.0.1', '-days', '1', '-keyout', join(dir, 'tls.key'), '-out', join(dir, 'tls.crt')], { stdio: 'ignore' });
};

const UID = '6a4c3f0e-0000-4000-8000-0000000000aa';
const SECRET_IN_SPEC = 'cloud-init-password-do-not-log';
const spec = (image: string) => ({ name: 'web-2', image: { id: image }, flavor: { name: 'm1.small' }, networkID: 'net-a', userData: `#cloud-config\npassword: ${SECRET_IN_SPEC}` });
const object = (image: string, generation = 1) => ({ apiVersion: 'regent.dev/v1alpha1', kind: 'Server', metadata: { name: 'web-2', namespace: 'team-a', uid: UID, generation }, spec: spec(image) });

const review = (overrides: Partial<AdmissionRequest> = {}) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'req-1',
    kind: { group: 'regent.dev', version: 'v1alpha1', kind: 'Server' },
    resource: { group: 'regent.dev', version: 'v1alpha1', resource: 'servers' },
    name: 'web-2',
    namespace: 'team-a',
    operation: 'UPDATE',
    userInfo: { username: 'alice@example.com', uid: 'u-1', groups: ['developers', 'system:authenticated'] },
    object: object('image-b', 2),
    oldObject: object('image-a', 1),
    dryRun: false,
    ...overrides,
  },
});

describe('admission webhook records (pure: AdmissionReview request → resource.admitted)', () => {
  it('an UPDATE: the user, the groups, the digest of the new spec, the request uid; metadata like the recorder\'s', () => {
    const event = admissionEventOf(review().request, { now: new Date('2026-12-05T10:00:00Z'), id: '00000000-0000-7000-8000-0000000000e1' })!;
    expect(event.type).to.equal('resource.admitted');
    expect(event.data).to.deep.equal({ type: 'resource.admitted', kind: 'Server', namespace: 'team-a', name: 'web-2', uid: UID, operation: 'UPDATE', specDigest: specDigestOf(spec('image-b')), user: { username: 'alice@example.com', groups: ['developers', 'system:authenticated'] }, requestUid: 'req-1' });
    expect(event.metadata).to.deep.equal({ machine: 'resource', machineVersion: 1, schemaVersion: 1, source: 'operator', actor: 'alice@example.com', correlationId: 'req-1', causationId: null, from: null, to: 'admitted', effects: [], recordedAt: '2026-12-05T10:00:00.000Z', subject: { kind: 'Server', namespace: 'team-a', name: 'web-2' } });
    expect(JSON.stringify(event)).to.not.include(SECRET_IN_SPEC);
  });

  it('a CREATE names the new object\'s uid; a DELETE the old object\'s uid and spec', () => {
    const created = admittedRecordOf(review({ operation: 'CREATE', oldObject: null }).request);
    expect(created).to.have.nested.property('record.uid', UID);
    expect((created as { record: Admitted }).record.specDigest).to.equal(specDigestOf(spec('image-b')));
    const deleted = admittedRecordOf(review({ operation: 'DELETE', object: null }).request);
    expect((deleted as { record: Admitted }).record).to.include({ operation: 'DELETE', uid: UID, specDigest: specDigestOf(spec('image-a')) });
  });

  it('nothing for a dry run, CONNECT, another group, a subresource, an UPDATE that leaves the spec, no uid or no user', () => {
    const skipped = (overrides: Partial<AdmissionRequest>) => admittedRecordOf(review(overrides).request);
    expect(skipped({ dryRun: true })).to.deep.equal({ skipped: 'a dry run' });
    expect(skipped({ operation: 'CONNECT' })).to.deep.equal({ skipped: 'operation CONNECT' });
    expect(skipped({ kind: { group: 'apps', version: 'v1', kind: 'Deployment' } })).to.have.property('skipped').that.matches(/group apps/);
    expect(skipped({ subResource: 'status' })).to.deep.equal({ skipped: 'subresource status' });
    expect(skipped({ oldObject: object('image-b', 2) })).to.deep.equal({ skipped: 'the spec is unchanged' });
    expect(skipped({ object: { metadata: { name: 'web-2' }, spec: spec('image-b') } })).to.deep.equal({ skipped: 'the object has no metadata.uid' });
    expect(skipped({ userInfo: {} })).to.deep.equal({ skipped: 'no userInfo.username' });
    expect(admissionEventOf(review({ dryRun: true }).request)).to.equal(undefined);
  });

  it('parses only admission.k8s.io/v1 AdmissionReviews with a request uid', () => {
    expect(parseAdmissionReview(review())).to.have.property('review');
    expect(parseAdmissionReview({ ...review(), apiVersion: 'admission.k8s.io/v1beta1' })).to.have.property('error').that.matches(/admissionReviewVersions: \[v1\]/);
    expect(parseAdmissionReview({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' })).to.deep.equal({ error: 'the AdmissionReview has no request' });
    expect(parseAdmissionReview({ ...review(), request: { operation: 'UPDATE' } })).to.deep.equal({ error: 'the AdmissionReview request has no uid' });
    expect(parseAdmissionReview([1, 2])).to.deep.equal({ error: 'expected an AdmissionReview object' });
  });
});

describe('regent serve --admission-webhook-port/--admission-webhook-tls', () => {
  const base = { host: '0.0.0.0' } as StartCommandOptions;
  it('both flags give the webhook on --host; neither gives none; one alone or a bad port is a usage error', () => {
    expect(admissionWebhookOptionsOf({ ...base, admissionWebhookPort: '9443', admissionWebhookTls: '/etc/regent/admission-webhook' })).to.deep.equal({ host: '0.0.0.0', port: 9443, tlsDir: '/etc/regent/admission-webhook' });
    expect(admissionWebhookOptionsOf(base)).to.equal(undefined);
    expect(() => admissionWebhookOptionsOf({ ...base, admissionWebhookPort: '9443' })).to.throw(UsageError, /--admission-webhook-port needs --admission-webhook-tls <dir>/);
    expect(() => admissionWebhookOptionsOf({ ...base, admissionWebhookTls: '/tls' })).to.throw(UsageError, /--admission-webhook-tls needs --admission-webhook-port <port>/);
    expect(() => admissionWebhookOptionsOf({ ...base, admissionWebhookPort: 'https', admissionWebhookTls: '/tls' })).to.throw(UsageError, /expected a port number/);
  });
});

(OPENSSL ? describe : describe.skip)(`admission webhook over HTTPS (issue 30)${OPENSSL ? '' : ' — skipped: the openssl CLI is not installed (it makes the test certificate)'}`, function () {
  this.timeout(30_000);
  let dir: string;
  let spare: string;
  let ca: Buffer[];
  let store: MemoryEventStore;
  let webhook: AdmissionWebhook | undefined;
  let logLines: string[];

  const logger = () =>
    winston.createLogger({ level: 'debug', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: new Writable({ write: (c: Buffer, _e, done) => (logLines.push(c.toString()), done()) }) })] });
  const start = async (options: Partial<AdmissionWebhookOptions> = {}) => {
    webhook = await startAdmissionWebhook({ store, logger: logger(), host: '127.0.0.1', port: 0, tlsDir: dir, ...options });
    return webhook;
  };
  const post = (body: string | object, options: { method?: string; path?: string } = {}): Promise<{ status: number; body: string; json?: Record<string, unknown>; fingerprint: string }> =>
    new Promise((resolve, reject) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      const url = new URL(options.path ?? '/validate', webhook!.url);
      const req = request(url, { method: options.method ?? 'POST', ca, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
        const fingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const out = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> | undefined;
          try {
            json = JSON.parse(out) as Record<string, unknown>;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: out, ...(json ? { json } : {}), fingerprint });
        });
      });
      req.on('error', reject);
      req.end(text);
    });
  const admitted = async (): Promise<Admitted[]> => (await store.readStream(resourceStream(UID))).map((e) => e.data as unknown as Admitted);
  const allowedFor = (uid: string) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } });

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-admission-'));
    spare = mkdtempSync(join(tmpdir(), 'regent-admission-spare-'));
    makeCertificate(dir);
    makeCertificate(spare, 'rotated');
    ca = [readFileSync(join(dir, 'tls.crt')), readFileSync(join(spare, 'tls.crt'))];
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(spare, { recursive: true, force: true });
  });
  beforeEach(() => {
    store = new MemoryEventStore();
    logLines = [];
  });
  afterEach(async () => {
    await webhook?.close();
    webhook = undefined;
  });

  it('an UPDATE of a Server: allowed (uid echoed), resource.admitted appended with the user; the log names no spec', async () => {
    await start();
    const answer = await post(review());
    expect(answer.status).to.equal(200);
    expect(answer.json).to.deep.equal(allowedFor('req-1'));
    const [record, ...rest] = await admitted();
    expect(rest).to.deep.equal([]);
    expect(record).to.deep.include({ type: 'resource.admitted', kind: 'Server', namespace: 'team-a', name: 'web-2', uid: UID, operation: 'UPDATE', requestUid: 'req-1', specDigest: specDigestOf(spec('image-b')) });
    expect(record!.user).to.deep.equal({ username: 'alice@example.com', groups: ['developers', 'system:authenticated'] });
    const [event] = await store.readStream(resourceStream(UID));
    expect(event!.metadata).to.include({ machine: 'resource', source: 'operator', actor: 'alice@example.com', correlationId: 'req-1', to: 'admitted' });
    expect(logLines.join('')).to.include('alice@example.com').and.include('web-2');
    expect(logLines.join(''), 'the object is never logged').to.not.include(SECRET_IN_SPEC).and.not.include('m1.small');
  });

  it('a dry run: allowed, nothing appended; another group: allowed, nothing appended', async () => {
    await start();
    expect((await post(review({ uid: 'req-dry', dryRun: true }))).json).to.deep.equal(allowedFor('req-dry'));
    expect((await post(review({ uid: 'req-apps', kind: { group: 'apps', version: 'v1', kind: 'Deployment' } }))).json).to.deep.equal(allowedFor('req-apps'));
    expect(await store.readAll()).to.deep.equal([]);
  });

  it('a bad body: 400 with the reason (not JSON, not v1, no request uid); 404 elsewhere, 405 for GET, 413 over the limit', async () => {
    await start({ maxBodyBytes: 64 * 1024 });
    const notJson = await post('{"apiVersion": "admission.k8s.io/v1", ');
    expect(notJson.status).to.equal(400);
    expect(notJson.body).to.match(/^the body is not JSON/);
    const beta = await post({ ...review(), apiVersion: 'admission.k8s.io/v1beta1' });
    expect(beta.status).to.equal(400);
    expect(beta.body).to.match(/not an admission.k8s.io\/v1 AdmissionReview: expected apiVersion admission.k8s.io\/v1, got "admission.k8s.io\/v1beta1"/);
    const noUid = await post({ ...review(), request: { operation: 'UPDATE' } });
    expect(noUid.status).to.equal(400);
    expect(noUid.body).to.include('the AdmissionReview request has no uid');
    expect((await post(review(), { path: '/mutate' })).status).to.equal(404);
    expect((await post('', { method: 'GET' })).status).to.equal(405);
    const huge = await post({ ...review(), padding: 'x'.repeat(128 * 1024) });
    expect(huge.status).to.equal(413);
    expect(huge.body).to.match(/over the limit of 65536 bytes/);
    expect(await store.readAll()).to.deep.equal([]);
  });

  it('a store that throws: still allowed, the failure logged; a store that hangs: allowed before the API server\'s timeout', async () => {
    let calls = 0;
    const failing: Pick<EventStore, 'append'> = { append: () => ((calls += 1), Promise.reject(new Error('database is locked'))) };
    await start({ store: failing as EventStore });
    const answer = await post(review());
    expect(answer.status).to.equal(200);
    expect(answer.json).to.deep.equal(allowedFor('req-1'));
    expect(calls).to.equal(1);
    expect(logLines.join('')).to.match(/could not record the request \(allowed anyway\)/).and.include('database is locked');
    await webhook!.close();
    const hanging: Pick<EventStore, 'append'> = { append: () => new Promise(() => undefined) };
    await start({ store: hanging as EventStore, appendTimeoutMs: 200 });
    const began = Date.now();
    expect((await post(review({ uid: 'req-slow' }))).json).to.deep.equal(allowedFor('req-slow'));
    expect(Date.now() - began).to.be.lessThan(2_000);
  });

  it('end to end with the recorder: the webhook\'s CREATE and UPDATE make their users the verified authors of generations 1 and 2', async () => {
    await start();
    const recorder = new ResourceRecorder({ store, platform: 'kubernetes', onError: (e) => { throw e; } });
    const created = object('image-a', 1);
    expect((await post(review({ uid: 'req-create', operation: 'CREATE', object: created, oldObject: null, userInfo: { username: 'alice@example.com', groups: ['developers'] } }))).status).to.equal(200);
    await recorder.observe(created as RecordedObject);
    // the recorder's head is cached now: the webhook's next append makes it read the stream again
    const updated = object('image-b', 2);
    expect((await post(review({ uid: 'req-update', object: updated, oldObject: created, userInfo: { username: 'bob@example.com' } }))).status).to.equal(200);
    await recorder.observe(updated as RecordedObject);
    const records = (await store.readStream(resourceStream(UID))).map((e) => e.data as unknown as ResourceRecord);
    expect(records.map((r) => r.type)).to.deep.equal(['resource.admitted', 'resource.specChanged', 'resource.admitted', 'resource.specChanged']);
    const changes = records.filter((r): r is SpecChanged => r.type === 'resource.specChanged');
    expect(changes.map((c) => c.generation)).to.deep.equal([1, 2]);
    expect(changes[0]!.author).to.deep.equal({ name: 'alice@example.com', channel: 'kubernetes', verified: true });
    expect(changes[1]!.author).to.deep.equal({ name: 'bob@example.com', channel: 'kubernetes', verified: true });
  });

  it('TLS: a rotated pair in the directory is served after the next poll; a broken pair keeps the loaded one', async () => {
    const rotating = mkdtempSync(join(tmpdir(), 'regent-admission-rotating-'));
    try {
      for (const file of ['tls.crt', 'tls.key']) copyFileSync(join(dir, file), join(rotating, file));
      await start({ tlsDir: rotating, reloadIntervalMs: 50 });
      const first = new X509Certificate(readFileSync(join(dir, 'tls.crt'))).fingerprint256;
      const second = new X509Certificate(readFileSync(join(spare, 'tls.crt'))).fingerprint256;
      expect((await post(review())).fingerprint).to.equal(first);
      // half a rotation: the new certificate with the old key does not load, the old pair keeps serving
      copyFileSync(join(spare, 'tls.crt'), join(rotating, 'tls.crt'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await post(review({ uid: 'req-2' }))).fingerprint).to.equal(first);
      expect(logLines.join('')).to.include('new TLS files do not load');
      copyFileSync(join(spare, 'tls.key'), join(rotating, 'tls.key'));
      const deadline = Date.now() + 5_000;
      let served = first;
      while (served !== second && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        served = (await post(review({ uid: 'req-3' }))).fingerprint;
      }
      expect(served).to.equal(second);
      expect(logLines.join('')).to.include('TLS certificate reloaded');
    } finally {
      rmSync(rotating, { recursive: true, force: true });
    }
  });

  it('regent serve\'s control plane: started with admissionWebhook it records into its store; the port taken is a listen error naming the flag', async () => {
    const data = mkdtempSync(join(tmpdir(), 'regent-admission-plane-'));
    const plane = await startControlPlane({ storeUrl: 'memory:', resourcesUrl: `embedded:${join(data, 'resources.db')}`, logger: silentLogger(), port: 0, env: {}, admissionWebhook: { host: '127.0.0.1', port: 0, tlsDir: dir } });
    try {
      expect(plane.admissionWebhookUrl).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
      webhook = { url: plane.admissionWebhookUrl!, reloadTls: () => Promise.resolve(false), close: () => Promise.resolve() };
      expect((await post(review({ uid: 'req-plane' }))).json).to.deep.equal(allowedFor('req-plane'));
      const [event] = await plane.store.readStream(resourceStream(UID));
      expect(event?.data).to.include({ type: 'resource.admitted', requestUid: 'req-plane' });
      const taken = Number(new URL(plane.admissionWebhookUrl!).port);
      let error: unknown;
      await startControlPlane({ storeUrl: 'memory:', resourcesUrl: `embedded:${join(data, 'second.db')}`, logger: silentLogger(), port: 0, env: {}, admissionWebhook: { host: '127.0.0.1', port: taken, tlsDir: dir } }).catch((e: unknown) => (error = e));
      expect(String(error)).to.match(/127\.0\.0\.1:\d+ is already in use \(another Regent\? pass --admission-webhook-port\)/);
    } finally {
      await plane.stop();
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('a directory without tls.crt and tls.key fails the start with the path and what it should hold', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'regent-admission-empty-'));
    try {
      writeFileSync(join(empty, 'tls.crt'), 'not a certificate');
      let error: unknown;
      await start({ tlsDir: empty }).catch((e: unknown) => (error = e));
      expect(String(error)).to.match(/cannot read .*tls\.key \(ENOENT\); --admission-webhook-tls names a directory with tls\.crt and tls\.key/);
      writeFileSync(join(empty, 'tls.key'), 'not a key');
      error = undefined;
      await start({ tlsDir: empty }).catch((e: unknown) => (error = e));
      expect(String(error)).to.match(/tls\.crt and tls\.key do not make a TLS certificate/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
