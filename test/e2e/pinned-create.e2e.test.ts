/**
 * The pinned create end to end (issue 16; openstack-provider.md: "pinned server creation … still targets the
 * identity project, but uses region-level credentials so Nova policy can authorise the requested
 * destination"; "When enabled, the provider asks OpenStack Placement whether the pinned resource provider has
 * available inventory … A miss yields and lets the controller retry"). The whole control plane on the
 * embedded stores against the simulator over HTTP, with a Region that has a managed domain: a Server with
 * `spec.infrastructureRef` is created in its identity's project, by the region user bound to that project,
 * with Nova's `host`; Nova's policy decides on the region user's service roles there; the preflight holds the
 * create back, visibly, until the pinned provider fits.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { planeOptions, until } from './support/plane.js';

interface Condition { type: string; status: string; reason: string; message: string }
interface Status { phase?: string; serverID?: string; conditions?: Condition[] }

const HOST = 'sandbox';
const PLACEMENT = { 'OpenStack-API-Version': 'placement 1.31' };

describe('e2e: the pinned create (issue 16)', function () {
  this.timeout(90_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane | undefined;
  let admin: OpenStackSession;
  beforeEach(async () => {
    sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 100, serverDelete: 100, serverAction: 100 } });
    dir = mkdtempSync(join(tmpdir(), 'regent-pinned-'));
    admin = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'));
  });
  afterEach(async () => {
    await plane?.stop().catch(() => undefined);
    plane = undefined;
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (openstackExtra: string, infrastructureRef = `{ host: ${HOST} }`) => {
    const domain = await admin.identityAdmin.createDomain({ name: 'regent-pinned' });
    plane = await startControlPlane(planeOptions(dir, sim));
    await until('leadership', () => plane?.isLeader());
    await plane.source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-admin' });
    await applyManifests(plane.source, `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec:
  provider: openstack
  openstack: { endpoint: ${sim.url}/identity/v3, region: RegionOne, credentialsSecretRef: { name: region-one-credentials }, domainID: ${domain.id}${openstackExtra} }
---
apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: tenant-a }
spec: { regionRef: { name: region-one }, organizationID: acme, projectID: tenant-a }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-a }
spec: { identityRef: { name: tenant-a }, prefix: 10.0.0.0/24 }
---
apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: pinned-1 }
spec:
  name: pinned-1
  image: { id: ${SEED.images.cirros} }
  flavor: { name: m1.small }
  networkID: net-a
  sshInjection: none
  infrastructureRef: ${infrastructureRef}
`);
  };
  const status = async () => (await plane?.source.get('Server', 'default', 'pinned-1'))?.status as Status | undefined;
  const available = async () => (await status())?.conditions?.find((c) => c.type === 'Available');
  const creates = () => sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/servers'));
  const projectOf = async () => ((await plane?.source.get('Identity', 'default', 'tenant-a'))?.status as { openstack?: { projectID?: string } } | undefined)?.openstack?.projectID;

  it("is created in the identity's project by the region user bound to it, with Nova's host, when its service roles let Nova authorise the destination", async () => {
    await start(', serviceRoles: [admin]');
    await until('the pinned server runs', async () => (await status())?.phase === 'Running', 60_000);
    const post = creates().at(-1);
    expect((post?.body as { server?: { host?: string } }).server?.host).to.equal(HOST);
    expect(Number(post?.versions?.['OpenStack-API-Version']?.split(' ')[1]?.split('.')[1])).to.be.at.least(74);
    const serverId = (await status())?.serverID as string;
    const raw = (await admin.http('compute').get(`/servers/${serverId}`)).data as { server: { tenant_id: string; user_id: string; 'OS-EXT-SRV-ATTR:host'?: string } };
    // in the identity's project, created by the region credentials' user (not the identity's own)
    expect(raw.server.tenant_id).to.equal(await projectOf());
    expect(raw.server.user_id).to.equal(admin.initialToken.user.id);
    expect(raw.server['OS-EXT-SRV-ATTR:host']).to.equal(HOST);
  });

  it("with the default service role (manager) Nova's policy refuses the destination: the Server says so, parked", async () => {
    await start('');
    await until('the create refused', async () => (await available())?.reason === 'CreateRejected', 60_000);
    expect((await available())?.message).to.include('compute:servers:create:requested_destination').and.include('HTTP 403');
    expect((creates().at(-1)?.body as { server?: { host?: string } }).server?.host).to.equal(HOST);
  });

  it('with placementPreflight, a pinned provider lacking a required trait holds the create back, visibly, and it goes once the provider has it', async () => {
    await start(', serviceRoles: [admin], compute: { placementPreflight: true, requiredTraits: [CUSTOM_PINNED_OK] }');
    await until('the preflight miss is shown', async () => (await available())?.reason === 'PlacementPreflightMiss', 30_000);
    expect((await available())?.message).to.include(`pinned host ${HOST}`).and.include('missing required CUSTOM_PINNED_OK');
    expect(creates()).to.have.length(0);
    // the operator labels the host: the next re-check (every 30 s, or a change of the Server) creates it
    const provider = (await admin.placement.findResourceProviderByName(HOST)).uuid;
    const placement = admin.http('placement');
    await placement.put('/traits/CUSTOM_PINNED_OK', undefined, PLACEMENT);
    const current = (await placement.get(`/resource_providers/${provider}/traits`, undefined, PLACEMENT)).data as { traits: string[]; resource_provider_generation: number };
    await placement.put(`/resource_providers/${provider}/traits`, { traits: [...current.traits, 'CUSTOM_PINNED_OK'], resource_provider_generation: current.resource_provider_generation }, PLACEMENT);
    // an annotation change wakes the Server now; otherwise the 30 s re-check would
    const server = await plane!.source.get('Server', 'default', 'pinned-1');
    await plane!.source.apply({ apiVersion: 'regent.dev/v1alpha1', kind: 'Server', metadata: { name: 'pinned-1', namespace: 'default', annotations: { 'test.regent.dev/nudge': '1' } }, spec: server!.spec } as never);
    await until('the pinned server runs', async () => (await status())?.phase === 'Running', 60_000);
    expect(creates()).to.have.length(1);
  });

  it('a pinned host Placement does not know (no resourceProviderID on the spec): PinnedCreateUnavailable, nothing sent to Nova', async () => {
    await start(', serviceRoles: [admin], compute: { placementPreflight: true }', '{ host: no-such-host }');
    await until('unavailable', async () => (await available())?.reason === 'PinnedCreateUnavailable', 30_000);
    expect((await available())?.message).to.include('no resource provider named no-such-host');
    expect(creates()).to.have.length(0);
  });
});
