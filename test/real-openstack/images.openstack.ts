/**
 * The image inventory (src/provider/inventory/images.ts) against the sandbox's real Glance: discovery and
 * translation of what the cloud holds, images created and deleted through the cache, an invalid image
 * excluded with its reason, and (with the admin cloud) a signed public image verified over the canonical
 * document while an unsigned public one is excluded.
 */
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { NotFound } from '../../src/openstack/errors.js';
import { ImageInventory } from '../../src/provider/inventory/images.js';
import { glanceImageOf } from '../../src/provider/inventory/images.js';
import { PROP } from '../../src/provider/inventory/image-properties.js';
import { signImage } from '../../src/provider/inventory/image-signature.js';
import { realRun, type RealRun } from './support/run.js';

const OS = { os_type: 'linux', os_distro: 'ubuntu', os_version: '24.04', [PROP.codename]: 'noble', [PROP.family]: 'debian' };

describe('image inventory against real Glance', function () {
  let run: RealRun;

  before(async () => {
    run = await realRun();
  });

  it('discovers every image Glance lists: each one exported (translated) or excluded with reasons', async () => {
    const fx = await run.fixtures(); // the run's two images, so the cloud is never empty
    const inventory = new ImageInventory({ glance: run.tenant.glance, config: { defaultArchitecture: 'x86_64' } });
    const { images, excluded } = await inventory.query({ activeOnly: false });
    const listed = await run.tenant.glance.listImages({}, { pageSize: 1000 });
    expect(listed.map((i) => i.id)).to.include.members([fx.imageA]);
    expect(images.length + excluded.length).to.equal(listed.length);
    for (const e of excluded) expect(e.reasons, `image ${e.id}`).to.have.length.greaterThan(0);
    for (const i of images) {
      expect(['x86_64', 'aarch64']).to.include(i.architecture);
      expect(i.os.distro).to.be.a('string').and.not.equal('');
    }
    run.logger.info('image inventory discovery', { exported: images.length, excluded: excluded.map((e) => ({ name: e.name, reasons: e.reasons })) });
  });

  it('create → upload → the cache holds it, translated; an invalid one is excluded; delete removes it (then absent is success)', async () => {
    const glance = run.tenant.glance;
    const inventory = new ImageInventory({ glance, config: { defaultArchitecture: 'aarch64' } });
    await inventory.query();
    const good = await inventory.create({ name: run.name('inv-good'), diskFormat: 'raw', containerFormat: 'bare', tags: ['regent-suite'], properties: { ...OS, 'regent.dev:package:cuda': '12.4' } });
    run.cleanup.add(`image ${good.id}`, () => glance.deleteImage(good.id).catch((e: unknown) => { if (!(e instanceof NotFound)) throw e; }));
    const bad = await inventory.create({ name: run.name('inv-bad'), diskFormat: 'raw', containerFormat: 'bare', properties: { os_type: 'linux', architecture: 'i386' } });
    run.cleanup.add(`image ${bad.id}`, () => glance.deleteImage(bad.id).catch((e: unknown) => { if (!(e instanceof NotFound)) throw e; }));
    if (!good.exported) expect.fail(good.excluded.reasons.join('; '));
    expect(good.image).to.deep.include({ architecture: 'aarch64', architectureSource: 'default', packages: { cuda: '12.4' }, tags: ['regent-suite'], virtualization: 'any' });
    expect(good.image.os).to.deep.equal({ kernel: 'linux', family: 'debian', distro: 'ubuntu', version: '24.04', codename: 'noble' });
    // Real Glance gives a new image visibility shared: scoped to its owner project
    expect(good.image.ownership.scope).to.equal('project');
    if (bad.exported) expect.fail('the invalid image was exported');
    expect(bad.excluded.reasons).to.include.members(['architecture is "i386", expected one of x86_64, aarch64', 'os_distro is missing (required)', 'os_version is missing (required)']);

    await glance.uploadImageData(good.id, Buffer.from('regent inventory image'));
    await inventory.refresh();
    expect((await inventory.query({ tags: ['regent-suite'] })).images.map((i) => i.id)).to.include(good.id);

    await inventory.delete(good.id);
    expect((await inventory.query({ activeOnly: false })).images.map((i) => i.id)).not.to.include(good.id);
    expect(await glance.getImage(good.id).then(() => 'present', (e: unknown) => e)).to.be.instanceOf(NotFound);
    await inventory.delete(good.id);
  });

  it('with a signing key, a signed public image is exported and an unsigned public one excluded (admin)', async function () {
    const admin = run.admin;
    if (!admin) return this.skip();
    const keys = generateKeyPairSync('ed25519', { publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    const signedName = run.name('inv-signed');
    const created = await admin.glance.createImage({ name: signedName, diskFormat: 'raw', containerFormat: 'bare', visibility: 'public', properties: OS });
    run.cleanup.add(`image ${created.id}`, () => admin.glance.deleteImage(created.id));
    const unsigned = await admin.glance.createImage({ name: run.name('inv-unsigned'), diskFormat: 'raw', containerFormat: 'bare', visibility: 'public', properties: OS });
    run.cleanup.add(`image ${unsigned.id}`, () => admin.glance.deleteImage(unsigned.id));
    const signature = signImage(glanceImageOf(created), keys.privateKey);
    await admin.glance.setImageProperties(created.id, { [PROP.signature]: signature });

    const inventory = new ImageInventory({ glance: admin.glance, config: { signingKeyPem: keys.publicKey } });
    const signed = await inventory.get(created.id);
    expect(signed.signed).to.equal(true);
    const { excluded } = await inventory.query({ activeOnly: false });
    expect(excluded.find((e) => e.id === unsigned.id)?.reasons).to.deep.equal([`${PROP.signature} is missing: a public image must be signed by the Region's signing key`]);
  });
});
