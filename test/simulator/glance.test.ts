import { expect } from 'chai';
import { SEED } from '../../src/simulator/index.js';
import { harness, http } from './helpers.js';
import type { Harness } from './helpers.js';

describe('simulator: Glance v2', () => {
  let hs: Harness;
  before(async () => { hs = await harness(); });
  after(async () => { await hs.sim.close(); });
  const img = (p = '') => `${hs.sim.url}/image/v2/images${p}`;

  it('serves the seeded public images with their properties flattened into the image', async () => {
    const r = await http.get(img(`/${SEED.images.cirros}`), { headers: await hs.h('demo') });
    expect(r.status).to.equal(200);
    expect(r.data).to.include({ name: 'cirros-0.6.2-x86_64-disk', status: 'active', visibility: 'public', architecture: 'x86_64', hw_vif_model: 'virtio', disk_format: 'qcow2' });
    expect(r.data.checksum).to.match(/^[0-9a-f]{32}$/);
    expect(r.data.self).to.equal(`/v2/images/${SEED.images.cirros}`);
  });

  it('filters by name, status, visibility, owner, tag and arbitrary properties', async () => {
    const h = await hs.h('demo');
    const names = async (q: string) => ((await http.get(img(`?${q}`), { headers: h })).data.images as Array<{ name: string }>).map((i) => i.name).sort();
    expect(await names('name=debian-12')).to.deep.equal(['debian-12']);
    expect(await names('architecture=aarch64')).to.deep.equal(['debian-12']);
    expect(await names('os_distro=ubuntu&status=active')).to.deep.equal(['ubuntu-22.04']);
    expect(await names('visibility=private')).to.deep.equal([]);
    expect(await names(`owner=${hs.sim.credentials.admin.projectId}`)).to.have.length(3);
    const mine = await http.post(img(), { name: 'tagged', container_format: 'bare', disk_format: 'raw', tags: ['golden'] }, { headers: h });
    expect(mine.status).to.equal(201);
    expect(await names('tag=golden')).to.deep.equal(['tagged']);
    expect((await http.get(img(`/${mine.data.id}`), { headers: await hs.h('other') })).status).to.equal(404);
  });

  it('pages with limit and marker, returning a relative next link exactly as Glance does', async () => {
    const h = await hs.h('demo');
    const first = await http.get(img('?limit=2'), { headers: h });
    expect(first.data.images).to.have.length(2);
    expect(first.data.next).to.match(/^\/v2\/images\?/);
    const next = new URLSearchParams(first.data.next.split('?')[1]);
    expect(next.get('marker')).to.equal(first.data.images[1].id);
    const second = await http.get(`${hs.sim.url}/image${first.data.next}`, { headers: h });
    const seen = [...first.data.images, ...second.data.images].map((i: { id: string }) => i.id);
    expect(new Set(seen).size).to.equal(seen.length);
    const all = (await http.get(img(), { headers: h })).data.images.length as number;
    const exact = await http.get(img(`?limit=${all}`), { headers: h });
    expect(exact.data.next, 'Glance links on from any full page').to.be.a('string');
    expect((await http.get(`${hs.sim.url}/image${exact.data.next}`, { headers: h })).data.images).to.deep.equal([]);
  });

  it('creates (queued), uploads (active), patches and deletes an image; public needs admin', async () => {
    const h = await hs.h('demo');
    expect((await http.post(img(), { name: 'pub', visibility: 'public' }, { headers: h })).status).to.equal(403);
    const c = await http.post(img(), { name: 'upload-me', container_format: 'bare', disk_format: 'raw', os_distro: 'custom' }, { headers: h });
    expect(c.data).to.include({ status: 'queued', visibility: 'shared', os_distro: 'custom', size: null });
    const put = await http.put(img(`/${c.data.id}/file`), Buffer.from('hello'), { headers: { ...h, 'Content-Type': 'application/octet-stream' } });
    expect(put.status).to.equal(204);
    const got = await http.get(img(`/${c.data.id}`), { headers: h });
    expect(got.data).to.include({ status: 'active', size: 5, checksum: '5d41402abc4b2a76b9719d911017c592' });
    const patched = await http.patch(img(`/${c.data.id}`), [{ op: 'replace', path: '/name', value: 'renamed' }, { op: 'add', path: '/hw_vif_model', value: 'e1000' }],
      { headers: { ...h, 'Content-Type': 'application/openstack-images-v2.1-json-patch' } });
    expect(patched.data).to.include({ name: 'renamed', hw_vif_model: 'e1000' });
    expect((await http.delete(img(`/${c.data.id}`), { headers: h })).status).to.equal(204);
    expect((await http.get(img(`/${c.data.id}`), { headers: h })).status).to.equal(404);
  });
});
