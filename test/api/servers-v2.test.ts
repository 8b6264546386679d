import { expect } from 'chai';
import { v5 as uuidv5 } from 'uuid';
import { SERVER_NAME_NAMESPACE } from '../../src/api/model.js';
import { IMAGE, IMAGE_2, startApiRig, v2Body, type ApiRig } from './rig.js';

interface Read {
  metadata: { id: string; name: string; organizationId: string; projectId: string; provisioningStatus: string };
  spec: Record<string, unknown>;
  status: { remainingProviderCreateGates: string[]; infrastructureRef?: unknown };
}

const USER_DATA = Buffer.from('#cloud-config\npackages: [nginx]\n').toString('base64');

describe('api: v2 servers over the resource store', () => {
  let rig: ApiRig;
  beforeEach(async () => (rig = await startApiRig()));
  afterEach(async () => rig.close());

  const create = async (name = 'web-1', overrides: Record<string, unknown> = {}) => {
    const reply = await rig.call('POST', '/api/v2/servers', { body: v2Body(name, overrides) });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return reply.body as Read;
  };
  const stored = async (id: string) => {
    const s = await rig.source.get('Server', 'default', id);
    if (!s) throw new Error(`no Server ${id}`);
    return s;
  };

  it('create → 201: a Server named UUIDv5(networkID, serverName), labelled API version 2 and its tenancy, owned by its Network', async () => {
    const read = await create();
    const id = uuidv5('net-a/web-1', SERVER_NAME_NAMESPACE);
    expect(read.metadata).to.include({ id, name: 'web-1', organizationId: 'acme', projectId: 'web', provisioningStatus: 'pending' });
    const server = await stored(id);
    const network = await rig.source.get('Network', 'default', 'net-a');
    expect(server.metadata.labels).to.include({ 'regent.dev/api-version': '2', 'regent.dev/organization': 'acme', 'regent.dev/project': 'web', 'regent.dev/identity': 'id-a', 'regent.dev/network': 'net-a' });
    expect(server.metadata.ownerReferences).to.deep.equal([{ apiVersion: 'regent.dev/v1alpha1', kind: 'Network', name: 'net-a', uid: network?.metadata.uid, blockOwnerDeletion: true }]);
    expect(server.spec).to.deep.include({ name: 'web-1', image: { id: IMAGE }, flavor: { id: 'm1.small' }, networkID: 'net-a' });
  });

  it('the same name on another network is another server (names are unique per network)', async () => {
    await create('web-1');
    const other = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { networkId: 'net-c' }) });
    expect(other.status).to.equal(201);
    expect(await rig.servers()).to.have.length(2);
  });

  it('a duplicate create → 409, decided by the collision with no read of Servers before the write', async () => {
    await create('web-1');
    rig.reads.length = 0;
    const again = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { imageId: IMAGE_2 }) });
    expect(again.status).to.equal(409);
    expect((again.body as { error: string }).error).to.equal('conflict');
    expect(rig.reads.filter((r) => r.endsWith(' Server'))).to.deep.equal([]);
    const [server] = await rig.servers();
    expect(server?.spec.image).to.deep.equal({ id: IMAGE });
  });

  it('GET reads the server back; GET /api/v2/servers lists the visible v2 servers with filters', async () => {
    const a = await create('web-1');
    await create('web-2', { networkId: 'net-c' });
    const got = await rig.call('GET', `/api/v2/servers/${a.metadata.id}`);
    expect(got.status).to.equal(200);
    expect((got.body as Read).metadata.name).to.equal('web-1');
    const all = (await rig.call('GET', '/api/v2/servers')).body as Read[];
    expect(all.map((s) => s.metadata.name)).to.deep.equal(['web-1', 'web-2']);
    const filtered = (await rig.call('GET', '/api/v2/servers?projectID=db')).body as Read[];
    expect(filtered.map((s) => s.metadata.name)).to.deep.equal(['web-2']);
    expect((await rig.call('GET', '/api/v2/servers?networkID=net-a')).body as Read[]).to.have.length(1);
  });

  it('a different name on update → 422, nothing changes', async () => {
    const { metadata } = await create();
    const before = await stored(metadata.id);
    const reply = await rig.call('PUT', `/api/v2/servers/${metadata.id}`, { body: v2Body('web-9') });
    expect(reply.status).to.equal(422);
    expect((await stored(metadata.id)).metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
  });

  it('a flavor change on update → 422', async () => {
    const { metadata } = await create();
    const reply = await rig.call('PUT', `/api/v2/servers/${metadata.id}`, { body: v2Body('web-1', { flavorId: 'm1.large' }) });
    expect(reply.status).to.equal(422);
    expect((await stored(metadata.id)).spec.flavor).to.deep.equal({ id: 'm1.small' });
  });

  it('an image change on update → 200: a spec image change (the controller rebuilds), read as provisioning', async () => {
    const { metadata } = await create();
    const before = await stored(metadata.id);
    await rig.source.patchStatus('Server', 'default', metadata.id, { provisioningStatus: 'provisioned', observedGeneration: before.metadata.generation });
    expect(((await rig.call('GET', `/api/v2/servers/${metadata.id}`)).body as Read).metadata.provisioningStatus).to.equal('provisioned');
    const reply = await rig.call('PUT', `/api/v2/servers/${metadata.id}`, { body: v2Body('web-1', { imageId: IMAGE_2 }) });
    expect(reply.status).to.equal(200);
    const after = await stored(metadata.id);
    expect(after.spec.image).to.deep.equal({ id: IMAGE_2 });
    expect(after.metadata.generation).to.equal(before.metadata.generation + 1);
    expect((reply.body as Read).metadata.provisioningStatus).to.equal('provisioning');
  });

  it('infrastructureRef and providerCreateGates are create-time: an update preserves them (whatever the body says)', async () => {
    const { metadata } = await create('web-1', { sshInjection: 'none', infrastructureRef: { host: 'compute-7' }, providerCreateGates: [{ name: 'fabric' }] });
    const reply = await rig.call('PUT', `/api/v2/servers/${metadata.id}`, { body: v2Body('web-1', { sshInjection: 'none', imageId: IMAGE_2 }) });
    expect(reply.status).to.equal(200);
    const spec = (await stored(metadata.id)).spec;
    expect(spec.infrastructureRef).to.deep.equal({ host: 'compute-7' });
    expect(spec.providerCreateGates).to.deep.equal([{ name: 'fabric' }]);
    const read = reply.body as Read;
    expect(read.status.remainingProviderCreateGates).to.deep.equal(['fabric']);
    expect(read.status.infrastructureRef).to.deep.equal({ host: 'compute-7' });
    const changed = await rig.call('PUT', `/api/v2/servers/${metadata.id}`, { body: v2Body('web-1', { sshInjection: 'none', imageId: IMAGE_2, infrastructureRef: { host: 'compute-9' }, providerCreateGates: [] }) });
    expect(changed.status).to.equal(200);
    expect((await stored(metadata.id)).spec.infrastructureRef).to.deep.equal({ host: 'compute-7' });
  });

  it('a pinned server cannot use identityKeypair SSH injection → 422, nothing stored', async () => {
    const reply = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { infrastructureRef: { host: 'compute-7' } }) });
    expect(reply.status).to.equal(422);
    expect(await rig.servers()).to.have.length(0);
  });

  it('userData: an update replaces it wholesale, and an omitted userData clears it', async () => {
    const { metadata } = await create('web-1', { userData: USER_DATA });
    const other = Buffer.from('#cloud-config\n').toString('base64');
    expect((await rig.call('PUT', `/api/v2/servers/${metadata.id}`, { body: v2Body('web-1', { userData: other }) })).status).to.equal(200);
    expect((await stored(metadata.id)).spec.userData).to.equal(other);
    expect((await rig.call('PUT', `/api/v2/servers/${metadata.id}`, { body: v2Body('web-1') })).status).to.equal(200);
    expect((await stored(metadata.id)).spec).not.to.have.property('userData');
  });

  describe('provisioningStatus from the status', () => {
    const read = async (id: string) => ((await rig.call('GET', `/api/v2/servers/${id}`)).body as Read).metadata.provisioningStatus;

    it('provisioning while a rebuild intent stands, armed-only (Initiated) included', async () => {
      const { metadata } = await create();
      const s = await stored(metadata.id);
      await rig.source.patchStatus('Server', 'default', metadata.id, { provisioningStatus: 'provisioned', observedGeneration: s.metadata.generation, rebuild: { targetImageID: IMAGE_2, state: 'Initiated' } });
      expect(await read(metadata.id)).to.equal('provisioning');
      await rig.source.patchStatus('Server', 'default', metadata.id, { rebuild: { targetImageID: IMAGE_2, state: 'Rebuilding' } });
      expect(await read(metadata.id)).to.equal('provisioning');
    });

    it('error when parked', async () => {
      const { metadata } = await create();
      await rig.source.patchStatus('Server', 'default', metadata.id, { provisioningStatus: 'error', rebuild: { targetImageID: IMAGE_2, state: 'Failed' } });
      expect(await read(metadata.id)).to.equal('error');
    });

    it('provisioned only when settled on the current generation with no intent standing', async () => {
      const { metadata } = await create();
      const s = await stored(metadata.id);
      await rig.source.patchStatus('Server', 'default', metadata.id, { provisioningStatus: 'provisioned', observedGeneration: s.metadata.generation - 1 });
      expect(await read(metadata.id)).to.equal('provisioning');
      await rig.source.patchStatus('Server', 'default', metadata.id, { observedGeneration: s.metadata.generation });
      expect(await read(metadata.id)).to.equal('provisioned');
    });

    it('unknown, never provisioned, while the server cannot be observed (issue 24, item 2: its Region unusable, its cloud silent)', async () => {
      const { metadata } = await create();
      const s = await stored(metadata.id);
      const available = (status: string, reason: string) => ({ type: 'Available', status, reason, message: '', observedGeneration: s.metadata.generation, lastTransitionTime: '2026-01-01T00:00:00Z' });
      await rig.source.patchStatus('Server', 'default', metadata.id, { provisioningStatus: 'provisioned', observedGeneration: s.metadata.generation, conditions: [available('Unknown', 'DependencyUnavailable')] } as never);
      expect(await read(metadata.id)).to.equal('unknown');
      await rig.source.patchStatus('Server', 'default', metadata.id, { conditions: [available('True', 'Provisioned')] } as never);
      expect(await read(metadata.id), 'recovered').to.equal('provisioned');
    });
  });

  it('direct v2 access only to resources labelled API version 2 (a Server applied without the label, or a v1 one, is 404)', async () => {
    await rig.source.create({ apiVersion: 'regent.dev/v1alpha1', kind: 'Server', metadata: { name: 'legacy', labels: { 'regent.dev/organization': 'acme', 'regent.dev/project': 'web', 'regent.dev/identity': 'id-a' } }, spec: { name: 'legacy', image: { id: IMAGE }, flavor: { id: 'm1.small' }, networkID: 'net-a' } });
    await rig.source.create({ apiVersion: 'regent.dev/v1alpha1', kind: 'Server', metadata: { name: 'old-v1', labels: { 'regent.dev/api-version': '1', 'regent.dev/organization': 'acme', 'regent.dev/project': 'web', 'regent.dev/identity': 'id-a' } }, spec: { name: 'old-v1', image: { id: IMAGE }, flavor: { id: 'm1.small' }, networkID: 'net-a' } });
    for (const id of ['legacy', 'old-v1']) {
      expect((await rig.call('GET', `/api/v2/servers/${id}`)).status, id).to.equal(404);
      expect((await rig.call('DELETE', `/api/v2/servers/${id}`)).status, id).to.equal(404);
    }
    expect((await rig.call('GET', '/api/v2/servers')).body).to.deep.equal([]);
  });

  it('DELETE → 202 and the server is gone (404 after)', async () => {
    const { metadata } = await create();
    expect((await rig.call('DELETE', `/api/v2/servers/${metadata.id}`)).status).to.equal(202);
    expect((await rig.call('GET', `/api/v2/servers/${metadata.id}`)).status).to.equal(404);
    expect(await rig.servers()).to.have.length(0);
  });

  it('a v2 server is owned by its network: deleting the Network cascades to it', async () => {
    const { metadata } = await create();
    await rig.source.delete('Network', 'default', 'net-a');
    expect(await rig.source.get('Server', 'default', metadata.id)).to.equal(undefined);
  });
});
