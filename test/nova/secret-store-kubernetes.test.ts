/**
 * The Kubernetes reader of a namespaced SecretStore (src/nova/secret-store-kubernetes.ts) behind the namespaced gate
 * (src/nova/secret-store.ts), on the wire against the fake API server (real HTTP on 127.0.0.1): the exact GET it
 * sends, Ready and not Ready by the store's condition, an absent store and an absent CRD as "there is none", a server
 * failure as SecretStoreReadError with its status, and the default ClusterSecretStore refused without a request.
 */
import { expect } from 'chai';
import { DEFAULT_SECRET_STORE, namespacedSecretStoreGate, type SecretStoreGate } from '../../src/nova/secret-store.js';
import { SecretStoreReadError, kubernetesSecretStoreReader } from '../../src/nova/secret-store-kubernetes.js';
import { FakeApiServer, type RecordedRequest } from '../kube/support/fake-apiserver.js';

const NS = 'openstack';
const STORE = { name: 'openbao', kind: 'SecretStore' } as const;
const PATH = `/apis/external-secrets.io/v1beta1/namespaces/${NS}/secretstores/${STORE.name}`;
const line = (r: RecordedRequest): string => `${r.method} ${r.path}`;

describe('Nova secret store: the Kubernetes reader of a namespaced SecretStore', () => {
  let fake: FakeApiServer;
  let gate: SecretStoreGate;
  const seed = (status: Record<string, unknown>): void =>
    void fake.objects.put(fake.objects.path('secretstores', NS), { metadata: { name: STORE.name }, spec: { provider: { vault: { server: 'https://openbao.example:8200' } } }, status });

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    gate = namespacedSecretStoreGate(kubernetesSecretStoreReader(fake.kubeConfig()));
  });
  afterEach(async () => {
    const unexpected = fake.unexpected.map(line);
    await fake.close();
    expect(unexpected, 'requests the fake does not serve').to.deep.equal([]);
  });

  it('a SecretStore with Ready True is ready: one GET of external-secrets.io/v1beta1 secretstores/<name> in the Nova\'s namespace', async () => {
    seed({ conditions: [{ type: 'Ready', status: 'True', reason: 'Valid', message: 'store validated', lastTransitionTime: '2026-01-01T00:00:00Z' }] });
    expect(await gate.check(NS, STORE)).to.deep.equal({ kind: 'ready', message: 'SecretStore openbao is Ready' });
    expect(fake.requests.map(line)).to.deep.equal([`GET ${PATH}`]);
  });

  it('a SecretStore whose Ready is False is notReady, naming its reason and message', async () => {
    seed({ conditions: [{ type: 'Ready', status: 'False', reason: 'InvalidProviderConfig', message: 'unable to log in to OpenBao: permission denied' }] });
    expect(await gate.check(NS, STORE)).to.deep.equal({
      kind: 'notReady',
      message: 'waiting for SecretStore openbao to be Ready: InvalidProviderConfig: unable to log in to OpenBao: permission denied',
    });
    expect(fake.requests.map(line)).to.deep.equal([`GET ${PATH}`]);
  });

  it('a SecretStore without a status yet is notReady: it reports no Ready condition', async () => {
    seed({});
    expect(await gate.check(NS, STORE)).to.deep.equal({ kind: 'notReady', message: 'waiting for SecretStore openbao to be Ready: it reports no Ready condition yet' });
  });

  it('no such SecretStore (404 NotFound) is notReady: "there is none"', async () => {
    expect(await gate.check(NS, STORE)).to.deep.equal({ kind: 'notReady', message: `waiting for SecretStore openbao: there is none in namespace ${NS}` });
    expect(fake.requests.map(line)).to.deep.equal([`GET ${PATH}`]);
  });

  it('no External Secrets CRDs (the path itself is 404) is "there is none" as well', async () => {
    fake.failNext('GET', PATH, 404, 'NotFound', 'the server could not find the requested resource');
    expect(await gate.check(NS, STORE)).to.deep.equal({ kind: 'notReady', message: `waiting for SecretStore openbao: there is none in namespace ${NS}` });
  });

  it('a 500 is SecretStoreReadError with the status, the Status reason and message, in words of our own', async () => {
    seed({ conditions: [{ type: 'Ready', status: 'True' }] });
    fake.failNext('GET', PATH, 500, 'InternalError', 'etcdserver: request timed out');
    const error = await gate.check(NS, STORE).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(SecretStoreReadError);
    expect((error as SecretStoreReadError).status).to.equal(500);
    expect((error as SecretStoreReadError).message).to.equal(
      `reading SecretStore ${NS}/openbao (external-secrets.io/v1beta1): the API server answered 500 InternalError: etcdserver: request timed out`,
    );
  });

  it('an unreachable API server is SecretStoreReadError without a status', async () => {
    const reader = kubernetesSecretStoreReader(fake.kubeConfig());
    await fake.close();
    fake = await FakeApiServer.start(); // afterEach closes this one; the reader still points at the closed port
    const error = await reader(NS, STORE.name).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(SecretStoreReadError);
    expect((error as SecretStoreReadError).status).to.equal(undefined);
    expect((error as SecretStoreReadError).message).to.equal(`reading SecretStore ${NS}/openbao (external-secrets.io/v1beta1): cannot reach the Kubernetes API`);
  });

  it('the default (ClusterSecretStore openbao-cluster-store) is unsupported without any API call', async () => {
    const verdict = await gate.check(NS, DEFAULT_SECRET_STORE);
    expect(verdict.kind).to.equal('unsupported');
    expect(verdict.message).to.include('ClusterSecretStore openbao-cluster-store (the default)');
    expect(fake.requests).to.deep.equal([]);
  });
});
