/**
 * VolumeClass inventory (src/provider/inventory/volume-classes.ts; openstack-provider.md, "VolumeClass
 * configuration follows the same inventory pattern"). The pure rules as a table, each case titled with
 * the rule it proves; then the shell over HTTP against the simulator: Cinder's volume types (and Nova's
 * flavors) are listed once per Region connection and listed again only after the Region's generation
 * or its credentials Secret changed, counted in the simulator's call log.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { regionFlavorIDs, resolveVolumeClasses, selectedVolumeTypeIDs, VolumeClassConfigInvalid, VolumeClassInventory, type VolumeClassInput, type VolumeClassResolution } from '../../src/provider/inventory/volume-classes.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { SEED } from '../../src/simulator/seed.js';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { RegionConnections } from '../../src/provider/regions/connections.js';
import { connect } from '../../src/openstack/session.js';

const STANDARD = '11111111-1111-4111-a111-111111111111';
const SSD = '22222222-2222-4222-a222-222222222222';
const GOLD = '33333333-3333-4333-a333-333333333333';
const MISSING = '44444444-4444-4444-a444-444444444444';

/** Cinder's answer: SSD carries extra specs that look like capacity and flavor hints; they are never read. */
const TYPES = [
  { id: STANDARD, name: 'standard' },
  { id: SSD, name: 'ssd', extra_specs: { supported_flavors: 'm1.small', max_size_gb: '10', min_size_gb: '5' } },
  { id: GOLD, name: 'gold' },
];
const FLAVORS = ['m1.small', 'm1.large', 'c1'];
const BS = 'spec.openstack.blockStorage';

const input = (blockStorage: unknown, extra: Partial<VolumeClassInput> = {}): VolumeClassInput => ({ blockStorage, volumeTypes: TYPES, flavorIDs: FLAVORS, ...extra });
const ok = (r: VolumeClassResolution) => {
  if (!r.ok) expect.fail(`expected the configuration to be valid: ${JSON.stringify(r.errors)}`);
  return r;
};
const exportedIDs = (r: VolumeClassResolution): string[] => ok(r).classes.map((c) => c.id);

