import { expect } from 'chai';
import { bootServer, harness, http } from './helpers.js';
import type { Harness } from './helpers.js';

/**
 * The in-guest view (src/simulator/nova/metadata-service.ts): what a guest reads from the metadata service,
 * `openstack/latest/meta_data.json`, as nova-api-metadata answers it behind Neutron's metadata proxy (the
 * instance named by X-Instance-ID and X-Tenant-ID). `meta` is the server's metadata — the in-guest linkage
 * surface of openstack-provider.md — so it must be exactly what GET /servers/{id}/metadata answers, also
 * after the metadata changes.
 */
describe('simulator: the metadata service (in-guest view, meta_data.json)', () => {
  let hs: Harness;
  beforeEach(async () => { hs = await harness(); });
  afterEach(async () => { await hs.sim.close(); });

  const metaData = (id: string, tenant: string | undefined, version = 'latest') =>
    http.get(`${hs.sim.url}/metadata/openstack/${version}/meta_data.json`, { headers: { 'X-Instance-ID': id, ...(tenant ? { 'X-Tenant-ID': tenant } : {}) } });

  it("meta is the server's metadata as GET /servers/{id}/metadata answers it, before and after a change; uuid, name, hostname and project are the instance's", async () => {
    const id = await bootServer(hs, 'demo', 'Guest_1', { metadata: { 'regent.dev:uid': 'u-1', 'regent.dev:organization-id': 'acme' } });
    hs.advance(300);
    const headers = await hs.h('demo');
    const project = hs.sim.credentials.demo.projectId;
    const api = await http.get(`${hs.nova}/servers/${id}/metadata`, { headers });
    const guest = await metaData(id, project);
    expect(guest.status).to.equal(200);
    expect(guest.data.meta).to.deep.equal(api.data.metadata);
    expect(guest.data).to.include({ uuid: id, name: 'Guest_1', hostname: 'guest-1.novalocal', project_id: project, launch_index: 0, availability_zone: 'nova' });
    expect(Buffer.from(guest.data.random_seed, 'base64')).to.have.length(512);

    await http.post(`${hs.nova}/servers/${id}/metadata`, { metadata: { role: 'web' } }, { headers });
    expect((await metaData(id, project)).data.meta).to.deep.equal({ 'regent.dev:uid': 'u-1', 'regent.dev:organization-id': 'acme', role: 'web' });
    // every listed version answers; the listing names them, latest last
    const versions = await http.get(`${hs.sim.url}/metadata/openstack`);
    expect(String(versions.data).split('\n').at(-1)).to.equal('latest');
    const rocky = (await metaData(id, project, '2018-08-27')).data;
    expect(rocky.meta).to.include({ role: 'web' });
    expect(rocky).to.not.have.property('dedicated_cpus'); // Victoria's
    expect((await metaData(id, project, '2012-08-10')).data).to.not.have.property('project_id'); // Liberty's
    expect((await metaData(id, project, '1999-01-01')).status).to.equal(404);
  });

  it('a server without metadata has no meta (Nova adds it only when there is some)', async () => {
    const id = await bootServer(hs, 'demo', 'bare');
    const guest = await metaData(id, hs.sim.credentials.demo.projectId);
    expect(guest.status).to.equal(200);
    expect(guest.data).to.not.have.property('meta');
  });

  it("a keypair server's public key is in public_keys and keys", async () => {
    const headers = await hs.h('demo');
    const key = await http.post(`${hs.nova}/os-keypairs`, { keypair: { name: 'k1' } }, { headers });
    expect(key.status).to.equal(200);
    const id = await bootServer(hs, 'demo', 'keyed', { key_name: 'k1' });
    const guest = await metaData(id, hs.sim.credentials.demo.projectId);
    expect(guest.data.public_keys).to.deep.equal({ k1: key.data.keypair.public_key });
    expect(guest.data.keys).to.deep.equal([{ name: 'k1', type: 'ssh', data: key.data.keypair.public_key }]);
  });

  it("answers as nova-api-metadata does when the proxy's headers are missing or name another tenant's instance; needs no token", async () => {
    const id = await bootServer(hs, 'demo', 'guest-2');
    const noInstance = await http.get(`${hs.sim.url}/metadata/openstack/latest/meta_data.json`);
    expect(noInstance.status).to.equal(400);
    expect(noInstance.data).to.equal('X-Instance-ID header is missing from request.');
    const noTenant = await metaData(id, undefined);
    expect(noTenant.status).to.equal(400);
    expect(noTenant.data).to.equal('X-Tenant-ID header is missing from request.');
    expect((await metaData(id, hs.sim.credentials.other.projectId)).status).to.equal(404);
    expect((await metaData('00000000-0000-4000-8000-000000000000', hs.sim.credentials.demo.projectId)).status).to.equal(404);
  });
});
