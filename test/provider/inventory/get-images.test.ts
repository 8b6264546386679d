/**
 * `regent get images` (src/cli/commands/get-images.ts) against the simulator: the translated table and the
 * JSON document, excluded images as warnings with their reasons, and the command's action reading a Region
 * (with its defaultArchitecture) from an embedded resource source.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../../src/simulator/index.js';
import { createImage as simCreateImage } from '../../../src/simulator/glance/images.js';
import { connect, type OpenStackSession } from '../../../src/openstack/session.js';
import { cloudFromYaml } from '../../../src/openstack/keystone/clouds-config.js';
import { openEmbeddedSource } from '../../../src/kube/embedded/store.js';
import { applyManifests } from '../../../src/kube/cli/manifests.js';
import { exclusionWarnings, formatImages, getImages, getImagesCommand, isImageKind } from '../../../src/cli/commands/get-images.js';

describe('regent get images', function () {
  let sim: RunningSimulator;
  let os: OpenStackSession;
  const region = { namespace: 'default', name: 'region-one' };

  before(async () => {
    sim = await startSimulator({ clock: 'manual' });
    os = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'), { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    simCreateImage(sim.control.sim, {
      id: '0a0a0a0a-0000-4000-a000-0000000000aa',
      name: 'gpu-noble',
      owner: 'p',
      visibility: 'private',
      containerFormat: 'bare',
      diskFormat: 'qcow2',
      tags: ['gpu'],
      properties: { os_type: 'linux', os_distro: 'ubuntu', os_version: '24.04', 'regent.dev:os:codename': 'noble', 'regent.dev:gpu:vendor': 'NVIDIA', 'regent.dev:gpu:models': 'H100', 'regent.dev:organization-id': 'org1', 'regent.dev:package:cuda': '12.4' },
      data: Buffer.from('x'),
    });
    simCreateImage(sim.control.sim, { id: '0a0a0a0a-0000-4000-a000-0000000000bb', name: 'no-os', owner: 'p', visibility: 'public', containerFormat: 'bare', diskFormat: 'qcow2', properties: {}, data: Buffer.from('y') });
  });
  after(async () => sim.close());

  it('the kind is accepted as image, images or img', () => {
    expect(['image', 'Images', 'img', 'flavors'].map(isImageKind)).to.deep.equal([true, true, true, false]);
  });

  it('the table shows the translated view; excluded images become warnings naming what is wrong', async () => {
    const listing = await getImages([{ region, session: os, config: {} }]);
    const table = await formatImages(listing, 'table');
    const lines = table.split('\n');
    expect(lines[0]).to.match(/^REGION\s+ID\s+NAME\s+STATUS\s+ARCH\s+OS\s+KERNEL\s+VIRT\s+GPU\s+OWNER\s+PACKAGES\s+TAGS\s+SIGNED$/);
    const gpu = lines.find((l) => l.includes('gpu-noble')) ?? '';
    expect(gpu).to.match(/x86_64\s+ubuntu 24\.04 \(noble\)\s+linux\s+any\s+NVIDIA H100\s+org:org1\s+cuda=12\.4\s+gpu\s+false$/);
    expect(lines.find((l) => l.includes('debian-12'))).to.match(/aarch64\s+debian 12/);
    expect(table).not.to.include('no-os');
    expect(exclusionWarnings(listing)).to.deep.equal([
      'Region default/region-one: image 0a0a0a0a-0000-4000-a000-0000000000bb (no-os) is not exported: os_distro is missing (required); os_type is missing (required); os_version is missing (required)',
    ]);
  });

  it('-o json is the neutral images and the exclusions', async () => {
    const doc = JSON.parse(await formatImages(await getImages([{ region, session: os, config: { defaultArchitecture: 'aarch64' } }], { name: 'gpu-noble' }), 'json'));
    expect(doc.items).to.have.length(1);
    expect(doc.items[0]).to.deep.include({ name: 'gpu-noble', architecture: 'aarch64', architectureSource: 'default', ownership: { scope: 'organization', organizationId: 'org1' }, region });
    expect(doc.excluded).to.deep.equal([]);
  });

  it('a Region whose Glance fails names the Region in the error', async () => {
    sim.control.addFault({ method: 'GET', path: '/v2/images\\?', status: 500, count: 1 });
    const error = await getImages([{ region, session: os, config: {} }]).then(() => undefined, (e: unknown) => e as Error);
    expect(error?.message).to.match(/^Region default\/region-one: image: server error \(HTTP 500\)/);
  });

  it('the command reads each Region, connects with its Secret, and applies its defaultArchitecture', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-get-images-'));
    try {
      const path = join(dir, 'resources.db');
      const source = openEmbeddedSource({ path });
      await source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-admin' });
      await applyManifests(
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
    defaultArchitecture: aarch64
`,
      );
      await source.close();
      const out: string[] = [];
      const err: string[] = [];
      await getImagesCommand(undefined, { output: 'json', region: 'region-one', resources: `embedded:${path}` }, { out: (s) => out.push(s), err: (s) => err.push(s) });
      const doc = JSON.parse(out.join('\n'));
      expect(doc.items.map((i: { id: string }) => i.id)).to.include(SEED.images.ubuntu);
      expect(doc.items.find((i: { name: string }) => i.name === 'gpu-noble').architecture).to.equal('aarch64');
      expect(err).to.have.length(1);
      expect(err[0]).to.match(/^Warning: Region default\/region-one: image .* \(no-os\) is not exported/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
