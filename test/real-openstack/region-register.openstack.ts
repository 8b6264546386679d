/**
 * `regent region register` against the real Keystone, with the admin cloud (REGENT_OS_ADMIN_CLOUD): a Region
 * named under the run prefix (`<prefix>-region`, so its scaffolding is named `regent-<prefix>-region…` and the
 * sweep knows it), registered by `registerRegion` into an in-memory resource store; then the control plane's
 * own Region and Identity passes on what it registered: the Region connects with the registered application
 * credential, one Identity is realized in the managed domain by those credentials with the default roles, and
 * deleted again (its project gone). Everything is registered for deletion as soon as it is reported created:
 * the domain (which takes its project, users and credentials) and a role the run had to create (Zed has no
 * `manager`).
 *
 * Also held here, because the simulator was changed to match (docs/simulator-differences.md #12): a member may
 * not list domains or read a role, a deleted role takes its assignments, and a token from a restricted
 * application credential may delete no application credential.
 */
import { expect } from 'chai';
import { Engine } from '../../src/engine/engine.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry } from '../../machines/index.js';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import type { EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { connect, connectAsUser, type OpenStackSession } from '../../src/openstack/session.js';
import type { CloudConfig } from '../../src/openstack/keystone/clouds-config.js';
import { RegionConnections } from '../../src/provider/regions/connections.js';
import { identityHandlers } from '../../src/provider/identity/handlers.js';
import { DEFAULT_IDENTITY_ROLES, identityProjectName, identitySecretName, identityUserName } from '../../src/provider/identity/names.js';
import { reconcileRegion } from '../../src/controllers/region/reconcile.js';
import { reconcileIdentity } from '../../src/controllers/identity/reconcile.js';
import { StatusRunner } from '../../src/status/runner.js';
import { MemoryCheckpoint } from '../../src/status/checkpoint.js';
import type { Disposition } from '../../src/controllers/disposition.js';
import {
  REGION_SERVICE_ROLES, describeStep, registerRegion, registrationNames,
  type RegistrationDeps, type RegistrationInput, type RegistrationReport, type RegistrationStep,
} from '../../src/provider/regions/register.js';
import { captureLogs, type LogCapture } from './support/logs.js';
import { realRun, type RealRun } from './support/run.js';
import { sleep } from './support/wait.js';
import { statusRunnerParts } from '../../src/app/kinds.js';

interface Condition { type: string; status: string; reason: string; message: string }

const rejectionOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a rejection'); }, (error: unknown) => error);

