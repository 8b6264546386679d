import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import type { ComputeApi, ComputeApiLogin } from '../../src/nova/compute/compute-api.js';
import { ComputeApiError, openComputeApi, placementEndpoint } from '../../src/nova/compute/compute-api.js';
import type { CatalogEntry } from '../../src/openstack/keystone/catalog.js';
import { connectAs, FAST_RETRY, fault, rejectionOf, simApi, start } from '../openstack/support/sim.js';

const SERVICE_PASSWORD = 'nova-service-password-7f3a';

describe('compute-api: the client of a NovaCompute pool (simulator)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let login: ComputeApiLogin;

  const open = (overrides: Partial<ComputeApiLogin> = {}): Promise<ComputeApi> =>
    openComputeApi({ ...login, ...overrides }, { timeoutMs: 2_000, retry: FAST_RETRY });

  const tokenIssues = (): number => sim.calls({ method: 'POST', pathIncludes: '/auth/tokens' }).length;

  before(async () => {
    sim = await start();
    // The Nova service user: a user of its own with admin on the service project, as a Nova deployment has.
    const admin = await connectAs(sim, 'admin');
    const project = await admin.identityAdmin.findProject({ domainId: 'default', name: 'service' });
    const role = await admin.identityAdmin.findRoleByName('admin');
    if (project === undefined || role === undefined) throw new Error('seed has no service project or admin role');
    const user = await admin.identityAdmin.createUser({ domainId: 'default', name: 'nova', password: SERVICE_PASSWORD, defaultProjectId: project.id });
    await admin.identityAdmin.grantProjectRole({ projectId: project.id, userId: user.id, roleId: role.id });
    login = {
      authURL: sim.authUrl, novaURL: `${sim.url}/compute/v2.1`, username: 'nova', password: SERVICE_PASSWORD,
      projectName: 'service', userDomainName: 'Default', projectDomainName: 'Default',
    };
  });
  after(async () => {
    await sim.close();
  });
  afterEach(async () => {
    await simApi(sim, 'DELETE', '/faults');
  });

  it('lists the nova-compute services at 2.69 and records the microversion sent', async () => {
    const api = await open();
    const rows = await api.listComputeServices();
    expect(rows.map((r) => r.host).sort()).to.deep.equal(['ironic-compute', 'sandbox']);
    const sandbox = rows.find((r) => r.host === 'sandbox');
    expect(sandbox).to.deep.include({ status: 'enabled', state: 'up', zone: 'nova', disabledReason: null });
    expect(sandbox?.id).to.match(/^[0-9a-f-]{36}$/);

    const call = api.calls.find((c) => c.path === '/os-services');
    expect(call).to.deep.equal({ service: 'compute', method: 'GET', path: '/os-services', microversion: '2.69', status: 200 });
    const sent = sim.calls({ method: 'GET', pathIncludes: '/os-services' }).at(-1);
    expect(sent?.query).to.include('binary=nova-compute');
    expect(sent?.versions?.['X-OpenStack-Nova-API-Version']).to.equal('2.69');
    expect(sent?.versions?.['OpenStack-API-Version']).to.equal('compute 2.69');
  });

  it('a Nova URL without /v2.1 reaches the same API', async () => {
    const api = await open({ novaURL: `${sim.url}/compute/` });
    expect((await api.listComputeServices()).length).to.equal(2);
  });

  it('a service of a down cell (status UNKNOWN at 2.69) fails the list with cellDown', async () => {
    sim.control.computeHost({ host: 'cmp-down', cellDown: true });
    try {
      const error = await rejectionOf((await open()).listComputeServices());
      expect(error).to.be.instanceOf(ComputeApiError);
      expect((error as ComputeApiError).cellDown).to.equal(true);
      expect((error as ComputeApiError).service).to.equal('compute');
      expect((error as ComputeApiError).message).to.include('cmp-down');
      // The simulator answers as Nova does: the minimal construct at 2.69, nothing below it.
      const admin = await connectAs(sim, 'admin');
      const at269 = await admin.http('compute').get<{ services: Array<Record<string, unknown>> }>('/os-services', { binary: 'nova-compute' }, { 'X-OpenStack-Nova-API-Version': '2.69', 'OpenStack-API-Version': 'compute 2.69' });
      expect(at269.data.services.find((s) => s.host === 'cmp-down')).to.deep.equal({ binary: 'nova-compute', host: 'cmp-down', status: 'UNKNOWN' });
      const at268 = await admin.http('compute').get<{ services: Array<Record<string, unknown>> }>('/os-services', { binary: 'nova-compute' }, { 'X-OpenStack-Nova-API-Version': '2.68', 'OpenStack-API-Version': 'compute 2.68' });
      expect(at268.data.services.map((s) => s.host)).to.not.include('cmp-down');
    } finally {
      sim.control.computeHost({ host: 'cmp-down', cellDown: false });
    }
    expect((await (await open()).listComputeServices()).map((r) => r.host)).to.include('cmp-down');
  });

  it('mappedHosts at 2.88 leaves out a registered host without a host mapping', async () => {
    sim.control.computeHost({ host: 'cmp-new', mapped: false });
    const api = await open();
    expect((await api.listComputeServices()).map((r) => r.host)).to.include('cmp-new');
    const mapped = await api.mappedHosts();
    expect(mapped.has('sandbox')).to.equal(true);
    expect(mapped.has('ironic-compute')).to.equal(true);
    expect(mapped.has('cmp-new')).to.equal(false);
    expect(api.calls.find((c) => c.path === '/os-hypervisors/detail')).to.deep.include({ service: 'compute', method: 'GET', microversion: '2.88', status: 200 });
    expect(sim.calls({ method: 'GET', pathIncludes: '/os-hypervisors/detail' }).at(-1)?.versions?.['X-OpenStack-Nova-API-Version']).to.equal('2.88');

    sim.control.computeHost({ host: 'cmp-new', mapped: true }); // discover_hosts ran
    expect((await api.mappedHosts()).has('cmp-new')).to.equal(true);
  });

  it('disables a service with its reason, then deletes it; a second delete (404) is success', async () => {
    const { serviceId } = sim.control.computeHost({ host: 'cmp-drain' });
    const api = await open();
    await api.disableService(serviceId, 'drained by NovaCompute pool-a');
    const row = (await api.listComputeServices()).find((r) => r.host === 'cmp-drain');
    expect(row).to.deep.include({ id: serviceId, status: 'disabled', disabledReason: 'drained by NovaCompute pool-a' });
    const put = sim.calls({ method: 'PUT', pathIncludes: '/os-services/' }).at(-1);
    expect(put?.body).to.deep.equal({ status: 'disabled', disabled_reason: 'drained by NovaCompute pool-a' });
    expect(put?.versions?.['X-OpenStack-Nova-API-Version']).to.equal('2.69');

    await api.deleteService(serviceId);
    expect((await api.listComputeServices()).map((r) => r.host)).to.not.include('cmp-drain');
    await api.deleteService(serviceId);
    const deletes = api.calls.filter((c) => c.method === 'DELETE' && c.path === `/os-services/${serviceId}`);
    expect(deletes.map((c) => [c.status, c.microversion])).to.deep.equal([[204, '2.69'], [404, '2.69']]);
  });

  it('a refused service call is a ComputeApiError with its status', async () => {
    await fault(sim, { method: 'PUT', path: '/os-services/', status: 500 });
    const error = await rejectionOf((await open()).disableService('some-id', 'x'));
    expect(error).to.be.instanceOf(ComputeApiError);
    expect(error).to.deep.include({ service: 'compute', status: 500, reason: 'server-error' });
    expect((error as ComputeApiError).conflict).to.equal(undefined);
  });

  it('counts the servers on a host across projects and pages', async () => {
    const api = await open();
    const before = await api.serversOnHost('sandbox');
    sim.control.createServers({ project: 'demo', count: 3, namePrefix: 'host-count-demo-' });
    sim.control.createServers({ project: 'other', count: 2, namePrefix: 'host-count-other-' });
    expect(await api.serversOnHost('sandbox')).to.equal(before + 5);
    expect(await api.serversOnHost('cmp-empty')).to.equal(0);

    const paged = await openComputeApi(login, { timeoutMs: 2_000, retry: FAST_RETRY, serverPageSize: 2 });
    expect(await paged.serversOnHost('sandbox')).to.equal(before + 5);
    const pages = paged.calls.filter((c) => c.path === '/servers/detail');
    expect(pages.length).to.be.greaterThan(2);
    expect(pages.every((c) => c.microversion === '2.69' && c.status === 200)).to.equal(true);
    const sent = sim.calls({ method: 'GET', pathIncludes: '/servers/detail' }).at(-1);
    expect(sent?.query).to.include('all_tenants=1').and.to.include('host=sandbox');
  });

  it('creates an aggregate, sets and removes metadata, refuses a duplicate (conflict) and deletes it idempotently', async () => {
    const api = await open();
    const created = await api.createAggregate('zone-a', 'zone-a');
    expect(created).to.deep.include({ name: 'zone-a', zone: 'zone-a', hosts: [] });
    expect(created.id).to.match(/^\d+$/);
    const bare = await api.createAggregate('tenant_filter_tests', null);
    expect(bare.zone).to.equal(null);
    expect(sim.calls({ method: 'POST', pathIncludes: '/os-aggregates' }).at(-1)?.body).to.deep.equal({ aggregate: { name: 'tenant_filter_tests' } });

    const marked = await api.setAggregateMetadata(created.id, { 'c5c3.io:nova': 'ns/nova', extra: 'x' });
    expect(marked.metadata).to.deep.include({ 'c5c3.io:nova': 'ns/nova', extra: 'x' });
    const unmarked = await api.setAggregateMetadata(created.id, { extra: null });
    expect(unmarked.metadata).to.not.have.property('extra');
    const listed = (await api.listAggregates()).find((a) => a.id === created.id);
    expect(listed).to.deep.include({ name: 'zone-a', zone: 'zone-a' });
    expect(listed?.metadata['c5c3.io:nova']).to.equal('ns/nova');

    const duplicate = await rejectionOf(api.createAggregate('zone-a', 'zone-a'));
    expect(duplicate).to.be.instanceOf(ComputeApiError);
    expect(duplicate).to.deep.include({ conflict: true, status: 409, service: 'compute' });

    await api.deleteAggregate(created.id);
    await api.deleteAggregate(created.id);
    await api.deleteAggregate(bare.id);
    expect((await api.listAggregates()).map((a) => a.name)).to.not.include.members(['zone-a', 'tenant_filter_tests']);
    const aggregateCalls = api.calls.filter((c) => c.path.startsWith('/os-aggregates'));
    expect(aggregateCalls.every((c) => c.microversion === '2.69')).to.equal(true);
    expect(aggregateCalls.filter((c) => c.method === 'DELETE').map((c) => c.status)).to.deep.equal([200, 404, 200]);
  });

  it('traits at placement 1.6: exists, created (201) vs existed (204), deleted / absent / in use', async () => {
    const api = await open();
    expect(await api.traitExists('CUSTOM_POOL_A')).to.equal(false);
    expect(await api.createTrait('CUSTOM_POOL_A')).to.equal('created');
    expect(await api.createTrait('CUSTOM_POOL_A')).to.equal('existed');
    expect(await api.traitExists('CUSTOM_POOL_A')).to.equal(true);
    expect(await api.deleteTrait('CUSTOM_POOL_A')).to.equal('deleted');
    expect(await api.deleteTrait('CUSTOM_POOL_A')).to.equal('absent');
    expect(await api.traitExists('CUSTOM_POOL_A')).to.equal(false);

    // CUSTOM_RAID1 is carried by the seeded Ironic nodes' providers.
    expect(await api.deleteTrait('CUSTOM_RAID1')).to.equal('inUse');
    expect(await api.traitExists('CUSTOM_RAID1')).to.equal(true);

    const traitCalls = api.calls.filter((c) => c.path.startsWith('/traits/'));
    expect(traitCalls.map((c) => [c.method, c.status])).to.deep.equal([
      ['GET', 404], ['PUT', 201], ['PUT', 204], ['GET', 204], ['DELETE', 204], ['DELETE', 404], ['GET', 404], ['DELETE', 409], ['GET', 204],
    ]);
    expect(traitCalls.every((c) => c.service === 'placement' && c.microversion === '1.6')).to.equal(true);
    expect(sim.calls({ method: 'PUT', pathIncludes: '/traits/CUSTOM_POOL_A' }).at(-1)?.versions?.['OpenStack-API-Version']).to.equal('placement 1.6');
  });

  it('a trait call Placement refuses otherwise is a ComputeApiError', async () => {
    await fault(sim, { method: 'PUT', path: '/traits/CUSTOM_X', status: 503 });
    const error = await rejectionOf((await open()).createTrait('CUSTOM_X'));
    expect(error).to.be.instanceOf(ComputeApiError);
    expect(error).to.deep.include({ service: 'placement', status: 503 });
  });

  it('one opened client requests one token, whatever it calls', async () => {
    const issuedBefore = tokenIssues();
    const api = await open();
    await api.listComputeServices();
    await api.mappedHosts();
    await api.listAggregates();
    await api.serversOnHost('sandbox');
    await api.traitExists('CUSTOM_RAID1');
    expect(tokenIssues() - issuedBefore).to.equal(1);
    const identity = api.calls.filter((c) => c.service === 'identity');
    expect(identity).to.deep.equal([{ service: 'identity', method: 'POST', path: '/auth/tokens', microversion: null, status: 201 }]);
    expect(api.calls[0]?.service).to.equal('identity');
    // A second client (the next pass) requests its own.
    await (await open()).listAggregates();
    expect(tokenIssues() - issuedBefore).to.equal(2);
  });

  it('the calls carry no token, header value or body', async () => {
    const { serviceId } = sim.control.computeHost({ host: 'cmp-quiet' });
    const api = await open();
    await api.disableService(serviceId, 'secret-ish reason text');
    await api.createAggregate('quiet-aggregate', null);
    const text = JSON.stringify(api.calls);
    expect(text).to.not.include(SERVICE_PASSWORD);
    expect(text).to.not.include('secret-ish');
    expect(text).to.not.include('X-Auth-Token');
    expect(text).to.not.include('quiet-aggregate');
    for (const call of api.calls) expect(Object.keys(call).sort()).to.deep.equal(['method', 'microversion', 'path', 'service', 'status']);
  });

  it('Placement comes from the catalog, filtered by region; no Placement fails only the Placement calls', async () => {
    const api = await open({ regionName: 'RegionOne' });
    expect(await api.traitExists('CUSTOM_RAID1')).to.equal(true);
    const elsewhere = await open({ regionName: 'RegionTwo' });
    expect((await elsewhere.listAggregates()).length).to.be.a('number');
    const error = await rejectionOf(elsewhere.traitExists('CUSTOM_RAID1'));
    expect(error).to.be.instanceOf(ComputeApiError);
    expect(error).to.deep.include({ service: 'placement', reason: 'no-endpoint' });
  });

  it('a Keystone refusal is a ComputeApiError (identity, 401) whose message carries no password', async () => {
    const wrong = 'wrong-password-9c1e-do-not-leak';
    const error = await rejectionOf(open({ password: wrong }));
    expect(error).to.be.instanceOf(ComputeApiError);
    expect(error).to.deep.include({ service: 'identity', status: 401, reason: 'unauthorized' });
    const text = `${(error as Error).message} ${JSON.stringify(error)}`;
    expect(text).to.not.include(wrong);
    expect(text).to.not.include(SERVICE_PASSWORD);
  });

  it('a Keystone fault that quotes the password is redacted', async () => {
    await fault(sim, { method: 'POST', path: '/auth/tokens', status: 400, body: { error: { code: 400, message: `Invalid input: password ${SERVICE_PASSWORD} rejected`, title: 'Bad Request' } } });
    const error = await rejectionOf(open());
    expect(error).to.be.instanceOf(ComputeApiError);
    expect(error).to.deep.include({ service: 'identity', status: 400 });
    expect((error as Error).message).to.include('[REDACTED]');
    expect(`${(error as Error).message} ${JSON.stringify(error)}`).to.not.include(SERVICE_PASSWORD);
  });

  it('an unreachable Keystone is a ComputeApiError too', async () => {
    const error = await rejectionOf(open({ authURL: 'http://127.0.0.1:9/v3' }));
    expect(error).to.be.instanceOf(ComputeApiError);
    expect(error).to.deep.include({ service: 'identity', reason: 'request-failed' });
  });
});

