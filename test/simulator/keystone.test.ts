import { expect } from 'chai';
import { harness, http, passwordToken } from './helpers.js';
import type { Harness } from './helpers.js';

describe('simulator: Keystone v3', () => {
  let hs: Harness;
  before(async () => { hs = await harness({ tokenTtlMs: 60_000 }); });
  after(async () => { await hs.sim.close(); });

  it('issues a project-scoped token in X-Subject-Token with roles, project, expiry and a catalog pointing at the simulator', async () => {
    const r = await passwordToken(hs.sim, 'demo');
    expect(r.status).to.equal(201);
    expect(r.headers['x-subject-token']).to.be.a('string').with.length.greaterThan(20);
    expect(r.headers['x-openstack-request-id']).to.match(/^req-/);
    const t = r.data.token;
    expect(t.project).to.deep.include({ name: 'demo', id: hs.sim.credentials.demo.projectId });
    expect(t.roles.map((x: { name: string }) => x.name)).to.include('member');
    expect(Date.parse(t.expires_at) - Date.parse(t.issued_at)).to.equal(60_000);
    const types = t.catalog.map((s: { type: string }) => s.type);
    expect(types).to.include.members(['identity', 'compute', 'image', 'volumev3', 'block-storage', 'network', 'load-balancer', 'placement', 'baremetal']);
    const vol = t.catalog.find((s: { type: string }) => s.type === 'volumev3');
    const ifaces = vol.endpoints.map((e: { interface: string }) => e.interface).sort();
    expect(ifaces).to.deep.equal(['admin', 'internal', 'public']);
    for (const e of vol.endpoints) {
      expect(e.region).to.equal('RegionOne');
      expect(e.url).to.equal(`${hs.sim.url}/volume/v3/${hs.sim.credentials.demo.projectId}`);
    }
  });

  it('authenticates a user by id as well as by name + domain', async () => {
    const c = hs.sim.credentials.other;
    const r = await http.post(`${hs.sim.authUrl}/auth/tokens`, { auth: { identity: { methods: ['password'], password: { user: { id: c.userId, password: c.password } } }, scope: { project: { id: c.projectId } } } });
    expect(r.status).to.equal(201);
    expect(r.data.token.project.id).to.equal(c.projectId);
  });

  it('answers 401 with the Keystone error shape for a wrong password, an unknown user, or a project without a role', async () => {
    const bad = await http.post(`${hs.sim.authUrl}/auth/tokens`, { auth: { identity: { methods: ['password'], password: { user: { name: 'demo', domain: { name: 'Default' }, password: 'nope' } } } } });
    expect(bad.status).to.equal(401);
    expect(bad.data.error).to.include({ code: 401, title: 'Unauthorized' });
    const ghost = await http.post(`${hs.sim.authUrl}/auth/tokens`, { auth: { identity: { methods: ['password'], password: { user: { name: 'ghost', domain: { name: 'Default' }, password: 'x' } } } } });
    expect(ghost.status).to.equal(401);
    const noRole = await passwordToken(hs.sim, 'demo', { project: { name: 'other', domain: { name: 'Default' } } });
    expect(noRole.status).to.equal(401);
  });

  it('issues domain-scoped tokens (no project endpoints in the catalog) and unscoped ones falling back to the default project', async () => {
    const d = await passwordToken(hs.sim, 'admin', { domain: { name: 'Default' } });
    expect(d.status).to.equal(201);
    expect(d.data.token.domain).to.deep.equal({ id: 'default', name: 'Default' });
    expect(d.data.token.project).to.equal(undefined);
    const vol = d.data.token.catalog.find((s: { type: string }) => s.type === 'volumev3');
    expect(vol.endpoints).to.deep.equal([]);
    const c = hs.sim.credentials.demo;
    const u = await http.post(`${hs.sim.authUrl}/auth/tokens`, { auth: { identity: { methods: ['password'], password: { user: { name: c.username, domain: { name: 'Default' }, password: c.password } } } } });
    expect(u.status).to.equal(201);
    expect(u.data.token.project.name).to.equal('demo');
  });

  it('validates tokens with GET/HEAD /auth/tokens and revokes them with DELETE', async () => {
    const r = await passwordToken(hs.sim, 'demo');
    const t = r.headers['x-subject-token'] as string;
    const v = await http.get(`${hs.sim.authUrl}/auth/tokens`, { headers: { 'X-Auth-Token': t, 'X-Subject-Token': t } });
    expect(v.status).to.equal(200);
    expect(v.headers['x-subject-token']).to.equal(t);
    expect(v.data.token.user.name).to.equal('demo');
    const head = await http.head(`${hs.sim.authUrl}/auth/tokens`, { headers: { 'X-Auth-Token': t, 'X-Subject-Token': t } });
    expect(head.status).to.equal(200);
    const gone = await http.get(`${hs.sim.authUrl}/auth/tokens`, { headers: { 'X-Auth-Token': t, 'X-Subject-Token': 'nope' } });
    expect(gone.status).to.equal(404);
    expect((await http.delete(`${hs.sim.authUrl}/auth/tokens`, { headers: { 'X-Auth-Token': t, 'X-Subject-Token': t } })).status).to.equal(204);
    const after = await http.get(`${hs.sim.url}/compute/v2.1/servers`, { headers: { 'X-Auth-Token': t } });
    expect(after.status).to.equal(401);
  });

  it('expires tokens on the sim clock: every service then answers 401', async () => {
    const r = await passwordToken(hs.sim, 'demo');
    const t = r.headers['x-subject-token'] as string;
    const urls = [`${hs.sim.url}/compute/v2.1/servers`, `${hs.sim.url}/network/v2.0/networks`, `${hs.sim.url}/image/v2/images`,
      `${hs.sim.url}/volume/v3/${hs.sim.credentials.demo.projectId}/volumes`, `${hs.sim.url}/load-balancer/v2/lbaas/loadbalancers`];
    for (const u of urls) expect((await http.get(u, { headers: { 'X-Auth-Token': t } })).status, u).to.equal(200);
    hs.advance(60_001);
    for (const u of urls) {
      const x = await http.get(u, { headers: { 'X-Auth-Token': t } });
      expect(x.status, u).to.equal(401);
      expect(x.data.error.code).to.equal(401);
    }
    expect((await http.get(urls[0] as string, { headers: { 'X-Auth-Token': 'garbage' } })).status).to.equal(401);
    expect((await http.get(urls[0] as string)).status).to.equal(401);
  });

  it('creates application credentials (secret shown once) that authenticate by id+secret and by name+user', async () => {
    const fresh = await passwordToken(hs.sim, 'demo');
    const t = fresh.headers['x-subject-token'] as string;
    const c = hs.sim.credentials.demo;
    const created = await http.post(`${hs.sim.authUrl}/users/${c.userId}/application_credentials`, { application_credential: { name: 'regent', description: 'ci' } }, { headers: { 'X-Auth-Token': t } });
    expect(created.status).to.equal(201);
    const ac = created.data.application_credential;
    expect(ac.secret).to.be.a('string').with.length.greaterThan(10);
    expect(ac.project_id).to.equal(c.projectId);
    const shown = await http.get(`${hs.sim.authUrl}/users/${c.userId}/application_credentials/${ac.id}`, { headers: { 'X-Auth-Token': t } });
    expect(shown.data.application_credential).to.not.have.property('secret');
    const listed = await http.get(`${hs.sim.authUrl}/users/${c.userId}/application_credentials?name=regent`, { headers: { 'X-Auth-Token': t } });
    expect(listed.data.application_credentials).to.have.length(1);
    const dup = await http.post(`${hs.sim.authUrl}/users/${c.userId}/application_credentials`, { application_credential: { name: 'regent' } }, { headers: { 'X-Auth-Token': t } });
    expect(dup.status).to.equal(409);

    const byId = await http.post(`${hs.sim.authUrl}/auth/tokens`, { auth: { identity: { methods: ['application_credential'], application_credential: { id: ac.id, secret: ac.secret } } } });
    expect(byId.status).to.equal(201);
    expect(byId.data.token.project.id).to.equal(c.projectId);
    expect(byId.data.token.application_credential).to.include({ id: ac.id, name: 'regent', restricted: true });
    const byName = await http.post(`${hs.sim.authUrl}/auth/tokens`, { auth: { identity: { methods: ['application_credential'], application_credential: { name: 'regent', secret: ac.secret, user: { name: 'demo', domain: { name: 'Default' } } } } } });
    expect(byName.status).to.equal(201);
    const wrong = await http.post(`${hs.sim.authUrl}/auth/tokens`, { auth: { identity: { methods: ['application_credential'], application_credential: { id: ac.id, secret: 'x' } } } });
    expect(wrong.status).to.equal(401);

    expect((await http.delete(`${hs.sim.authUrl}/users/${c.userId}/application_credentials/${ac.id}`, { headers: { 'X-Auth-Token': t } })).status).to.equal(204);
    const afterDelete = await http.get(`${hs.sim.url}/compute/v2.1/servers`, { headers: { 'X-Auth-Token': byId.headers['x-subject-token'] as string } });
    expect(afterDelete.status).to.equal(401);
  });

  it('lets an admin manage domains, projects, users and grants; others get 403', async () => {
    const admin = await hs.h('admin');
    const demo = await hs.h('demo');
    expect((await http.get(`${hs.sim.authUrl}/users`, { headers: demo })).status).to.equal(403);
    expect((await http.get(`${hs.sim.authUrl}/projects`, { headers: demo })).status).to.equal(403);
    expect((await http.get(`${hs.sim.authUrl}/users/${hs.sim.credentials.demo.userId}/projects`, { headers: demo })).data.projects.map((p: { name: string }) => p.name)).to.deep.equal(['demo']);
    const dom = await http.post(`${hs.sim.authUrl}/domains`, { domain: { name: 'managed' } }, { headers: admin });
    expect(dom.status).to.equal(201);
    const proj = await http.post(`${hs.sim.authUrl}/projects`, { project: { name: 'tenant-a', domain_id: dom.data.domain.id } }, { headers: admin });
    expect(proj.status).to.equal(201);
    const dupProj = await http.post(`${hs.sim.authUrl}/projects`, { project: { name: 'tenant-a', domain_id: dom.data.domain.id } }, { headers: admin });
    expect(dupProj.status).to.equal(409);
    const user = await http.post(`${hs.sim.authUrl}/users`, { user: { name: 'svc', domain_id: dom.data.domain.id, password: 'pw' } }, { headers: admin });
    expect(user.status).to.equal(201);
    const roles = await http.get(`${hs.sim.authUrl}/roles?name=member`, { headers: admin });
    const member = roles.data.roles[0].id;
    expect((await http.put(`${hs.sim.authUrl}/projects/${proj.data.project.id}/users/${user.data.user.id}/roles/${member}`, undefined, { headers: admin })).status).to.equal(204);
    const tok = await http.post(`${hs.sim.authUrl}/auth/tokens`, { auth: { identity: { methods: ['password'], password: { user: { name: 'svc', domain: { name: 'managed' }, password: 'pw' } } }, scope: { project: { name: 'tenant-a', domain: { name: 'managed' } } } } });
    expect(tok.status).to.equal(201);
    const ra = await http.get(`${hs.sim.authUrl}/role_assignments?user.id=${user.data.user.id}&include_names`, { headers: admin });
    expect(ra.data.role_assignments[0].scope.project.name).to.equal('tenant-a');
    const mine = await http.get(`${hs.sim.authUrl}/auth/projects`, { headers: { 'X-Auth-Token': tok.headers['x-subject-token'] as string } });
    expect(mine.data.projects.map((p: { name: string }) => p.name)).to.deep.equal(['tenant-a']);
  });
});