describe('VolumeClass inventory: the pure rules', () => {
  describe('the selector is a strict allowlist (fail closed)', () => {
    const none: Array<[string, unknown]> = [
      ['missing blockStorage configuration exports no VolumeClass', undefined],
      ['missing volumeClasses configuration exports no VolumeClass', {}],
      ['a missing selector exports no VolumeClass, even with metadata', { volumeClasses: { metadata: [{ id: STANDARD, media: 'ssd' }] } }],
      ['a selector without ids exports no VolumeClass', { volumeClasses: { selector: {} } }],
      ['a selector with empty ids exports no VolumeClass', { volumeClasses: { selector: { ids: [] } } }],
      ['a null selector ids (nil) exports no VolumeClass', { volumeClasses: { selector: { ids: null } } }],
    ];
    for (const [title, blockStorage] of none) {
      it(title, () => {
        expect(exportedIDs(resolveVolumeClasses(input(blockStorage)))).to.deep.equal([]);
        expect(selectedVolumeTypeIDs(blockStorage)).to.deep.equal([]);
      });
    }

    it('only the listed Cinder volume type IDs are exported, in the selector order', () => {
      expect(exportedIDs(resolveVolumeClasses(input({ volumeClasses: { selector: { ids: [GOLD, STANDARD] } } })))).to.deep.equal([GOLD, STANDARD]);
    });

    it('a selected ID Cinder does not have is not exported, and is reported as a problem naming the field', () => {
      const r = ok(resolveVolumeClasses(input({ volumeClasses: { selector: { ids: [STANDARD, MISSING] } } })));
      expect(r.classes.map((c) => c.id)).to.deep.equal([STANDARD]);
      expect(r.problems).to.deep.equal([{ field: `${BS}.volumeClasses.selector.ids[1]`, message: `Cinder has no volume type ${MISSING}: not exported` }]);
    });

    it('metadata for a type the selector does not list exports nothing, and is reported', () => {
      const r = ok(resolveVolumeClasses(input({ volumeClasses: { selector: { ids: [STANDARD] }, metadata: [{ id: GOLD, media: 'nvme' }] } })));
      expect(r.classes.map((c) => c.id)).to.deep.equal([STANDARD]);
      expect(r.problems.map((p) => p.field)).to.deep.equal([`${BS}.volumeClasses.metadata[0].id`]);
    });
  });

  describe('metadata enrichment', () => {
    it('a selected class carries the Cinder name and the operator metadata keyed by its id', () => {
      const r = ok(
        resolveVolumeClasses(
          input({
            volumeClasses: {
              selector: { ids: [STANDARD, SSD] },
              metadata: [{ id: SSD, minCapacityGiB: 10, maxCapacityGiB: 2048, media: 'ssd', maxIOPS: 5000, maxThroughputMiBps: 250, encrypted: true, supportedFlavors: { ids: ['c1'] } }],
            },
          }),
        ),
      );
      expect(r.problems).to.deep.equal([]);
      expect(r.classes).to.deep.equal([
        { id: STANDARD, name: 'standard', encrypted: false, supportedFlavors: { restricted: false, ids: FLAVORS } },
        { id: SSD, name: 'ssd', minCapacityGiB: 10, maxCapacityGiB: 2048, media: 'ssd', maxIOPS: 5000, maxThroughputMiBps: 250, encrypted: true, supportedFlavors: { restricted: true, ids: ['c1'] } },
      ]);
    });

    it('either capacity bound may be omitted', () => {
      const r = ok(resolveVolumeClasses(input({ volumeClasses: { selector: { ids: [STANDARD, GOLD] }, metadata: [{ id: STANDARD, minCapacityGiB: 5 }, { id: GOLD, maxCapacityGiB: 5 }] } })));
      expect(r.classes.map((c) => [c.minCapacityGiB, c.maxCapacityGiB])).to.deep.equal([[5, undefined], [undefined, 5]]);
    });

    it('capacity bounds are never discovered from Cinder (its extra specs are not read)', () => {
      const [ssd] = ok(resolveVolumeClasses(input({ volumeClasses: { selector: { ids: [SSD] } } }))).classes;
      expect(ssd).to.not.have.any.keys('minCapacityGiB', 'maxCapacityGiB');
    });
  });

  describe('invalid configuration is an error naming the field, and exports nothing', () => {
    const cases: Array<[string, unknown, string[]]> = [
      ['max < min is an error naming maxCapacityGiB', { volumeClasses: { selector: { ids: [STANDARD] }, metadata: [{ id: STANDARD, minCapacityGiB: 10, maxCapacityGiB: 5 }] } }, [`${BS}.volumeClasses.metadata[0].maxCapacityGiB`]],
      ['a zero capacity is an error (positive whole GiB)', { volumeClasses: { selector: { ids: [STANDARD] }, metadata: [{ id: STANDARD, minCapacityGiB: 0 }] } }, [`${BS}.volumeClasses.metadata[0].minCapacityGiB`]],
      ['a fractional capacity is an error (whole GiB)', { volumeClasses: { selector: { ids: [STANDARD] }, metadata: [{ id: STANDARD, maxCapacityGiB: 1.5 }] } }, [`${BS}.volumeClasses.metadata[0].maxCapacityGiB`]],
      ['a performance cap is a positive whole number', { volumeClasses: { selector: { ids: [STANDARD] }, metadata: [{ id: STANDARD, maxIOPS: -1, maxThroughputMiBps: 0 }] } }, [`${BS}.volumeClasses.metadata[0].maxIOPS`, `${BS}.volumeClasses.metadata[0].maxThroughputMiBps`]],
      ['an unknown media is an error', { volumeClasses: { selector: { ids: [STANDARD] }, metadata: [{ id: STANDARD, media: 'tape' }] } }, [`${BS}.volumeClasses.metadata[0].media`]],
      ['a selector id that is not a UUID is an error', { volumeClasses: { selector: { ids: ['fast'] } } }, [`${BS}.volumeClasses.selector.ids[0]`]],
    ];
    for (const [title, blockStorage, fields] of cases) {
      it(title, () => {
        const r = resolveVolumeClasses(input(blockStorage));
        if (r.ok) expect.fail('expected configuration errors');
        expect(r.errors.map((e) => e.path)).to.deep.equal(fields);
      });
    }

    it('the error message names the field and the rule', () => {
      const r = resolveVolumeClasses(input({ volumeClasses: { selector: { ids: [STANDARD] }, metadata: [{ id: STANDARD, minCapacityGiB: 10, maxCapacityGiB: 5 }] } }));
      if (r.ok) expect.fail('expected configuration errors');
      expect(new VolumeClassConfigInvalid('default/region-one', r.errors).message).to.equal(
        `Region default/region-one: the VolumeClass configuration is invalid, no VolumeClass is exported: ${BS}.volumeClasses.metadata[0].maxCapacityGiB: Invalid value: "object": maxCapacityGiB must be at least minCapacityGiB`,
      );
    });
  });

  describe('supportedFlavors resolves to the Flavor ID allowlist', () => {
    const flavorsOf = (supportedFlavors: unknown) => {
      const metadata = supportedFlavors === undefined ? [] : [{ id: STANDARD, supportedFlavors }];
      return ok(resolveVolumeClasses(input({ volumeClasses: { selector: { ids: [STANDARD] }, metadata } }))).classes[0]!.supportedFlavors;
    };

    it('omitted supportedFlavors is unrestricted: every flavor the Region exports', () => {
      expect(flavorsOf(undefined)).to.deep.equal({ restricted: false, ids: FLAVORS });
    });

    it('supportedFlavors with omitted ids is unrestricted', () => {
      expect(flavorsOf({})).to.deep.equal({ restricted: false, ids: FLAVORS });
    });

    it('supportedFlavors with empty ids is unrestricted', () => {
      expect(flavorsOf({ ids: [] })).to.deep.equal({ restricted: false, ids: FLAVORS });
    });

    it('listed ids are an allowlist of exactly those flavor ids', () => {
      expect(flavorsOf({ ids: ['c1', 'm1.small'] })).to.deep.equal({ restricted: true, ids: ['c1', 'm1.small'] });
    });

    it('a listed flavor the Region does not export is left out of the allowlist and reported', () => {
      const r = ok(resolveVolumeClasses(input({ volumeClasses: { selector: { ids: [STANDARD] }, metadata: [{ id: STANDARD, supportedFlavors: { ids: ['m1.small', 'gone'] } }] } })));
      expect(r.classes[0]!.supportedFlavors).to.deep.equal({ restricted: true, ids: ['m1.small'] });
      expect(r.problems.map((p) => p.field)).to.deep.equal([`${BS}.volumeClasses.metadata[0].supportedFlavors.ids[1]`]);
    });

    it('compatibility is never inferred from Cinder: a type whose extra specs name flavors stays unrestricted', () => {
      const [ssd] = ok(resolveVolumeClasses(input({ volumeClasses: { selector: { ids: [SSD] } } }))).classes;
      expect(ssd!.supportedFlavors).to.deep.equal({ restricted: false, ids: FLAVORS });
    });
  });

  describe('the Region exports flavors by compute.flavorSelector', () => {
    const nova = [{ id: '1' }, { id: '2' }, { id: 'c1' }];
    it('no flavorSelector exports every flavor Nova lists', () => expect(regionFlavorIDs(nova)).to.deep.equal(['1', '2', 'c1']));
    it('a flavorSelector exports the listed flavors Nova has, in its order', () => expect(regionFlavorIDs(nova, { flavorSelector: { ids: ['c1', 'nope', '1'] } })).to.deep.equal(['c1', '1']));
  });
});

