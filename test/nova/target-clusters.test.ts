/**
 * The registry of target clusters (src/nova/target-clusters.ts; issue 27): a Secret `target-cluster-<name>` with a
 * kubeconfig registers a cluster; it resolves only when the kubeconfig parses and the cluster answers GET /version.
 * Each answer is kept for the TTL; no credential of the kubeconfig reaches a message.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretTargetClusters, targetClusterSecretName } from '../../src/nova/target-clusters.js';
import type { StoredSecret } from '../../src/kube/secrets.js';

const TOKEN = 'tok-S3cret-value';
const kubeconfig = (server: string): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'edge', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'regent', user: { token: TOKEN } }],
    contexts: [{ name: 'edge', context: { cluster: 'edge', user: 'regent' } }],
    'current-context': 'edge',
  });

describe('target clusters: the kubeconfig Secret registry', () => {
  let server: Server;
  let url: string;
  let answer = 200;
  let versionCalls = 0;
  const secrets = new Map<string, Record<string, string>>();
  const store = { get: async (namespace: string, name: string): Promise<StoredSecret | undefined> => (secrets.has(`${namespace}/${name}`) ? { data: secrets.get(`${namespace}/${name}`)!, version: '1', labels: {} } : undefined) };
  const register = (cluster: string, data: Record<string, string>) => secrets.set(`openstack/${targetClusterSecretName(cluster)}`, data);

  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/version') versionCalls += 1;
      res.writeHead(req.url === '/version' ? answer : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ major: '1', minor: '31', gitVersion: 'v1.31.0' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    secrets.clear();
    answer = 200;
    versionCalls = 0;
  });

  it('no Secret, or no kubeconfig key → unregistered, naming the Secret', async () => {
    const clusters = new SecretTargetClusters({ secrets: store });
    const none = await clusters.resolve('openstack', 'edge');
    expect(none).to.deep.include({ kind: 'unregistered' });
    expect((none as { message: string }).message).to.contain('openstack/target-cluster-edge');
    register('edge', { other: 'x' });
    const keyless = await new SecretTargetClusters({ secrets: store }).resolve('openstack', 'edge');
    expect(keyless).to.deep.include({ kind: 'unregistered' });
    expect((keyless as { message: string }).message).to.contain('has no key kubeconfig');
  });

  it('a kubeconfig that does not parse, or names no server → unresolvable', async () => {
    register('edge', { kubeconfig: 'clusters: [' });
    expect(await new SecretTargetClusters({ secrets: store }).resolve('openstack', 'edge')).to.deep.include({ kind: 'unresolvable' });
    register('edge', { kubeconfig: JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [] }) });
    const serverless = await new SecretTargetClusters({ secrets: store }).resolve('openstack', 'edge');
    expect(serverless).to.deep.include({ kind: 'unresolvable' });
  });

  it('a cluster that does not answer /version (closed port, 500) → unresolvable; no credential in the message', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    register('edge', { kubeconfig: kubeconfig(`http://127.0.0.1:${port}`) });
    const refused = await new SecretTargetClusters({ secrets: store, probeTimeoutMs: 2_000 }).resolve('openstack', 'edge');
    expect(refused).to.deep.include({ kind: 'unresolvable' });
    expect(JSON.stringify(refused)).to.not.contain(TOKEN);
    answer = 500;
    register('edge', { kubeconfig: kubeconfig(url) });
    const failing = await new SecretTargetClusters({ secrets: store }).resolve('openstack', 'edge');
    expect(failing).to.deep.include({ kind: 'unresolvable' });
    expect((failing as { message: string }).message).to.contain('answered 500');
    expect(JSON.stringify(failing)).to.not.contain(TOKEN);
  });

  it('a cluster that answers → resolved with its server; the answer is kept for the TTL, then asked again', async () => {
    let now = 0;
    register('edge', { kubeconfig: kubeconfig(url) });
    const clusters = new SecretTargetClusters({ secrets: store, ttlMs: 15_000, now: () => now });
    const resolved = await clusters.resolve('openstack', 'edge');
    expect(resolved.kind).to.equal('resolved');
    expect(resolved.kind === 'resolved' && resolved.cluster.server).to.equal(url);
    now = 14_999;
    await clusters.resolve('openstack', 'edge');
    expect(versionCalls, 'within the TTL: one probe').to.equal(1);
    now = 15_000;
    answer = 503;
    expect(await clusters.resolve('openstack', 'edge'), 'after the TTL the cluster is asked again').to.deep.include({ kind: 'unresolvable' });
    expect(versionCalls).to.equal(2);
  });
});
