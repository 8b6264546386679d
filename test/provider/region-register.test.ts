/**
 * `registerRegion` (issue 11: "from a clouds.yaml entry with admin powers, creates the managed Keystone
 * domain scaffolding …, stores the credential in a Secret and writes the Region resource, idempotently")
 * against the OpenStack simulator over real HTTP, with the control plane's own Region and Identity passes
 * (test/controllers/identity-rig.ts) run on what it registered. The simulator's `manager` role is deleted
 * first, so its Keystone starts as a Zed one does (docs/simulator-differences.md #12).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startIdentityRig, type IdentityRig } from '../controllers/identity-rig.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { connect, connectAsUser, type OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml, type CloudConfig } from '../../src/openstack/keystone/clouds-config.js';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import type { ResourceSource } from '../../src/kube/port.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import type { Region } from '../../src/resources/region.js';
import { DEFAULT_IDENTITY_ROLES, identityProjectName, identityUserName } from '../../src/provider/identity/names.js';
import {
  MAX_REGION_NAME, REGION_SERVICE_ROLES, RegistrationRefused, describeStep, registerRegion, registrationNames,
  type RegistrationDeps, type RegistrationInput, type RegistrationReport, type RegistrationStep,
} from '../../src/provider/regions/register.js';

const options = { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } };
const deps = (source: ResourceSource, extra: Partial<RegistrationDeps> = {}): RegistrationDeps => ({
  source,
  connect: (cloud) => connect(cloud, options),
  connectAsUser: (cloud, login) => connectAsUser(cloud, login, options),
  ...extra,
});
const adminCloud = (sim: RunningSimulator, name = 'sim-admin'): CloudConfig => cloudFromYaml(sim.cloudsYaml(), name);
const inputFor = (sim: RunningSimulator, extra: Partial<RegistrationInput> = {}): RegistrationInput => ({
  name: 'region-one', cloud: adminCloud(sim), endpoint: sim.authUrl, dryRun: false, ...extra,
});

/** Calls that change the cloud: everything but reads and token issues. */
const mutatingCalls = (sim: RunningSimulator) =>
  sim.calls().filter((c) => !['GET', 'HEAD'].includes(c.method) && c.path !== '/identity/v3/auth/tokens').map((c) => `${c.method} ${c.path}`);

const outcomes = (report: RegistrationReport): string[] => report.steps.map((s) => `${s.what} ${s.name}: ${s.outcome}`);

const rejectionOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a rejection'); }, (error: unknown) => error);

/** Zed has no `manager` role: make the simulator's Keystone start as the sandbox's does. */
const deleteRole = async (admin: OpenStackSession, name: string): Promise<void> => {
  const role = await admin.identityAdmin.findRoleByName(name);
  if (role) await admin.http('identity').delete(`/roles/${role.id}`);
};

/** The service user's password as the simulator holds it (to prove it is printed nowhere). */
const servicePassword = (sim: RunningSimulator, name = 'region-one'): string | undefined =>
  [...sim.control.sim.keystone.users.values()].find((u) => u.name === registrationNames(name).user)?.password;

