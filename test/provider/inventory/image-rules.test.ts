/**
 * The image inventory's pure rules (src/provider/inventory/image-properties.ts, image-signature.ts,
 * images.ts classifyImage/matchesQuery): schema validation with operator-readable reasons, translation into
 * the neutral image, the architecture precedence, and the signature of public images. Each case's title is
 * the rule it proves.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { generateKeyPairSync } from 'node:crypto';
import { IMAGE_PROPERTIES, PROP, resolveArchitecture, validateImageProperties, type GlanceImageLike } from '../../../src/provider/inventory/image-properties.js';
import { canonicalImageDocument, InvalidSigningKey, loadSigningKey, signImage, verifyImageSignature } from '../../../src/provider/inventory/image-signature.js';
import { classifyImage, ImageInventory, InvalidImageInventoryConfig, matchesQuery, type ImageEntry } from '../../../src/provider/inventory/images.js';
import { ImageCache, InvalidImageCacheOptions } from '../../../src/provider/inventory/image-cache.js';

const OS = { os_type: 'linux', os_distro: 'ubuntu', os_version: '22.04' };

const image = (properties: Record<string, unknown>, extra: Partial<GlanceImageLike> = {}): GlanceImageLike => ({
  id: '0a0a0a0a-0000-4000-a000-000000000001',
  name: 'ubuntu-22.04',
  status: 'active',
  visibility: 'public',
  owner: 'admin-project',
  minDisk: 10,
  minRam: 512,
  tags: ['lts', 'cloud'],
  properties,
  ...extra,
});

const exported = (e: ImageEntry) => {
  if (!e.exported) expect.fail(`expected the image to be exported: ${e.excluded.reasons.join('; ')}`);
  return e.image;
};
const reasons = (e: ImageEntry): readonly string[] => {
  if (e.exported) expect.fail('expected the image to be excluded');
  return e.excluded.reasons;
};

const ed25519 = () => generateKeyPairSync('ed25519', { publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
const p256 = () => generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });

describe('image inventory: the pure rules', () => {
  describe('properties are validated against the schema; an invalid image is excluded with a reason naming the property', () => {
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      ['a required OS property that is missing is named', { os_type: 'linux', os_version: '22.04' }, ['os_distro is missing (required)']],
      ['every missing required property is named, not only the first', {}, ['os_distro is missing (required)', 'os_type is missing (required)', 'os_version is missing (required)']],
      ['an architecture outside the closed set is named with the allowed values', { ...OS, architecture: 'i386' }, ['architecture is "i386", expected one of x86_64, aarch64']],
      ['a kernel outside linux/windows is refused', { ...OS, os_type: 'plan9' }, ['os_type is "plan9", expected one of linux, windows']],
      ['a distro that is not a slug is refused, with the pattern', { ...OS, os_distro: 'Ubuntu Linux' }, ['os_distro is "Ubuntu Linux", which does not match ^[a-z0-9][a-z0-9._-]{0,63}$']],
      ['GPU models without a vendor are refused', { ...OS, [PROP.gpuModels]: 'A100' }, [`${PROP.gpuVendor} is missing: ${PROP.gpuModels} requires it`]],
      ['a GPU vendor outside the set is refused', { ...OS, [PROP.gpuVendor]: 'nvidia' }, [`${PROP.gpuVendor} is "nvidia", expected one of NVIDIA, AMD, Intel`]],
      ['a project scope without its organization is refused', { ...OS, [PROP.project]: 'p1' }, [`${PROP.organization} is missing: ${PROP.project} requires it`]],
      ['an unknown virtualization is refused', { ...OS, [PROP.virtualization]: 'container' }, [`${PROP.virtualization} is "container", expected one of virtualized, baremetal, any`]],
      ['a package version that is not version text is refused, naming the package property', { ...OS, 'regent.dev:package:kubernetes': 'v1 .30' }, ['regent.dev:package:kubernetes is "v1 .30", which does not match ^[0-9A-Za-z][0-9A-Za-z._+~-]{0,63}$']],
      ['a non-string property value is refused', { ...OS, os_version: 22 }, ['os_version is number, expected a string']],
    ];
    for (const [title, properties, expected] of cases) {
      it(title, () => {
        expect(reasons(classifyImage(image(properties), {}))).to.deep.equal(expected);
      });
    }

    it('properties outside the table (hw_disk_bus, Nova snapshot keys) are ignored, not refused', () => {
      expect(validateImageProperties({ ...OS, hw_disk_bus: 'virtio', image_type: 'snapshot', instance_uuid: 'x' })).to.deep.equal([]);
    });

    it('the table lists every property the schema constrains', () => {
      expect([...IMAGE_PROPERTIES].sort()).to.include.members(['architecture', 'os_type', 'os_distro', 'os_version', PROP.gpuVendor, PROP.signature]);
    });
  });

  describe('translation into the provider-neutral image', () => {
    it('OS: kernel, family, distro, variant, version and codename come from their properties', () => {
      const i = exported(classifyImage(image({ ...OS, [PROP.family]: 'debian', [PROP.variant]: 'server', [PROP.codename]: 'jammy' }), {}));
      expect(i.os).to.deep.equal({ kernel: 'linux', family: 'debian', distro: 'ubuntu', variant: 'server', version: '22.04', codename: 'jammy' });
    });

    it('packages: one regent.dev:package:<name> property per package, name → version', () => {
      const i = exported(classifyImage(image({ ...OS, 'regent.dev:package:kubernetes': '1.30.2', 'regent.dev:package:slurm': '23.11' }), {}));
      expect(i.packages).to.deep.equal({ kubernetes: '1.30.2', slurm: '23.11' });
    });

    it('GPU: vendor, comma-separated models and driver; no GPU properties means no gpu', () => {
      const i = exported(classifyImage(image({ ...OS, [PROP.gpuVendor]: 'NVIDIA', [PROP.gpuModels]: 'A100, H100', [PROP.gpuDriver]: '535.104.05' }), {}));
      expect(i.gpu).to.deep.equal({ vendor: 'NVIDIA', models: ['A100', 'H100'], driver: '535.104.05' });
      expect(exported(classifyImage(image(OS), {})).gpu).to.equal(undefined);
    });

    it('ownership: public and community images are public; an organization property scopes the others; else the Glance owner project', () => {
      expect(exported(classifyImage(image(OS), {})).ownership).to.deep.equal({ scope: 'public' });
      expect(exported(classifyImage(image(OS, { visibility: 'community' }), {})).ownership).to.deep.equal({ scope: 'public' });
      expect(exported(classifyImage(image({ ...OS, [PROP.organization]: 'org1', [PROP.project]: 'p1' }, { visibility: 'shared' }), {})).ownership).to.deep.equal({ scope: 'organization', organizationId: 'org1', projectId: 'p1' });
      expect(exported(classifyImage(image(OS, { visibility: 'private', owner: 'proj-9' }), {})).ownership).to.deep.equal({ scope: 'project', projectId: 'proj-9' });
    });

    it('virtualization: as the property says, any when absent', () => {
      expect(exported(classifyImage(image({ ...OS, [PROP.virtualization]: 'baremetal' }), {})).virtualization).to.equal('baremetal');
      expect(exported(classifyImage(image(OS), {})).virtualization).to.equal('any');
    });

    it('tags: the Glance tags, sorted; disk and RAM minimums carried', () => {
      const i = exported(classifyImage(image(OS), {}));
      expect(i.tags).to.deep.equal(['cloud', 'lts']);
      expect([i.minDiskGiB, i.minRamMiB]).to.deep.equal([10, 512]);
    });
  });

  describe('architecture: an explicit Glance architecture wins, else the configured default, else x86_64', () => {
    const cases: Array<[string, Record<string, unknown>, 'x86_64' | 'aarch64' | undefined, string, string]> = [
      ['an explicit architecture wins over the configured default', { ...OS, architecture: 'aarch64' }, 'x86_64', 'aarch64', 'image'],
      ['without one, the configured default is used', OS, 'aarch64', 'aarch64', 'default'],
      ['without either, the legacy x86_64 fallback', OS, undefined, 'x86_64', 'legacy'],
    ];
    for (const [title, properties, defaultArchitecture, architecture, source] of cases) {
      it(title, () => {
        const i = exported(classifyImage(image(properties), defaultArchitecture !== undefined ? { defaultArchitecture } : {}));
        expect([i.architecture, i.architectureSource]).to.deep.equal([architecture, source]);
      });
    }

    it('property: whatever the default, a valid explicit architecture is the answer', () => {
      fc.assert(
        fc.property(fc.constantFrom('x86_64', 'aarch64'), fc.option(fc.constantFrom('x86_64' as const, 'aarch64' as const), { nil: undefined }), (explicit, def) => {
          expect(resolveArchitecture(explicit, def).architecture).to.equal(explicit);
        }),
      );
    });

    it('an unsupported configured default is refused when the inventory is built', () => {
      expect(() => new ImageInventory({ glance: {} as never, config: { defaultArchitecture: 'sparc' as never } })).to.throw(InvalidImageInventoryConfig, /sparc/);
    });
  });

  describe('signature of public images against the configured key', () => {
    const keys = ed25519();
    const key = loadSigningKey(keys.publicKey);
    const signed = (properties: Record<string, unknown>, privateKey = keys.privateKey, extra: Partial<GlanceImageLike> = {}) => {
      const unsigned = image(properties, extra);
      return image({ ...properties, [PROP.signature]: signImage(unsigned, privateKey) }, extra);
    };

    it('a public image signed by the key (Ed25519) is exported and marked signed', () => {
      expect(exported(classifyImage(signed(OS), { signingKey: key })).signed).to.equal(true);
    });

    it('an ECDSA P-256 key works the same way', () => {
      const ec = p256();
      expect(exported(classifyImage(signed(OS, ec.privateKey), { signingKey: loadSigningKey(ec.publicKey) })).signed).to.equal(true);
    });

    it('a public image without a signature is excluded, saying it is missing', () => {
      expect(reasons(classifyImage(image(OS), { signingKey: key }))).to.deep.equal([`${PROP.signature} is missing: a public image must be signed by the Region's signing key`]);
    });

    it('a public image signed by another key is excluded', () => {
      expect(reasons(classifyImage(signed(OS, ed25519().privateKey), { signingKey: key }))[0]).to.match(/does not verify against the Region's signing key/);
    });

    it('a signed property changed after signing excludes the image', () => {
      const i = signed({ ...OS, 'regent.dev:package:cuda': '12.4' });
      const tampered = { ...i, properties: { ...i.properties, 'regent.dev:package:cuda': '12.5' } };
      expect(verifyImageSignature(i, key).ok).to.equal(true);
      expect(reasons(classifyImage(tampered, { signingKey: key }))[0]).to.match(/does not verify/);
    });

    it('a changed tag or name excludes the image (they are signed too)', () => {
      const i = signed(OS);
      expect(verifyImageSignature({ ...i, tags: [...i.tags, 'gpu'] }, key).ok).to.equal(false);
      expect(verifyImageSignature({ ...i, name: 'other' }, key).ok).to.equal(false);
    });

    it('a property outside the table may change without breaking the signature', () => {
      const i = signed(OS);
      expect(verifyImageSignature({ ...i, properties: { ...i.properties, hw_disk_bus: 'scsi' } }, key).ok).to.equal(true);
    });

    it('a non-public image is not checked (its owners scope it); without a key nothing is checked', () => {
      expect(exported(classifyImage(image(OS, { visibility: 'private' }), { signingKey: key })).signed).to.equal(false);
      expect(exported(classifyImage(image(OS), {})).signed).to.equal(false);
    });

    it('garbage in the signature property excludes the image rather than throwing', () => {
      expect(reasons(classifyImage(image({ ...OS, [PROP.signature]: 'AAAA' }), { signingKey: key }))[0]).to.match(/does not verify/);
    });

    it('a key that is not a PEM public key is refused when the inventory is built', () => {
      expect(() => loadSigningKey('not a key')).to.throw(InvalidSigningKey);
      expect(() => new ImageInventory({ glance: {} as never, config: { signingKeyPem: 'not a key' } })).to.throw(InvalidSigningKey);
    });

    it('the canonical document is independent of property order', () => {
      const a = canonicalImageDocument(image({ os_type: 'linux', os_distro: 'x', os_version: '1' }));
      const b = canonicalImageDocument(image({ os_version: '1', os_distro: 'x', os_type: 'linux' }));
      expect(a.equals(b)).to.equal(true);
    });

    it('property: a signature verifies for any table values, and fails once any signed property changes', () => {
      const value = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,10}$/);
      fc.assert(
        fc.property(fc.dictionary(fc.constantFrom(PROP.distro, PROP.version, PROP.variant, PROP.codename, 'regent.dev:package:a', 'regent.dev:package:b'), value), value, (props, changed) => {
          const i = signed({ ...OS, ...props });
          expect(verifyImageSignature(i, key).ok).to.equal(true);
          const k = Object.keys(props)[0];
          if (k !== undefined && props[k] !== changed) {
            expect(verifyImageSignature({ ...i, properties: { ...i.properties, [k]: changed } }, key).ok).to.equal(false);
          }
        }),
        { numRuns: 50 },
      );
    });
  });

  describe('image queries', () => {
    const base = exported(classifyImage(image(OS), {}));
    it('an image marked any matches both virtualized and baremetal queries; a baremetal one only baremetal', () => {
      const bm = exported(classifyImage(image({ ...OS, [PROP.virtualization]: 'baremetal' }), {}));
      expect([matchesQuery(base, { virtualization: 'virtualized' }), matchesQuery(base, { virtualization: 'baremetal' })]).to.deep.equal([true, true]);
      expect([matchesQuery(bm, { virtualization: 'virtualized' }), matchesQuery(bm, { virtualization: 'baremetal' })]).to.deep.equal([false, true]);
    });

    it('usableBy: public images for everyone, organization-scoped ones only for that organization (and project)', () => {
      const org = exported(classifyImage(image({ ...OS, [PROP.organization]: 'o1', [PROP.project]: 'p1' }, { visibility: 'shared' }), {}));
      expect(matchesQuery(base, { usableBy: { organizationId: 'o2' } })).to.equal(true);
      expect(matchesQuery(org, { usableBy: { organizationId: 'o1', projectId: 'p1' } })).to.equal(true);
      expect(matchesQuery(org, { usableBy: { organizationId: 'o1', projectId: 'p2' } })).to.equal(false);
      expect(matchesQuery(org, { usableBy: { organizationId: 'o2', projectId: 'p1' } })).to.equal(false);
    });

    it('only active images by default; tags must all be present', () => {
      const queued = exported(classifyImage(image(OS, { status: 'queued' }), {}));
      expect([matchesQuery(queued, {}), matchesQuery(queued, { activeOnly: false })]).to.deep.equal([false, true]);
      expect([matchesQuery(base, { tags: ['lts'] }), matchesQuery(base, { tags: ['lts', 'gpu'] })]).to.deep.equal([true, false]);
    });
  });

  describe('cache options', () => {
    it('refresh-ahead must start before the staleness bound', () => {
      const opts = { load: async () => [], fetchOne: async () => ({ id: 'x' }) };
      expect(() => new ImageCache({ ...opts, refreshAfterMs: 5_000, staleAfterMs: 5_000 })).to.throw(InvalidImageCacheOptions);
      expect(() => new ImageCache({ ...opts, refreshAfterMs: 0, staleAfterMs: 5_000 })).to.throw(InvalidImageCacheOptions);
    });
  });
});
