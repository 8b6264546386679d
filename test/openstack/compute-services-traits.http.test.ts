import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { Conflict, NotFound, UnreadableResponse } from '../../src/openstack/errors.js';
import type { HttpSession } from '../../src/openstack/http.js';
import { computeHeaders } from '../../src/openstack/microversions.js';
import { listHypervisors } from '../../src/openstack/nova/hypervisors.js';
import { deleteComputeService, listComputeServiceEntries, listComputeServices, updateComputeService } from '../../src/openstack/nova/services.js';
import { createTrait, deleteTrait, traitExists } from '../../src/openstack/placement.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { connectAs, rejectionOf, simApi, start } from './support/sim.js';

describe('os-services updates, hypervisor services and Placement traits over HTTP (simulator)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let admin: OpenStackSession;
  let nova269: HttpSession;

  before(async () => {
    sim = await start();
    admin = await connectAs(sim, 'admin');
    nova269 = admin.http('compute').withHeaders(computeHeaders('2.69'));
  });
  after(async () => {
    await sim.close();
  });

  it('a host registered through /_sim/compute-hosts is a service with a hypervisor whose service.host is the host', async () => {
    const answer = await simApi(sim, 'POST', '/compute-hosts', { host: 'cmp-1', zone: 'az-1' }) as { computeHost: { serviceId: string; mapped: boolean; cellDown: boolean } };
    expect(answer.computeHost).to.deep.include({ mapped: true, cellDown: false });
    const services = await listComputeServices(nova269, { binary: 'nova-compute', host: 'cmp-1' });
    expect(services.map((s) => [s.id, s.zone, s.status, s.state])).to.deep.equal([[answer.computeHost.serviceId, 'az-1', 'enabled', 'up']]);
    const hypervisors = await listHypervisors(admin.http('compute').withHeaders(computeHeaders('2.88')));
    expect(hypervisors.find((h) => h.hypervisor_hostname === 'cmp-1')?.service).to.deep.equal({ host: 'cmp-1', id: answer.computeHost.serviceId, disabled_reason: null });
    expect(String(await rejectionOf(simApi(sim, 'POST', '/compute-hosts', { host: 'cmp-1', mapped: 'no' })))).to.match(/: 400 .*mapped must be a boolean/);
  });

  it('an unmapped host is out of os-hypervisors until mapped', async () => {
    await simApi(sim, 'POST', '/compute-hosts', { host: 'cmp-2', mapped: false });
    const http = admin.http('compute').withHeaders(computeHeaders('2.88'));
    expect((await listHypervisors(http)).map((h) => h.service?.host)).to.not.include('cmp-2');
    await simApi(sim, 'POST', '/compute-hosts', { host: 'cmp-2', mapped: true });
    expect((await listHypervisors(http)).map((h) => h.service?.host)).to.include('cmp-2');
  });

  it('listComputeServiceEntries reads a down cell\'s row as cell-down, where listComputeServices refuses it', async () => {
    sim.control.computeHost({ host: 'cmp-3', cellDown: true });
    try {
      const entries = await listComputeServiceEntries(nova269, { binary: 'nova-compute' });
      expect(entries.filter((e) => e.kind === 'cell-down')).to.deep.equal([{ kind: 'cell-down', service: { binary: 'nova-compute', host: 'cmp-3', status: 'UNKNOWN' } }]);
      expect(entries.filter((e) => e.kind === 'service').map((e) => e.service.host)).to.include('sandbox');
      expect(await rejectionOf(listComputeServices(nova269, { binary: 'nova-compute' }))).to.be.instanceOf(UnreadableResponse);
      // Below 2.69 Nova leaves the service out; so do its compute nodes in os-hypervisors.
      const older = await listComputeServiceEntries(admin.http('compute').withHeaders(computeHeaders('2.68')), { binary: 'nova-compute' });
      expect(older.map((e) => e.service.host)).to.not.include('cmp-3');
      expect((await listHypervisors(admin.http('compute').withHeaders(computeHeaders('2.88')))).map((h) => h.service?.host)).to.not.include('cmp-3');
    } finally {
      sim.control.computeHost({ host: 'cmp-3', cellDown: false });
    }
  });

  it('updateComputeService disables with a reason and re-enables; deleteComputeService removes it (then 404)', async () => {
    const { serviceId } = sim.control.computeHost({ host: 'cmp-4' });
    const disabled = await updateComputeService(nova269, serviceId, { status: 'disabled', disabledReason: 'maintenance' });
    expect(disabled).to.deep.include({ id: serviceId, status: 'disabled', disabled_reason: 'maintenance' });
    expect(sim.calls({ method: 'PUT', pathIncludes: `/os-services/${serviceId}` }).at(-1)?.body).to.deep.equal({ status: 'disabled', disabled_reason: 'maintenance' });
    const enabled = await updateComputeService(nova269, serviceId, { status: 'enabled' });
    expect(enabled).to.deep.include({ status: 'enabled', disabled_reason: null });
    await deleteComputeService(nova269, serviceId);
    expect((await listComputeServices(nova269, { host: 'cmp-4' })).length).to.equal(0);
    expect(await rejectionOf(deleteComputeService(nova269, serviceId))).to.be.instanceOf(NotFound);
  });

  it('deleting a nova-compute service takes its host out of every aggregate and its compute node with its resource provider; a host with servers is refused (409)', async () => {
    const answer = await simApi(sim, 'POST', '/compute-hosts', { host: 'cmp-del', zone: 'az-9' }) as { computeHost: { serviceId: string } };
    const aggregate = [...sim.control.sim.nova.aggregates.values()][0] ?? null;
    const created = (await admin.http('compute').post('/os-aggregates', { aggregate: { name: 'agg-del', availability_zone: 'az-9' } })).data as { aggregate: { id: number } };
    await admin.http('compute').post(`/os-aggregates/${created.aggregate.id}/action`, { add_host: { host: 'cmp-del' } });
    sim.control.sim.placement.rps.set('rp-cmp-del', { uuid: 'rp-cmp-del', name: 'cmp-del', generation: 0, parentUuid: null, rootUuid: 'rp-cmp-del', inventories: new Map(), traits: new Set(), aggregates: [] });
    // a server on the host: the delete is refused
    const server = { ...[...sim.control.sim.nova.servers.values()][0], id: 'srv-on-cmp-del', host: 'cmp-del' } as never;
    sim.control.sim.nova.servers.set('srv-on-cmp-del', server);
    expect(await rejectionOf(deleteComputeService(nova269, answer.computeHost.serviceId))).to.be.instanceOf(Conflict);
    sim.control.sim.nova.servers.delete('srv-on-cmp-del');
    await deleteComputeService(nova269, answer.computeHost.serviceId);
    expect(sim.control.sim.nova.aggregates.get(created.aggregate.id)?.hosts).to.deep.equal([]);
    expect([...sim.control.sim.nova.hypervisors.values()].map((h) => h.host)).to.not.include('cmp-del');
    expect(sim.control.sim.placement.rps.has('rp-cmp-del')).to.equal(false);
    expect(aggregate === null || sim.control.sim.nova.aggregates.has(aggregate.id)).to.equal(true);
  });

  it('traitExists / createTrait / deleteTrait at placement 1.6', async () => {
    const http = admin.http('placement');
    expect(await traitExists(http, 'CUSTOM_LAYER_T')).to.equal(false);
    expect(await createTrait(http, 'CUSTOM_LAYER_T')).to.equal('created');
    expect(await createTrait(http, 'CUSTOM_LAYER_T')).to.equal('existed');
    expect(await traitExists(http, 'CUSTOM_LAYER_T')).to.equal(true);
    await deleteTrait(http, 'CUSTOM_LAYER_T');
    expect(await rejectionOf(deleteTrait(http, 'CUSTOM_LAYER_T'))).to.be.instanceOf(NotFound);
    expect(await rejectionOf(deleteTrait(http, 'CUSTOM_RAID1'))).to.be.instanceOf(Conflict);
    const versions = sim.calls({ pathIncludes: '/traits/CUSTOM_LAYER_T' }).map((c) => c.versions?.['OpenStack-API-Version']);
    expect(versions.length).to.equal(6);
    expect(versions.every((v) => v === 'placement 1.6')).to.equal(true);
  });
});
