/**
 * Issue 12 end to end on the real cloud: the whole control plane (informers, the Volume controller, the
 * Server's volume pass, engine, status runner) against the sandbox's real Keystone, Nova and Cinder.
 * A registered Region (its own managed domain) whose VolumeClass allowlist names one real Cinder type, an
 * Identity, its Network, a Server and a Volume:
 *   create → Available (the Cinder volume `volume-<uid>` in the identity's project, with Regent's metadata);
 *   attach through Server.spec.volumes (Server.status.volumes Attached, Cinder in-use, InUse names the Server);
 *   a Volume deletion while attached waits naming the Server and sends no delete;
 *   removing it from spec.volumes detaches through Nova, and the waiting deletion then completes,
 *   confirmed by absence in Cinder.
 * Everything is registered for deletion as soon as it exists, volumes first (they outlive nothing).
 */
import { expect } from 'chai';
import type { ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import type { RegistrationReport } from '../../src/provider/regions/register.js';
import { volumeCloudName } from '../../machines/volume-lifecycle.js';
import type { Region } from '../../src/resources/region.js';
import { cleanupNetworkAndServer, publicImage, registerRegionWithCleanup, startRealPlane, until } from './support/control-plane.js';
import { realRun, type Fixtures, type RealRun } from './support/run.js';
import { sleep } from './support/wait.js';

interface Condition { type: string; status: string; reason: string; message: string }
interface Status {
  phase?: string;
  serverID?: string;
  volumeID?: string;
  state?: string;
  size?: number;
  conditions?: Condition[];
  volumes?: Array<{ volumeID: string; device?: string; state: string }>;
  openstack?: { projectID?: string };
}
type Kind = 'Region' | 'Identity' | 'Network' | 'Server' | 'Volume';
const ns = 'default';

describe('issue 12 on the real cloud: a Volume and its attachment through the control plane, on the identity\'s credentials', function () {
  let run: RealRun;
  let fx: Fixtures;
  let admin: OpenStackSession;
  let plane: ControlPlane | undefined;
  let imageId: string;
  let typeId: string;
  let regionName: string;
  let identityName: string;
  let networkResource: string;
  let serverName: string;
  let volumeName: string;
  let volumeUid: string;
  let cinderId: string;
  let projectId: string;

  const statusOf = async (kind: Kind, name: string): Promise<Status | undefined> => (await plane?.source.get(kind, ns, name))?.status as Status | undefined;
  const conditionOf = async (kind: Kind, name: string, type: string) => (await statusOf(kind, name))?.conditions?.find((c) => c.type === type);
  const serverManifest = (volumes: string[]) => `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: ${serverName} }
spec:
  name: ${serverName}
  image: { id: ${imageId} }
  flavor: { name: ${fx.flavorName} }
  networkID: ${networkResource}
  sshInjection: none
  volumes: [${volumes.map((v) => `{ volumeID: ${v} }`).join(', ')}]
`;
  const cinderVolume = async () => (await admin.cinder.listVolumes({ name: volumeCloudName(volumeUid), all_tenants: true })).filter((v) => v.name === volumeCloudName(volumeUid));

  before(async function () {
    run = await realRun();
    if (run.target.adminCloud === undefined || run.admin === undefined) this.skip();
    admin = run.admin;
    fx = await run.fixtures();
    imageId = await publicImage(run, 'volume');
    typeId = (await admin.cinder.listVolumeTypes())[0]!.id;

    plane = await startRealPlane(run);
    regionName = run.name('volrg');
    identityName = run.name('vol-identity');
    networkResource = run.name('vol-net');
    serverName = run.name('vol-srv');
    volumeName = run.name('vol-data');
  });
  after(async () => {
    await plane?.stop();
  });

  it('a registered Region exporting one real Cinder type, an Identity, its Network and a Server: all Available', async () => {
    const source = plane!.source;
    const report: RegistrationReport = await registerRegionWithCleanup(run, source, regionName);
    expect(report.steps.find((step) => step.what === 'Region')?.outcome).to.equal('created');
    // the operator curates the allowlist (fail closed without it)
    const region = (await source.get('Region', ns, regionName)) as Region;
    await source.apply({ apiVersion: region.apiVersion, kind: 'Region', metadata: { name: regionName, namespace: ns }, spec: { ...region.spec, openstack: { ...region.spec.openstack, blockStorage: { volumeClasses: { selector: { ids: [typeId] } } } } } as Region['spec'] });
    await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: ${identityName} }
spec: { regionRef: { name: ${regionName} }, organizationID: acme, projectID: data }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: ${networkResource} }
spec: { identityRef: { name: ${identityName} }, prefix: 198.51.101.0/24 }
`);
    const networkUid = (await source.get('Network', ns, networkResource))!.metadata.uid;
    cleanupNetworkAndServer(run, networkUid, serverName);
    await applyManifests(source, serverManifest([]));
    const identity = await until('Identity Available', async () => ((await conditionOf('Identity', identityName, 'Available'))?.status === 'True' ? statusOf('Identity', identityName) : undefined), () => statusOf('Identity', identityName));
    projectId = identity.openstack!.projectID!;
    await until('Server Running', async () => (await statusOf('Server', serverName))?.phase === 'Running', () => statusOf('Server', serverName));
  });

  it("a Volume: Cinder creates volume-<uid> in the identity's project with Regent's linkage metadata; Available=True", async () => {
    const source = plane!.source;
    await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Volume
metadata: { name: ${volumeName} }
spec: { networkID: ${networkResource}, size: 1, volumeClassID: ${typeId}, tags: { team: storage } }
`);
    volumeUid = (await source.get('Volume', ns, volumeName))!.metadata.uid;
    // volumes go first at cleanup (registered last): a project's volumes must be gone before its domain
    run.cleanup.add(`volume ${volumeCloudName(volumeUid)}`, async () => {
      for (const v of await cinderVolume()) await admin.cinder.deleteVolume(v.id).catch(() => undefined);
    });
    const status = await until('Volume Available', async () => ((await conditionOf('Volume', volumeName, 'Available'))?.status === 'True' ? statusOf('Volume', volumeName) : undefined), () => statusOf('Volume', volumeName));
    expect(status).to.include({ state: 'available', size: 1, phase: 'Ready' });
    const found = await cinderVolume();
    expect(found.map((v) => v.id)).to.deep.equal([status.volumeID]);
    cinderId = status.volumeID!;
    const detail = found[0]!;
    const raw = (await admin.http('block-storage').get(`/volumes/${detail.id}`)).data as { volume?: Record<string, unknown> };
    expect(raw.volume?.['os-vol-tenant-attr:tenant_id'], "the identity's project").to.equal(projectId);
    const metadata = detail.metadata.kind === 'value' ? detail.metadata.value : {};
    expect(metadata).to.include({ 'regent.dev:team': 'storage', 'regent.dev:volume-id': volumeUid, 'regent.dev:organization-id': 'acme', 'regent.dev:project-id': 'data' });
  });

  it('attach through spec.volumes: Server.status.volumes Attached with the guest device, Cinder in-use on that server, InUse names the Server', async () => {
    await applyManifests(plane!.source, serverManifest([volumeName]));
    const row = await until('the row Attached', async () => (await statusOf('Server', serverName))?.volumes?.find((v) => v.volumeID === volumeName && v.state === 'Attached'), () => statusOf('Server', serverName));
    expect(row.device).to.match(/^\/dev\//);
    const serverId = (await statusOf('Server', serverName))!.serverID!;
    await until('Cinder in-use', async () => {
      const v = (await cinderVolume())[0];
      return v?.status.kind === 'value' && v.status.value === 'in-use' && v.attachments.kind === 'value' && v.attachments.value.some((a) => a.serverId === serverId);
    }, async () => (await cinderVolume())[0]?.status);
    expect(JSON.stringify((await statusOf('Server', serverName))?.volumes)).to.not.include(cinderId);
    await until('InUse names the server', async () => (await conditionOf('Volume', volumeName, 'InUse'))?.message === `attached to ${serverName}`, () => conditionOf('Volume', volumeName, 'InUse'));
  });

  it('deleting the Volume while attached waits naming the Server (no Cinder delete); removing it from spec.volumes detaches through Nova, and the deletion completes, confirmed by absence', async () => {
    const source = plane!.source;
    await source.delete('Volume', ns, volumeName);
    const waiting = await until('Deleting naming the server', async () => {
      const c = await conditionOf('Volume', volumeName, 'Available');
      return c?.reason === 'Deleting' && c.message.includes(serverName) ? c : undefined;
    }, () => conditionOf('Volume', volumeName, 'Available'));
    expect(waiting.message).to.include('detached');
    await sleep(3_000);
    expect((await cinderVolume()).map((v) => v.id), 'still there').to.deep.equal([cinderId]);
    await applyManifests(source, serverManifest([]));
    await until('the Volume gone (finalizer released)', async () => (await source.get('Volume', ns, volumeName)) === undefined, async () => statusOf('Volume', volumeName));
    expect(await cinderVolume()).to.deep.equal([]);
    // the Server's own pass records the pair detached (its rows empty) on its next pass after Cinder shows it gone
    await until('the Server shows no volume rows', async () => ((await statusOf('Server', serverName))?.volumes ?? []).length === 0, async () => (await statusOf('Server', serverName))?.volumes);
  });

  it('teardown through the resource source: Server, Network, Identity released', async () => {
    const source = plane!.source;
    for (const [kind, name] of [['Server', serverName], ['Network', networkResource], ['Identity', identityName]] as const) {
      await source.delete(kind, ns, name);
      await until(`${kind} ${name} gone`, async () => (await source.get(kind, ns, name)) === undefined, async () => (await source.get(kind, ns, name))?.status);
    }
  });
});
