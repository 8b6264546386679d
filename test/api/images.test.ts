/**
 * Image validation through the provider, against the simulator's Glance and Nova: the image inventory
 * (src/provider/inventory/images.ts) and the flavors Nova lists (flavors.ts resolveFlavors), behind the
 * API's ImageValidator seam (src/api/images.ts).
 */
import { expect } from 'chai';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { createImage as simCreateImage } from '../../src/simulator/glance/images.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { ImageInventory } from '../../src/provider/inventory/images.js';
import { resolveFlavors, type Flavor } from '../../src/provider/inventory/flavors.js';
import { inventoryImageValidator, type RegionInventories } from '../../src/api/images.js';
import type { RegionImageInventories } from '../../src/provider/inventory/region-images.js';
import type { FlavorInventory } from '../../src/provider/inventory/flavors.js';

// The control plane's inventories fit the seam as they are (a compile-time check).
export const controlPlaneFits: [RegionImageInventories extends RegionInventories['images'] ? true : never, FlavorInventory extends RegionInventories['flavors'] ? true : never] = [true, true];
import { startApiRig, type ApiRig } from './rig.js';

const OS = { os_type: 'linux', os_distro: 'rocky', os_version: '9.4' };

describe('api: image validation through the provider (simulator)', function () {
  let sim: RunningSimulator;
  let os: OpenStackSession;
  let rig: ApiRig;
  let flavors: Flavor[];

  before(async () => {
    sim = await startSimulator({ clock: 'real' });
    os = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'), { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 10_000 });
  });
  after(async () => sim.close());
  beforeEach(async () => {
    // m1.medium (id 3) is declared aarch64 by the Region's flavor metadata
    flavors = [...resolveFlavors(await os.nova.listFlavors(), { metadata: [{ id: '3', cpu: { architecture: 'aarch64' } }], baremetalFlavorIDs: [SEED.baremetalFlavor] }).flavors];
    const images = new ImageInventory({ glance: os.glance, config: { cache: { refreshAfterMs: 60_000, staleAfterMs: 300_000 } } });
    rig = await startApiRig({ images: (source) => inventoryImageValidator({ source, inventoryFor: async () => ({ images, flavors: async () => flavors }) }) });
  });
  afterEach(async () => rig.close());

  const seed = (name: string, properties: Record<string, string>, extra: { visibility?: string; minDisk?: number; data?: boolean } = {}) =>
    simCreateImage(sim.control.sim, { name, owner: 'someone', visibility: extra.visibility ?? 'public', containerFormat: 'bare', diskFormat: 'qcow2', properties, ...(extra.minDisk !== undefined ? { minDisk: extra.minDisk } : {}), ...(extra.data === false ? {} : { data: Buffer.from(name) }) }).id;
  const post = (name: string, imageId: string, flavorId: string, extra: Record<string, unknown> = {}) =>
    rig.call('POST', '/api/v2/servers', { body: { metadata: { name }, spec: { networkId: 'net-a', flavorId, imageId, ...extra } } });
  const description = (reply: { body: unknown }) => (reply.body as { error_description: string }).error_description;

  it('a Ready image compatible with the flavor → 201', async () => {
    expect((await post('ok-1', SEED.images.ubuntu, '2')).status).to.equal(201);
  });

  it('an image that does not exist → 422; one the tenancy may not use → the same 422', async () => {
    const absent = await post('x-1', '99999999-9999-4999-8999-999999999999', '2');
    const foreign = seed('foreign', { ...OS, 'regent.dev:organization-id': 'other' }, { visibility: 'private' });
    const hidden = await post('x-2', foreign, '2');
    expect([absent.status, hidden.status]).to.deep.equal([422, 422]);
    expect(description(absent).replace(/[0-9a-f-]{36}/, 'ID')).to.equal(description(hidden).replace(/[0-9a-f-]{36}/, 'ID'));
    expect(await rig.servers()).to.have.length(0);
  });

  it('an image that is not Ready (Glance queued) → 422', async () => {
    const queued = seed('queued', OS, { data: false });
    const reply = await post('x-1', queued, '2');
    expect(reply.status).to.equal(422);
    expect(description(reply)).to.contain('not ready');
  });

  it('an architecture mismatch with the flavor → 422', async () => {
    const reply = await post('x-1', SEED.images.debian, '2');
    expect(reply.status).to.equal(422);
    expect(description(reply)).to.contain('aarch64');
  });

  it('an image needing more disk than the flavor has → 422', async () => {
    const reply = await post('x-1', SEED.images.ubuntu, '1');
    expect(reply.status).to.equal(422);
    expect(description(reply)).to.contain('GiB');
  });

  it('a baremetal image on a virtual flavor → 422; a virtualized image on the baremetal flavor → 422', async () => {
    const bm = seed('bm-only', { ...OS, architecture: 'x86_64', 'regent.dev:virtualization': 'baremetal' });
    expect((await post('x-1', bm, '2')).status).to.equal(422);
    const vm = seed('vm-only', { ...OS, architecture: 'x86_64', 'regent.dev:virtualization': 'virtualized' });
    expect((await post('x-2', vm, SEED.baremetalFlavor)).status).to.equal(422);
    expect((await post('x-3', vm, '2')).status).to.equal(201);
  });

  it('an unrecognized virtualization type fails closed → 422', async () => {
    const odd = seed('odd-virt', { ...OS, architecture: 'x86_64', 'regent.dev:virtualization': 'hyperv-gen3' });
    const reply = await post('x-1', odd, '2');
    expect(reply.status).to.equal(422);
    expect(description(reply)).to.contain('unrecognized virtualization type');
  });

  it('a missing virtualization property and a missing architecture fail open → 201 (even on the aarch64 flavor)', async () => {
    const bare = seed('no-metadata', OS);
    expect((await post('ok-1', bare, '2')).status).to.equal(201);
    expect((await post('ok-2', bare, '3')).status).to.equal(201);
    const x86 = seed('explicit-x86', { ...OS, architecture: 'x86_64' });
    expect((await post('x-3', x86, '3')).status).to.equal(422);
  });

  it('create rejects a flavor the region no longer offers → 422', async () => {
    const reply = await post('x-1', SEED.images.ubuntu, 'retired');
    expect(reply.status).to.equal(422);
    expect(description(reply)).to.contain('not offered');
  });

  it('update tolerates a retired flavor and skips the flavor-dependent checks → 200; the image checks still run', async () => {
    const created = await post('web-1', SEED.images.cirros, '2');
    const id = (created.body as { metadata: { id: string } }).metadata.id;
    flavors = flavors.filter((f) => f.id !== '2');
    const rebuild = await rig.call('PUT', `/api/v2/servers/${id}`, { body: { metadata: { name: 'web-1' }, spec: { networkId: 'net-a', flavorId: '2', imageId: SEED.images.debian } } });
    expect(rebuild.status, JSON.stringify(rebuild.body)).to.equal(200);
    const queued = seed('queued-2', OS, { data: false });
    expect((await rig.call('PUT', `/api/v2/servers/${id}`, { body: { metadata: { name: 'web-1' }, spec: { networkId: 'net-a', flavorId: '2', imageId: queued } } })).status).to.equal(422);
  });

  it('a v1 update with a different imageId is not validated (even a deleted image) → 200', async () => {
    const V1 = '/api/v1/organizations/acme/projects/web/identities/id-a/servers';
    const created = await rig.call('POST', V1, { body: { metadata: { name: 'old-1' }, spec: { networkId: 'net-a', flavorId: '2', imageId: SEED.images.cirros } } });
    expect(created.status).to.equal(201);
    const id = (created.body as { metadata: { id: string } }).metadata.id;
    const reply = await rig.call('PUT', `${V1}/${id}`, { body: { metadata: { name: 'old-1' }, spec: { networkId: 'net-a', flavorId: '2', imageId: '99999999-9999-4999-8999-999999999999' } } });
    expect(reply.status).to.equal(200);
  });
});

describe('api: regionInventoryFor picks the identity\'s Region', () => {
  it('asks both inventories for the identity\'s namespace and regionRef; no Region → undefined', async () => {
    const { regionInventoryFor } = await import('../../src/api/images.js');
    const asked: string[] = [];
    const inventoryFor = regionInventoryFor({
      images: { forRegion: async (ns, name) => (asked.push(`images ${ns}/${name}`), name === 'region-one' ? { get: async () => { throw new Error('unused'); } } : undefined) },
      flavors: { flavors: async (ns, name) => (asked.push(`flavors ${ns}/${name}`), { flavors: [] }) },
    });
    const identity = (region: string) => ({ metadata: { namespace: 'default', name: 'id-a' }, spec: { regionRef: { name: region } } }) as never;
    const found = await inventoryFor(identity('region-one'), {} as never);
    expect(await found?.flavors()).to.deep.equal([]);
    expect(await inventoryFor(identity('region-two'), {} as never)).to.equal(undefined);
    expect(asked).to.deep.equal(['images default/region-one', 'flavors default/region-one', 'images default/region-two']);
  });
});
