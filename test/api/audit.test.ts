import { expect } from 'chai';
import { auditStream } from '../../src/api/audit.js';
import { ENDPOINTS, OPERATIONS } from '../../src/api/auth.js';
import { IMAGE_2, startApiRig, v2Body, type ApiRig } from './rig.js';

describe('api: every accepted write is an event with its actor (source api)', () => {
  let rig: ApiRig;
  beforeEach(async () => (rig = await startApiRig()));
  afterEach(async () => rig.close());

  it('create, update (an image change) and delete append api.server.* events to api-server-<uid> with the token subject, source api and the request id', async () => {
    const token = await rig.token({ global: [ENDPOINTS.serversV2, ENDPOINTS.networksV2].map((name) => ({ name, operations: [...OPERATIONS] })) }, 'alice@acme');
    const userData = Buffer.from('#cloud-config\n').toString('base64');
    const created = await rig.call('POST', '/api/v2/servers', { token, body: v2Body('web-1', { userData }) });
    const id = (created.body as { metadata: { id: string } }).metadata.id;
    const uid = (await rig.source.get('Server', 'default', id))?.metadata.uid as string;
    const updated = await rig.call('PUT', `/api/v2/servers/${id}`, { token, body: v2Body('web-1', { imageId: IMAGE_2 }) });
    const deleted = await rig.call('DELETE', `/api/v2/servers/${id}`, { token });
    const events = await rig.events.readStream(auditStream(uid));
    expect(events.map((e) => e.type)).to.deep.equal(['api.server.created', 'api.server.updated', 'api.server.deleted']);
    for (const e of events) expect(e.metadata).to.include({ source: 'api', actor: 'alice@acme', machine: 'api' });
    expect(events.map((e) => e.metadata.correlationId)).to.deep.equal([created, updated, deleted].map((r) => r.headers.get('x-request-id')));
    expect((events[1]?.data as unknown as { details: Record<string, unknown> }).details).to.deep.include({ rebuild: true });
    const text = JSON.stringify(events);
    expect(text).not.to.contain(token);
    expect(text).not.to.contain(userData);
    expect(text).to.contain('sha256:');
  });

  it('a rejected write records nothing (409 duplicate, 422 name change, 403)', async () => {
    await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1') });
    const before = (await rig.events.readAll()).length;
    expect((await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1') })).status).to.equal(409);
    const id = ((await rig.call('GET', '/api/v2/servers')).body as { metadata: { id: string } }[])[0]?.metadata.id as string;
    expect((await rig.call('PUT', `/api/v2/servers/${id}`, { body: v2Body('web-2') })).status).to.equal(422);
    const reader = await rig.token({ global: [{ name: ENDPOINTS.serversV2, operations: ['read'] }] });
    expect((await rig.call('DELETE', `/api/v2/servers/${id}`, { token: reader })).status).to.equal(403);
    expect(await rig.events.readAll()).to.have.length(before);
  });

  it('v1 writes are recorded too', async () => {
    const V1 = '/api/v1/organizations/acme/projects/web/identities/id-a/servers';
    const created = await rig.call('POST', V1, { body: { metadata: { name: 'old-1' }, spec: { networkId: 'net-a', flavorId: 'm1.small', imageId: '11111111-1111-4111-8111-111111111111' } } });
    expect(created.status).to.equal(201);
    const events = await rig.events.readAll();
    expect(events.map((e) => [e.type, e.metadata.source, e.metadata.actor, (e.data as unknown as { apiVersion: number }).apiVersion])).to.deep.equal([['api.server.created', 'api', 'admin', 1]]);
  });
});
