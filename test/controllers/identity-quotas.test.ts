/**
 * Issue 16, "Quota and roles": every Identity's project gets the quota the Region applies (Regent's
 * defaults, overridden key by key by `spec.openstack.quotas`), applied with the region credentials and
 * verified by reading it back on every pass; and the region credentials' own user gets its service roles
 * on the project (`spec.openstack.serviceRoles`, default manager), so region credentials can be bound to
 * that project for the pinned create. Against the simulator over real HTTP, one pass at a time.
 */
import { expect } from 'chai';
import { startIdentityRig, type IdentityRig } from './identity-rig.js';
import { identityLifecycleStream, type IdentityContext } from '../../machines/identity-lifecycle.js';
import { identityProjectName } from '../../src/provider/identity/names.js';

describe('identity quotas and service roles (simulator)', function () {
  this.timeout(30_000);
  let rig: IdentityRig;
  beforeEach(async () => (rig = await startIdentityRig()));
  afterEach(async () => rig.close());

  const projectOf = async (name = 'acme-web') => {
    const uid = (await rig.source.get('Identity', 'default', name))?.metadata.uid as string;
    const project = await rig.admin.identityAdmin.findProject({ domainId: rig.domainId, name: identityProjectName(uid) });
    return project!.id;
  };
  const quotaPuts = () => rig.sim.calls().filter((c) => c.method === 'PUT' && /quota/.test(c.path));
  const realized = async () => expect((await rig.realize()).at(-1)).to.deep.include({ why: 'realized' });

  it("applies Regent's defaults when the Region names no quotas: compute instances, cores and ram unlimited, 3 floating IPs", async () => {
    await rig.applyRegion();
    await rig.applyIdentity();
    await realized();
    const projectId = await projectOf();
    expect(await rig.admin.nova.getQuotaSet(projectId)).to.include({ instances: -1, cores: -1, ram: -1 });
    expect(await rig.admin.neutron.getQuota(projectId)).to.include({ floatingip: 3 });
    expect((await rig.available('Identity', 'acme-web'))?.status).to.equal('True');
  });

  it("the Region's quotas override the defaults key by key, for compute, network and volume", async () => {
    await rig.applyRegion({ openstackYaml: '    quotas: { compute: { cores: 40 }, network: { floatingip: 1, port: 50 }, volume: { gigabytes: 500 } }\n' });
    await rig.applyIdentity();
    await realized();
    const projectId = await projectOf();
    expect(await rig.admin.nova.getQuotaSet(projectId)).to.include({ instances: -1, cores: 40, ram: -1 });
    expect(await rig.admin.neutron.getQuota(projectId)).to.include({ floatingip: 1, port: 50 });
    expect(await rig.admin.cinder.getQuotaSet(projectId)).to.include({ gigabytes: 500 });
  });

  it('a quota changed behind Regent\'s back is seen on the next pass and set again: only the drifted key is written', async () => {
    await rig.applyRegion();
    await rig.applyIdentity();
    await realized();
    const projectId = await projectOf();
    await rig.admin.nova.updateQuotaSet(projectId, { cores: 10 });
    const before = quotaPuts().length;
    await realized();
    expect(await rig.admin.nova.getQuotaSet(projectId)).to.include({ cores: -1 });
    const puts = quotaPuts().slice(before);
    expect(puts.map((c) => c.path)).to.have.length(1);
    expect(puts[0]?.path).to.match(/os-quota-sets/);
    // the decision names the drift (what Regent saw and what it wants), recorded before the write
    const events = await rig.store.readStream(identityLifecycleStream((await rig.source.get('Identity', 'default', 'acme-web'))!.metadata.uid));
    const decided = events.filter((e) => JSON.stringify(e).includes("quotasRequested"));
    expect(JSON.stringify(decided.at(-1) ?? null)).to.include('"key":"cores"').and.include('"have":10');
  });

  it('a realized identity whose quotas match writes nothing on its next pass', async () => {
    await rig.applyRegion();
    await rig.applyIdentity();
    await realized();
    const before = quotaPuts().length;
    await realized();
    await realized();
    expect(quotaPuts().length).to.equal(before);
  });

  it('the services refusing the quota (403: the region credentials are not admin) park the identity, naming the refusal', async () => {
    await rig.applyRegion();
    await rig.applyIdentity();
    rig.sim.control.addFault({ method: 'PUT', path: '/os-quota-sets/', status: 403, count: null, body: { forbidden: { code: 403, message: "Policy doesn't allow os_compute_api:os-quota-sets:update to be performed." } } });
    const passes = await rig.realize();
    expect(passes.at(-1)?.kind).to.equal('park');
    const available = await rig.available('Identity', 'acme-web');
    expect(available).to.include({ status: 'False' });
    expect(available?.message).to.equal("the services' quota APIs refused to set its quotas: Policy doesn't allow os_compute_api:os-quota-sets:update to be performed. (HTTP 403)");
    const context = (await rig.engine.load(identityLifecycleStream((await rig.source.get('Identity', 'default', 'acme-web'))!.metadata.uid))).snapshot.context as IdentityContext;
    expect(context.refusal?.step).to.equal('quotas');
  });

  it('in a Region without a managed domain nothing is applied: the project is not Regent\'s', async () => {
    await rig.applyRegion({ unmanaged: true });
    await rig.applyIdentity();
    await rig.realize();
    expect(quotaPuts()).to.have.length(0);
  });

  it("the region credentials' own user gets the service roles on the project (default manager; the Region may name others)", async () => {
    await rig.applyRegion({ openstackYaml: '    serviceRoles: [manager, reader]\n' });
    await rig.applyIdentity();
    await realized();
    const projectId = await projectOf();
    const regionUser = rig.admin.initialToken.user.id;
    const roles = (await rig.admin.identityAdmin.listRoleAssignments({ projectId, userId: regionUser })).map((a) => a.roleName).sort();
    expect(roles).to.deep.equal(['manager', 'reader']);
  });

  it('a service role taken away is granted again on the next pass', async () => {
    await rig.applyRegion();
    await rig.applyIdentity();
    await realized();
    const projectId = await projectOf();
    const regionUser = rig.admin.initialToken.user.id;
    const manager = await rig.admin.identityAdmin.findRoleByName('manager');
    await rig.admin.identityAdmin.revokeProjectRole({ projectId, userId: regionUser, roleId: manager!.id });
    expect(await rig.admin.identityAdmin.hasProjectRole({ projectId, userId: regionUser, roleId: manager!.id })).to.equal(false);
    await realized();
    expect(await rig.admin.identityAdmin.hasProjectRole({ projectId, userId: regionUser, roleId: manager!.id })).to.equal(true);
  });
});
