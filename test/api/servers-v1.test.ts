import { expect } from 'chai';
import { ENDPOINTS } from '../../src/api/auth.js';
import { IMAGE, IMAGE_2, projectAcl, startApiRig, type ApiRig } from './rig.js';

const V1 = '/api/v1/organizations/acme/projects/web/identities/id-a/servers';
const body = (name: string, overrides: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { networkId: 'net-a', flavorId: 'm1.small', imageId: IMAGE, ...overrides } });

interface Read {
  metadata: { id: string; name: string };
  spec: { imageId: string; userData?: string };
}

describe('api: v1 compatibility servers', () => {
  let rig: ApiRig;
  beforeEach(async () => (rig = await startApiRig()));
  afterEach(async () => rig.close());

  const create = async (name = 'old-1') => {
    const reply = await rig.call('POST', V1, { body: body(name) });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return reply.body as Read;
  };

  it('create → 201, list, get: a Server labelled API version 1 under its identity', async () => {
    const read = await create();
    const server = await rig.source.get('Server', 'default', read.metadata.id);
    expect(server?.metadata.labels).to.include({ 'regent.dev/api-version': '1', 'regent.dev/identity': 'id-a' });
    const list = await rig.call('GET', V1);
    expect(list.status).to.equal(200);
    expect((list.body as Read[]).map((s) => s.metadata.name)).to.deep.equal(['old-1']);
    const got = await rig.call('GET', `${V1}/${read.metadata.id}`);
    expect(got.status).to.equal(200);
  });

  it('a v1 update with a different imageId succeeds but keeps the stored image, without validating the ignored value; the rest applies', async () => {
    const read = await create();
    const userData = Buffer.from('#cloud-config\n').toString('base64');
    for (const imageId of [IMAGE_2, 'an-image-deleted-long-ago']) {
      const reply = await rig.call('PUT', `${V1}/${read.metadata.id}`, { body: body('old-1', { imageId, userData }) });
      expect(reply.status, imageId).to.equal(200);
      expect((reply.body as Read).spec.imageId).to.equal(IMAGE);
      const server = await rig.source.get('Server', 'default', read.metadata.id);
      expect(server?.spec.image).to.deep.equal({ id: IMAGE });
      expect(server?.spec.userData).to.equal(userData);
    }
  });

  it('a v1 update with a different name → 422', async () => {
    const read = await create();
    expect((await rig.call('PUT', `${V1}/${read.metadata.id}`, { body: body('old-2') })).status).to.equal(422);
  });

  it('DELETE → 202; the server is gone', async () => {
    const read = await create();
    expect((await rig.call('DELETE', `${V1}/${read.metadata.id}`)).status).to.equal(202);
    expect((await rig.call('GET', `${V1}/${read.metadata.id}`)).status).to.equal(404);
  });

  it('v1 and v2 do not see each other\'s servers (direct v2 access only to API version 2)', async () => {
    const read = await create();
    expect((await rig.call('GET', `/api/v2/servers/${read.metadata.id}`)).status).to.equal(404);
    const v2 = await rig.call('POST', '/api/v2/servers', { body: { metadata: { name: 'new-1' }, spec: { networkId: 'net-a', flavorId: 'm1.small', imageId: IMAGE } } });
    expect((await rig.call('GET', `${V1}/${(v2.body as Read).metadata.id}`)).status).to.equal(404);
  });

  it('an identity outside the path\'s organization and project, or one the caller may not read, is 404; read-only → 403 on create', async () => {
    expect((await rig.call('GET', '/api/v1/organizations/other/projects/web/identities/id-a/servers')).status).to.equal(404);
    const outsider = await rig.token(projectAcl('other', 'ops', [ENDPOINTS.serversV1]));
    expect((await rig.call('GET', V1, { token: outsider })).status).to.equal(404);
    const reader = await rig.token(projectAcl('acme', 'web', [ENDPOINTS.serversV1], ['read']));
    expect((await rig.call('POST', V1, { token: reader, body: body('old-1') })).status).to.equal(403);
    expect(await rig.servers()).to.have.length(0);
  });

  it('a network of another identity → 422', async () => {
    expect((await rig.call('POST', V1, { body: body('old-1', { networkId: 'net-b' }) })).status).to.equal(422);
  });
});
