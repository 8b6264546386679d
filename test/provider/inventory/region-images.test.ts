/**
 * RegionImageInventories (src/provider/inventory/region-images.ts): one warm image cache per Region
 * connection, kept across calls and rebuilt only when the Region's generation or its credentials Secret
 * changes — Glance list calls counted in the simulator's call log.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../../src/simulator/index.js';
import { createImage as simCreateImage } from '../../../src/simulator/glance/images.js';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../../src/kube/embedded/store.js';
import { applyManifests } from '../../../src/kube/cli/manifests.js';
import { RegionConnections } from '../../../src/provider/regions/connections.js';
import { connect } from '../../../src/openstack/session.js';
import { RegionImageInventories, regionImageConfig } from '../../../src/provider/inventory/region-images.js';
import { ImagesUnavailable } from '../../../src/provider/inventory/images.js';
import type { Region } from '../../../src/resources/region.js';

const regionWith = (openstack: Record<string, unknown>): Region => ({ spec: { openstack } }) as unknown as Region;

describe('regionImageConfig: the Region fields → ImageInventoryConfig', () => {
  const cases: Array<[string, Record<string, unknown>, unknown]> = [
    ['nothing configured: defaults everywhere', {}, {}],
    ['defaultArchitecture is carried', { defaultArchitecture: 'aarch64' }, { defaultArchitecture: 'aarch64' }],
    ['images.signingKey is the PEM the signatures are checked against', { images: { signingKey: 'PEM' } }, { signingKeyPem: 'PEM' }],
    ['images.cache.enabled false disables the cache (and the image operations)', { images: { cache: { enabled: false, refreshAfterSeconds: 5 } } }, { cache: false }],
    ['both bounds in seconds become ms', { images: { cache: { refreshAfterSeconds: 30, staleAfterSeconds: 120 } } }, { cache: { refreshAfterMs: 30_000, staleAfterMs: 120_000 } }],
    ['only refreshAfter, beyond the default bound: the bound moves to twice it', { images: { cache: { refreshAfterSeconds: 600 } } }, { cache: { refreshAfterMs: 600_000, staleAfterMs: 1_200_000 } }],
    ['only staleAfter, below the default refresh: refresh-ahead at half of it', { images: { cache: { staleAfterSeconds: 20 } } }, { cache: { refreshAfterMs: 10_000, staleAfterMs: 20_000 } }],
  ];
  for (const [title, openstack, expected] of cases) {
    it(title, () => {
      expect(regionImageConfig(regionWith(openstack))).to.deep.equal(expected);
    });
  }
});

describe('image inventories per Region connection', function () {
  let sim: RunningSimulator;
  let dir: string;
  let source: EmbeddedResourceSource;
  let inventories: RegionImageInventories;

  const listCalls = () => sim.calls({ method: 'GET', pathIncludes: '/v2/images' }).filter((c) => /\/v2\/images$/.test(c.path)).length;
  const putSecret = (extra: Record<string, string> = {}) => source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-admin', ...extra });
  const applyRegion = (arch: string, images = '') =>
    applyManifests(
      source,
      `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec:
  provider: openstack
  openstack:
    endpoint: ${sim.url}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: region-one-credentials }
    defaultArchitecture: ${arch}
${images}`,
    );

  before(async () => {
    sim = await startSimulator({ clock: 'manual' });
    dir = mkdtempSync(join(tmpdir(), 'regent-region-images-'));
    source = openEmbeddedSource({ path: join(dir, 'resources.db') });
    inventories = new RegionImageInventories({ connections: new RegionConnections({ source, connect: (cloud) => connect(cloud, { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } }) }), now: () => sim.clock.now() });
    await putSecret();
    await applyRegion('x86_64');
  });
  after(async () => {
    inventories.close();
    await source.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the same Region connection keeps one inventory: repeated queries list Glance once', async () => {
    const a = await inventories.forRegion('default', 'region-one');
    await a?.query();
    const b = await inventories.forRegion('default', 'region-one');
    await b?.query();
    expect(b).to.equal(a);
    expect(listCalls()).to.equal(1);
  });

  it('a new Region generation builds a new inventory with the new configuration', async () => {
    const noArch = simCreateImage(sim.control.sim, { name: 'no-arch', owner: 'p', visibility: 'public', containerFormat: 'bare', diskFormat: 'qcow2', properties: { os_type: 'linux', os_distro: 'alpine', os_version: '3.20' }, data: Buffer.from('z') }).id;
    const before = await inventories.forRegion('default', 'region-one');
    expect((await before?.get(noArch))?.architecture).to.equal('x86_64');
    await applyRegion('aarch64');
    const after = await inventories.forRegion('default', 'region-one');
    expect(after).to.not.equal(before);
    expect((await after?.get(noArch))?.architecture).to.equal('aarch64');
  });

  it('a changed credentials Secret builds a new inventory (cold: it lists again)', async () => {
    const before = await inventories.forRegion('default', 'region-one');
    await before?.query();
    const lists = listCalls();
    await putSecret({ rotated: '1' });
    const after = await inventories.forRegion('default', 'region-one');
    expect(after).to.not.equal(before);
    await after?.query();
    expect(listCalls()).to.equal(lists + 1);
  });

  it('a Region with images.cache.enabled false gets an inventory whose operations say they are unavailable', async () => {
    await applyRegion('x86_64', '    images: { cache: { enabled: false } }\n');
    const inventory = await inventories.forRegion('default', 'region-one');
    const error = await inventory?.query().then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(ImagesUnavailable);
    await applyRegion('x86_64');
  });

  it('a Region that does not exist has no inventory', async () => {
    expect(await inventories.forRegion('default', 'nowhere')).to.equal(undefined);
  });
});
