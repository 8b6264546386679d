/**
 * Per-identity credentials end to end (issue 11, "Credential modes"): the whole control plane on the
 * embedded stores against the simulator over HTTP, with a Region that has a managed domain and two
 * Identities. Each identity's Network and Server are created with that identity's application
 * credential, in its own project — and identity A's credentials can neither see nor touch B's server.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { connect } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { NotFound } from '../../src/openstack/errors.js';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { identitySecretName } from '../../src/provider/identity/names.js';
import { identityCloudConfig } from '../../src/provider/identity/observe.js';
import { planeOptions, serverManifest, until } from './support/plane.js';

const tenant = (name: string, network: string) => `apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: ${name} }
spec: { regionRef: { name: region-one }, organizationID: acme, projectID: ${name} }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: ${network} }
spec: { identityRef: { name: ${name} }, prefix: 10.0.0.0/24 }
`;

describe('e2e: servers and networks run on their identity\'s credentials (issue 11)', function () {
  this.timeout(90_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane | undefined;
  beforeEach(async () => {
    sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 100, serverDelete: 100, serverAction: 100 } });
    dir = mkdtempSync(join(tmpdir(), 'regent-scoping-'));
  });
  afterEach(async () => {
    await plane?.stop().catch(() => undefined);
    plane = undefined;
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("identity A's servers live in A's project, B's in B's; A's credential cannot see or delete B's server", async () => {
    const admin = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'));
    const domain = await admin.identityAdmin.createDomain({ name: 'regent-scoping' });
    plane = await startControlPlane(planeOptions(dir, sim));
    await until('leadership', () => plane?.isLeader());
    await plane.source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-admin' });
    await applyManifests(plane.source, `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec:
  provider: openstack
  openstack: { endpoint: ${sim.url}/identity/v3, region: RegionOne, credentialsSecretRef: { name: region-one-credentials }, domainID: ${domain.id} }
`);
    await applyManifests(plane.source, [tenant('tenant-a', 'net-a'), tenant('tenant-b', 'net-b'), serverManifest('srv-a', SEED.images.cirros), serverManifest('srv-b', SEED.images.cirros).replace('networkID: net-a', 'networkID: net-b')].join('---\n'));
    const serverId = async (name: string) => ((await plane?.source.get('Server', 'default', name))?.status as { serverID?: string; phase?: string } | undefined);
    await until('both servers run', async () => (await serverId('srv-a'))?.phase === 'Running' && (await serverId('srv-b'))?.phase === 'Running', 60_000);
    const projectOf = async (identity: string) => ((await plane?.source.get('Identity', 'default', identity))?.status as { openstack?: { projectID?: string } } | undefined)?.openstack?.projectID;
    const [projectA, projectB] = [await projectOf('tenant-a'), await projectOf('tenant-b')];
    expect(projectA).to.be.a('string').and.not.equal(projectB);
    const idA = (await serverId('srv-a'))?.serverID as string;
    const idB = (await serverId('srv-b'))?.serverID as string;
    // Nova's truth: each server belongs to its identity's project
    expect((await admin.nova.getServer(idA)).projectId).to.deep.equal({ kind: 'value', value: projectA });
    expect((await admin.nova.getServer(idB)).projectId).to.deep.equal({ kind: 'value', value: projectB });
    // A's own credential, from A's Secret
    const identityA = await plane.source.get('Identity', 'default', 'tenant-a');
    const secretA = await plane.source.secrets.get('default', identitySecretName(identityA?.metadata.uid as string));
    const asA = await connect(identityCloudConfig(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'), secretA?.data) as never);
    expect(asA.projectId).to.equal(projectA);
    expect((await asA.nova.getServer(idA)).id).to.equal(idA);
    let seen: unknown;
    await asA.nova.getServer(idB).catch((e: unknown) => (seen = e));
    expect(seen, "A cannot see B's server").to.be.instanceOf(NotFound);
    let touched: unknown;
    await asA.nova.deleteServer(idB).catch((e: unknown) => (touched = e));
    expect(touched, "A cannot delete B's server").to.be.instanceOf(NotFound);
    expect((await admin.nova.getServer(idB)).id).to.equal(idB);
  });
});
