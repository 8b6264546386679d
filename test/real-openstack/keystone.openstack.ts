/**
 * Keystone against the real service: password and application-credential auth, project scoping (a token
 * for project A cannot see project B's servers), catalog endpoint selection, and token expiry / re-auth
 * (on our clock before expiry; after a revocation, by the single re-auth on 401).
 */
import { expect } from 'chai';
import util from 'node:util';
import type { Context } from 'mocha';
import { EndpointNotFound, NotFound, Unauthorized } from '../../src/openstack/errors.js';
import type { CloudConfig } from '../../src/openstack/keystone/clouds-config.js';
import { SERVICE_TYPE_ALIASES, type ServiceType } from '../../src/openstack/keystone/catalog.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { captureLogs } from './support/logs.js';
import { realRun, type RealRun } from './support/run.js';
import { waitFor } from './support/wait.js';

const rejectionOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a rejection'); }, (error: unknown) => error);

/** Every place a secret could leak through: message, stack, JSON, inspect, the client log. */
const leakSurfaces = (error: unknown, logText: string): string[] => {
  const e = error as Error;
  return [e.message, e.stack ?? '', JSON.stringify(e), util.inspect(e, { depth: 10 }), logText];
};

describe('keystone against the real service', function () {
  let run: RealRun;
  let identity: ReturnType<OpenStackSession['http']>;

  before(async () => {
    run = await realRun();
    identity = run.tenant.http('identity');
  });

  describe('password auth and the catalog', () => {
    it('issues a project-scoped token: user, project, roles, methods and a catalog', () => {
      const token = run.tenant.initialToken;
      expect(token.methods).to.include('password');
      expect(token.project?.id).to.be.a('string');
      expect(run.tenant.projectId).to.equal(token.project?.id);
      expect(token.roles.length).to.be.greaterThan(0);
      expect(token.catalog.length).to.be.greaterThan(0);
      expect(Date.parse(token.expiresAt)).to.be.greaterThan(Date.now());
    });

    it('selects each service Regent uses from the catalog (public interface, configured region) and every endpoint answers', async () => {
      const catalog = run.tenant.initialToken.catalog;
      const types: ServiceType[] = ['compute', 'image', 'block-storage', 'network', 'load-balancer', 'placement', 'identity'];
      for (const type of types) {
        const candidates = catalog
          .filter((entry) => (SERVICE_TYPE_ALIASES[type] as readonly string[]).includes(entry.type))
          .flatMap((entry) => entry.endpoints)
          .filter((e) => e.interface === 'public' && (run.tenant.cloud.regionName === undefined || (e.region_id ?? e.region) === run.tenant.cloud.regionName));
        expect(candidates.length, `${type} in the catalog`).to.be.greaterThan(0);
        const chosen = run.tenant.endpoint(type);
        expect(candidates.some((e) => chosen.startsWith(e.url.replace(/\/+$/, ''))), `${type}: ${chosen} comes from the catalog`).to.equal(true);
      }
      expect(run.tenant.endpoint('block-storage')).to.match(new RegExp(`/v3/${run.tenant.projectId}$`));
      // One real call per endpoint, through the clients (placement is admin-only by default policy).
      await run.tenant.nova.listFlavors();
      await run.tenant.glance.listImages({ name: run.name('nothing') });
      await run.tenant.neutron.listNetworks({ name: run.name('nothing') });
      await run.tenant.cinder.listVolumeTypes();
      await run.tenant.octavia.listLoadBalancers({ name: run.name('nothing') });
      await identity.get('/auth/projects');
    });

    it('honours the internal interface and refuses a region the catalog does not have (EndpointNotFound on use)', async () => {
      const internal = await connect({ ...run.target.tenantCloud, interface: 'internal' }, { logger: run.logger });
      const internalUrls = internal.initialToken.catalog.filter((e) => e.type === 'compute').flatMap((e) => e.endpoints).filter((e) => e.interface === 'internal').map((e) => e.url.replace(/\/+$/, ''));
      expect(internalUrls.some((url) => internal.endpoint('compute').startsWith(url))).to.equal(true);
      await internal.nova.listFlavors();
      const elsewhere = await connect({ ...run.target.tenantCloud, regionName: `${run.prefix}-no-such-region` }, { logger: run.logger });
      expect(() => elsewhere.nova).to.throw(EndpointNotFound);
    });

    it('a wrong password is Unauthorized (401 from POST /auth/tokens) and the password appears nowhere', async () => {
      const logs = captureLogs();
      const password = `wrong-${run.prefix}-XYZZY`;
      const cloud = run.target.tenantCloud;
      if (cloud.auth.type !== 'password') return;
      const error = await rejectionOf(connect({ ...cloud, auth: { ...cloud.auth, password } }, { logger: logs.logger }));
      expect(error).to.be.instanceOf(Unauthorized);
      expect((error as Unauthorized).status).to.equal(401);
      expect((error as Unauthorized).path).to.match(/\/auth\/tokens$/);
      for (const text of leakSurfaces(error, logs.text())) expect(text).to.not.contain(password);
    });
  });

  describe('application credentials', () => {
    const secret = `regent-app-cred-${Math.random().toString(36).slice(2)}-secret`;
    let credentialId: string;
    let credentialName: string;

    before(async () => {
      credentialName = run.name('appcred');
      const userId = run.tenant.initialToken.user.id;
      const created = await identity.post(`/users/${userId}/application_credentials`, { application_credential: { name: credentialName, secret } });
      credentialId = (created.data as { application_credential: { id: string } }).application_credential.id;
      run.cleanup.add(`application credential ${credentialName}`, async () => void (await identity.delete(`/users/${userId}/application_credentials/${credentialId}`)));
    });

    const appCredCloud = (credential: { id: string } | { name: string; user: { id: string } }, s = secret): CloudConfig => ({
      ...run.target.tenantCloud,
      auth: { type: 'application-credential', credential, secret: s },
      scope: { kind: 'unscoped' },
    });

    it('authenticate by id, and by name + user, scoped to the creating project; the clients work with them', async () => {
      const byId = await connect(appCredCloud({ id: credentialId }), { logger: run.logger });
      expect(byId.initialToken.methods).to.deep.equal(['application_credential']);
      expect(byId.projectId).to.equal(run.tenant.projectId);
      await byId.nova.listServers({ name: `^${run.prefix}` });
      const byName = await connect(appCredCloud({ name: credentialName, user: { id: run.tenant.initialToken.user.id } }), { logger: run.logger });
      expect(byName.projectId).to.equal(run.tenant.projectId);
      await byName.glance.listImages({ name: run.name('nothing') });
    });

    it('a wrong secret is Unauthorized and the secret appears nowhere', async () => {
      const logs = captureLogs();
      const wrong = `${secret}-but-wrong`;
      const error = await rejectionOf(connect(appCredCloud({ id: credentialId }, wrong), { logger: logs.logger }));
      expect(error).to.be.instanceOf(Unauthorized);
      for (const text of leakSurfaces(error, logs.text())) expect(text).to.not.contain(wrong);
    });
  });

  describe('token expiry and re-auth', () => {
    it('refreshes before expires_at on our clock: lifetime from expires_at − issued_at, a new token without any 401', async () => {
      let now = Date.now();
      const logs = captureLogs();
      const os = await connect(run.target.tenantCloud, { logger: logs.logger, now: () => now });
      const first = os.initialToken;
      const lifetime = Date.parse(first.expiresAt) - Date.parse(first.issuedAt ?? first.expiresAt);
      expect(lifetime, 'Keystone token lifetime').to.be.greaterThan(60_000);
      await os.nova.listFlavors();
      now += lifetime - 1_000; // inside the refresh margin, before expiry on Keystone's clock
      await os.nova.listFlavors();
      expect(os.keystone.issueCount).to.equal(2);
      expect(logs.requests().filter((r) => r.status === 401)).to.deep.equal([]);
      // The first token was still valid: the refresh came from our clock, not from a refusal.
      const check = await identity.get('/auth/tokens', undefined, { 'X-Subject-Token': first.token });
      expect(check.status).to.equal(200);
    });

    it('a revoked token is refused with 401 by Keystone and by Nova; the client re-authenticates once and the call succeeds', async () => {
      for (const service of ['identity', 'compute'] as const) {
        const logs = captureLogs();
        const os = await connect(run.target.tenantCloud, { logger: logs.logger });
        const revoked = await os.keystone.token();
        await identity.delete('/auth/tokens', undefined, { 'X-Subject-Token': revoked });
        if (service === 'identity') await os.http('identity').get('/auth/projects');
        else await os.nova.listServers({ name: `^${run.prefix}` });
        expect(os.keystone.issueCount, service).to.equal(2);
        const sequence = logs.requests().filter((r) => r.service === service && !r.path.endsWith('/auth/tokens')).map((r) => r.status);
        expect(sequence, `${service} saw the refusal, then the retry`).to.deep.equal([401, 200]);
        expect(await os.keystone.token()).to.not.equal(revoked);
      }
    });
  });

  describe('project scoping', () => {
    let other: OpenStackSession;
    let otherServer: { id: string; name: string };
    let ownServer: { id: string; name: string };

    const needAdmin = (ctx: Context): OpenStackSession => {
      if (!run.admin) ctx.skip();
      return run.admin as OpenStackSession;
    };

    before(async function () {
      const admin = needAdmin(this);
      const keystone = admin.http('identity');
      const domainId = run.tenant.initialToken.project?.domainId ?? 'default';
      const password = `regent-${Math.random().toString(36).slice(2)}-pw`;
      const project = (await keystone.post('/projects', { project: { name: run.name('project-b'), domain_id: domainId, description: 'regent real-OpenStack suite' } })).data as { project: { id: string } };
      run.cleanup.add(`project ${run.name('project-b')}`, async () => {
        await keystone.patch(`/projects/${project.project.id}`, { project: { enabled: false } });
        await keystone.delete(`/projects/${project.project.id}`);
      });
      const user = (await keystone.post('/users', { user: { name: run.name('user-b'), domain_id: domainId, password, default_project_id: project.project.id } })).data as { user: { id: string } };
      run.cleanup.add(`user ${run.name('user-b')}`, async () => void (await keystone.delete(`/users/${user.user.id}`)));
      const roles = (await keystone.get('/roles', { name: 'member' })).data as { roles: Array<{ id: string }> };
      const memberRole = roles.roles[0]?.id;
      if (memberRole === undefined) throw new Error('no member role in this cloud');
      await keystone.put(`/projects/${project.project.id}/users/${user.user.id}/roles/${memberRole}`);
      other = await connect(
        { ...run.target.tenantCloud, auth: { type: 'password', user: { id: user.user.id }, password }, scope: { kind: 'project', project: { id: project.project.id } } },
        { logger: run.logger },
      );
      expect(other.projectId).to.equal(project.project.id);

      const image = await other.glance.createImage({ name: run.name('image-b-project'), diskFormat: 'raw', containerFormat: 'bare' });
      run.cleanup.add(`image ${run.name('image-b-project')}`, () => other.glance.deleteImage(image.id));
      await other.glance.uploadImageData(image.id, Buffer.from('project b'));
      const network = await other.neutron.createNetwork({ name: run.name('net-b-project') });
      run.cleanup.add(`network ${run.name('net-b-project')}`, () => other.neutron.deleteNetwork(network.id));
      await other.neutron.createSubnet({ name: run.name('subnet-b-project'), network_id: network.id, cidr: '198.51.100.0/24', ip_version: 4, enable_dhcp: false });
      otherServer = await run.bootServer('scoped-b', { session: other, imageId: image.id, networkId: network.id });
      ownServer = await run.bootServer('scoped-a');
      await Promise.all([run.waitActive(otherServer.id, other), run.waitActive(ownServer.id)]);
    });

    it("a token for project A cannot see project B's server (GET 404, absent from lists and exact lookups), and the reverse", async () => {
      expect(await rejectionOf(run.tenant.nova.getServer(otherServer.id))).to.be.instanceOf(NotFound);
      expect((await run.tenant.nova.listServers({ name: `^${run.prefix}` })).map((s) => s.id)).to.not.include(otherServer.id);
      expect(await run.tenant.nova.lookupServerByName(otherServer.name)).to.equal(undefined);
      expect(await rejectionOf(other.nova.getServer(ownServer.id))).to.be.instanceOf(NotFound);
      expect(await other.nova.lookupServerByName(ownServer.name)).to.equal(undefined);
      expect((await other.nova.getServer(otherServer.id)).id).to.equal(otherServer.id);
      // all_tenants is an admin filter: for the member it is ignored or refused, never a window into B.
      const attempt = await run.tenant.nova.listServers({ name: `^${run.prefix}`, all_tenants: true }).catch((error: unknown) => error);
      if (Array.isArray(attempt)) expect(attempt.map((s) => s.id)).to.not.include(otherServer.id);
    });

    it("the monitor's project-wide list sees only its own project's servers; admin with all_tenants sees both", async function () {
      const admin = needAdmin(this);
      const mine = await run.tenant.nova.listServers();
      expect(mine.every((s) => s.projectId.kind !== 'value' || s.projectId.value === run.tenant.projectId)).to.equal(true);
      const everyone = await waitFor('admin list', () => admin.nova.listServers({ name: `^${run.prefix}-scoped`, all_tenants: true }), (l) => l.length >= 2);
      expect(everyone.map((s) => s.id)).to.include.members([ownServer.id, otherServer.id]);
    });

    it("project B's network and image are invisible to project A", async () => {
      expect(await run.tenant.neutron.lookupNetworkByName(run.name('net-b-project'))).to.equal(undefined);
      expect(await run.tenant.glance.listImages({ name: run.name('image-b-project') })).to.deep.equal([]);
    });
  });
});