describe('regent region register against the real Keystone (admin cloud)', function () {
  let run: RealRun;
  let adminCloud: CloudConfig;
  let admin: OpenStackSession;
  let logs: LogCapture;
  let source: EmbeddedResourceSource;
  let engine: Engine;
  let status: StatusRunner;
  let connections: RegionConnections;
  let regionName: string;
  let names: ReturnType<typeof registrationNames>;
  let first: RegistrationReport;
  const ns = 'default';
  /** The credential secrets the run stored (the Region's two, the Identity's), for the scan at the end. */
  const secrets: string[] = [];
  const options = () => ({ logger: logs.logger });

  const deps = (): RegistrationDeps => ({
    source,
    connect: (cloud) => connect(cloud, options()),
    connectAsUser: (cloud, login) => connectAsUser(cloud, login, options()),
    // registered for deletion the moment Keystone has it, also when a later step fails
    onStep: (step) => {
      if (step.outcome !== 'created' || step.id === undefined) return;
      const id = step.id;
      if (step.what === 'domain') run.cleanup.add(`domain ${step.name}`, () => admin.identityAdmin.deleteDomain(id));
      if (step.what === 'role') run.cleanup.add(`role ${step.name}`, async () => void (await admin.http('identity').delete(`/roles/${id}`)));
    },
  });
  const input = (extra: Partial<RegistrationInput> = {}): RegistrationInput => ({ name: regionName, cloud: adminCloud, endpoint: adminCloud.authUrl, dryRun: false, ...extra });
  const outcomes = (report: RegistrationReport): string[] => report.steps.map((s) => `${s.what} ${s.name}: ${s.outcome}`);
  const pass = { region: () => reconcileRegion({ engine, source, connections, logger: logs.logger }, ns, regionName) };
  const identityPass = (name: string) => reconcileIdentity({ engine, source, connections, logger: logs.logger }, ns, name);
  const available = async (kind: 'Region' | 'Identity', name: string): Promise<Condition | undefined> => {
    const object = await source.get(kind, ns, name);
    if (object) status.noteResource(kind, object);
    await status.render({ kind, namespace: ns, name });
    return (((await source.get(kind, ns, name))?.status ?? {}) as { conditions?: Condition[] }).conditions?.find((c) => c.type === 'Available');
  };
  /** Identity passes, sleeping out short yields, until realized (or parked, or 20 passes). */
  const realize = async (name: string): Promise<Disposition[]> => {
    const seen: Disposition[] = [];
    for (let i = 0; i < 20; i++) {
      const d = await identityPass(name);
      seen.push(d);
      if (d.kind !== 'yield' || d.why === 'realized') break;
      await sleep(Math.min(d.afterMs, 1_000));
    }
    return seen;
  };

  before(async function () {
    run = await realRun();
    if (run.target.adminCloud === undefined) this.skip();
    adminCloud = run.target.adminCloud;
    logs = captureLogs();
    admin = await connect(adminCloud, options());
    regionName = run.name('region');
    names = registrationNames(regionName);
    source = openEmbeddedSource({ path: ':memory:' });
    const store = new MemoryEventStore();
    connections = new RegionConnections({ source, connect: (cloud) => connect(cloud, options()) });
    engine = new Engine({
      store, registry: createProductRegistry(), logger: logs.logger,
      handlers: identityHandlers({ connections, secrets: source.secrets, connectAsUser: (cloud, login) => connectAsUser(cloud, login, options()) }),
    });
    status = new StatusRunner({ store, engine, source, checkpoint: new MemoryCheckpoint(), logger: logs.logger, ...statusRunnerParts(['Region', 'Identity']) });
  });
  after(async () => {
    await source?.close();
  });

  it('a dry run creates nothing and says what a run would create', async () => {
    const dry = await registerRegion(input({ dryRun: true }), deps());
    expect(dry.steps.filter((s) => s.what !== 'role').map((s) => `${s.what} ${s.name}: ${s.outcome}`)).to.deep.equal([
      `domain ${names.domain}: would-create`,
      `project ${names.project}: would-create`,
      `user ${names.user}: would-create`,
      `role assignment admin on project ${names.project} for user ${names.user}: would-create`,
      `application credential ${names.credential(1)}: would-create`,
      `Secret ${ns}/${names.secret}: would-create`,
      `Region ${ns}/${regionName}: would-create`,
    ]);
    expect(await admin.identityAdmin.findDomainByName(names.domain)).to.equal(undefined);
    expect((await source.list('Region')).items).to.deep.equal([]);
    expect(await source.secrets.list()).to.deep.equal([]);
  });

  it('registers from the admin cloud: the managed domain, the managed roles (creating those Zed lacks), the service project and user, admin on it, an application credential, the Secret and the Region', async () => {
    const missingRoles: string[] = [];
    for (const role of DEFAULT_IDENTITY_ROLES) if (!(await admin.identityAdmin.findRoleByName(role))) missingRoles.push(role);
    first = await registerRegion(input(), deps());
    console.log(`      ${first.steps.map(describeStep).join('\n      ')}`);
    expect(outcomes(first)).to.deep.equal([
      `domain ${names.domain}: created`,
      ...DEFAULT_IDENTITY_ROLES.map((role) => `role ${role}: ${missingRoles.includes(role) ? 'created' : 'existing'}`),
      `project ${names.project}: created`,
      `user ${names.user}: created`,
      `role assignment admin on project ${names.project} for user ${names.user}: created`,
      `application credential ${names.credential(1)}: created`,
      `Secret ${ns}/${names.secret}: created`,
      `Region ${ns}/${regionName}: created`,
    ]);
    if (adminCloud.regionName !== undefined) expect(first.regionName).to.equal(adminCloud.regionName);
    const user = first.steps.find((s) => s.what === 'user')!.id!;
    const project = first.steps.find((s) => s.what === 'project')!.id!;
    expect((await admin.identityAdmin.listRoleAssignments({ projectId: project, userId: user })).map((a) => a.roleName)).to.deep.equal([...REGION_SERVICE_ROLES]);
    for (const role of DEFAULT_IDENTITY_ROLES) expect(await admin.identityAdmin.findRoleByName(role), role).to.not.equal(undefined);
    secrets.push((await source.secrets.get(ns, names.secret))!.data.application_credential_secret!);
    const credential = (await admin.http('identity').get(`/users/${user}/application_credentials/${first.steps.find((s) => s.what === 'application credential')!.id!}`)).data as { application_credential: { unrestricted: unknown; project_id: string } };
    expect(credential.application_credential).to.deep.include({ unrestricted: true, project_id: project });
  });

  it('a second run changes nothing: every step existing', async () => {
    const second = await registerRegion(input(), deps());
    expect(second.steps.map((s) => `${s.what} ${s.name}: ${s.outcome}`)).to.deep.equal(first.steps.map((s) => `${s.what} ${s.name}: existing`));
    expect(second.changed).to.equal(false);
  });

  it('the Region connects with the registered application credential: Available=True, naming the managed domain', async () => {
    expect((await pass.region()).kind).to.equal('yield');
    const condition = await available('Region', regionName);
    expect(condition).to.include({ status: 'True', reason: 'Provisioned' });
    expect(condition?.message).to.include(`managed domain ${first.domain.id}`);
    const connection = await connections.region(ns, regionName);
    expect(connection?.session.initialToken.methods).to.deep.equal(['application_credential']);
    expect(connection?.session.projectId).to.equal(first.steps.find((s) => s.what === 'project')!.id);
    // Zed's implied roles: admin ⇒ member ⇒ reader (docs/simulator-differences.md #12)
    expect([...(connection?.session.initialToken.roles ?? [])].sort()).to.deep.equal(['admin', 'member', 'reader']);
  });

  it('one Identity is realized in the managed domain by the registered credentials with the default roles, then deleted: its project, user and credential gone', async () => {
    await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: acme-web }
spec: { regionRef: { name: ${regionName} }, organizationID: acme, projectID: web }
`);
    const passes = await realize('acme-web');
    expect(passes.at(-1), JSON.stringify(passes)).to.deep.include({ kind: 'yield', why: 'realized' });
    expect(await available('Identity', 'acme-web')).to.include({ status: 'True' });
    const uid = (await source.get('Identity', ns, 'acme-web'))!.metadata.uid;
    const ks = admin.identityAdmin;
    const project = await ks.findProject({ domainId: first.domain.id!, name: identityProjectName(uid) });
    const user = await ks.findUser({ domainId: first.domain.id!, name: identityUserName(uid) });
    expect(project?.domainId).to.equal(first.domain.id);
    const roles = (await ks.listRoleAssignments({ projectId: project!.id, userId: user!.id })).map((a) => a.roleName).sort();
    expect(roles).to.deep.equal([...DEFAULT_IDENTITY_ROLES].sort());
    const stored = (await source.secrets.get(ns, identitySecretName(uid)))!.data;
    secrets.push(stored.application_credential_secret!);
    const asIdentity = await connect({ ...adminCloud, auth: { type: 'application-credential', credential: { id: stored.application_credential_id! }, secret: stored.application_credential_secret! }, scope: { kind: 'unscoped' } }, options());
    expect(asIdentity.projectId).to.equal(project!.id);

    await source.delete('Identity', ns, 'acme-web');
    for (let i = 0; i < 12 && (await source.get('Identity', ns, 'acme-web')); i++) {
      const d = await identityPass('acme-web');
      if (d.kind === 'yield') await sleep(Math.min(d.afterMs, 1_000));
    }
    expect(await source.get('Identity', ns, 'acme-web'), 'the Identity is gone (its finalizer released)').to.equal(undefined);
    expect(await ks.findProject({ domainId: first.domain.id!, name: identityProjectName(uid) })).to.equal(undefined);
    expect(await ks.findUser({ domainId: first.domain.id!, name: identityUserName(uid) })).to.equal(undefined);
    expect(await ks.findApplicationCredential({ userId: user!.id, name: `regent-${uid}-1` })).to.equal(undefined);
  });

  it('a credential Keystone refuses is replaced (a new password set to act as the service user); the Region connects with the new one', async () => {
    const secret = (await source.secrets.get(ns, names.secret))!;
    await source.secrets.put(ns, names.secret, { ...secret.data, application_credential_secret: 'not-the-secret' }, { labels: secret.labels });
    const again = await registerRegion(input(), deps());
    expect(again.steps.filter((s) => ['application credential', 'Secret'].includes(s.what)).map((s) => `${s.what} ${s.name}: ${s.outcome}`)).to.deep.equal([
      `application credential ${names.credential(2)}: created`,
      `Secret ${ns}/${names.secret}: updated`,
      `application credential ${names.credential(1)}: deleted`,
    ]);
    const user = again.steps.find((s) => s.what === 'user')!.id!;
    expect((await admin.identityAdmin.listApplicationCredentials(user)).map((c) => c.name)).to.deep.equal([names.credential(2)]);
    expect((await pass.region()).kind).to.equal('yield');
    expect(await available('Region', regionName)).to.include({ status: 'True' });
  });

  it('no secret in a report or a log line: every application-credential secret the run stored', async () => {
    secrets.push((await source.secrets.get(ns, names.secret))!.data.application_credential_secret!);
    expect(secrets).to.have.length(3);
    for (const text of [JSON.stringify(first), ...first.steps.map((s: RegistrationStep) => describeStep(s)), logs.text()]) {
      for (const secret of secrets) expect(text).to.not.include(secret);
    }
  });

  it("Zed as the simulator now answers: a member may not list domains nor read a role; a deleted role takes its assignments; a restricted application credential's token may delete no credential", async function () {
    const demo = await connect(run.target.tenantCloud, options());
    if (demo.initialToken.roles.includes('admin')) this.skip();
    expect(await rejectionOf(demo.identityAdmin.findDomainByName('Default'))).to.deep.include({ status: 403, fault: 'You are not authorized to perform the requested action: identity:list_domains.' });
    const member = (await admin.identityAdmin.findRoleByName('member'))!;
    expect(await rejectionOf(demo.http('identity').get(`/roles/${member.id}`))).to.deep.include({ status: 403 });

    const ks = admin.identityAdmin;
    const project = first.steps.find((s) => s.what === 'project')!.id!;
    const serviceUser = first.steps.find((s) => s.what === 'user')!.id!;
    const scratch = (await admin.http('identity').post('/roles', { role: { name: run.name('role') } })).data as { role: { id: string } };
    run.cleanup.add(`role ${run.name('role')}`, async () => void (await admin.http('identity').delete(`/roles/${scratch.role.id}`)));
    await ks.grantProjectRole({ projectId: project, userId: serviceUser, roleId: scratch.role.id });
    expect((await admin.http('identity').delete(`/roles/${scratch.role.id}`)).status).to.equal(204);
    expect((await ks.listRoleAssignments({ projectId: project, userId: serviceUser })).map((a) => a.roleId)).to.not.include(scratch.role.id);

    const userId = admin.initialToken.user.id;
    const created: Array<{ id: string; name: string }> = [];
    const own = async (name: string, unrestricted: boolean) => {
      const raw = (await admin.http('identity').post(`/users/${userId}/application_credentials`, { application_credential: { name: run.name(name), unrestricted } })).data as { application_credential: { id: string; secret: string } };
      created.push({ id: raw.application_credential.id, name: run.name(name) });
      run.cleanup.add(`application credential ${run.name(name)}`, () => admin.identityAdmin.deleteApplicationCredential({ userId, id: raw.application_credential.id }));
      return raw.application_credential;
    };
    const restricted = await own('appcred-restricted', false);
    const victim = await own('appcred-victim', false);
    const unrestricted = await own('appcred-unrestricted', true);
    const as = (c: { id: string; secret: string }) => connect({ ...adminCloud, auth: { type: 'application-credential', credential: { id: c.id }, secret: c.secret }, scope: { kind: 'unscoped' } }, options());
    const text = "You are not authorized to perform the requested action: Using method 'application_credential' is not allowed for managing additional application credentials..";
    const r = await as(restricted);
    expect(await rejectionOf(r.http('identity').delete(`/users/${userId}/application_credentials/${victim.id}`))).to.deep.include({ status: 403, fault: text });
    expect(await rejectionOf(r.http('identity').delete(`/users/${userId}/application_credentials/0123456789abcdef0123456789abcdef`))).to.deep.include({ status: 403, fault: text });
    await (await as(unrestricted)).identityAdmin.deleteApplicationCredential({ userId, id: victim.id });
    expect(await ks.findApplicationCredential({ userId, name: run.name('appcred-victim') })).to.equal(undefined);
  });
});
