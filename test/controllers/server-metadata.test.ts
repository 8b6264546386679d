/**
 * Issue 24 (B), over the Nova simulator through the real Server pass: the Nova server carries the namespaced
 * linkage keys (organization, project, identity, network, region, server) besides the ownership key, read back
 * through Nova's GET /servers/{id}/metadata and through the metadata service a guest reads
 * (openstack/latest/meta_data.json, `meta`), and they are exactly what the recorded create decision says.
 */
import { expect } from 'chai';
import axios from 'axios';
import { startLifecycleRig, type LifecycleRig } from './lifecycle-rig.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { serverLifecycleStream } from '../../machines/server-lifecycle.js';

describe('Server pass over the Nova simulator: server metadata as in-guest linkage (issue 24 B)', function () {
  this.timeout(30_000);
  let rig: LifecycleRig;
  beforeEach(async () => {
    rig = await startLifecycleRig();
  });
  afterEach(async () => rig?.close());

  const uidOf = async (kind: 'Server' | 'Network' | 'Identity', name: string) => (await rig.source.get(kind, 'default', name))?.metadata.uid as string;
  const novaMetadata = async (serverId: string) => ((await rig.os.http('compute').get(`/servers/${serverId}/metadata`)).data as { metadata: Record<string, string> }).metadata;
  const guestMeta = async (serverId: string) => {
    const answer = await axios.get(`${rig.sim.url}/metadata/openstack/latest/meta_data.json`, { headers: { 'X-Instance-ID': serverId, 'X-Tenant-ID': rig.sim.credentials.demo.projectId } });
    return answer.data.meta as Record<string, string>;
  };
  const createdServer = async (name: string) => {
    await rig.applyServer(name);
    await rig.pass(name);
    rig.advance(2_000);
    await rig.pass(name);
    const lifecycle = await rig.lifecycle(name);
    expect(lifecycle.state).to.equal('present');
    return lifecycle.context.resourceId as string;
  };
  /** The metadata the stored create decision carries (its request). */
  const recordedMetadata = async (name: string) => {
    const events = await rig.store.readStream(serverLifecycleStream(await uidOf('Server', name)));
    const submitted = events.find((e) => e.type === 'serverLifecycle.createSubmitted');
    return (submitted?.data as unknown as { desired: { metadata?: Record<string, string> } }).desired.metadata;
  };

  it("the Nova server carries regent.dev:{identity,organization,project,region,network,server}-id and regent.dev:uid from its Identity and Network, read back from Nova and from the guest's meta_data.json", async () => {
    await applyManifests(rig.source, `apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: acme }
spec: { regionRef: { name: region-one }, organizationID: acme-org, projectID: web-shop }
`);
    const serverId = await createdServer('web-1');
    const serverUid = await uidOf('Server', 'web-1');
    const expected = {
      'regent.dev:identity-id': await uidOf('Identity', 'acme'),
      'regent.dev:organization-id': 'acme-org',
      'regent.dev:project-id': 'web-shop',
      'regent.dev:region-id': 'region-one',
      'regent.dev:network-id': await uidOf('Network', 'net-a'),
      'regent.dev:server-id': serverUid,
      'regent.dev:uid': serverUid,
    };
    expect(await novaMetadata(serverId)).to.deep.equal(expected);
    expect(await guestMeta(serverId)).to.deep.equal(expected);
    // the decision recorded the exact metadata sent (and the POST the simulator logged carried it)
    expect(await recordedMetadata('web-1')).to.deep.equal(expected);
    const post = rig.sim.calls({ method: 'POST' }).find((c) => /\/servers$/.test(c.path));
    expect((post?.body as { server: { metadata: Record<string, string> } }).server.metadata).to.deep.equal(expected);
  });

  it("a Network naming no Identity resource (the process's own cloud): only the network, server and ownership keys — nothing claims an identity", async () => {
    const serverId = await createdServer('web-2');
    const serverUid = await uidOf('Server', 'web-2');
    const expected = { 'regent.dev:network-id': await uidOf('Network', 'net-a'), 'regent.dev:server-id': serverUid, 'regent.dev:uid': serverUid };
    expect(await novaMetadata(serverId)).to.deep.equal(expected);
    expect(await guestMeta(serverId)).to.deep.equal(expected);
  });
});
