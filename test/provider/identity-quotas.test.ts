/**
 * Identity quotas (src/provider/identity/quotas.ts; issue 16, "Quota and roles"). The pure rules as a table —
 * Regent's defaults, the Region's overrides merged key by key, drift compared exactly (-1 included, an absent
 * key is drift), sorted — then the shell over real HTTP against the simulator: readQuotas/applyQuotas through
 * Nova, Neutron and Cinder, writes counted in the simulator's call log, a member's PUT refused (Forbidden), and
 * Nova's and Cinder's admission following what was written.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import {
  applyQuotas, DEFAULT_IDENTITY_QUOTAS, desiredQuotas, quotaDrift, quotaProblems, readQuotas, type QuotaDrift, type QuotaSettings,
} from '../../src/provider/identity/quotas.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { SEED } from '../../src/simulator/seed.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { BadRequest, Conflict, Forbidden, OverLimit } from '../../src/openstack/errors.js';
import { connectAs, rejectionOf, start } from '../openstack/support/sim.js';

describe('identity quotas: the pure rules', () => {
  describe('desiredQuotas', () => {
    it('without Region overrides is Regent\'s defaults: compute unlimited, 3 floating IPs, volume left to the cloud', () => {
      expect(desiredQuotas(undefined)).to.deep.equal({ compute: { instances: -1, cores: -1, ram: -1 }, network: { floatingip: 3 } });
      expect(desiredQuotas({})).to.deep.equal(DEFAULT_IDENTITY_QUOTAS);
    });
    it('an override replaces only the keys it names; the service\'s other defaults stay', () => {
      expect(desiredQuotas({ compute: { cores: 64 } }).compute).to.deep.equal({ instances: -1, cores: 64, ram: -1 });
    });
    it('a service the Region names replaces nothing else (naming network keeps the compute defaults)', () => {
      expect(desiredQuotas({ network: { port: 20 } })).to.deep.equal({
        compute: { instances: -1, cores: -1, ram: -1 }, network: { floatingip: 3, port: 20 },
      });
    });
    it('a service without defaults appears only when the Region names it', () => {
      expect(desiredQuotas({ volume: { gigabytes: 2000 } }).volume).to.deep.equal({ gigabytes: 2000 });
      expect(desiredQuotas({ volume: {} })).to.not.have.property('volume');
    });
    it('-1 overrides a number and a number overrides -1', () => {
      const d = desiredQuotas({ compute: { instances: 10 }, network: { floatingip: -1 } });
      expect([d.compute?.instances, d.network?.floatingip]).to.deep.equal([10, -1]);
    });
    it('does not change the defaults it merges over', () => {
      desiredQuotas({ compute: { cores: 1 } });
      expect(DEFAULT_IDENTITY_QUOTAS.compute?.cores).to.equal(-1);
    });
  });

  describe('quotaDrift', () => {
    const desired: QuotaSettings = { compute: { instances: -1, cores: 64 }, network: { floatingip: 3 } };
    it('no drift when every desired key is observed with its exact value; keys Regent does not desire are ignored', () => {
      expect(quotaDrift(desired, { compute: { instances: -1, cores: 64, key_pairs: 100 }, network: { floatingip: 3, port: 500 } })).to.deep.equal([]);
    });
    it('unlimited versus a number is drift both ways (compared exactly)', () => {
      expect(quotaDrift({ compute: { instances: -1, cores: 10 } }, { compute: { instances: 10, cores: -1 } })).to.deep.equal([
        { service: 'compute', key: 'cores', want: 10, have: -1 },
        { service: 'compute', key: 'instances', want: -1, have: 10 },
      ]);
    });
    it('an absent key counts as drift (have undefined), and so does an unobserved service', () => {
      expect(quotaDrift(desired, { compute: { instances: -1 } })).to.deep.equal([
        { service: 'compute', key: 'cores', want: 64, have: undefined },
        { service: 'network', key: 'floatingip', want: 3, have: undefined },
      ]);
    });
    it('is sorted by service (compute, network, volume) then key, whatever the input order', () => {
      const drift = quotaDrift(
        { volume: { volumes: 5, gigabytes: 50 }, network: { router: 1, floatingip: 1 }, compute: { ram: 1, cores: 1 } },
        { compute: { toString: 0 } as unknown as Record<string, number> },
      );
      expect(drift.map((d) => `${d.service}.${d.key}`)).to.deep.equal([
        'compute.cores', 'compute.ram', 'network.floatingip', 'network.router', 'volume.gigabytes', 'volume.volumes',
      ]);
    });
    it('a key inherited from Object.prototype is not an observed value', () => {
      expect(quotaDrift({ compute: { constructor: 1 } }, { compute: {} })).to.deep.equal([{ service: 'compute', key: 'constructor', want: 1, have: undefined }]);
    });
  });

  it('quotaProblems names every value that is not an integer ≥ -1, and unknown services', () => {
    expect(quotaProblems(DEFAULT_IDENTITY_QUOTAS)).to.deep.equal([]);
    expect(quotaProblems({ compute: { cores: -2, ram: 1.5 }, network: { port: 'x' as unknown as number }, dns: {} } as unknown as QuotaSettings)).to.deep.equal([
      'compute.cores: -2 is not a quota (an integer ≥ 0, or -1 for unlimited)',
      'compute.ram: 1.5 is not a quota (an integer ≥ 0, or -1 for unlimited)',
      'dns: not a quota service (expected one of compute, network, volume)',
      'network.port: x is not a quota (an integer ≥ 0, or -1 for unlimited)',
    ]);
  });
});

describe('identity quotas: read and apply through Nova, Neutron and Cinder (simulator over HTTP)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let admin: OpenStackSession;
  let demo: OpenStackSession;
  let project: string;

  const puts = () => sim.calls({ method: 'PUT' }).filter((c) => /\/(os-quota-sets|quotas)\//.test(c.path));

  before(async () => {
    sim = await start();
    admin = await connectAs(sim, 'admin');
    demo = await connectAs(sim, 'demo');
  });
  after(async () => {
    await sim.close();
  });
  beforeEach(async () => {
    const domainId = (await admin.identityAdmin.findDomainByName('Default'))?.id ?? 'default';
    project = (await admin.identityAdmin.createProject({ domainId, name: `quota-${randomUUID().slice(0, 8)}` })).id;
    sim.control.sim.calls.clear();
  });

  it('readQuotas reads each service the desired quota names, whole, with the cloud\'s defaults', async () => {
    const observed = await readQuotas(admin, project, { compute: { instances: -1 }, network: { floatingip: 3 }, volume: { gigabytes: 10 } });
    expect(observed.compute).to.include({ instances: 200, cores: 400, ram: 1024000, key_pairs: 100 });
    expect(observed.compute).to.not.have.property('id');
    expect(observed.compute).to.not.have.property('injected_files');
    expect(observed.network).to.deep.equal({ network: 100, subnet: 100, subnetpool: -1, port: 500, router: 10, floatingip: 50, rbac_policy: 10, security_group: 10, security_group_rule: 100 });
    expect(observed.volume).to.include({ volumes: 10, gigabytes: 1000, snapshots: 10, backups: 10, backup_gigabytes: 1000, per_volume_gigabytes: -1, groups: 10, volumes_standard: -1 });
    expect(observed.volume).to.not.have.property('id');
    const gets = sim.calls({ method: 'GET' }).filter((c) => /\/(os-quota-sets|quotas)\//.test(c.path)).map((c) => c.path).sort();
    expect(gets).to.deep.equal([
      `/compute/v2.1/os-quota-sets/${project}`, `/network/v2.0/quotas/${project}`, `/volume/v3/${sim.credentials.admin.projectId}/os-quota-sets/${project}`,
    ]);
  });

  it('readQuotas asks only the services named', async () => {
    expect(Object.keys(await readQuotas(admin, project, { network: { floatingip: 3 } }))).to.deep.equal(['network']);
    expect(sim.calls({ method: 'GET' }).filter((c) => /\/(os-quota-sets|quotas)\//.test(c.path)).map((c) => c.path)).to.deep.equal([`/network/v2.0/quotas/${project}`]);
  });

  it('applyQuotas writes only the drifted keys, one PUT per drifted service; a second pass finds no drift and writes nothing', async () => {
    const desired = desiredQuotas({ compute: { cores: 400 }, volume: { gigabytes: 50 } });
    const drift = quotaDrift(desired, await readQuotas(admin, project, desired));
    // cores 400 is already Nova's default: not drift
    expect(drift.map((d) => `${d.service}.${d.key}=${d.want}`)).to.deep.equal([
      'compute.instances=-1', 'compute.ram=-1', 'network.floatingip=3', 'volume.gigabytes=50',
    ]);
    const written = await applyQuotas(admin, project, drift);
    expect(written).to.deep.equal({ compute: { instances: -1, ram: -1 }, network: { floatingip: 3 }, volume: { gigabytes: 50 } });
    expect(puts().map((c) => [c.path, c.body])).to.deep.equal([
      [`/compute/v2.1/os-quota-sets/${project}`, { quota_set: { instances: -1, ram: -1 } }],
      [`/network/v2.0/quotas/${project}`, { quota: { floatingip: 3 } }],
      [`/volume/v3/${sim.credentials.admin.projectId}/os-quota-sets/${project}`, { quota_set: { gigabytes: 50 } }],
    ]);
    const after = await readQuotas(admin, project, desired);
    expect(quotaDrift(desired, after)).to.deep.equal([]);
    expect(after.compute).to.include({ instances: -1, cores: 400, ram: -1 });
    sim.control.sim.calls.clear();
    expect(await applyQuotas(admin, project, quotaDrift(desired, after))).to.deep.equal({});
    expect(puts()).to.deep.equal([]);
  });

  it('applyQuotas sends nothing for a service without drift (only Neutron drifted: one PUT)', async () => {
    await applyQuotas(admin, project, [{ service: 'network', key: 'floatingip', want: 3, have: 50 }]);
    expect(puts().map((c) => c.path)).to.deep.equal([`/network/v2.0/quotas/${project}`]);
  });

  it("a member token's write is a typed 403 (Forbidden) at every service, and nothing changes", async () => {
    const own = sim.credentials.demo.projectId;
    for (const drift of [
      { service: 'compute', key: 'instances', want: 1, have: 200 },
      { service: 'network', key: 'floatingip', want: 1, have: 50 },
      { service: 'volume', key: 'volumes', want: 1, have: 10 },
    ] as const) {
      const error = await rejectionOf(applyQuotas(demo, own, [drift]));
      expect(error, drift.service).to.be.instanceOf(Forbidden);
      expect((error as Forbidden).status).to.equal(403);
    }
    expect(puts().map((c) => c.status)).to.deep.equal([403, 403, 403]);
    const mine = await readQuotas(demo, own, { compute: {}, network: {}, volume: {} });
    expect([mine.compute?.instances, mine.network?.floatingip, mine.volume?.volumes]).to.deep.equal([200, 50, 10]);
  });

  it("a member reads its own project's quotas but another project's is a typed 403 (Forbidden)", async () => {
    for (const service of ['compute', 'network', 'volume'] as const) {
      const error = await rejectionOf(readQuotas(demo, project, { [service]: {} }));
      expect(error, service).to.be.instanceOf(Forbidden);
    }
  });

  it('a value the service refuses is a typed 400 (BadRequest): an unknown key, a value below -1, a key gone at 2.90', async () => {
    for (const drift of [
      { service: 'compute', key: 'injected_files', want: 5, have: undefined },
      { service: 'compute', key: 'instances', want: -2, have: 200 },
      { service: 'network', key: 'floatingips', want: 1, have: undefined },
      { service: 'volume', key: 'volume', want: 1, have: undefined },
    ] as const) {
      expect(await rejectionOf(applyQuotas(admin, project, [drift])), `${drift.service}.${drift.key}`).to.be.instanceOf(BadRequest);
    }
  });

  it('the 400s and 403s carry the words the real Zed services use (test/real-openstack/quotas.openstack.ts)', async () => {
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
    expect(((await rejectionOf(admin.cinder.updateQuotaSet(project, {}))) as BadRequest).fault).to.equal('Invalid input for field/attribute quota_set. Value: {}. {} does not have enough properties');
    expect(await admin.nova.updateQuotaSet(project, {})).to.include({ instances: 200 });
    expect(await admin.neutron.updateQuota(project, {})).to.include({ floatingip: 50 });
    const own = sim.credentials.demo.projectId;
    const refused: Array<[QuotaDrift, string]> = [
      [{ service: 'compute', key: 'instances', want: 1, have: 200 }, "Policy doesn't allow os_compute_api:os-quota-sets:update to be performed."],
      [{ service: 'network', key: 'floatingip', want: 1, have: 50 }, 'rule:update_quota is disallowed by policy'],
      [{ service: 'volume', key: 'volumes', want: 1, have: 10 }, "Policy doesn't allow volume_extension:quotas:update to be performed."],
    ];
    for (const [drift, fault] of refused) expect(((await rejectionOf(applyQuotas(demo, own, [drift]))) as Forbidden).fault, drift.service).to.equal(fault);
    const unknown = randomUUID().replace(/-/g, '');
    expect(((await rejectionOf(admin.nova.getQuotaSet(unknown))) as BadRequest).fault).to.equal(`Project ID ${unknown} is not a valid project.`);
    expect(await admin.neutron.getQuota(unknown)).to.include({ floatingip: 50, port: 500 });
    expect(await admin.cinder.getQuotaSet(unknown)).to.include({ volumes: 10, gigabytes: 1000 });
  });

  it("Nova refuses a limit below the project's usage (server groups), and takes it with force", async () => {
    const own = sim.credentials.demo.projectId;
    const group = await demo.nova.createServerGroup(`q-${randomUUID().slice(0, 8)}`, 'anti-affinity');
    try {
      const used = (await demo.nova.listServerGroups()).length;
      const error = await rejectionOf(applyQuotas(admin, own, [{ service: 'compute', key: 'server_groups', want: used - 1, have: undefined }]));
      expect((error as BadRequest).fault).to.equal(`Quota limit ${used - 1} for server_groups must be greater than or equal to already used and reserved ${used}.`);
      expect((await admin.nova.updateQuotaSet(own, { server_groups: used - 1, force: true } as unknown as Record<string, number>)).server_groups).to.equal(used - 1);
    } finally {
      await admin.http('compute').delete(`/os-quota-sets/${own}`);
      await demo.nova.deleteServerGroup(group.id);
    }
  });

  it("Nova's admission follows a PUT: instances 0 → a create is refused with 403 quota; -1 lets it through", async () => {
    const own = sim.credentials.demo.projectId;
    const server = { name: `q-${randomUUID().slice(0, 8)}`, flavorRef: '1', imageRef: SEED.images.cirros, networks: 'auto' as const };
    try {
      await applyQuotas(admin, own, [{ service: 'compute', key: 'instances', want: 0, have: 200 }]);
      const refused = await rejectionOf(demo.nova.createServer(server));
      expect(refused).to.be.instanceOf(Forbidden);
      expect((refused as Forbidden).fault).to.equal('Quota exceeded for instances: Requested 1, but already used 0 of 0 instances');
      await applyQuotas(admin, own, [{ service: 'compute', key: 'instances', want: -1, have: 0 }]);
      const created = await demo.nova.createServer(server);
      expect(created.id).to.be.a('string');
      // now a limit below the usage is refused (without force), as Nova does
      expect(await rejectionOf(applyQuotas(admin, own, [{ service: 'compute', key: 'instances', want: 0, have: -1 }]))).to.be.instanceOf(BadRequest);
    } finally {
      await admin.http('compute').delete(`/os-quota-sets/${own}`);
    }
  });

  it("Neutron's admission follows a PUT: Regent's default of 3 floating IPs → the fourth is a 409 (Conflict, OverQuota)", async () => {
    const own = sim.credentials.demo.projectId;
    const made: string[] = [];
    try {
      const desired = desiredQuotas(undefined);
      await applyQuotas(admin, own, quotaDrift(desired, await readQuotas(admin, own, desired)));
      for (let i = 0; i < 3; i++) made.push((await demo.neutron.createFloatingIp({ floating_network_id: SEED.publicNetwork })).id);
      const refused = await rejectionOf(demo.neutron.createFloatingIp({ floating_network_id: SEED.publicNetwork }));
      expect(refused).to.be.instanceOf(Conflict);
      expect((refused as Conflict).fault).to.equal("Quota exceeded for resources: ['floatingip'].");
      const details = (await admin.http('network').get(`/quotas/${own}/details`)).data as { quota: Record<string, { limit: number; used: number }> };
      expect(details.quota.floatingip).to.deep.equal({ limit: 3, used: 3, reserved: 0 });
    } finally {
      for (const id of made) await demo.neutron.deleteFloatingIp(id);
      await admin.http('network').delete(`/quotas/${own}`);
      await admin.http('compute').delete(`/os-quota-sets/${own}`);
    }
  });

  it("Cinder's admission follows a PUT: volumes 1 → the second create is refused with 413 (OverLimit)", async () => {
    const own = sim.credentials.demo.projectId;
    try {
      const existing = (await demo.cinder.listVolumes()).length;
      await applyQuotas(admin, own, [{ service: 'volume', key: 'volumes', want: existing + 1, have: 10 }]);
      await demo.cinder.createVolume({ name: `q-${randomUUID().slice(0, 8)}`, size: 1 });
      const refused = await rejectionOf(demo.cinder.createVolume({ name: `q-${randomUUID().slice(0, 8)}`, size: 1 }));
      expect(refused).to.be.instanceOf(OverLimit);
      expect((refused as OverLimit).fault).to.equal(`VolumeLimitExceeded: Maximum number of volumes allowed (${existing + 1}) exceeded for quota 'volumes'.`);
    } finally {
      await admin.http('block-storage').delete(`/os-quota-sets/${own}`);
    }
  });
});
