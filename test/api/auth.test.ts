import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuthenticator, createTokenIssuer, ENDPOINTS, writeDemoTokens } from '../../src/api/auth.js';
import { projectAcl, startApiRig, v2Body, type ApiRig } from './rig.js';

describe('api: authentication and authorization', () => {
  let rig: ApiRig;
  beforeEach(async () => (rig = await startApiRig()));
  afterEach(async () => rig.close());

  it('no bearer token → 401 access_denied', async () => {
    const reply = await rig.call('GET', '/api/v2/servers', { token: null });
    expect(reply.status).to.equal(401);
    expect((reply.body as { error: string }).error).to.equal('access_denied');
  });

  it('a token signed by a key outside the JWKS → 401', async () => {
    const stranger = await createTokenIssuer();
    const reply = await rig.call('GET', '/api/v2/servers', { token: await stranger.sign({ sub: 'mallory', acl: { global: [{ name: ENDPOINTS.serversV2, operations: ['read'] }] } }) });
    expect(reply.status).to.equal(401);
  });

  it('an expired token → 401', async () => {
    const token = await rig.issuer.sign({ sub: 'late', acl: {}, expiresIn: '-1m' });
    expect((await rig.call('GET', '/api/v2/servers', { token })).status).to.equal(401);
  });

  it('a malformed ACL claim → 401', async () => {
    const token = await rig.issuer.sign({ sub: 'odd', acl: { global: [{ name: ENDPOINTS.serversV2, operations: ['fly'] }] } as never });
    expect((await rig.call('GET', '/api/v2/servers', { token })).status).to.equal(401);
  });

  it('a caller who may not see the server gets 404, the same as for a server that does not exist (no hint of another tenancy)', async () => {
    const created = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1') });
    expect(created.status).to.equal(201);
    const id = (created.body as { metadata: { id: string } }).metadata.id;
    const outsider = await rig.token(projectAcl('other', 'ops', [ENDPOINTS.serversV2, ENDPOINTS.networksV2]));
    const hidden = await rig.call('GET', `/api/v2/servers/${id}`, { token: outsider });
    const absent = await rig.call('GET', '/api/v2/servers/00000000-0000-5000-8000-000000000000', { token: outsider });
    expect(hidden.status).to.equal(404);
    expect(absent.status).to.equal(404);
    expect((hidden.body as { error_description: string }).error_description.replace(id, 'X')).to.equal((absent.body as { error_description: string }).error_description.replace('00000000-0000-5000-8000-000000000000', 'X'));
    for (const [method, body] of [['PUT', v2Body('web-1')], ['DELETE', undefined]] as const) {
      expect((await rig.call(method, `/api/v2/servers/${id}`, { token: outsider, ...(body ? { body } : {}) })).status, method).to.equal(404);
    }
    expect((await rig.call('GET', '/api/v2/servers', { token: outsider })).body).to.deep.equal([]);
    expect(await rig.servers()).to.have.length(1);
  });

  it('another project of the same organization does not see the server either (project scope) → 404', async () => {
    const id = ((await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1') })).body as { metadata: { id: string } }).metadata.id;
    const neighbour = await rig.token(projectAcl('acme', 'db', [ENDPOINTS.serversV2]));
    expect((await rig.call('GET', `/api/v2/servers/${id}`, { token: neighbour })).status).to.equal(404);
  });

  it('an organization-level grant covers the organization\'s projects', async () => {
    const id = ((await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1') })).body as { metadata: { id: string } }).metadata.id;
    const org = await rig.token({ organizations: [{ id: 'acme', endpoints: [{ name: ENDPOINTS.serversV2, operations: ['read'] }] }] });
    expect((await rig.call('GET', `/api/v2/servers/${id}`, { token: org })).status).to.equal(200);
  });

  it('a caller who may see but not act gets 403 (update, delete), and nothing changes', async () => {
    const id = ((await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1') })).body as { metadata: { id: string } }).metadata.id;
    const reader = await rig.token(projectAcl('acme', 'web', [ENDPOINTS.serversV2, ENDPOINTS.networksV2], ['read']));
    expect((await rig.call('GET', `/api/v2/servers/${id}`, { token: reader })).status).to.equal(200);
    expect((await rig.call('PUT', `/api/v2/servers/${id}`, { token: reader, body: v2Body('web-1', { imageId: '22222222-2222-4222-8222-222222222222' }) })).status).to.equal(403);
    expect((await rig.call('DELETE', `/api/v2/servers/${id}`, { token: reader })).status).to.equal(403);
    const [server] = await rig.servers();
    expect((server?.spec.image as { id: string }).id).to.equal('11111111-1111-4111-8111-111111111111');
  });

  it('create: a caller who sees the network but may not create servers gets 403; one who cannot see the network gets 422 (as for an absent one)', async () => {
    const reader = await rig.token(projectAcl('acme', 'web', [ENDPOINTS.serversV2, ENDPOINTS.networksV2], ['read']));
    expect((await rig.call('POST', '/api/v2/servers', { token: reader, body: v2Body('web-1') })).status).to.equal(403);
    const outsider = await rig.token(projectAcl('other', 'ops', [ENDPOINTS.serversV2, ENDPOINTS.networksV2]));
    const hidden = await rig.call('POST', '/api/v2/servers', { token: outsider, body: v2Body('web-1') });
    const absent = await rig.call('POST', '/api/v2/servers', { token: outsider, body: v2Body('web-1', { networkId: 'net-zz' }) });
    expect(hidden.status).to.equal(422);
    expect(absent.status).to.equal(422);
    expect(await rig.servers()).to.have.length(0);
  });

  it('the provider-create-gates verb needs its own permission (region:servers:v2/provider-create-gates) plus read: read alone → 403, neither → 404', async () => {
    const id = ((await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { providerCreateGates: [{ name: 'fabric' }] }) })).body as { metadata: { id: string } }).metadata.id;
    const gate = { name: 'fabric', reason: 'ready' };
    const reader = await rig.token(projectAcl('acme', 'web', [ENDPOINTS.serversV2]));
    expect((await rig.call('POST', `/api/v2/servers/${id}/provider-create-gates`, { token: reader, body: gate })).status).to.equal(403);
    const gateOnly = await rig.token(projectAcl('acme', 'web', [ENDPOINTS.providerCreateGates]));
    expect((await rig.call('POST', `/api/v2/servers/${id}/provider-create-gates`, { token: gateOnly, body: gate })).status).to.equal(404);
  });
});

describe('api: JWKS configuration and the demo tokens', () => {
  it('writeDemoTokens writes a JWKS and a 0600 token file whose token verifies against that JWKS file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-demo-'));
    try {
      const demo = await writeDemoTokens(dir);
      expect(readFileSync(demo.tokenPath, 'utf8').trim()).to.equal(demo.token);
      expect(statSync(demo.tokenPath).mode & 0o777).to.equal(0o600);
      const principal = await createAuthenticator({ jwks: demo.jwksPath }).authenticate(`Bearer ${demo.token}`);
      expect(principal.subject).to.equal('demo-operator');
      expect(readFileSync(demo.jwksPath, 'utf8')).not.to.contain('"d"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('issuer and audience are checked when configured', async () => {
    const issuer = await createTokenIssuer();
    const auth = createAuthenticator({ jwks: issuer.jwks, issuer: 'https://id.example', audience: 'regent' });
    const good = await issuer.sign({ sub: 'a', acl: {}, issuer: 'https://id.example', audience: 'regent' });
    const bad = await issuer.sign({ sub: 'a', acl: {}, issuer: 'https://other.example', audience: 'regent' });
    expect((await auth.authenticate(`Bearer ${good}`)).subject).to.equal('a');
    let failed = false;
    await auth.authenticate(`Bearer ${bad}`).catch(() => (failed = true));
    expect(failed).to.equal(true);
  });
});
