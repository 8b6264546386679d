// The simulator's Keystone administration rules, each as measured on the Zed sandbox's real Keystone
// (docs/simulator-differences.md, "Keystone administration"): domain deletion, disabled domains, names
// compared like Keystone's database, project tags, grants, and the application-credential policy.
import { expect } from 'chai';
import type { AxiosResponse } from 'axios';
import { harness, http } from './helpers.js';
import type { Harness } from './helpers.js';

describe('simulator: Keystone administration as real Keystone answers it', () => {
  let hs: Harness;
  let admin: Record<string, string>;
  before(async () => { hs = await harness({ seed: false }); });
  after(async () => { await hs.sim.close(); });
  beforeEach(async () => {
    hs.sim.control.reset();
    admin = { 'X-Auth-Token': await freshToken('admin') };
  });

  const ks = (path: string): string => `${hs.sim.authUrl}${path}`;
  const freshToken = async (who: 'admin' | 'demo'): Promise<string> => {
    const c = hs.sim.credentials[who];
    const r = await http.post(ks('/auth/tokens'), { auth: { identity: { methods: ['password'], password: { user: { id: c.userId, password: c.password } } }, scope: { project: { id: c.projectId } } } });
    return r.headers['x-subject-token'] as string;
  };
  const post = (path: string, body: unknown, headers = admin): Promise<AxiosResponse> => http.post(ks(path), body, { headers });
  const passwordAuth = (userId: string, password: string, projectId: string): Promise<AxiosResponse> =>
    http.post(ks('/auth/tokens'), { auth: { identity: { methods: ['password'], password: { user: { id: userId, password } } }, scope: { project: { id: projectId } } } });
  const appCredAuth = (cred: Record<string, unknown>): Promise<AxiosResponse> =>
    http.post(ks('/auth/tokens'), { auth: { identity: { methods: ['application_credential'], application_credential: cred } } });
  const nova = (token: string): Promise<AxiosResponse> => http.get(`${hs.sim.url}/compute/v2.1/flavors`, { headers: { 'X-Auth-Token': token } });
  const roleId = async (name: string): Promise<string> => (await http.get(ks(`/roles?name=${name}`), { headers: admin })).data.roles[0].id as string;

  /** Domain + project + user with member and reader on it, and the user's project token. */
  async function managed(prefix = 'm') {
    const domain = (await post('/domains', { domain: { name: `${prefix}-domain` } })).data.domain;
    const project = (await post('/projects', { project: { name: `${prefix}-project`, domain_id: domain.id } })).data.project;
    const user = (await post('/users', { user: { name: `${prefix}-user`, domain_id: domain.id, password: 'pw-123456' } })).data.user;
    for (const role of ['member', 'reader']) await http.put(ks(`/projects/${project.id}/users/${user.id}/roles/${await roleId(role)}`), undefined, { headers: admin });
    const token = (await passwordAuth(user.id, 'pw-123456', project.id)).headers['x-subject-token'] as string;
    return { domain, project, user, token, headers: { 'X-Auth-Token': token } };
  }

  describe('domains', () => {
    it('an enabled domain cannot be deleted (403, Zed wording); once disabled its delete removes its projects, users and credentials', async () => {
      const m = await managed();
      const cred = (await post(`/users/${m.user.id}/application_credentials`, { application_credential: { name: 'c' } }, m.headers)).data.application_credential;
      const refused = await http.delete(ks(`/domains/${m.domain.id}`), { headers: admin });
      expect(refused.status).to.equal(403);
      expect(refused.data.error.message).to.equal('Cannot delete a domain that is enabled, please disable it first.');
      expect((await http.patch(ks(`/domains/${m.domain.id}`), { domain: { enabled: false } }, { headers: admin })).status).to.equal(200);
      expect((await http.delete(ks(`/domains/${m.domain.id}`), { headers: admin })).status).to.equal(204);
      expect((await http.get(ks(`/projects/${m.project.id}`), { headers: admin })).status).to.equal(404);
      expect((await http.get(ks(`/users/${m.user.id}`), { headers: admin })).status).to.equal(404);
      expect((await appCredAuth({ id: cred.id, secret: cred.secret })).status).to.equal(404);
      expect((await http.delete(ks(`/domains/${m.domain.id}`), { headers: admin })).status).to.equal(404);
    });

    it("a disabled domain's users cannot authenticate (password or application credential) and their tokens are refused", async () => {
      const m = await managed();
      const cred = (await post(`/users/${m.user.id}/application_credentials`, { application_credential: { name: 'c' } }, m.headers)).data.application_credential;
      expect((await nova(m.token)).status).to.equal(200);
      await http.patch(ks(`/domains/${m.domain.id}`), { domain: { enabled: false } }, { headers: admin });
      expect((await passwordAuth(m.user.id, 'pw-123456', m.project.id)).status).to.equal(401);
      expect((await appCredAuth({ id: cred.id, secret: cred.secret })).status).to.equal(401);
      expect((await nova(m.token)).status).to.equal(401);
      const inDisabled = await post('/projects', { project: { name: 'another', domain_id: m.domain.id } });
      expect(inDisabled.status).to.equal(400);
      expect(inDisabled.data.error.message).to.equal(`cannot create a project in a branch containing a disabled project: ${m.domain.id}`);
    });

    it('a project in an unknown domain is a 400 (its parent), a user in one a 404', async () => {
      const p = await post('/projects', { project: { name: 'p', domain_id: 'nope' } });
      expect(p.status).to.equal(400);
      expect(p.data.error.message).to.equal('Could not find domain: nope.');
      expect((await post('/users', { user: { name: 'u', domain_id: 'nope', password: 'x' } })).status).to.equal(404);
    });
  });

  describe('names compare as the database compares them (case folded, trailing spaces ignored)', () => {
    it('name filters return case variants and a trailing-space variant; unique checks refuse them with 409 (Zed wording)', async () => {
      const d = (await post('/domains', { domain: { name: 'region-one' } })).data.domain;
      expect((await http.get(ks('/domains?name=REGION-ONE'), { headers: admin })).data.domains.map((x: { id: string }) => x.id)).to.deep.equal([d.id]);
      const dup = await post('/domains', { domain: { name: 'Region-One' } });
      expect(dup.status).to.equal(409);
      expect(dup.data.error.message).to.equal('Conflict occurred attempting to store project - it is not permitted to have two projects acting as domains with the same name: Region-One.');

      const p = (await post('/projects', { project: { name: 'acme-web', domain_id: d.id } })).data.project;
      await post('/projects', { project: { name: 'acme-web-2', domain_id: d.id } });
      const listed = await http.get(ks(`/projects?domain_id=${d.id}&name=${encodeURIComponent('ACME-web ')}`), { headers: admin });
      expect(listed.data.projects.map((x: { id: string }) => x.id)).to.deep.equal([p.id]);
      const dupP = await post('/projects', { project: { name: 'ACME-WEB', domain_id: d.id } });
      expect(dupP.status).to.equal(409);
      expect(dupP.data.error.message).to.equal(`Conflict occurred attempting to store project - it is not permitted to have two projects with either the same name or same id in the same domain: name is ACME-WEB, project id ${p.id}.`);

      await post('/users', { user: { name: 'acme-web', domain_id: d.id, password: 'x' } });
      expect((await http.get(ks(`/users?domain_id=${d.id}&name=Acme-Web`), { headers: admin })).data.users).to.have.length(1);
      expect((await post('/users', { user: { name: 'ACME-web', domain_id: d.id, password: 'x' } })).status).to.equal(409);
      expect((await http.get(ks('/roles?name=MEMBER'), { headers: admin })).data.roles.map((r: { name: string }) => r.name)).to.deep.equal(['member']);
    });

    it('application-credential names too: the filter folds case and a case variant is a 409 (Zed wording)', async () => {
      const m = await managed();
      await post(`/users/${m.user.id}/application_credentials`, { application_credential: { name: 'regent' } }, m.headers);
      expect((await http.get(ks(`/users/${m.user.id}/application_credentials?name=REGENT`), { headers: m.headers })).data.application_credentials).to.have.length(1);
      const dup = await post(`/users/${m.user.id}/application_credentials`, { application_credential: { name: 'Regent' } }, m.headers);
      expect(dup.status).to.equal(409);
      expect(dup.data.error.message).to.equal('Conflict occurred attempting to store application_credential - Duplicate entry found with name Regent.');
    });
  });

  it("project tags follow Keystone's schema: at most 80, unique, 1..255 characters without ',' or '/'", async () => {
    const d = (await post('/domains', { domain: { name: 'region-one' } })).data.domain;
    const mk = (tags: unknown) => post('/projects', { project: { name: `p-${Math.random()}`, domain_id: d.id, tags } });
    expect((await mk(['regent:x', 'a'])).data.project.tags).to.deep.equal(['regent:x', 'a']);
    expect((await mk(Array.from({ length: 80 }, (_, i) => `t${i}`))).status).to.equal(201);
    for (const [tags, message] of [
      [['a/b'], "Invalid input for field 'tags/0': 'a/b' does not match '^[^,/]*$'"],
      [['ok', 'a,b'], "Invalid input for field 'tags/1': 'a,b' does not match '^[^,/]*$'"],
      [[''], "Invalid input for field 'tags/0': '' is too short"],
      [['x'.repeat(256)], `Invalid input for field 'tags/0': '${'x'.repeat(256)}' is too long`],
      [['a', 'a'], "Invalid input for field 'tags': ['a', 'a'] has non-unique elements"],
    ] as const) {
      const r = await mk(tags);
      expect(r.status, JSON.stringify(tags)).to.equal(400);
      expect(r.data.error.message).to.equal(message);
    }
    expect((await mk(Array.from({ length: 81 }, (_, i) => `t${i}`))).status).to.equal(400);
  });

  it('grants: PUT twice is 204 twice, HEAD is 204/404 without a body, a second DELETE is 404; listing roles needs admin', async () => {
    const m = await managed();
    const lb = await roleId('load-balancer_member');
    const url = ks(`/projects/${m.project.id}/users/${m.user.id}/roles/${lb}`);
    expect((await http.head(url, { headers: admin })).status).to.equal(404);
    expect((await http.put(url, undefined, { headers: admin })).status).to.equal(204);
    expect((await http.put(url, undefined, { headers: admin })).status).to.equal(204);
    const head = await http.head(url, { headers: admin });
    expect(head.status).to.equal(204);
    expect(head.data).to.equal('');
    expect((await http.delete(url, { headers: admin })).status).to.equal(204);
    expect((await http.delete(url, { headers: admin })).status).to.equal(404);
    const demo = { 'X-Auth-Token': await freshToken('demo') };
    const roles = await http.get(ks('/roles?name=member'), { headers: demo });
    expect(roles.status).to.equal(403);
    expect(roles.data.error.message).to.equal('You are not authorized to perform the requested action: identity:list_roles.');
  });

  describe('application credentials', () => {
    it('only the owner creates one: an admin gets 403, and so does a token issued from a restricted credential', async () => {
      const m = await managed();
      const byAdmin = await post(`/users/${m.user.id}/application_credentials`, { application_credential: { name: 'c' } });
      expect(byAdmin.status).to.equal(403);
      expect(byAdmin.data.error.message).to.equal('You are not authorized to perform the requested action: identity:create_application_credential.');
      const own = (await post(`/users/${m.user.id}/application_credentials`, { application_credential: { name: 'c' } }, m.headers)).data.application_credential;
      const acToken = (await appCredAuth({ id: own.id, secret: own.secret })).headers['x-subject-token'] as string;
      const chained = await post(`/users/${m.user.id}/application_credentials`, { application_credential: { name: 'd' } }, { 'X-Auth-Token': acToken });
      expect(chained.status).to.equal(403);
      expect(chained.data.error.message).to.equal("You are not authorized to perform the requested action: Using method 'application_credential' is not allowed for managing additional application credentials..");
    });

    it('the view: secret only on create, unrestricted null unless given, expires_at without a zone, system null, self link at /v3/application_credentials', async () => {
      const m = await managed();
      const future = new Date(hs.sim.clock.now() + 3_600_000).toISOString().replace('Z', '');
      const r = await post(`/users/${m.user.id}/application_credentials`, { application_credential: { name: 'c', expires_at: future, roles: [{ name: 'member' }] } }, m.headers);
      const c = r.data.application_credential;
      expect(c).to.include({ unrestricted: null, system: null, description: null, user_id: m.user.id, project_id: m.project.id });
      expect(c.expires_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
      expect(c.links.self).to.equal(`${hs.sim.url}/identity/v3/application_credentials/${c.id}`);
      expect(c.roles).to.deep.equal([{ id: await roleId('member'), name: 'member', domain_id: null, description: null, options: {} }]);
      expect(c.secret).to.be.a('string');
      const shown = await http.get(ks(`/users/${m.user.id}/application_credentials/${c.id}`), { headers: m.headers });
      expect(shown.data.application_credential).to.not.have.property('secret');
      const restricted = await post(`/users/${m.user.id}/application_credentials`, { application_credential: { name: 'd', unrestricted: false } }, m.headers);
      expect(restricted.data.application_credential.unrestricted).to.equal(false);
    });

    it('create refuses an unassigned role, a past expiry and an unreadable one with 400 (Zed wording)', async () => {
      const m = await managed();
      const mk = (body: Record<string, unknown>) => post(`/users/${m.user.id}/application_credentials`, { application_credential: { name: 'c', ...body } }, m.headers);
      const unassigned = await mk({ roles: [{ name: 'admin' }] });
      expect(unassigned.status).to.equal(400);
      expect(unassigned.data.error.message).to.equal('Invalid application credential: Cannot create an application credential with unassigned role');
      const past = await mk({ expires_at: '2000-01-01T00:00:00' });
      expect(past.status).to.equal(400);
      expect(past.data.error.message).to.match(/^The 'expires_at' must not be before now\./);
      const garbage = await mk({ expires_at: 'garbage' });
      expect(garbage.status).to.equal(400);
      expect(garbage.data.error.message).to.match(/^Timestamp not in expected format\./);
    });

    it('token issue: a deleted or unknown id is 404, by name + user 401, expired 401, any explicit scope 401', async () => {
      const m = await managed();
      const expiring = new Date(hs.sim.clock.now() + 60_000).toISOString();
      const c = (await post(`/users/${m.user.id}/application_credentials`, { application_credential: { name: 'c', expires_at: expiring } }, m.headers)).data.application_credential;
      const scoped = await http.post(ks('/auth/tokens'), { auth: { identity: { methods: ['application_credential'], application_credential: { id: c.id, secret: c.secret } }, scope: { project: { id: m.project.id } } } });
      expect(scoped.status).to.equal(401);
      expect(scoped.data.error.message).to.equal('Error authenticating with application credential: Application credentials cannot request a scope.');
      const issued = await appCredAuth({ id: c.id, secret: c.secret });
      expect(issued.status).to.equal(201);
      hs.advance(60_001);
      expect((await appCredAuth({ id: c.id, secret: c.secret })).status).to.equal(401);
      expect((await http.delete(ks(`/users/${m.user.id}/application_credentials/${c.id}`), { headers: m.headers })).status).to.equal(204);
      const deleted = await appCredAuth({ id: c.id, secret: c.secret });
      expect(deleted.status).to.equal(404);
      expect(deleted.data.error.message).to.equal(`Could not find Application Credential: ${c.id}.`);
      expect((await appCredAuth({ name: 'c', user: { id: m.user.id }, secret: c.secret })).status).to.equal(401);
      expect((await appCredAuth({ id: 'nope', secret: 'x' })).status).to.equal(404);
    });

    it("show and delete look the credential up by id: the path's user is not checked (an admin deletes through any user's path); a non-owner gets 403", async () => {
      const a = await managed('a');
      const b = await managed('b');
      const c = (await post(`/users/${a.user.id}/application_credentials`, { application_credential: { name: 'c' } }, a.headers)).data.application_credential;
      expect((await http.get(ks(`/users/${b.user.id}/application_credentials/${c.id}`), { headers: admin })).data.application_credential.user_id).to.equal(a.user.id);
      for (const path of [`/users/${b.user.id}/application_credentials/${c.id}`, `/users/${a.user.id}/application_credentials/${c.id}`]) {
        const r = await http.delete(ks(path), { headers: b.headers });
        expect(r.status).to.equal(403);
        expect(r.data.error.message).to.equal('You are not authorized to perform the requested action: identity:delete_application_credential.');
      }
      expect((await http.get(ks(`/users/${a.user.id}/application_credentials`), { headers: b.headers })).status).to.equal(403);
      expect((await http.delete(ks(`/users/${b.user.id}/application_credentials/${c.id}`), { headers: admin })).status).to.equal(204);
      expect((await http.get(ks(`/users/${a.user.id}/application_credentials/${c.id}`), { headers: admin })).status).to.equal(404);
      const unknownUser = await http.get(ks('/users/no-such-user/application_credentials'), { headers: admin });
      expect(unknownUser.status).to.equal(200);
      expect(unknownUser.data.application_credentials).to.deep.equal([]);
    });
  });

  it('tokens stop validating when their user, project or application credential is deleted', async () => {
    const m = await managed();
    const c = (await post(`/users/${m.user.id}/application_credentials`, { application_credential: { name: 'c' } }, m.headers)).data.application_credential;
    const acToken = (await appCredAuth({ id: c.id, secret: c.secret })).headers['x-subject-token'] as string;
    expect((await nova(acToken)).status).to.equal(200);
    await http.delete(ks(`/users/${m.user.id}/application_credentials/${c.id}`), { headers: m.headers });
    expect((await nova(acToken)).status).to.equal(401);

    const second = (await post('/projects', { project: { name: 'second', domain_id: m.domain.id } })).data.project;
    await http.put(ks(`/projects/${second.id}/users/${m.user.id}/roles/${await roleId('member')}`), undefined, { headers: admin });
    const onSecond = (await passwordAuth(m.user.id, 'pw-123456', second.id)).headers['x-subject-token'] as string;
    await http.delete(ks(`/projects/${second.id}`), { headers: admin });
    expect((await nova(onSecond)).status).to.equal(401);
    expect((await nova(m.token)).status).to.equal(200);
    await http.delete(ks(`/users/${m.user.id}`), { headers: admin });
    expect((await nova(m.token)).status).to.equal(401);
  });
});
