/**
 * Issue 17 on the real cloud: identityKeypair SSH injection. A registered Region's Identity realizes with its
 * Nova keypair `regent-<identity uid>`, imported by Regent as the identity's own user (Nova accepts the ed25519
 * public key Regent generated, and records it under that user); a Server whose sshInjection is omitted (no CA:
 * identityKeypair) is created through the control plane with that key_name, which Nova reports; the private
 * key in the identity's Secret is the half of the public key Nova holds (OpenSSH derives it); a `none` Server
 * reports no key_name. A `ca` Server (issue 17, sshInjection ca) gets no key_name and the user data Regent built
 * (the user's payload and the CA part), which Nova stores as sent. Deleting the Identity deletes the keypair.
 */
import { expect } from 'chai';
import type { ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { identitySecretName } from '../../src/provider/identity/names.js';
import { identityKeypairName, samePublicKey } from '../../src/provider/identity/keypair.js';
import type { RegistrationReport } from '../../src/provider/regions/register.js';
import { publicHalf } from '../controllers/ssh-keys.js';
import { cleanupNetworkAndServer, publicImage, registerRegionWithCleanup, startRealPlane, until } from './support/control-plane.js';
import { realRun, type Fixtures, type RealRun } from './support/run.js';
import { serverLifecycleStream } from '../../machines/server-lifecycle.js';
import { augmentUserDataWithCa } from '../../src/provider/ssh-ca-user-data.js';

const CA_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBf0Vr1k8mZXJ4S8b0m3v8x2Q1q2WmXl0w8p4r8e6x0N regent-real-ca';

interface Condition { type: string; status: string; reason: string; message: string }
interface Status { phase?: string; serverID?: string; conditions?: Condition[]; openstack?: { projectID?: string; userID?: string } }
type Kind = 'Region' | 'Identity' | 'Network' | 'Server';
const ns = 'default';

describe('issue 17 on the real cloud: the identity keypair, imported as the identity user, on an identityKeypair Server', function () {
  let run: RealRun;
  let fx: Fixtures;
  let admin: OpenStackSession;
  let plane: ControlPlane | undefined;
  let imageId: string;
  let regionName: string;
  let report: RegistrationReport;
  let identityName: string;
  let networkResource: string;
  let serverName: string;
  let noneName: string;
  let caServer: string;
  let caName: string;
  let identityUid: string;
  let userId: string;

  const statusOf = async (kind: Kind, name: string): Promise<Status | undefined> => (await plane?.source.get(kind, ns, name))?.status as Status | undefined;
  const availableTrue = (kind: Kind, name: string) =>
    until(`${kind} ${name} Available=True`, async () => ((await statusOf(kind, name))?.conditions?.find((c) => c.type === 'Available')?.status === 'True' ? statusOf(kind, name) : undefined), () => statusOf(kind, name));
  /** The keypair as the admin reads it for another user (compute 2.10: user_id). */
  const keypairOf = async (user: string, name: string): Promise<{ name: string; public_key: string; user_id: string } | undefined> => {
    try {
      return ((await admin.http('compute').get(`/os-keypairs/${encodeURIComponent(name)}`, { user_id: user })).data as { keypair: { name: string; public_key: string; user_id: string } }).keypair;
    } catch (error) {
      if ((error as { status?: number }).status === 404) return undefined;
      throw error;
    }
  };
  const running = (name: string) =>
    until(`Server ${name} Running`, async () => {
      const s = await statusOf('Server', name);
      return s?.phase === 'Running' && s;
    }, () => statusOf('Server', name));

  before(async function () {
    run = await realRun();
    if (run.target.adminCloud === undefined || run.admin === undefined) this.skip();
    admin = run.admin;
    fx = await run.fixtures();
    imageId = await publicImage(run, 'keypair');
    plane = await startRealPlane(run);
    regionName = run.name('kp');
    identityName = run.name('kp-identity');
    networkResource = run.name('kp-net');
    serverName = run.name('kp-srv');
    noneName = run.name('kp-none');
    caServer = run.name('kp-ca');
    caName = run.name('kp-users');
  });
  after(async () => {
    await plane?.stop();
  });

  it('the Identity realizes with its keypair in Nova, under its own user, whose public key is the half of the Secret\'s private key', async () => {
    const source = plane!.source;
    report = await registerRegionWithCleanup(run, source, regionName);
    await availableTrue('Region', regionName);
    await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: ${identityName} }
spec: { regionRef: { name: ${regionName} }, organizationID: acme, projectID: web }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: ${networkResource} }
spec: { identityRef: { name: ${identityName} }, prefix: 198.51.100.0/24 }
`);
    identityUid = (await source.get('Identity', ns, identityName))!.metadata.uid;
    const networkUid = (await source.get('Network', ns, networkResource))!.metadata.uid;
    cleanupNetworkAndServer(run, networkUid, serverName);
    cleanupNetworkAndServer(run, networkUid, noneName);
    cleanupNetworkAndServer(run, networkUid, caServer);
    const identity = await availableTrue('Identity', identityName);
    userId = identity!.openstack!.userID!;
    // the keypair outlives its user in Nova (Keystone's user delete does not cascade): removed by the admin if left
    run.cleanup.add(`keypair ${identityKeypairName(identityUid)}`, async () => {
      await admin.http('compute').delete(`/os-keypairs/${identityKeypairName(identityUid)}`, { user_id: userId }).catch(() => undefined);
    });
    const keypair = await keypairOf(userId, identityKeypairName(identityUid));
    expect(keypair, 'Nova has the keypair under the identity user').to.not.equal(undefined);
    expect(keypair!.user_id).to.equal(userId);
    expect(keypair!.public_key).to.match(/^ssh-ed25519 /);
    const secret = await source.secrets.get(ns, identitySecretName(identityUid));
    const privateKey = secret?.data.ssh_private_key as string;
    expect(samePublicKey(publicHalf(privateKey), keypair!.public_key), 'OpenSSH derives the Nova public key from the stored private key').to.equal(true);
    expect(report.domain.id).to.be.a('string');
  });

  it('a Server with sshInjection omitted (identityKeypair) is created with the key_name Nova reports; a none Server has none', async () => {
    const source = plane!.source;
    const manifest = (name: string, ssh: string) => `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: ${name} }
spec:
  name: ${name}
  image: { id: ${imageId} }
  flavor: { name: ${fx.flavorName} }
  networkID: ${networkResource}
${ssh}`;
    await applyManifests(source, [manifest(serverName, ''), manifest(noneName, '  sshInjection: none\n')].join('---\n'));
    const withKey = await running(serverName);
    const withoutKey = await running(noneName);
    const raw = async (id: string) => ((await admin.http('compute').get(`/servers/${id}`)).data as { server: { key_name: string | null; user_id: string } }).server;
    const keyed = await raw(withKey.serverID!);
    expect(keyed.key_name, 'Nova reports the identity keypair').to.equal(identityKeypairName(identityUid));
    expect(keyed.user_id, 'created by the identity user, who owns the keypair').to.equal(userId);
    expect((await raw(withoutKey.serverID!)).key_name).to.equal(null);
  });

  it('a ca Server (its CA of the identity\'s organization and project) is created with no key_name and the user data Regent built: the user\'s payload unmodified beside the CA part; Nova stores it as sent', async () => {
    const source = plane!.source;
    const user = '#cloud-config\nhostname: regent-ca\n';
    await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: SSHCertificateAuthority
metadata: { name: ${caName} }
spec: { organizationID: acme, projectID: web, publicKey: "${CA_KEY}" }
---
apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: ${caServer} }
spec:
  name: ${caServer}
  image: { id: ${imageId} }
  flavor: { name: ${fx.flavorName} }
  networkID: ${networkResource}
  sshInjection: ca
  sshCertificateAuthorityId: ${caName}
  userData: ${Buffer.from(user).toString('base64')}
`);
    run.cleanup.add(`ssh ca ${caName}`, async () => void (await source.delete('SSHCertificateAuthority', ns, caName).catch(() => undefined)));
    const created = await running(caServer);
    // compute 2.3+: the admin reads the server's user data back
    const server = ((await admin.http('compute').get(`/servers/${created.serverID}`)).data as { server: { key_name: string | null; 'OS-EXT-SRV-ATTR:user_data'?: string | null } }).server;
    expect(server.key_name).to.equal(null);
    const stored = server['OS-EXT-SRV-ATTR:user_data'];
    expect(stored, 'Nova keeps the user data').to.be.a('string');
    const uid = (await source.get('Server', ns, caServer))!.metadata.uid;
    const desired = (await plane!.store.readStream(serverLifecycleStream(uid))).find((e) => e.type === 'serverLifecycle.createSubmitted')?.data as unknown as { desired: { sshCertificateAuthority: { publicKey: string } } };
    const expected = augmentUserDataWithCa(Buffer.from(user), desired.desired.sshCertificateAuthority.publicKey);
    expect(Buffer.from(stored as string, 'base64').toString('utf8'), 'byte for byte what Regent built').to.equal(expected);
    expect(expected.replace(/\r\n/g, '')).to.include(Buffer.from(user).toString('base64'));
    await source.delete('Server', ns, caServer);
  });

  it('deleting the Servers, the Network and the Identity deletes the keypair (before the user)', async () => {
    const source = plane!.source;
    for (const name of [serverName, noneName, caServer]) await source.delete('Server', ns, name).catch(() => undefined);
    await until('the Servers gone', async () => (await source.get('Server', ns, serverName)) === undefined && (await source.get('Server', ns, noneName)) === undefined && (await source.get('Server', ns, caServer)) === undefined);
    await source.delete('Network', ns, networkResource);
    await until('the Network gone', async () => (await source.get('Network', ns, networkResource)) === undefined);
    await source.delete('Identity', ns, identityName);
    await until('the Identity gone', async () => (await source.get('Identity', ns, identityName)) === undefined);
    expect(await keypairOf(userId, identityKeypairName(identityUid))).to.equal(undefined);
  });
});
