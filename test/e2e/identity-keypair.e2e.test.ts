/**
 * identityKeypair SSH injection end to end (issue 17; server-api.md: "Omitted values preserve the legacy
 * contract: requests with sshCertificateAuthorityId resolve to ca, all other requests resolve to
 * identityKeypair"; "GET /api/v2/servers/{serverID}/sshkey only returns the identity private key for servers
 * where Region requested identityKeypair SSH injection during create. It returns not found for ca and none
 * servers"). The whole control plane on the embedded stores, a Region with a managed domain on the simulator,
 * its REST API on 127.0.0.1: the identity realizes with its keypair in Nova under its own user; a Server
 * created with identityKeypair (by default) is created with that key_name, ca and none servers without one;
 * sshkey hands out the private key whose public half is the Nova keypair's, audited with the actor; 404 for
 * none and ca; a rebuild sends neither key_name nor user_data; the private key is in no stored event.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { connect } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { createTokenIssuer, ENDPOINTS, OPERATIONS } from '../../src/api/auth.js';
import { identityKeypairName, samePublicKey } from '../../src/provider/identity/keypair.js';
import { keypairKey } from '../../src/simulator/nova/model.js';
import { publicHalf } from '../controllers/ssh-keys.js';
import { planeOptions, until } from './support/plane.js';

interface Read { metadata: { id: string } }

describe('e2e: identityKeypair SSH injection (issue 17)', function () {
  this.timeout(120_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane | undefined;
  beforeEach(async () => {
    sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 100, serverDelete: 100, serverAction: 100 } });
    dir = mkdtempSync(join(tmpdir(), 'regent-keypair-'));
  });
  afterEach(async () => {
    await plane?.stop().catch(() => undefined);
    plane = undefined;
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the identity keypair reaches Nova only for identityKeypair servers, and sshkey hands out its private key (404 for none and ca)', async () => {
    const adminOs = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'));
    const domain = await adminOs.identityAdmin.createDomain({ name: 'regent-keypair' });
    const issuer = await createTokenIssuer();
    const admin = await issuer.sign({ sub: 'operator-jo', acl: { global: Object.values(ENDPOINTS).map((name) => ({ name, operations: [...OPERATIONS] })) } });
    const stranger = await issuer.sign({ sub: 'stranger', acl: { organizations: [{ id: 'other', endpoints: [{ name: ENDPOINTS.serversV2, operations: ['read'] }] }] } as never });
    plane = await startControlPlane(planeOptions(dir, sim, { api: { host: '127.0.0.1', port: 0, auth: { jwks: issuer.jwks } } }));
    await until('leadership', () => plane?.isLeader());
    await plane.source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-admin' });
    await applyManifests(plane.source, `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec:
  provider: openstack
  openstack: { endpoint: ${sim.url}/identity/v3, region: RegionOne, credentialsSecretRef: { name: region-one-credentials }, domainID: ${domain.id} }
---
apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: acme }
spec: { regionRef: { name: region-one }, organizationID: acme, projectID: web }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-a }
spec: { identityRef: { name: acme }, prefix: 10.0.0.0/24 }
`);
    const call = async (method: string, path: string, body?: unknown, token = admin) => {
      const response = await fetch(`${plane?.apiUrl}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      const text = await response.text();
      return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>), cacheControl: response.headers.get('cache-control') };
    };

    // the identity realizes with its keypair, owned by its own user
    const identityStatus = async () => (await plane?.source.get('Identity', 'default', 'acme'))?.status as { openstack?: { userID?: string }; conditions?: Array<{ type: string; status: string }> } | undefined;
    await until('the identity is available', async () => (await identityStatus())?.conditions?.some((c) => c.type === 'Available' && c.status === 'True'), 30_000);
    const uid = (await plane.source.get('Identity', 'default', 'acme'))?.metadata.uid as string;
    const userId = (await identityStatus())?.openstack?.userID as string;
    const keypair = sim.control.sim.nova.keypairs.get(keypairKey(userId, identityKeypairName(uid)));
    expect(keypair, 'the keypair is in Nova under the identity user').to.not.equal(undefined);

    // the ca server's CA, in the server's organization and project (the API checks the scope once the kind is served)
    await applyManifests(plane.source, `apiVersion: regent.dev/v1alpha1
kind: SSHCertificateAuthority
metadata: { name: ca-one }
spec: { organizationID: acme, projectID: web, publicKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBf0Vr1k8mZXJ4S8b0m3v8x2Q1q2WmXl0w8p4r8e6x0N test-ca }
`).catch(() => undefined);
    const userData = Buffer.from('#cloud-config\nruncmd: [echo hi]\n').toString('base64');
    const create = async (name: string, extra: Record<string, unknown>) => {
      const reply = await call('POST', '/api/v2/servers', { metadata: { name }, spec: { networkId: 'net-a', flavorId: '2', imageId: SEED.images.cirros, ...extra } });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      return (reply.body as unknown as Read).metadata.id;
    };
    const byDefault = await create('kp-1', { userData }); // omitted, no CA: identityKeypair
    const explicit = await create('kp-2', { sshInjection: 'identityKeypair' });
    const none = await create('none-1', { sshInjection: 'none' });
    const ca = await create('ca-1', { sshCertificateAuthorityId: 'ca-one' }); // omitted with a CA: ca
    const phase = async (id: string) => ((await plane?.source.get('Server', 'default', id))?.status as { phase?: string } | undefined)?.phase;
    for (const id of [byDefault, explicit, none, ca]) await until(`${id} runs`, async () => (await phase(id)) === 'Running', 60_000);

    // Nova: key_name only for identityKeypair
    const inNova = (name: string) => [...sim.control.sim.nova.servers.values()].find((s) => s.name === name);
    expect(inNova('kp-1')?.keyName).to.equal(identityKeypairName(uid));
    expect(inNova('kp-2')?.keyName).to.equal(identityKeypairName(uid));
    expect(inNova('none-1')?.keyName).to.equal(null);
    expect(inNova('ca-1')?.keyName).to.equal(null);
    const posts = sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/servers'));
    const postOf = (name: string) => posts.find((c) => (c.body as { server?: { name?: string } }).server?.name === name)?.body as { server: Record<string, unknown> };
    expect(postOf('none-1').server).to.not.have.property('key_name');
    expect(postOf('ca-1').server).to.not.have.property('key_name');

    // sshkey: the private key of the Nova keypair, for identityKeypair servers only
    const key = await call('GET', `/api/v2/servers/${byDefault}/sshkey`);
    expect(key.status, JSON.stringify(key.body)).to.equal(200);
    expect(key.cacheControl).to.equal('no-store');
    const privateKey = key.body?.privateKey as string;
    expect(privateKey).to.match(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    expect(samePublicKey(publicHalf(privateKey), keypair!.publicKey), 'its public half is the Nova keypair').to.equal(true);
    expect((await call('GET', `/api/v2/servers/${explicit}/sshkey`)).body?.privateKey).to.equal(privateKey);
    for (const [id, mode] of [[none, 'none'], [ca, 'ca']] as const) {
      const reply = await call('GET', `/api/v2/servers/${id}/sshkey`);
      expect(reply.status).to.equal(404);
      expect(reply.body?.error_description).to.include(`its sshInjection is ${mode}`);
    }
    // not visible to a caller without read access in its organization: 404, as for any server
    expect((await call('GET', `/api/v2/servers/${byDefault}/sshkey`, undefined, stranger)).status).to.equal(404);

    // a rebuild (image change) sends neither key_name nor user_data; Nova keeps the create-time key
    const current = (await call('GET', `/api/v2/servers/${byDefault}`)).body as { spec: Record<string, unknown> };
    expect((await call('PUT', `/api/v2/servers/${byDefault}`, { metadata: { name: 'kp-1' }, spec: { ...current.spec, imageId: SEED.images.ubuntu } })).status).to.equal(200);
    const rebuild = await until('the rebuild is sent', () => sim.calls().find((c) => c.method === 'POST' && c.path.endsWith('/action') && (c.body as Record<string, unknown> | undefined)?.rebuild !== undefined), 30_000);
    expect((rebuild.body as { rebuild: Record<string, unknown> }).rebuild).to.not.have.any.keys('key_name', 'user_data');
    expect(inNova('kp-1')?.keyName).to.equal(identityKeypairName(uid));

    // the hand-out is audited with its actor, never the key; the private key is in no stored event
    const events = await plane.store.readAll({});
    const audited = events.filter((e) => e.type === 'api.server.sshkey');
    expect(audited.length).to.be.greaterThan(0);
    expect(audited[0]?.metadata.actor).to.equal('operator-jo');
    expect((audited[0]?.data as { details?: Record<string, unknown> }).details).to.deep.equal({ keypair: identityKeypairName(uid), identity: 'acme' });
    const body = privateKey.split('\n').slice(1, -2).join('');
    const all = JSON.stringify(events);
    for (const needle of [body, body.slice(0, 60), body.slice(-60)]) expect(all).to.not.include(needle);
  });
});
