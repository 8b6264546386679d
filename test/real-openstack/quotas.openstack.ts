/**
 * Identity quotas against the real services (src/provider/identity/quotas.ts; issue 16, "Quota and roles"):
 * with the admin cloud, a scratch project in the Default domain → readQuotas (Zed's defaults, each service's
 * shape) → quotaDrift of Regent's desired quota → applyQuotas writes only the drift → read back, no drift
 * left, a second pass writes nothing → the tenant (member) token's PUT is a typed 403 at every service →
 * what the services refuse (unknown keys, below -1, a key gone at compute 2.90, a limit below usage) →
 * Cinder's 413 after a PUT. The scratch project's quotas are reset (DELETE) and the project deleted in cleanup.
 *
 * The simulator was changed to match what this file records (docs/simulator-differences.md §19).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { BadRequest, Conflict, Forbidden, OverLimit } from '../../src/openstack/errors.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { applyQuotas, desiredQuotas, quotaDrift, readQuotas, type QuotaDrift, type QuotaSettings } from '../../src/provider/identity/quotas.js';
import { realRun, type RealRun } from './support/run.js';
import { removeVolumeByName } from './support/volumes.js';
import { waitFor } from './support/wait.js';

const rejectionOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a rejection'); }, (error: unknown) => error);

/** Nova's quota_set keys at compute 2.90 (2.57 dropped injected_file*, 2.36 the network quotas). */
const NOVA_KEYS = ['cores', 'instances', 'key_pairs', 'metadata_items', 'ram', 'server_group_members', 'server_groups'];
const NEUTRON_KEYS = ['floatingip', 'network', 'port', 'rbac_policy', 'router', 'security_group', 'security_group_rule', 'subnet', 'subnetpool'];