describe('compute-api: the Placement endpoint of the catalog', () => {
  const base = { authURL: 'http://k/v3', novaURL: 'http://n', username: 'u', password: 'p', projectName: 'p', userDomainName: 'D', projectDomainName: 'D' };
  const catalog = (endpoints: Array<{ interface: string; url: string; region_id?: string }>): CatalogEntry[] => [{ type: 'placement', endpoints }];

  it('prefers internal, falls back to public, and honours an explicit interface', () => {
    const both = catalog([{ interface: 'public', url: 'http://pub/placement' }, { interface: 'internal', url: 'http://int/placement/' }]);
    expect(placementEndpoint(both, base)).to.equal('http://int/placement');
    expect(placementEndpoint(both, { ...base, interface: 'public' })).to.equal('http://pub/placement');
    expect(placementEndpoint(catalog([{ interface: 'public', url: 'http://pub/placement' }]), base)).to.equal('http://pub/placement');
  });

  it('filters by region and refuses to guess between regions', () => {
    const two = catalog([
      { interface: 'internal', url: 'http://one/placement', region_id: 'RegionOne' },
      { interface: 'internal', url: 'http://two/placement', region_id: 'RegionTwo' },
      { interface: 'public', url: 'http://pub/placement', region_id: 'RegionOne' },
    ]);
    expect(placementEndpoint(two, { ...base, regionName: 'RegionTwo' })).to.equal('http://two/placement');
    expect(() => placementEndpoint(two, base)).to.throw(/region/);
    expect(() => placementEndpoint(catalog([]), base)).to.throw(/no endpoint/);
  });
});
