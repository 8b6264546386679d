/**
 * sshInjection ca end to end (issue 17; server-api.md: "create/update can validate and bind an SSH
 * certificate authority"; "a referenced SSH certificate authority … must share the server's organization
 * and project"). The whole control plane on embedded stores against the simulator: a Server bound to a CA
 * of its tenancy is created with user data that carries the user's payload unmodified and Regent's CA part
 * (sshd TrustedUserCAKeys), and no key_name; a Server applied as a custom resource (it never passed the
 * API's check) naming a CA of another tenancy is not created, visibly (SshCertificateAuthorityUnusable),
 * until a CA of its own tenancy exists under that name.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { CA_KEY_PATH } from '../../src/provider/ssh-ca-user-data.js';
import { networkManifest, planeOptions, until } from './support/plane.js';

interface Condition { type: string; status: string; reason: string; message: string }

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBf0Vr1k8mZXJ4S8b0m3v8x2Q1q2WmXl0w8p4r8e6x0N acme-user-ca';
const ca = (name: string, org: string, project: string) => `apiVersion: regent.dev/v1alpha1
kind: SSHCertificateAuthority
metadata: { name: ${name} }
spec: { organizationID: ${org}, projectID: ${project}, publicKey: "${KEY}" }
`;
const server = (name: string, caName: string, userData?: string) => `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: ${name} }
spec:
  name: ${name}
  image: { id: ${SEED.images.cirros} }
  flavor: { name: m1.small }
  networkID: net-a
  sshInjection: ca
  sshCertificateAuthorityId: ${caName}
${userData ? `  userData: ${userData}\n` : ''}`;

describe('e2e: sshInjection ca (issue 17)', function () {
  this.timeout(120_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane | undefined;
  beforeEach(async () => {
    sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 100, serverDelete: 100, serverAction: 100 } });
    dir = mkdtempSync(join(tmpdir(), 'regent-sshca-'));
    plane = await startControlPlane(planeOptions(dir, sim));
    await until('leadership', () => plane?.isLeader());
    await applyManifests(plane.source, networkManifest);
  });
  afterEach(async () => {
    await plane?.stop().catch(() => undefined);
    plane = undefined;
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const status = async (name: string) => (await plane?.source.get('Server', 'default', name))?.status as { phase?: string; conditions?: Condition[] } | undefined;
  const condition = async (name: string, type: string) => (await status(name))?.conditions?.find((c) => c.type === type);
  const createPosts = (name: string) => sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/servers') && (c.body as { server?: { name?: string } } | undefined)?.server?.name === name);

  it('a CA of the server\'s tenancy reaches the guest beside the user\'s payload, unmodified, and no key_name is sent', async () => {
    const user = '#cloud-config\nhostname: ca-1\n';
    await applyManifests(plane!.source, [ca('web-ca', 'acme', 'web'), server('ca-1', 'web-ca', Buffer.from(user).toString('base64'))].join('---\n'));
    await until('the server runs', async () => (await status('ca-1'))?.phase === 'Running', 60_000);
    const body = createPosts('ca-1')[0]?.body as { server: Record<string, unknown> };
    expect(body.server).to.not.have.property('key_name');
    const sent = Buffer.from(String(body.server.user_data), 'base64').toString('utf8');
    expect(sent).to.match(/^Content-Type: multipart\/mixed; boundary="==REGENT-/);
    // the user's payload as one part, byte for byte (base64), and Regent's part with the key and the sshd directive
    expect(sent.replace(/\r\n/g, '')).to.include(Buffer.from(user).toString('base64'));
    const parts = sent.split(/--==REGENT-[0-9a-f]+==/).map((p) => p.split('\r\n\r\n').slice(1).join('').replace(/\s+/g, ''));
    const regent = parts.map((p) => Buffer.from(p, 'base64').toString('utf8')).find((t) => t.includes(CA_KEY_PATH)) ?? '';
    expect(regent).to.include(KEY).and.include(`TrustedUserCAKeys ${CA_KEY_PATH}`);
    // the CA's own status: its key read back, with the fingerprint ssh-keygen -l prints
    const caStatus = (await plane!.source.get('SSHCertificateAuthority', 'default', 'web-ca'))?.status as { phase?: string; fingerprint?: string; conditions?: Condition[] } | undefined;
    expect(caStatus?.phase).to.equal('Ready');
    expect(caStatus?.fingerprint).to.equal('SHA256:ZfnXZTExAWD20Zf2MLgo/ao426KqWkWIFNgovGx8RRM');
    expect(caStatus?.conditions?.find((c) => c.type === 'Available')).to.include({ status: 'True', reason: 'KeyValid' });
    // SpecRealized no longer names the CA
    expect((await condition('ca-1', 'SpecRealized'))?.message ?? '').to.not.include('sshCertificateAuthorityId');
  });

  it('a Server applied directly, naming a CA of another tenancy, is not created until its own tenancy holds that CA', async () => {
    await applyManifests(plane!.source, [ca('ops-ca', 'other', 'ops'), server('ca-2', 'ops-ca')].join('---\n'));
    await until('the CA is refused, visibly', async () => (await condition('ca-2', 'Available'))?.reason === 'SshCertificateAuthorityUnusable', 30_000);
    expect((await condition('ca-2', 'Available'))?.message).to.include('no SSH certificate authority "ops-ca" in the server\'s organization and project (acme/web)');
    expect(createPosts('ca-2')).to.have.length(0);
    // the CA replaced by one of the server's own tenancy (the tenancy is immutable: delete and create)
    await plane!.source.delete('SSHCertificateAuthority', 'default', 'ops-ca');
    await applyManifests(plane!.source, ca('ops-ca', 'acme', 'web'));
    await until('the server runs', async () => (await status('ca-2'))?.phase === 'Running', 90_000);
    expect(createPosts('ca-2')).to.have.length(1);
  });
});