describe('regent region register (simulator over HTTP)', function () {
  this.timeout(30_000);

  describe('on a cloud like Zed (no manager role), with the control plane run on the result', () => {
    let rig: IdentityRig;
    let first: RegistrationReport;
    const seen: RegistrationStep[] = [];
    const names = registrationNames('region-one');

    before(async () => {
      rig = await startIdentityRig();
      await deleteRole(rig.admin, 'manager');
      rig.sim.control.sim.calls.clear();
      first = await registerRegion(inputFor(rig.sim), deps(rig.source, { onStep: (s) => seen.push(s) }));
    });
    after(async () => rig.close());

    it('the first run creates every piece, in order, and reports each as created (the roles the cloud has as existing)', async () => {
      expect(outcomes(first)).to.deep.equal([
        'domain regent-region-one: created',
        'role manager: created',
        'role member: existing',
        'role load-balancer_member: existing',
        'project regent-region-one-service: created',
        'user regent-region-one: created',
        'role assignment admin on project regent-region-one-service for user regent-region-one: created',
        'application credential regent-region-one-1: created',
        'Secret default/region-one-credentials: created',
        'Region default/region-one: created',
      ]);
      expect(seen).to.deep.equal(first.steps);
      expect(first).to.deep.include({ dryRun: false, changed: true, endpoint: rig.sim.authUrl, regionName: 'RegionOne', secret: { namespace: 'default', name: 'region-one-credentials' } });
      expect(describeStep(first.steps[0] as RegistrationStep)).to.equal(`domain regent-region-one: created (id ${first.domain.id})`);
    });

    it('what it created is in Keystone: the domain, the manager role, the service project and user, admin on the project, an unrestricted credential of the user', async () => {
      const ks = rig.admin.identityAdmin;
      const domain = await ks.findDomainByName(names.domain);
      expect(domain?.id).to.equal(first.domain.id);
      const project = await ks.findProject({ domainId: domain!.id, name: names.project });
      const user = await ks.findUser({ domainId: domain!.id, name: names.user });
      expect(user?.defaultProjectId).to.equal(project?.id);
      for (const role of DEFAULT_IDENTITY_ROLES) expect(await ks.findRoleByName(role), role).to.not.equal(undefined);
      const assignments = await ks.listRoleAssignments({ projectId: project!.id, userId: user!.id });
      expect(assignments.map((a) => a.roleName)).to.deep.equal([...REGION_SERVICE_ROLES]);
      const credentials = await ks.listApplicationCredentials(user!.id);
      expect(credentials.map((c) => [c.name, c.projectId])).to.deep.equal([[names.credential(1), project!.id]]);
      const record = (await rig.admin.http('identity').get(`/users/${user!.id}/application_credentials/${credentials[0]!.id}`)).data as { application_credential: { unrestricted: unknown } };
      expect(record.application_credential.unrestricted).to.equal(true);
    });

    it('the Secret holds exactly the credential (application_credential_id and _secret), and the Region names the endpoint, region, Secret and domain', async () => {
      const secret = await rig.source.secrets.get('default', names.secret);
      expect(Object.keys(secret!.data)).to.deep.equal(['application_credential_id', 'application_credential_secret']);
      expect(secret!.data.application_credential_id).to.equal(first.steps.find((s) => s.what === 'application credential')?.id);
      const region = (await rig.source.get('Region', 'default', 'region-one')) as Region;
      expect(region.spec).to.deep.equal({
        provider: 'openstack',
        openstack: { endpoint: rig.sim.authUrl, region: 'RegionOne', credentialsSecretRef: { name: names.secret, namespace: 'default' }, domainID: first.domain.id },
      });
    });

    it('the Region then connects with the registered credential: Available=True, naming the managed domain', async () => {
      expect((await rig.regionPass()).kind).to.equal('yield');
      const available = await rig.available('Region', 'region-one');
      expect(available).to.include({ status: 'True', reason: 'Provisioned' });
      expect(available?.message).to.include(`managed domain ${first.domain.id}`);
      const connection = await rig.connections.region('default', 'region-one');
      expect(connection?.session.initialToken.methods).to.deep.equal(['application_credential']);
      expect(connection?.session.initialToken.user.id).to.equal(first.steps.find((s) => s.what === 'user')?.id);
      // Zed's implied roles (admin ⇒ member ⇒ reader): the credential took all three from the creating token
      expect([...(connection?.session.initialToken.roles ?? [])].sort()).to.deep.equal(['admin', 'member', 'reader']);
    });

    it('an Identity realized with the registered credentials gets its project in the managed domain, with the managed roles', async () => {
      await rig.applyIdentity();
      const passes = await rig.realize();
      expect(passes.at(-1)).to.deep.include({ kind: 'yield', why: 'realized' });
      const uid = (await rig.source.get('Identity', 'default', 'acme-web'))!.metadata.uid;
      const project = await rig.admin.identityAdmin.findProject({ domainId: first.domain.id!, name: identityProjectName(uid) });
      expect(project?.domainId).to.equal(first.domain.id);
      const identityUser = (await rig.admin.identityAdmin.findUser({ domainId: first.domain.id!, name: identityUserName(uid) }))!.id;
      const roles = (await rig.admin.identityAdmin.listRoleAssignments({ projectId: project!.id, userId: identityUser })).map((a) => a.roleName).sort();
      expect(roles).to.deep.equal([...DEFAULT_IDENTITY_ROLES].sort());
      // and the registered service user (the region credentials) its service role there (issue 16)
      const serviceUser = first.steps.find((s) => s.what === 'user')?.id as string;
      expect((await rig.admin.identityAdmin.listRoleAssignments({ projectId: project!.id, userId: serviceUser })).map((a) => a.roleName)).to.deep.equal(['manager']);
    });

    it('a second run changes nothing: every step existing, no mutating call sent, the Secret and Region untouched', async () => {
      const secretBefore = await rig.source.secrets.get('default', names.secret);
      const regionBefore = await rig.source.get('Region', 'default', 'region-one');
      rig.sim.control.sim.calls.clear();
      const second = await registerRegion(inputFor(rig.sim), deps(rig.source));
      expect(second.steps.map((s) => s.outcome)).to.deep.equal(first.steps.map(() => 'existing'));
      expect(second.changed).to.equal(false);
      expect(second.steps.map((s) => [s.what, s.name, s.id])).to.deep.equal(first.steps.map((s) => [s.what, s.name, s.id]));
      expect(mutatingCalls(rig.sim)).to.deep.equal([]);
      expect((await rig.source.secrets.get('default', names.secret))?.version).to.equal(secretBefore?.version);
      expect((await rig.source.get('Region', 'default', 'region-one'))?.metadata.resourceVersion).to.equal(regionBefore?.metadata.resourceVersion);
    });

    it('other spec fields of an existing Region are kept (and a kept Region is still reported existing)', async () => {
      const region = (await rig.source.get('Region', 'default', 'region-one')) as Region;
      await rig.source.apply({ ...region, metadata: { name: 'region-one', namespace: 'default' }, spec: { ...region.spec, openstack: { ...region.spec.openstack, defaultArchitecture: 'aarch64', compute: { placementPreflight: true } } } });
      const again = await registerRegion(inputFor(rig.sim), deps(rig.source));
      expect(again.steps.at(-1)).to.deep.equal({ what: 'Region', name: 'default/region-one', outcome: 'existing' });
      expect(((await rig.source.get('Region', 'default', 'region-one')) as Region).spec.openstack).to.deep.include({ defaultArchitecture: 'aarch64', compute: { placementPreflight: true }, domainID: first.domain.id });
    });

    it('a credential Keystone refuses is replaced: the next number, a new password set to act as the user, the Secret updated, the old credential deleted', async () => {
      const secret = await rig.source.secrets.get('default', names.secret);
      const oldId = secret!.data.application_credential_id!;
      await rig.source.secrets.put('default', names.secret, { ...secret!.data, application_credential_secret: 'not-the-secret' }, { labels: secret!.labels });
      const passwordBefore = servicePassword(rig.sim);
      const again = await registerRegion(inputFor(rig.sim), deps(rig.source));
      const credentialSteps = again.steps.filter((s) => s.what === 'application credential' || s.what === 'Secret').map((s) => `${s.what} ${s.name}: ${s.outcome}`);
      expect(credentialSteps).to.deep.equal([
        'application credential regent-region-one-2: created',
        'Secret default/region-one-credentials: updated',
        'application credential regent-region-one-1: deleted',
      ]);
      expect(again.steps.find((s) => s.name === names.credential(2))?.note).to.match(/Keystone refuses the credential .* in the Secret default\/region-one-credentials/);
      expect(servicePassword(rig.sim)).to.not.equal(passwordBefore);
      const user = again.steps.find((s) => s.what === 'user')!.id!;
      expect((await rig.admin.identityAdmin.listApplicationCredentials(user)).map((c) => c.name)).to.deep.equal([names.credential(2)]);
      expect((await rig.source.secrets.get('default', names.secret))!.data.application_credential_id).to.not.equal(oldId);
      expect((await rig.regionPass()).kind).to.equal('yield');
      expect(await rig.available('Region', 'region-one')).to.include({ status: 'True' });
    });

    it('the Identity is deleted with the registered credentials: its credential, user and project go (the Region credential is unrestricted)', async () => {
      const uid = (await rig.source.get('Identity', 'default', 'acme-web'))!.metadata.uid;
      await rig.source.delete('Identity', 'default', 'acme-web');
      for (let i = 0; i < 8 && (await rig.source.get('Identity', 'default', 'acme-web')); i++) await rig.identityPass();
      expect(await rig.source.get('Identity', 'default', 'acme-web')).to.equal(undefined);
      expect(await rig.admin.identityAdmin.findProject({ domainId: first.domain.id!, name: identityProjectName(uid) })).to.equal(undefined);
    });

    it('no secret anywhere: not in a report, not in a log line of the passes (the credential secret, the service user password)', async () => {
      const secret = (await rig.source.secrets.get('default', names.secret))!.data.application_credential_secret!;
      const password = servicePassword(rig.sim)!;
      const again = await registerRegion(inputFor(rig.sim), deps(rig.source));
      for (const text of [JSON.stringify(first), JSON.stringify(again), ...first.steps.map(describeStep), ...rig.logLines]) {
        expect(text).to.not.include(secret);
        expect(text).to.not.include(password);
      }
    });
  });

  describe("the simulator's Keystone answers these as Zed's does (docs/simulator-differences.md #12; the same cases run against the sandbox in test/real-openstack/region-register.openstack.ts)", () => {
    let sim: RunningSimulator;
    let admin: OpenStackSession;
    before(async () => {
      sim = await startSimulator({ clock: 'real' });
      admin = await connect(adminCloud(sim), options);
    });
    after(async () => sim.close());

    const status = async (p: Promise<unknown>): Promise<number | undefined> => {
      try {
        await p;
        return 200;
      } catch (error) {
        return (error as { status?: number }).status;
      }
    };

    it('a member may not list domains (403 identity:list_domains, also with a name filter) nor read a role, but reads its own domain by id', async () => {
      const demo = await connect(adminCloud(sim, 'sim-demo'), options);
      const refused = await rejectionOf(demo.identityAdmin.findDomainByName('Default'));
      expect(refused).to.deep.include({ status: 403, fault: 'You are not authorized to perform the requested action: identity:list_domains.' });
      expect(await status(demo.identityAdmin.findDomainByName('nothere'))).to.equal(403);
      expect(await status(demo.http('identity').get(`/roles/${(await admin.identityAdmin.findRoleByName('member'))!.id}`))).to.equal(403);
      expect((await demo.identityAdmin.getDomain('default')).name).to.equal('Default');
    });

    it('a token carries the roles its assignments imply (admin ⇒ member ⇒ reader); the assignment list names only the assigned', async () => {
      const ks = admin.identityAdmin;
      const domain = await ks.createDomain({ name: 'implied' });
      const project = await ks.createProject({ domainId: domain.id, name: 'p' });
      const user = await ks.createUser({ domainId: domain.id, name: 'u', password: 'implied-password' });
      await ks.grantProjectRole({ projectId: project.id, userId: user.id, roleId: (await ks.findRoleByName('admin'))!.id });
      const asUser = await connectAsUser(adminCloud(sim), { userId: user.id, password: 'implied-password', projectId: project.id }, options);
      expect([...asUser.initialToken.roles].sort()).to.deep.equal(['admin', 'member', 'reader']);
      expect((await ks.listRoleAssignments({ projectId: project.id, userId: user.id })).map((a) => a.roleName)).to.deep.equal(['admin']);
      const restricted = await asUser.identityAdmin.createApplicationCredential({ userId: user.id, name: 'member-only', roles: ['member'] });
      const asCredential = await connect({ ...adminCloud(sim), auth: { type: 'application-credential', credential: { id: restricted.id }, secret: restricted.secret }, scope: { kind: 'unscoped' } }, options);
      expect(asCredential.initialToken.roles).to.deep.equal(['member']);
    });

    it('an admin deletes a role (204) and its assignments go with it; an unknown role is 404', async () => {
      const created = (await admin.http('identity').post('/roles', { role: { name: 'scratch-role' } })).data as { role: { id: string } };
      const project = admin.projectId!;
      const user = admin.initialToken.user.id;
      await admin.identityAdmin.grantProjectRole({ projectId: project, userId: user, roleId: created.role.id });
      expect((await admin.http('identity').delete(`/roles/${created.role.id}`)).status).to.equal(204);
      expect((await admin.identityAdmin.listRoleAssignments({ projectId: project, userId: user })).map((a) => a.roleId)).to.not.include(created.role.id);
      expect(await rejectionOf(admin.http('identity').delete('/roles/0123456789abcdef0123456789abcdef'))).to.deep.include({ status: 404, fault: 'Could not find role: 0123456789abcdef0123456789abcdef.' });
    });

    it('a token from a restricted application credential may delete no application credential (any user, also as admin, also an unknown id); an unrestricted one may', async () => {
      const ks = admin.identityAdmin;
      const userId = admin.initialToken.user.id;
      const restricted = await ks.createApplicationCredential({ userId, name: 'restricted' });
      const raw = (await admin.http('identity').post(`/users/${userId}/application_credentials`, { application_credential: { name: 'unrestricted', unrestricted: true } })).data as { application_credential: { id: string; secret: string } };
      const victim = await ks.createApplicationCredential({ userId, name: 'victim' });
      const asCredential = (id: string, secret: string) => connect({ ...adminCloud(sim), auth: { type: 'application-credential', credential: { id }, secret }, scope: { kind: 'unscoped' } }, options);
      const r = await asCredential(restricted.id, restricted.secret);
      const text = "You are not authorized to perform the requested action: Using method 'application_credential' is not allowed for managing additional application credentials..";
      expect(await rejectionOf(r.http('identity').delete(`/users/${userId}/application_credentials/${victim.id}`))).to.deep.include({ status: 403, fault: text });
      expect(await rejectionOf(r.http('identity').delete(`/users/${userId}/application_credentials/0123456789abcdef0123456789abcdef`))).to.deep.include({ status: 403, fault: text });
      expect((await ks.findApplicationCredential({ userId, name: 'victim' }))?.id).to.equal(victim.id);
      const u = await asCredential(raw.application_credential.id, raw.application_credential.secret);
      await u.identityAdmin.deleteApplicationCredential({ userId, id: victim.id });
      expect(await ks.findApplicationCredential({ userId, name: 'victim' })).to.equal(undefined);
    });
  });

  describe('--dry-run, refusals', () => {
    let sim: RunningSimulator;
    let dir: string;
    let source: ResourceSource;

    beforeEach(async () => {
      sim = await startSimulator({ clock: 'real' });
      dir = mkdtempSync(join(tmpdir(), 'regent-register-'));
      source = openEmbeddedSource({ path: join(dir, 'resources.db') });
    });
    afterEach(async () => {
      await source.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const storeContents = async () => ({
      regions: (await source.list('Region')).items.map((r) => r.metadata.name),
      secrets: (await source.secrets.list()).map((s) => s.name),
    });

    it('a dry run on a fresh cloud reports every step would-create and creates nothing: no mutating call, nothing in the store', async () => {
      const admin = await connect(adminCloud(sim), options);
      await deleteRole(admin, 'manager');
      sim.control.sim.calls.clear();
      const report = await registerRegion(inputFor(sim, { dryRun: true }), deps(source));
      expect(outcomes(report)).to.deep.equal([
        'domain regent-region-one: would-create',
        'role manager: would-create',
        'role member: existing',
        'role load-balancer_member: existing',
        'project regent-region-one-service: would-create',
        'user regent-region-one: would-create',
        'role assignment admin on project regent-region-one-service for user regent-region-one: would-create',
        'application credential regent-region-one-1: would-create',
        'Secret default/region-one-credentials: would-create',
        'Region default/region-one: would-create',
      ]);
      expect(report).to.deep.include({ dryRun: true, changed: true, domain: { name: 'regent-region-one' } });
      expect(describeStep(report.steps.at(-2) as RegistrationStep)).to.equal('Secret default/region-one-credentials: would create');
      expect(mutatingCalls(sim)).to.deep.equal([]);
      expect(await storeContents()).to.deep.equal({ regions: [], secrets: [] });
      expect(await admin.identityAdmin.findDomainByName('regent-region-one')).to.equal(undefined);
    });

    it('a dry run after a real run reports everything existing', async () => {
      await registerRegion(inputFor(sim), deps(source));
      sim.control.sim.calls.clear();
      const report = await registerRegion(inputFor(sim, { dryRun: true }), deps(source));
      expect(new Set(report.steps.map((s) => s.outcome))).to.deep.equal(new Set(['existing']));
      expect(mutatingCalls(sim)).to.deep.equal([]);
    });

    it('a cloud without admin powers (sim-demo) is refused with a typed error naming the policy it lacked; nothing is created', async () => {
      sim.control.sim.calls.clear();
      const error = await rejectionOf(registerRegion(inputFor(sim, { cloud: adminCloud(sim, 'sim-demo') }), deps(source)));
      expect(error).to.be.instanceOf(RegistrationRefused);
      expect(error).to.deep.include({ problem: 'Forbidden' });
      expect((error as Error).message).to.equal('the credentials of cloud sim-demo may not list domains (HTTP 403, identity:list_domains): regent region register needs a cloud with admin powers (the admin role)');
      expect((error as Error).message).to.not.include(sim.credentials.demo.password);
      expect(mutatingCalls(sim)).to.deep.equal([]);
      expect(await storeContents()).to.deep.equal({ regions: [], secrets: [] });
    });

    it('the region: the only one of the catalog by default, refused when named but absent, and never guessed between several', async () => {
      const withoutRegion: CloudConfig = { ...adminCloud(sim), regionName: undefined } as CloudConfig;
      const dry = await registerRegion(inputFor(sim, { cloud: withoutRegion, dryRun: true }), deps(source));
      expect(dry.regionName).to.equal('RegionOne');
      const absent = await rejectionOf(registerRegion(inputFor(sim, { regionName: 'RegionTwo', dryRun: true }), deps(source)));
      expect(absent).to.deep.include({ problem: 'RegionNotInCatalog', message: 'the catalog of cloud sim-admin has no region RegionTwo (it has: RegionOne)' });
      // a catalog that also lists RegionTwo (the simulator has one region: the token is edited on the way)
      const twoRegions = (cloud: CloudConfig) => connect(cloud, options).then((session) => new Proxy(session, {
        get: (target, key) => (key === 'initialToken'
          ? { ...target.initialToken, catalog: [...target.initialToken.catalog, { type: 'compute', endpoints: [{ interface: 'public', url: 'http://127.0.0.1:1/compute', region_id: 'RegionTwo' }] }] }
          : Reflect.get(target, key)),
      }));
      const ambiguous = await rejectionOf(registerRegion(inputFor(sim, { cloud: withoutRegion, dryRun: true }), deps(source, { connect: twoRegions })));
      expect(ambiguous).to.deep.include({ problem: 'RegionAmbiguous' });
      expect((ambiguous as Error).message).to.include('has regions RegionOne, RegionTwo: name the one to register');
      expect(mutatingCalls(sim)).to.deep.equal([]);
    });

    it('names Keystone or the store could not hold are refused before any call', async () => {
      for (const name of ['Region-One', 'x'.repeat(MAX_REGION_NAME + 1), 'a_b']) {
        const error = await rejectionOf(registerRegion(inputFor(sim, { name }), deps(source)));
        expect(error, name).to.deep.include({ problem: 'InvalidInput' });
      }
      expect(await rejectionOf(registerRegion(inputFor(sim, { namespace: 'Not_A_Label' }), deps(source)))).to.deep.include({ problem: 'InvalidInput' });
      expect(sim.calls()).to.deep.equal([]);
      expect(registrationNames('x'.repeat(MAX_REGION_NAME)).project).to.have.length(64);
    });

    it('an existing Region for another Keystone is not repointed', async () => {
      await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec: { provider: openstack, openstack: { endpoint: 'http://127.0.0.1:1/v3', region: RegionOne, credentialsSecretRef: { name: other } } }
`);
      const error = await rejectionOf(registerRegion(inputFor(sim, { dryRun: true }), deps(source)));
      expect(error).to.deep.include({ problem: 'RegionMismatch' });
      expect((error as Error).message).to.include('is for Keystone http://127.0.0.1:1/v3');
    });

    it('an unmanaged Region of the same cloud is taken over: its Secret reference and domainID set, the rest kept', async () => {
      await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec: { provider: openstack, openstack: { endpoint: '${sim.authUrl}', region: RegionOne, credentialsSecretRef: { name: hand-made }, defaultArchitecture: x86_64 } }
`);
      const report = await registerRegion(inputFor(sim), deps(source));
      expect(report.steps.at(-1)).to.deep.include({ what: 'Region', outcome: 'updated' });
      expect(((await source.get('Region', 'default', 'region-one')) as Region).spec.openstack).to.deep.equal({
        endpoint: sim.authUrl, region: 'RegionOne', credentialsSecretRef: { name: 'region-one-credentials', namespace: 'default' }, domainID: report.domain.id, defaultArchitecture: 'x86_64',
      });
    });

    it('the Secret goes to secretNamespace when given, and the Region names that namespace', async () => {
      const report = await registerRegion(inputFor(sim, { namespace: 'team-a', secretNamespace: 'regent-system' }), deps(source));
      expect(report.secret).to.deep.equal({ namespace: 'regent-system', name: 'region-one-credentials' });
      expect(await source.secrets.get('regent-system', 'region-one-credentials')).to.not.equal(undefined);
      expect(((await source.get('Region', 'team-a', 'region-one')) as Region).spec.openstack.credentialsSecretRef).to.deep.equal({ name: 'region-one-credentials', namespace: 'regent-system' });
    });
  });
});