describe('VolumeClass inventory: the cache, against the simulator over HTTP', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let dir: string;
  let source: EmbeddedResourceSource;
  let inventory: VolumeClassInventory;

  const typeLists = () => sim.calls({ method: 'GET' }).filter((c) => /\/types$/.test(c.path)).length;
  const flavorLists = () => sim.calls({ method: 'GET' }).filter((c) => c.path.endsWith('/flavors/detail')).length;
  const putSecret = (extra: Record<string, string> = {}) => source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-admin', ...extra });
  const applyRegion = (metadata: string) =>
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
    blockStorage:
      volumeClasses:
        selector: { ids: [${SEED.volumeTypes.ssd}, ${SEED.volumeTypes.standard}, ${MISSING}] }
        metadata: [${metadata}]
`,
    );

  before(async () => {
    sim = await startSimulator({ clock: 'real' });
    dir = mkdtempSync(join(tmpdir(), 'regent-volume-classes-'));
    source = openEmbeddedSource({ path: join(dir, 'resources.db') });
    const options = { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } };
    inventory = new VolumeClassInventory(new RegionConnections({ source, connect: (cloud) => connect(cloud, options) }));
    await putSecret();
    await applyRegion(`{ id: ${SEED.volumeTypes.ssd}, media: ssd, minCapacityGiB: 1, maxCapacityGiB: 500, supportedFlavors: { ids: ['1', '2'] } }`);
  });
  after(async () => {
    await source.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the simulator serves the Cinder volume type list the inventory reads, with the seeded types', async () => {
    sim.control.sim.calls.clear();
    const found = await inventory.classes('default', 'region-one');
    expect(found!.classes.map((c) => [c.id, c.name, c.media])).to.deep.equal([
      [SEED.volumeTypes.ssd, 'ssd', 'ssd'],
      [SEED.volumeTypes.standard, 'standard', undefined],
    ]);
    expect(found!.classes[0]!.supportedFlavors).to.deep.equal({ restricted: true, ids: ['1', '2'] });
    expect(found!.classes[1]!.supportedFlavors.restricted).to.equal(false);
    expect(found!.classes[1]!.supportedFlavors.ids).to.include.members(['1', '2', 'c1', SEED.baremetalFlavor]);
    expect(found!.problems.map((p) => p.field)).to.deep.equal(['spec.openstack.blockStorage.volumeClasses.selector.ids[2]']);
    expect({ types: typeLists(), flavors: flavorLists() }).to.deep.equal({ types: 1, flavors: 1 });
  });

  it('repeated calls on the same connection list the types once', async () => {
    sim.control.sim.calls.clear();
    for (let i = 0; i < 5; i++) await inventory.classes('default', 'region-one');
    expect({ types: typeLists(), flavors: flavorLists() }).to.deep.equal({ types: 0, flavors: 0 });
  });

  it('a new Region generation lists the types again, once, and uses the new metadata', async () => {
    sim.control.sim.calls.clear();
    await applyRegion(`{ id: ${SEED.volumeTypes.ssd}, media: nvme, encrypted: true }`);
    for (let i = 0; i < 3; i++) {
      const found = await inventory.classes('default', 'region-one');
      expect(found!.classes[0]).to.deep.include({ media: 'nvme', encrypted: true });
    }
    expect({ types: typeLists(), flavors: flavorLists() }).to.deep.equal({ types: 1, flavors: 1 });
  });

  it('a changed credentials Secret lists the types again, once', async () => {
    sim.control.sim.calls.clear();
    await putSecret({ rotated: '1' });
    for (let i = 0; i < 3; i++) await inventory.classes('default', 'region-one');
    expect({ types: typeLists(), flavors: flavorLists() }).to.deep.equal({ types: 1, flavors: 1 });
  });

  it('re-applying an unchanged Region keeps the generation, and the cache', async () => {
    sim.control.sim.calls.clear();
    await applyRegion(`{ id: ${SEED.volumeTypes.ssd}, media: nvme, encrypted: true }`);
    await inventory.classes('default', 'region-one');
    expect(typeLists()).to.equal(0);
  });

  it('a Region selecting nothing exports nothing and asks OpenStack nothing', async () => {
    await applyManifests(
      source,
      `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-empty }
spec:
  provider: openstack
  openstack: { endpoint: '${sim.url}/identity/v3', region: RegionOne, credentialsSecretRef: { name: region-one-credentials }, blockStorage: { volumeClasses: { selector: { ids: [] } } } }
`,
    );
    await inventory.classes('default', 'region-empty');
    sim.control.sim.calls.clear();
    const found = await inventory.classes('default', 'region-empty');
    expect(found!.classes).to.deep.equal([]);
    expect({ types: typeLists(), flavors: flavorLists() }).to.deep.equal({ types: 0, flavors: 0 });
  });

  it('no such Region is undefined', async () => {
    expect(await inventory.classes('default', 'nope')).to.equal(undefined);
  });
});
