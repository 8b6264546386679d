/**
 * Issue 11 end to end on the real cloud: `regent region register` (registerRegion) from the sandbox's admin
 * cloud registers a Region straight into a running control plane's resource source, and one Server of an
 * Identity in that Region runs through the whole control plane (startControlPlane: informers, controllers,
 * engine, monitor, status runner) on that identity's own credentials: Nova records the server in the
 * identity's project (in the Region's managed domain), not in the project of the cloud the process was given
 * (the demo tenant, standing for Region `default` only), and the demo tenant cannot see it. Deleting the
 * Server, the Network and the Identity through the resource source removes the Nova server, the Neutron
 * network and the identity's Keystone project and user. Issue 24: the server's Nova metadata carries the
 * namespaced linkage keys of its Identity, Network and Region.
 *
 * The image is a public one the admin uploads: the fixture images are the demo tenant's (private by default),
 * so the identity's project could not boot them. Everything is registered for deletion as soon as it exists
 * (the server by name across tenants, the network by its deterministic name, the Region's domain, which takes
 * the identity's project, user and credential).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { identityProjectName, identityUserName } from '../../src/provider/identity/names.js';
import { networkName } from '../../src/provider/networks.js';
import type { RegistrationReport } from '../../src/provider/regions/register.js';
import { cleanupNetworkAndServer, publicImage, registerRegionWithCleanup, startRealPlane, until } from './support/control-plane.js';
import { realRun, type Fixtures, type RealRun } from './support/run.js';

interface Condition { type: string; status: string; reason: string; message: string }
interface Status { phase?: string; serverID?: string; conditions?: Condition[]; openstack?: { projectID?: string; userID?: string } }

type Kind = 'Region' | 'Identity' | 'Network' | 'Server';
const ns = 'default';

describe("issue 11 on the real cloud: a registered Region, one Identity's Server through the control plane on its credentials", function () {
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
  let identityUid: string;
  let networkUid: string;
  let serverId: string;
  let projectId: string;
  let userId: string;

  const statusOf = async (kind: Kind, name: string): Promise<Status | undefined> => (await plane?.source.get(kind, ns, name))?.status as Status | undefined;
  const available = async (kind: Kind, name: string): Promise<Condition | undefined> => (await statusOf(kind, name))?.conditions?.find((c) => c.type === 'Available');
  const availableTrue = (kind: Kind, name: string) =>
    until(`${kind} ${name} Available=True`, async () => ((await available(kind, name))?.status === 'True' ? statusOf(kind, name) : undefined), () => statusOf(kind, name));
  const gone = (kind: Kind, name: string) =>
    until(`${kind} ${name} gone (its finalizer released)`, async () => (await plane?.source.get(kind, ns, name)) === undefined, async () => (await plane?.source.get(kind, ns, name))?.metadata);

  before(async function () {
    run = await realRun();
    if (run.target.adminCloud === undefined || run.admin === undefined) this.skip();
    admin = run.admin;
    fx = await run.fixtures();

    // a public image, so the identity's project can boot it (the fixtures are the demo tenant's, private)
    imageId = await publicImage(run, 'identity');

    // the process's own cloud (the demo tenant) stands for Region `default` only; the registered Region is a resource
    plane = await startRealPlane(run);

    regionName = run.name('idsrv');
    identityName = run.name('identity');
    networkResource = run.name('net');
    serverName = run.name('identity-srv');
  });
  after(async () => {
    await plane?.stop();
  });

  it("registers a Region from the admin cloud into the control plane's resource source; the control plane connects it (Available=True)", async () => {
    const source = plane!.source;
    // the domain and roles registered for deletion the moment Keystone has them: the domain takes the identity's project, user and credential
    report = await registerRegionWithCleanup(run, source, regionName);
    expect(report.steps.find((s) => s.what === 'domain')?.outcome).to.equal('created');
    expect(report.steps.find((s) => s.what === 'Region')).to.deep.include({ outcome: 'created', name: `${ns}/${regionName}` });
    expect(report.domain.id).to.be.a('string');
    const condition = (await availableTrue('Region', regionName))?.conditions?.find((c) => c.type === 'Available');
    expect(condition?.message).to.include(`managed domain ${report.domain.id}`);
  });

  it("an Identity in that Region, its Network and a Server: the Identity is realized in the managed domain, the Network and the Server are created on the identity's credentials (Available=True, ACTIVE)", async () => {
    const source = plane!.source;
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
    networkUid = (await source.get('Network', ns, networkResource))!.metadata.uid;
    cleanupNetworkAndServer(run, networkUid, serverName);
    await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: ${serverName} }
spec:
  name: ${serverName}
  image: { id: ${imageId} }
  flavor: { name: ${fx.flavorName} }
  networkID: ${networkResource}
  sshInjection: none
`);

    const identity = await availableTrue('Identity', identityName);
    projectId = identity!.openstack!.projectID!;
    userId = identity!.openstack!.userID!;
    const project = await admin.identityAdmin.findProject({ domainId: report.domain.id!, name: identityProjectName(identityUid) });
    expect(project?.id, "the identity's project, found by name in the managed domain").to.equal(projectId);
    expect((await admin.identityAdmin.findUser({ domainId: report.domain.id!, name: identityUserName(identityUid) }))?.id).to.equal(userId);

    await availableTrue('Network', networkResource);
    const network = await admin.neutron.findNetworkByName(networkName(networkUid));
    expect(network.project_id, "the Neutron network is the identity project's").to.equal(projectId);

    const server = await until('Server Running with Available=True', async () => {
      const s = await statusOf('Server', serverName);
      return s?.phase === 'Running' && s.conditions?.find((c) => c.type === 'Available')?.status === 'True' && s;
    }, () => statusOf('Server', serverName));
    serverId = server.serverID!;
    expect(serverId).to.match(/^[0-9a-f-]{36}$/);
    const active = await run.waitActive(serverId, admin);
    expect(active.status).to.deep.equal({ kind: 'value', value: 'ACTIVE' });
    expect(active.addresses.kind === 'value' && active.addresses.value[0]?.network).to.equal(networkName(networkUid));
  });

  it("Nova's record: the server belongs to the identity's project, not the demo tenant's; the demo tenant cannot see it", async () => {
    const nova = await admin.nova.getServer(serverId);
    expect(nova.name).to.equal(serverName);
    expect(nova.projectId, "tenant_id is the identity's project").to.deep.equal({ kind: 'value', value: projectId });
    expect(projectId).to.not.equal(run.tenant.projectId);
    expect((await admin.nova.lookupServerByName(serverName, { all_tenants: true }))?.id).to.equal(serverId);
    expect(await run.tenant.nova.lookupServerByName(serverName), 'the demo tenant cannot see it by name').to.equal(undefined);
  });

  it("issue 24: the Nova server carries the namespaced linkage keys (identity, organization, project, region, network, server) and the ownership key, read back from real Nova's GET /servers/{id}/metadata", async () => {
    const serverUid = (await plane!.source.get('Server', ns, serverName))!.metadata.uid;
    const answer = await admin.http('compute').get(`/servers/${serverId}/metadata`);
    expect((answer.data as { metadata: Record<string, string> }).metadata).to.deep.equal({
      'regent.dev:identity-id': identityUid,
      'regent.dev:organization-id': 'acme',
      'regent.dev:project-id': 'web',
      'regent.dev:region-id': regionName,
      'regent.dev:network-id': networkUid,
      'regent.dev:server-id': serverUid,
      'regent.dev:uid': serverUid,
    });
    // the in-guest view: the metadata service's `meta` is built from this same dict (nova/api/metadata/base.py);
    // the sandbox runs no nova-api-metadata, so the guest's own read is exercised on the simulator only
    // (test/controllers/server-metadata.test.ts, docs/simulator-differences.md #20)
  });

  it("issue 16: the identity's project carries Regent's quotas, read back from the real Nova and Neutron, and the region user holds its service role (manager) on it", async () => {
    expect(await admin.nova.getQuotaSet(projectId)).to.include({ instances: -1, cores: -1, ram: -1 });
    expect(await admin.neutron.getQuota(projectId)).to.include({ floatingip: 3 });
    // the Region's credentials are the service user `regent region register` made
    const serviceUser = report.steps.find((s) => s.what === 'user')?.id as string;
    const roles = (await admin.identityAdmin.listRoleAssignments({ projectId, userId: serviceUser })).map((a) => a.roleName);
    expect(roles).to.include('manager');
  });

  it('issue 16: a pinned Server (infrastructureRef: the compute host) with the Placement preflight on: unavailable on application-credential region credentials; with password ones, created on that host, in the identity\'s project, by the region user bound to it', async () => {
    const source = plane!.source;
    const host = (await admin.placement.listResourceProviders()).find((rp) => !rp.name.includes('regent'))?.name as string;
    const pinnedName = run.name('pinned-srv');
    run.cleanup.add(`pinned server ${pinnedName}`, async () => {
      const found = await admin.nova.lookupServerByName(pinnedName, { all_tenants: true });
      if (found) await admin.nova.deleteServer(found.id);
    });
    await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: ${pinnedName} }
spec:
  name: ${pinnedName}
  image: { id: ${imageId} }
  flavor: { name: ${fx.flavorName} }
  networkID: ${networkResource}
  sshInjection: none
  infrastructureRef: { host: ${host} }
`);
    // the registered Region's credentials are an application credential: Keystone will not bind it to another project
    const unavailable = await until('the pinned create unavailable', async () => {
      const c = (await statusOf('Server', pinnedName))?.conditions?.find((x) => x.type === 'Available');
      return c?.reason === 'PinnedCreateUnavailable' && c;
    }, () => statusOf('Server', pinnedName));
    expect(unavailable.message).to.include('application credential');
    expect(await admin.nova.lookupServerByName(pinnedName, { all_tenants: true })).to.equal(undefined);

    // password credentials (the admin cloud's), a service role Nova's policy lets request a destination (admin under
    // Nova's defaults), and the preflight asking for a trait the host has
    const clouds = readFileSync(process.env.OS_CLIENT_CONFIG_FILE as string, 'utf8');
    const secretName = run.name('password-creds');
    await source.secrets.put(ns, secretName, { 'clouds.yaml': clouds, cloud: process.env.REGENT_OS_ADMIN_CLOUD as string });
    const region = (await source.get('Region', ns, regionName))!;
    const openstack = { ...(region.spec as { openstack: Record<string, unknown> }).openstack, credentialsSecretRef: { name: secretName }, serviceRoles: ['manager', 'admin'], compute: { placementPreflight: true, requiredTraits: ['COMPUTE_NODE'] } };
    await source.apply({ apiVersion: 'regent.dev/v1alpha1', kind: 'Region', metadata: { name: regionName, namespace: ns }, spec: { ...region.spec, openstack } } as never);
    const adminRole = await admin.identityAdmin.findRoleByName('admin');
    await until('the region user holds admin on the identity project', async () => admin.identityAdmin.hasProjectRole({ projectId, userId: admin.initialToken.user.id, roleId: adminRole!.id }), async () => (await admin.identityAdmin.listRoleAssignments({ projectId, userId: admin.initialToken.user.id })).map((a) => a.roleName));
    const pinned = await until('the pinned Server Running', async () => {
      const s = await statusOf('Server', pinnedName);
      return s?.phase === 'Running' && s;
    }, () => statusOf('Server', pinnedName));
    const raw = (await admin.http('compute').get(`/servers/${pinned.serverID}`)).data as { server: { tenant_id: string; user_id: string; 'OS-EXT-SRV-ATTR:host'?: string } };
    expect(raw.server.tenant_id, "the identity's project").to.equal(projectId);
    expect(raw.server.user_id, 'created by the region user, bound to the project').to.equal(admin.initialToken.user.id);
    expect(raw.server['OS-EXT-SRV-ATTR:host']).to.equal(host);
    await source.delete('Server', ns, pinnedName);
    await gone('Server', pinnedName);
  });

  it('deleting the Server, the Network and the Identity through the resource source: their finalizers released; the Nova server, the Neutron network and the Keystone project and user gone', async () => {
    const source = plane!.source;
    await source.delete('Server', ns, serverName);
    await gone('Server', serverName);
    await until('the Nova server gone', async () => (await admin.nova.lookupServerByName(serverName, { all_tenants: true })) === undefined);

    await source.delete('Network', ns, networkResource);
    await gone('Network', networkResource);
    await until('the Neutron network gone', async () => (await admin.neutron.lookupNetworkByName(networkName(networkUid))) === undefined);

    await source.delete('Identity', ns, identityName);
    await gone('Identity', identityName);
    expect(await admin.identityAdmin.findProject({ domainId: report.domain.id!, name: identityProjectName(identityUid) })).to.equal(undefined);
    expect(await admin.identityAdmin.findUser({ domainId: report.domain.id!, name: identityUserName(identityUid) })).to.equal(undefined);
  });
});
