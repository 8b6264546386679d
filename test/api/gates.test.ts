import { expect } from 'chai';
import { auditStream } from '../../src/api/audit.js';
import { ENDPOINTS, OPERATIONS } from '../../src/api/auth.js';
import { startApiRig, v2Body, type ApiRig } from './rig.js';

interface Read {
  metadata: { id: string };
  status: { remainingProviderCreateGates: string[] };
}

describe('api: POST /api/v2/servers/{id}/provider-create-gates', () => {
  let rig: ApiRig;
  let id: string;
  let service: string;
  beforeEach(async () => {
    rig = await startApiRig();
    const created = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { providerCreateGates: [{ name: 'fabric' }, { name: 'dns', description: 'DNS record published' }] }) });
    id = (created.body as Read).metadata.id;
    expect((created.body as Read).status.remainingProviderCreateGates).to.deep.equal(['fabric', 'dns']);
    service = await rig.token({ global: [ENDPOINTS.serversV2, ENDPOINTS.providerCreateGates].map((name) => ({ name, operations: [...OPERATIONS] })) }, 'svc:fabric-controller');
  });
  afterEach(async () => rig.close());

  it('satisfying a gate records the authenticated service actor, reason and message on the status, and reads expose only the remaining gates', async () => {
    const reply = await rig.call('POST', `/api/v2/servers/${id}/provider-create-gates`, { token: service, body: { name: 'fabric', reason: 'PortsProgrammed', message: 'switch ports set on leaf-3' } });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect((reply.body as Read).status.remainingProviderCreateGates).to.deep.equal(['dns']);
    expect(JSON.stringify(reply.body)).not.to.contain('leaf-3');
    const server = await rig.source.get('Server', 'default', id);
    expect(server?.status?.providerCreateGates).to.have.length(1);
    expect(server?.status?.providerCreateGates?.[0]).to.include({ name: 'fabric', satisfied: true, actor: 'svc:fabric-controller', reason: 'PortsProgrammed', message: 'switch ports set on leaf-3' });
    expect(server?.status?.remainingProviderCreateGates).to.deep.equal(['dns']);
    const events = await rig.events.readStream(auditStream(server?.metadata.uid as string));
    expect(events.map((e) => [e.type, e.metadata.actor, e.metadata.source])).to.deep.equal([['api.server.created', 'admin', 'api'], ['api.server.gateSatisfied', 'svc:fabric-controller', 'api']]);
  });

  it('a gate the server does not declare → 422, nothing written', async () => {
    const before = await rig.source.get('Server', 'default', id);
    expect((await rig.call('POST', `/api/v2/servers/${id}/provider-create-gates`, { token: service, body: { name: 'storage', reason: 'x' } })).status).to.equal(422);
    expect((await rig.source.get('Server', 'default', id))?.metadata.resourceVersion).to.equal(before?.metadata.resourceVersion);
  });

  it('satisfying it again → 200 and the first record stands', async () => {
    await rig.call('POST', `/api/v2/servers/${id}/provider-create-gates`, { token: service, body: { name: 'dns', reason: 'Published' } });
    const other = await rig.token({ global: [ENDPOINTS.serversV2, ENDPOINTS.providerCreateGates].map((name) => ({ name, operations: [...OPERATIONS] })) }, 'svc:other');
    const again = await rig.call('POST', `/api/v2/servers/${id}/provider-create-gates`, { token: other, body: { name: 'dns', reason: 'Again' } });
    expect(again.status).to.equal(200);
    const server = await rig.source.get('Server', 'default', id);
    expect(server?.status?.providerCreateGates?.map((g) => [g.name, g.actor, g.reason])).to.deep.equal([['dns', 'svc:fabric-controller', 'Published']]);
  });

  it('the body is validated: no reason → 400 naming it', async () => {
    const reply = await rig.call('POST', `/api/v2/servers/${id}/provider-create-gates`, { token: service, raw: JSON.stringify({ name: 'dns' }) });
    expect(reply.status).to.equal(400);
    expect((reply.body as { error_description: string }).error_description).to.contain('reason');
  });
});
