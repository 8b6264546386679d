/**
 * The Keystone administration client (src/openstack/keystone/admin) against the simulator over real HTTP:
 * every function, the exact-name post-filter (Keystone's name filter folds case; names sharing a prefix),
 * duplicates → ConsistencyError, the typed errors, nothing that creates retried, and no secret (a new user's
 * password, an application credential's secret) in any error or log line.
 */
import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import util from 'node:util';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { BadRequest, ConsistencyError, Conflict, Forbidden, NotFound, ServerError, Unauthorized, UnreadableResponse } from '../../src/openstack/errors.js';
import type { CloudConfig } from '../../src/openstack/keystone/clouds-config.js';
import type { KeystoneAdminClient } from '../../src/openstack/keystone/admin/index.js';
import { createKeystoneAdminClient } from '../../src/openstack/keystone/admin/index.js';
import { connect, connectAsUser, type OpenStackSession } from '../../src/openstack/session.js';
import { FAST_RETRY, captureLogs, cloudFor, connectAs, fault, rejectionOf, simApi, start } from './support/sim.js';

const leakSurfaces = (error: unknown): string[] => {
  const e = error as Error;
  return [e.message, e.stack ?? '', JSON.stringify(e), util.inspect(e, { depth: 10 })];
};

describe('keystone administration client over HTTP (simulator)', function () {
  this.timeout(20_000);
  let sim: RunningSimulator;
  let admin: OpenStackSession;
  let ks: KeystoneAdminClient;

  before(async () => {
    sim = await start({ seed: false });
  });
  after(async () => {
    await sim.close();
  });
  beforeEach(async () => {
    await simApi(sim, 'POST', '/reset');
    admin = await connectAs(sim, 'admin');
    ks = admin.identityAdmin;
  });

  /** A managed domain with one project and one user holding member on it. */
  const scaffold = async (password = 'managed-user-pw-0001') => {
    const domain = await ks.createDomain({ name: 'region-one', description: 'managed by regent' });
    const project = await ks.createProject({ domainId: domain.id, name: 'acme-web', tags: ['regent', 'identity:acme-web'] });
    const user = await ks.createUser({ domainId: domain.id, name: 'acme-web', password, defaultProjectId: project.id });
    const member = await ks.findRoleByName('member');
    if (member === undefined) throw new Error('no member role');
    await ks.grantProjectRole({ projectId: project.id, userId: user.id, roleId: member.id });
    return { domain, project, user, member, password };
  };

  const appCredCloud = (id: string, secret: string): CloudConfig => ({
    ...cloudFor(sim, 'admin'), auth: { type: 'application-credential', credential: { id }, secret }, scope: { kind: 'unscoped' },
  });

  describe('domains', () => {
    it('create, exact find (a case variant is not the same name), update, and delete (disabled first)', async () => {
      const created = await ks.createDomain({ name: 'region-one', description: 'managed' });
      expect(created).to.deep.equal({ id: created.id, name: 'region-one', enabled: true, description: 'managed' });
      expect(await ks.findDomainByName('region-one')).to.deep.equal(created);
      // Keystone's filter folds case (the simulator as the real database): the post-filter keeps only the exact name.
      expect(await ks.findDomainByName('Region-One')).to.equal(undefined);
      expect(await ks.findDomainByName('region')).to.equal(undefined);
      expect(await ks.findDomainByName('no-such-domain')).to.equal(undefined);
      expect(await rejectionOf(ks.createDomain({ name: 'REGION-ONE' }))).to.be.instanceOf(Conflict);
      expect((await ks.createDomain({ name: 'region-two' })).description).to.equal('');
      const updated = await ks.updateDomain(created.id, { description: 'changed' });
      expect(updated).to.include({ description: 'changed', enabled: true });
      expect(await ks.getDomain(created.id)).to.deep.equal(updated);

      await simApi(sim, 'DELETE', '/calls');
      await ks.deleteDomain(created.id);
      expect(sim.calls({ pathIncludes: `/domains/${created.id}` }).map((c) => `${c.method} ${c.status}`)).to.deep.equal(['PATCH 200', 'DELETE 204']);
      expect(await ks.findDomainByName('region-one')).to.equal(undefined);
      expect(await rejectionOf(ks.deleteDomain(created.id))).to.be.instanceOf(NotFound);
      expect(await rejectionOf(ks.getDomain(created.id))).to.be.instanceOf(NotFound);
    });

    it('Keystone refuses to delete an enabled domain (403): the raw DELETE without the disable shows why deleteDomain disables first', async () => {
      const d = await ks.createDomain({ name: 'enabled-domain' });
      const error = await rejectionOf(admin.http('identity').delete(`/domains/${d.id}`));
      expect(error).to.be.instanceOf(Forbidden);
      expect((error as Forbidden).fault).to.equal('Cannot delete a domain that is enabled, please disable it first.');
    });

    it('deleting a domain removes its projects, users, grants and application credentials', async () => {
      const { domain, project, user, password } = await scaffold();
      const asUser = await connectAsUser(cloudFor(sim, 'admin'), { userId: user.id, password, projectId: project.id }, { retry: FAST_RETRY });
      const cred = await asUser.identityAdmin.createApplicationCredential({ userId: user.id, name: 'regent' });
      await ks.deleteDomain(domain.id);
      expect(await rejectionOf(ks.getProject(project.id))).to.be.instanceOf(NotFound);
      expect(await rejectionOf(ks.getUser(user.id))).to.be.instanceOf(NotFound);
      expect(await ks.listRoleAssignments({ userId: user.id })).to.deep.equal([]);
      expect(await rejectionOf(connect(appCredCloud(cred.id, cred.secret), { retry: FAST_RETRY }))).to.be.instanceOf(Unauthorized);
    });
  });

  describe('projects', () => {
    it('exact find among names sharing a prefix and case variants, in the right domain only; tags come back sorted, as Keystone answers them', async () => {
      const d = await ks.createDomain({ name: 'region-one' });
      const other = await ks.createDomain({ name: 'region-other' });
      const web = await ks.createProject({ domainId: d.id, name: 'acme-web', description: 'the web identity', tags: ['regent', 'org:acme'] });
      const web2 = await ks.createProject({ domainId: d.id, name: 'acme-web-2' });
      await ks.createProject({ domainId: other.id, name: 'acme-web' });
      expect(web).to.deep.equal({ id: web.id, name: 'acme-web', domainId: d.id, enabled: true, description: 'the web identity', tags: ['org:acme', 'regent'] });
      expect(web2.tags).to.deep.equal([]);
      expect(await ks.findProject({ domainId: d.id, name: 'acme-web' })).to.deep.equal(web);
      expect((await ks.findProject({ domainId: d.id, name: 'acme-web-2' }))?.id).to.equal(web2.id);
      expect(await ks.findProject({ domainId: d.id, name: 'acme' })).to.equal(undefined);
      expect(await ks.findProject({ domainId: d.id, name: 'ACME-WEB' })).to.equal(undefined);
      expect(await ks.findProject({ domainId: d.id, name: 'acme-web ' })).to.equal(undefined);
      expect(await ks.getProject(web.id)).to.deep.equal(web);
      // The find found nothing for the case variant, yet Keystone's unique check folds case: a create is a 409.
      expect(await rejectionOf(ks.createProject({ domainId: d.id, name: 'ACME-WEB' }))).to.be.instanceOf(Conflict);
      await ks.deleteProject(web2.id);
      expect(await rejectionOf(ks.getProject(web2.id))).to.be.instanceOf(NotFound);
      expect(await rejectionOf(ks.deleteProject(web2.id))).to.be.instanceOf(NotFound);
    });

    it('a tag Keystone refuses and an unknown domain are BadRequest; nothing that creates is retried (one POST on a 500)', async () => {
      const d = await ks.createDomain({ name: 'region-one' });
      expect(await rejectionOf(ks.createProject({ domainId: d.id, name: 'p', tags: ['a/b'] }))).to.be.instanceOf(BadRequest);
      expect(await rejectionOf(ks.createProject({ domainId: d.id, name: 'p', tags: ['x', 'x'] }))).to.be.instanceOf(BadRequest);
      expect(await rejectionOf(ks.createProject({ domainId: 'no-such-domain', name: 'p' }))).to.be.instanceOf(BadRequest);
      await simApi(sim, 'DELETE', '/calls');
      await fault(sim, { method: 'POST', path: '/identity/v3/projects$', status: 500, count: 5 });
      expect(await rejectionOf(ks.createProject({ domainId: d.id, name: 'p' }))).to.be.instanceOf(ServerError);
      expect(sim.calls({ method: 'POST', pathIncludes: '/projects' })).to.have.length(1);
    });
  });

  describe('users', () => {
    it('create (default project), exact find, get, duplicate 409, delete', async () => {
      const d = await ks.createDomain({ name: 'region-one' });
      const p = await ks.createProject({ domainId: d.id, name: 'acme-web' });
      const user = await ks.createUser({ domainId: d.id, name: 'acme-web', password: 'pw-0001-abcdef', defaultProjectId: p.id, description: 'identity acme-web' });
      expect(user).to.deep.equal({ id: user.id, name: 'acme-web', domainId: d.id, enabled: true, defaultProjectId: p.id });
      const svc = await ks.createUser({ domainId: d.id, name: 'acme-web-svc', password: 'pw-0002-abcdef' });
      expect(svc.defaultProjectId).to.equal(null);
      expect(await ks.findUser({ domainId: d.id, name: 'acme-web' })).to.deep.equal(user);
      expect(await ks.findUser({ domainId: d.id, name: 'Acme-Web' })).to.equal(undefined);
      expect(await ks.findUser({ domainId: 'default', name: 'acme-web' })).to.equal(undefined);
      expect(await ks.getUser(user.id)).to.deep.equal(user);
      expect(await rejectionOf(ks.createUser({ domainId: d.id, name: 'acme-web', password: 'x-x-x-x' }))).to.be.instanceOf(Conflict);
      expect(await rejectionOf(ks.createUser({ domainId: 'no-such-domain', name: 'u', password: 'x-x-x-x' }))).to.be.instanceOf(NotFound);
      await ks.deleteUser(svc.id);
      expect(await rejectionOf(ks.getUser(svc.id))).to.be.instanceOf(NotFound);
      expect(await rejectionOf(ks.deleteUser(svc.id))).to.be.instanceOf(NotFound);
    });

    it("a deleted user's session is refused: the one re-auth is Unauthorized", async () => {
      const { project, user, password } = await scaffold();
      const asUser = await connectAsUser(cloudFor(sim, 'admin'), { userId: user.id, password, projectId: project.id }, { retry: FAST_RETRY });
      await asUser.identityAdmin.listApplicationCredentials(user.id);
      await ks.deleteUser(user.id);
      expect(await rejectionOf(asUser.identityAdmin.listApplicationCredentials(user.id))).to.be.instanceOf(Unauthorized);
    });
  });

  describe('roles and role assignments', () => {
    it('findRoleByName finds global roles by exact name; a member token may not list roles (403)', async () => {
      const member = await ks.findRoleByName('member');
      expect(member).to.include({ name: 'member', domainId: null });
      expect(await ks.findRoleByName('MEMBER')).to.equal(undefined);
      expect(await ks.findRoleByName('load-balancer')).to.equal(undefined);
      expect((await ks.findRoleByName('load-balancer_member'))?.name).to.equal('load-balancer_member');
      const demo = await connectAs(sim, 'demo');
      expect(await rejectionOf(demo.identityAdmin.findRoleByName('member'))).to.be.instanceOf(Forbidden);
    });

    it('grant (idempotent), HEAD check, list with names, revoke; a second revoke and an unknown role are NotFound', async () => {
      const { project, user, member } = await scaffold();
      const reader = await ks.findRoleByName('reader');
      const lb = await ks.findRoleByName('load-balancer_member');
      if (reader === undefined || lb === undefined) throw new Error('seed roles missing');
      for (const role of [reader, lb, member]) await ks.grantProjectRole({ projectId: project.id, userId: user.id, roleId: role.id });
      expect(await ks.hasProjectRole({ projectId: project.id, userId: user.id, roleId: reader.id })).to.equal(true);
      const listed = await ks.listRoleAssignments({ projectId: project.id });
      expect(listed.map((a) => a.roleName).sort()).to.deep.equal(['load-balancer_member', 'member', 'reader']);
      expect(listed[0]).to.deep.include({ userId: user.id, projectId: project.id, domainId: null, groupId: null, system: false, inherited: false });
      expect((await ks.listRoleAssignments({ userId: user.id, projectId: project.id })).length).to.equal(3);
      expect(sim.calls({ method: 'HEAD' }).map((c) => c.path)).to.deep.equal([`/identity/v3/projects/${project.id}/users/${user.id}/roles/${reader.id}`]);

      await ks.revokeProjectRole({ projectId: project.id, userId: user.id, roleId: reader.id });
      expect(await ks.hasProjectRole({ projectId: project.id, userId: user.id, roleId: reader.id })).to.equal(false);
      expect(await rejectionOf(ks.revokeProjectRole({ projectId: project.id, userId: user.id, roleId: reader.id }))).to.be.instanceOf(NotFound);
      expect(await rejectionOf(ks.grantProjectRole({ projectId: project.id, userId: user.id, roleId: 'no-such-role' }))).to.be.instanceOf(NotFound);
      // A HEAD has no body: an unknown project is indistinguishable from a missing assignment.
      expect(await ks.hasProjectRole({ projectId: 'no-such-project', userId: user.id, roleId: member.id })).to.equal(false);
    });
  });

  describe('application credentials', () => {
    it('created on a session AS the user (connectAsUser), scoped to its project, authenticate by id; an admin may not create one for another user', async () => {
      const { domain, project, user, password } = await scaffold();
      await ks.grantProjectRole({ projectId: project.id, userId: user.id, roleId: (await ks.findRoleByName('load-balancer_member'))?.id ?? '' });
      expect(await rejectionOf(ks.createApplicationCredential({ userId: user.id, name: 'regent' }))).to.be.instanceOf(Forbidden);

      const byName = await connectAsUser(cloudFor(sim, 'admin'), { userName: 'acme-web', domainId: domain.id, password, projectId: project.id }, { retry: FAST_RETRY });
      expect(byName.projectId).to.equal(project.id);
      const asUser = await connectAsUser(cloudFor(sim, 'admin'), { userId: user.id, password, projectId: project.id }, { retry: FAST_RETRY });
      expect(asUser.initialToken.user.id).to.equal(user.id);
      const expiresAt = new Date(sim.clock.now() + 86_400_000).toISOString().replace('Z', '');
      const cred = await asUser.identityAdmin.createApplicationCredential({
        userId: user.id, name: 'regent', description: 'identity acme-web', roles: ['member', 'load-balancer_member'], expiresAt, unrestricted: false,
      });
      expect(cred).to.include({ name: 'regent', projectId: project.id });
      expect(cred.secret).to.be.a('string').with.length.greaterThan(20);
      expect(cred.expiresAt).to.be.a('string');
      expect(cred.roles.map((r) => r.name).sort()).to.deep.equal(['load-balancer_member', 'member']);

      const os = await connect(appCredCloud(cred.id, cred.secret), { retry: FAST_RETRY });
      expect(os.projectId).to.equal(project.id);
      expect(os.initialToken.methods).to.deep.equal(['application_credential']);
      expect([...os.initialToken.roles].sort()).to.deep.equal(['load-balancer_member', 'member']);
      // A token issued from an application credential may not create another (restricted).
      expect(await rejectionOf(os.identityAdmin.createApplicationCredential({ userId: user.id, name: 'again' }))).to.be.instanceOf(Forbidden);
    });

    it('list and exact find (names sharing a prefix), duplicate 409, an unassigned role 400', async () => {
      const { project, user, password } = await scaffold();
      const asUser = await connectAsUser(cloudFor(sim, 'admin'), { userId: user.id, password, projectId: project.id }, { retry: FAST_RETRY });
      const a = await asUser.identityAdmin.createApplicationCredential({ userId: user.id, name: 'regent' });
      const b = await asUser.identityAdmin.createApplicationCredential({ userId: user.id, name: 'regent-2' });
      expect((await ks.listApplicationCredentials(user.id)).map((c) => c.name).sort()).to.deep.equal(['regent', 'regent-2']);
      const found = await ks.findApplicationCredential({ userId: user.id, name: 'regent' });
      expect(found).to.deep.equal({ id: a.id, name: 'regent', projectId: project.id, expiresAt: null, roles: a.roles });
      expect(found).to.not.have.property('secret');
      expect((await asUser.identityAdmin.findApplicationCredential({ userId: user.id, name: 'regent-2' }))?.id).to.equal(b.id);
      expect(await ks.findApplicationCredential({ userId: user.id, name: 'Regent' })).to.equal(undefined);
      expect(await rejectionOf(asUser.identityAdmin.createApplicationCredential({ userId: user.id, name: 'REGENT' }))).to.be.instanceOf(Conflict);
      expect(await rejectionOf(asUser.identityAdmin.createApplicationCredential({ userId: user.id, name: 'x', roles: ['admin'] }))).to.be.instanceOf(BadRequest);
      expect(await ks.listApplicationCredentials('no-such-user')).to.deep.equal([]);
    });

    it('a deleted application credential: the next token issue is Unauthorized (Keystone answers 404), for a new connect and for a live session', async () => {
      const { project, user, password } = await scaffold();
      const asUser = await connectAsUser(cloudFor(sim, 'admin'), { userId: user.id, password, projectId: project.id }, { retry: FAST_RETRY });
      const cred = await asUser.identityAdmin.createApplicationCredential({ userId: user.id, name: 'regent' });
      const live = await connect(appCredCloud(cred.id, cred.secret), { retry: FAST_RETRY });
      await asUser.identityAdmin.deleteApplicationCredential({ userId: user.id, id: cred.id });
      expect(await ks.findApplicationCredential({ userId: user.id, name: 'regent' })).to.equal(undefined);

      const error = await rejectionOf(connect(appCredCloud(cred.id, cred.secret), { retry: FAST_RETRY }));
      expect(error).to.be.instanceOf(Unauthorized);
      expect((error as Unauthorized).status).to.equal(404);
      expect((error as Unauthorized).path).to.equal('/identity/v3/auth/tokens');
      expect((error as Unauthorized).fault).to.equal(`Could not find Application Credential: ${cred.id}.`);
      // The live session: its token is refused (401), and the one re-auth is refused too, by the same 404.
      const refused = await rejectionOf(live.http('compute').get('/servers'));
      expect(refused).to.be.instanceOf(Unauthorized);
      expect((refused as Unauthorized).path).to.equal('/identity/v3/auth/tokens');
      expect(await rejectionOf(live.keystone.token())).to.be.instanceOf(Unauthorized);
      expect(await rejectionOf(asUser.identityAdmin.deleteApplicationCredential({ userId: user.id, id: cred.id }))).to.be.instanceOf(NotFound);
    });

    it("an admin deletes a user's credential through that user's path only: through another user's path it is refused before any DELETE", async () => {
      const { domain, project, user, password, member } = await scaffold();
      const other = await ks.createUser({ domainId: domain.id, name: 'other', password: 'other-pw-0001' });
      await ks.grantProjectRole({ projectId: project.id, userId: other.id, roleId: member.id });
      const asUser = await connectAsUser(cloudFor(sim, 'admin'), { userId: user.id, password, projectId: project.id }, { retry: FAST_RETRY });
      const cred = await asUser.identityAdmin.createApplicationCredential({ userId: user.id, name: 'regent' });
      await simApi(sim, 'DELETE', '/calls');
      const refused = await rejectionOf(ks.deleteApplicationCredential({ userId: other.id, id: cred.id }));
      expect(refused).to.be.instanceOf(NotFound);
      expect((refused as NotFound).message).to.contain(`does not belong to user ${other.id}`);
      expect(sim.calls({ method: 'DELETE' })).to.deep.equal([]);
      expect((await ks.findApplicationCredential({ userId: user.id, name: 'regent' }))?.id).to.equal(cred.id);
      // What the guard prevents: Zed deletes by id whatever user the path names.
      expect((await admin.http('identity').delete(`/users/${other.id}/application_credentials/${cred.id}`)).status).to.equal(204);
      expect(await ks.findApplicationCredential({ userId: user.id, name: 'regent' })).to.equal(undefined);

      const again = await asUser.identityAdmin.createApplicationCredential({ userId: user.id, name: 'regent' });
      await ks.deleteApplicationCredential({ userId: user.id, id: again.id });
      expect(await ks.listApplicationCredentials(user.id)).to.deep.equal([]);
      // Another non-admin user may not delete it either (403 from Keystone).
      const third = await asUser.identityAdmin.createApplicationCredential({ userId: user.id, name: 'regent-3' });
      const asOther = await connectAsUser(cloudFor(sim, 'admin'), { userId: other.id, password: 'other-pw-0001', projectId: project.id }, { retry: FAST_RETRY });
      expect(await rejectionOf(asOther.identityAdmin.deleteApplicationCredential({ userId: user.id, id: third.id }))).to.be.instanceOf(Forbidden);
    });
  });

  describe('exact names and whole lists', () => {
    const twoNamed = (key: string, item: (id: string) => Record<string, unknown>) => ({ [key]: [item('id-1'), item('id-2')], links: { next: null, previous: null, self: '' } });

    it('two exact matches are a ConsistencyError in every find', async () => {
      const cases: Array<{ path: string; key: string; item: (id: string) => Record<string, unknown>; find: () => Promise<unknown> }> = [
        { path: '/identity/v3/domains\\?', key: 'domains', item: (id) => ({ id, name: 'dup', enabled: true }), find: () => ks.findDomainByName('dup') },
        { path: '/identity/v3/projects\\?', key: 'projects', item: (id) => ({ id, name: 'dup', domain_id: 'd', enabled: true }), find: () => ks.findProject({ domainId: 'd', name: 'dup' }) },
        { path: '/identity/v3/users\\?', key: 'users', item: (id) => ({ id, name: 'dup', domain_id: 'd', enabled: true }), find: () => ks.findUser({ domainId: 'd', name: 'dup' }) },
        { path: '/identity/v3/roles\\?', key: 'roles', item: (id) => ({ id, name: 'dup', domain_id: null }), find: () => ks.findRoleByName('dup') },
        {
          path: '/application_credentials\\?', key: 'application_credentials',
          item: (id) => ({ id, name: 'dup', project_id: 'p', expires_at: null, roles: [] }), find: () => ks.findApplicationCredential({ userId: 'u', name: 'dup' }),
        },
      ];
      for (const c of cases) {
        await fault(sim, { method: 'GET', path: c.path, status: 200, body: twoNamed(c.key, c.item) });
        const error = await rejectionOf(c.find());
        expect(error, c.key).to.be.instanceOf(ConsistencyError);
        expect((error as ConsistencyError).ids, c.key).to.deep.equal(['id-1', 'id-2']);
      }
    });

    it("an item of another domain, or a domain-specific role, is never a match even when Keystone's filter lets it through", async () => {
      await fault(sim, { method: 'GET', path: '/identity/v3/projects\\?', status: 200, body: { projects: [{ id: 'p1', name: 'acme-web', domain_id: 'elsewhere', enabled: true }] } });
      expect(await ks.findProject({ domainId: 'd', name: 'acme-web' })).to.equal(undefined);
      await fault(sim, { method: 'GET', path: '/identity/v3/users\\?', status: 200, body: { users: [{ id: 'u1', name: 'acme-web', domain_id: 'elsewhere', enabled: true }] } });
      expect(await ks.findUser({ domainId: 'd', name: 'acme-web' })).to.equal(undefined);
      await fault(sim, { method: 'GET', path: '/identity/v3/roles\\?', status: 200, body: { roles: [{ id: 'r1', name: 'member', domain_id: 'd' }] } });
      expect(await ks.findRoleByName('member')).to.equal(undefined);
    });

    it('a list Keystone truncated (list_limit) or paged is UnreadableResponse, never a partial answer', async () => {
      await fault(sim, { method: 'GET', path: '/identity/v3/projects\\?', status: 200, body: { projects: [], truncated: true, links: { next: null } } });
      expect(await rejectionOf(ks.findProject({ domainId: 'd', name: 'acme-web' }))).to.be.instanceOf(UnreadableResponse);
      await fault(sim, { method: 'GET', path: '/identity/v3/role_assignments', status: 200, body: { role_assignments: [], links: { next: 'http://x/v3/role_assignments?page=2' } } });
      expect(await rejectionOf(ks.listRoleAssignments({ userId: 'u' }))).to.be.instanceOf(UnreadableResponse);
    });
  });

  describe('secrets', () => {
    it('neither a new user\'s password nor an application-credential secret appears in any log line or error, also when Keystone quotes them back', async () => {
      const logs = captureLogs();
      const adminLogged = await connectAs(sim, 'admin', { logger: logs.logger });
      const password = 'user-password-QWERTY-4711';
      const d = await adminLogged.identityAdmin.createDomain({ name: 'region-one' });
      const p = await adminLogged.identityAdmin.createProject({ domainId: d.id, name: 'acme-web' });
      // Keystone's schema errors quote the offending value (`On instance['password']: …`).
      await fault(sim, { method: 'POST', path: '/identity/v3/users$', status: 400, body: { error: { code: 400, title: 'Bad Request', message: `Invalid input for field 'password': On instance['password']: '${password}'` } } });
      const quoted = await rejectionOf(adminLogged.identityAdmin.createUser({ domainId: d.id, name: 'acme-web', password }));
      expect(quoted).to.be.instanceOf(BadRequest);
      expect((quoted as BadRequest).fault).to.contain('[REDACTED]');
      // The same functions bound to a session built elsewhere (no redaction hook): the call scrubs its own error.
      await fault(sim, { method: 'POST', path: '/identity/v3/users$', status: 400, body: { error: { code: 400, title: 'Bad Request', message: `On instance['password']: '${password}'` } } });
      const elsewhere = await rejectionOf(createKeystoneAdminClient(adminLogged.http('identity')).createUser({ domainId: d.id, name: 'acme-web', password }));
      expect((elsewhere as BadRequest).fault).to.equal("On instance['password']: '[REDACTED]'");
      const user = await adminLogged.identityAdmin.createUser({ domainId: d.id, name: 'acme-web', password });
      const member = await adminLogged.identityAdmin.findRoleByName('member');
      await adminLogged.identityAdmin.grantProjectRole({ projectId: p.id, userId: user.id, roleId: member?.id ?? '' });
      const asUser = await connectAsUser(cloudFor(sim, 'admin'), { userId: user.id, password, projectId: p.id }, { retry: FAST_RETRY, logger: logs.logger });
      const cred = await asUser.identityAdmin.createApplicationCredential({ userId: user.id, name: 'regent' });
      // A later answer of the same session that echoes the secret is redacted (it was registered on receipt).
      await fault(sim, { method: 'GET', path: '/application_credentials', status: 409, body: { error: { code: 409, message: `secret ${cred.secret} is in use` } } });
      const echoed = await rejectionOf(asUser.identityAdmin.listApplicationCredentials(user.id));
      expect((echoed as Conflict).fault).to.equal('secret [REDACTED] is in use');
      const wrong = await rejectionOf(connect(appCredCloud(cred.id, `${cred.secret}-wrong`), { retry: FAST_RETRY, logger: logs.logger }));
      expect(wrong).to.be.instanceOf(Unauthorized);
      await connect(appCredCloud(cred.id, cred.secret), { retry: FAST_RETRY, logger: logs.logger });

      expect(logs.lines.length).to.be.greaterThan(8);
      for (const text of [...leakSurfaces(quoted), ...leakSurfaces(elsewhere), ...leakSurfaces(echoed), ...leakSurfaces(wrong), logs.text()]) {
        expect(text).to.not.contain(password);
        expect(text).to.not.contain(cred.secret);
      }
      // The simulator's own call log redacts them too (what a test report would show).
      expect(JSON.stringify(sim.calls())).to.not.contain(password);
    });
  });

  it('every client function in keystone/admin carries its API-reference line (HEAD included)', () => {
    const dir = join(process.cwd(), 'src/openstack/keystone/admin');
    const reference = /^\/\/ [A-Z][\w ]*API[\w .]*: .+ — (GET|HEAD|POST|PUT|PATCH|DELETE) \//;
    const missing: string[] = [];
    let count = 0;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !['index.ts', 'decoders.ts', 'common.ts', 'user-session.ts'].includes(f))) {
      const lines = readFileSync(join(dir, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        const m = /^export const (\w+) = (async )?\(http: HttpSession/.exec(line);
        if (!m) return;
        count++;
        if (!reference.test(lines[i - 1] ?? '')) missing.push(`${file}: ${m[1] ?? ''}`);
      });
    }
    expect(count).to.equal(22);
    expect(missing).to.deep.equal([]);
  });
});