describe('identity quotas against the real Nova, Neutron and Cinder (scratch project)', function () {
  let run: RealRun;
  let admin: OpenStackSession;
  let tenant: OpenStackSession;
  let project: string;
  const desired: QuotaSettings = desiredQuotas({ compute: { cores: 64 }, volume: { gigabytes: 50, volumes: 5 } });

  const resetQuotas = async (projectId: string): Promise<void> => {
    await admin.http('compute').delete(`/os-quota-sets/${projectId}`);
    await admin.http('network').delete(`/quotas/${projectId}`);
    await admin.http('block-storage').delete(`/os-quota-sets/${projectId}`);
  };

  before(async function () {
    run = await realRun();
    if (run.admin === undefined) this.skip();
    admin = run.admin;
    tenant = run.tenant;
    const domain = await admin.identityAdmin.findDomainByName('Default');
    if (domain === undefined) this.skip();
    const created = await admin.identityAdmin.createProject({ domainId: domain.id, name: run.name('quota'), description: 'regent quota test' });
    project = created.id;
    run.cleanup.add(`project ${created.name}`, async () => {
      await admin.http('identity').patch(`/projects/${project}`, { project: { enabled: false } });
      await admin.identityAdmin.deleteProject(project);
    });
    // runs before the project's deletion (last in, first out): Keystone's delete leaves the services' rows
    run.cleanup.add(`quotas of ${created.name}`, () => resetQuotas(project));
  });

  it("reads Zed's defaults: Nova's 2.90 keys without id, Neutron's `quota` without id, Cinder's per-type keys", async () => {
    const observed = await readQuotas(admin, project, desired);
    expect(Object.keys(observed.compute ?? {}).sort()).to.deep.equal(NOVA_KEYS);
    // the project has no quota of its own yet: Nova answers the cloud's defaults
    const defaults = (await admin.http('compute').get(`/os-quota-sets/${project}/defaults`)).data as { quota_set: Record<string, unknown> };
    const { id: _id, ...novaDefaults } = defaults.quota_set;
    expect(observed.compute).to.deep.equal(novaDefaults);
    expect(Object.keys(observed.network ?? {}).sort()).to.deep.equal(NEUTRON_KEYS);
    expect(observed.network).to.include({ network: 100, subnet: 100, port: 500, router: 10, floatingip: 50, security_group: 10, security_group_rule: 100, subnetpool: -1, rbac_policy: 10 });
    expect(observed.volume).to.include({ volumes: 10, gigabytes: 1000, snapshots: 10, backups: 10, backup_gigabytes: 1000, per_volume_gigabytes: -1, groups: 10 });
    expect(observed.volume).to.not.have.property('id');
    // one volumes_/gigabytes_/snapshots_ key per volume type, unlimited by default
    const typed = Object.keys(observed.volume ?? {}).filter((k) => /^(volumes|gigabytes|snapshots)_./.test(k));
    const types = await admin.cinder.listVolumeTypes();
    expect(typed.sort()).to.deep.equal(types.flatMap((t) => ['volumes', 'gigabytes', 'snapshots'].map((r) => `${r}_${t.name}`)).sort());
    for (const k of typed) expect(observed.volume?.[k], k).to.equal(-1);
  });

  it('applies only the drift, reads it back with no drift left; a second pass writes nothing', async () => {
    const before = await readQuotas(admin, project, desired);
    const drift = quotaDrift(desired, before);
    expect(drift.map((d) => `${d.service}.${d.key}`)).to.deep.equal([
      'compute.cores', 'compute.instances', 'compute.ram', 'network.floatingip', 'volume.gigabytes', 'volume.volumes',
    ]);
    const written = await applyQuotas(admin, project, drift);
    expect(written).to.deep.equal({ compute: { cores: 64, instances: -1, ram: -1 }, network: { floatingip: 3 }, volume: { gigabytes: 50, volumes: 5 } });
    const after = await readQuotas(admin, project, desired);
    expect(quotaDrift(desired, after)).to.deep.equal([]);
    // keys Regent does not desire kept the cloud's defaults
    expect([after.compute?.key_pairs, after.network?.port, after.volume?.snapshots]).to.deep.equal([before.compute?.key_pairs, before.network?.port, before.volume?.snapshots]);
    expect(await applyQuotas(admin, project, quotaDrift(desired, after))).to.deep.equal({});
  });

  it("the tenant's member token: its own project's quotas are readable, another's and every PUT are a typed 403", async () => {
    const own = tenant.projectId ?? '';
    const mine = await readQuotas(tenant, own, { compute: {}, network: {}, volume: {} });
    expect(Object.keys(mine)).to.deep.equal(['compute', 'network', 'volume']);
    for (const service of ['compute', 'network', 'volume'] as const) {
      expect(await rejectionOf(readQuotas(tenant, project, { [service]: {} })), `read ${service}`).to.be.instanceOf(Forbidden);
    }
    const refused: Array<[QuotaDrift, string]> = [
      [{ service: 'compute', key: 'instances', want: 1, have: mine.compute?.instances }, "Policy doesn't allow os_compute_api:os-quota-sets:update to be performed."],
      [{ service: 'network', key: 'floatingip', want: 1, have: mine.network?.floatingip }, 'rule:update_quota is disallowed by policy'],
      [{ service: 'volume', key: 'volumes', want: 1, have: mine.volume?.volumes }, "Policy doesn't allow volume_extension:quotas:update to be performed."],
    ];
    for (const [drift, fault] of refused) {
      const error = await rejectionOf(applyQuotas(tenant, own, [drift]));
      expect(error, drift.service).to.be.instanceOf(Forbidden);
      expect((error as Forbidden).fault).to.equal(fault);
    }
    const unchanged = await readQuotas(tenant, own, { compute: {}, network: {}, volume: {} });
    expect([unchanged.compute?.instances, unchanged.network?.floatingip, unchanged.volume?.volumes]).to.deep.equal([mine.compute?.instances, mine.network?.floatingip, mine.volume?.volumes]);
  });

  it('what the services refuse with a 400 (BadRequest), in their words', async () => {
    const cases: Array<[QuotaDrift, string]> = [
      [{ service: 'compute', key: 'floating_ips', want: 1, have: undefined }, "Invalid input for field/attribute quota_set. Value: {'floating_ips': 1}. Additional properties are not allowed ('floating_ips' was unexpected)"],
      [{ service: 'compute', key: 'injected_files', want: 1, have: undefined }, "Invalid input for field/attribute quota_set. Value: {'injected_files': 1}. Additional properties are not allowed ('injected_files' was unexpected)"],
      [{ service: 'compute', key: 'instances', want: -2, have: undefined }, 'Invalid input for field/attribute instances. Value: -2. -2 is less than the minimum of -1'],
      [{ service: 'network', key: 'floatingips', want: 1, have: undefined }, "Unrecognized attribute(s) 'floatingips'"],
      [{ service: 'network', key: 'floatingip', want: -2, have: undefined }, "Invalid input for floatingip. Reason: '-2' is too small - must be at least '-1'."],
      [{ service: 'volume', key: 'volume', want: 1, have: undefined }, 'Invalid input received: Bad key(s) in quota set: volume'],
      [{ service: 'volume', key: 'volumes', want: -2, have: undefined }, 'volumes must be >= -1'],
    ];
    for (const [drift, fault] of cases) {
      const error = await rejectionOf(applyQuotas(admin, project, [drift]));
      expect(error, `${drift.service}.${drift.key}`).to.be.instanceOf(BadRequest);
      expect((error as BadRequest).fault, `${drift.service}.${drift.key}`).to.equal(fault);
    }
    // an empty write: Cinder refuses it, Nova and Neutron answer the quotas unchanged
    expect(((await rejectionOf(admin.cinder.updateQuotaSet(project, {}))) as BadRequest).fault).to.equal('Invalid input for field/attribute quota_set. Value: {}. {} does not have enough properties');
    expect(await admin.nova.updateQuotaSet(project, {})).to.include({ cores: 64 });
    expect(await admin.neutron.updateQuota(project, {})).to.include({ floatingip: 3 });
  });

  it('an unknown project id: Nova asks Keystone (400), Neutron and Cinder answer their defaults', async () => {
    const unknown = randomUUID().replace(/-/g, '');
    const nova = await rejectionOf(admin.nova.getQuotaSet(unknown));
    expect(nova).to.be.instanceOf(BadRequest);
    expect((nova as BadRequest).fault).to.equal(`Project ID ${unknown} is not a valid project.`);
    expect(await admin.neutron.getQuota(unknown)).to.include({ floatingip: 50, port: 500 });
    expect(await admin.cinder.getQuotaSet(unknown)).to.include({ volumes: 10, gigabytes: 1000 });
  });

  it("Nova refuses a limit below the project's usage (server groups: no compute needed)", async () => {
    const own = tenant.projectId ?? '';
    const group = await tenant.nova.createServerGroup(run.name('quota-sg'), 'anti-affinity');
    run.cleanup.add(`server group ${group.name}`, () => tenant.nova.deleteServerGroup(group.id));
    try {
      const used = (await tenant.nova.listServerGroups()).filter((g) => g.project_id === own || g.project_id === undefined).length;
      const error = await rejectionOf(applyQuotas(admin, own, [{ service: 'compute', key: 'server_groups', want: used - 1, have: undefined }]));
      expect(error).to.be.instanceOf(BadRequest);
      expect((error as BadRequest).fault).to.equal(`Quota limit ${used - 1} for server_groups must be greater than or equal to already used and reserved ${used}.`);
    } finally {
      await admin.http('compute').delete(`/os-quota-sets/${own}`);
      await tenant.nova.deleteServerGroup(group.id);
    }
  });

  it("Neutron's admission follows a PUT: 409 OverQuota (networks here: no external network needed)", async () => {
    const own = tenant.projectId ?? '';
    const name = run.name('quota-net');
    try {
      const used = (await tenant.neutron.listNetworks({ project_id: own })).length;
      await applyQuotas(admin, own, [{ service: 'network', key: 'network', want: used, have: undefined }]);
      const over = await rejectionOf(tenant.neutron.createNetwork({ name }).then((n) => { run.cleanup.add(`network ${name}`, () => tenant.neutron.deleteNetwork(n.id)); }));
      expect(over).to.be.instanceOf(Conflict);
      expect((over as Conflict).fault).to.equal("Quota exceeded for resources: ['network'].");
    } finally {
      await admin.http('network').delete(`/quotas/${own}`);
    }
  });

  it("Cinder's admission follows a PUT (413 VolumeLimitExceeded) and a limit below usage is refused (400)", async () => {
    const own = tenant.projectId ?? '';
    const name = run.name('quota-vol');
    run.cleanup.add(`volume ${name}`, () => removeVolumeByName(run, name));
    const usage = async (): Promise<number> => {
      const body = (await admin.http('block-storage').get(`/os-quota-sets/${own}?usage=true`)).data as { quota_set: { volumes: { in_use: number } } };
      return body.quota_set.volumes.in_use;
    };
    try {
      const used = await usage();
      await applyQuotas(admin, own, [{ service: 'volume', key: 'volumes', want: used + 1, have: undefined }]);
      const created = await tenant.cinder.createVolume({ name, size: 1 });
      await waitFor('volume available', () => tenant.cinder.getVolume(created.id), (v) => v.status.kind === 'value' && v.status.value !== 'creating', { timeoutMs: 60_000 });
      const over = await rejectionOf(tenant.cinder.createVolume({ name: `${name}-2`, size: 1 }));
      expect(over).to.be.instanceOf(OverLimit);
      expect((over as OverLimit).status).to.equal(413);
      expect((over as OverLimit).fault).to.equal(`VolumeLimitExceeded: Maximum number of volumes allowed (${used + 1}) exceeded for quota 'volumes'.`);
      const below = await rejectionOf(applyQuotas(admin, own, [{ service: 'volume', key: 'volumes', want: used, have: used + 1 }]));
      expect(below).to.be.instanceOf(BadRequest);
      expect((below as BadRequest).fault).to.equal(`Quota volumes limit must be equal or greater than existing resources. Current usage is ${used + 1} and the requested limit is ${used}.`);
    } finally {
      await admin.http('block-storage').delete(`/os-quota-sets/${own}`);
      await removeVolumeByName(run, name);
    }
  });
});
