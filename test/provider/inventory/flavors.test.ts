/**
 * Flavor inventory (src/provider/inventory/flavors.ts; openstack-provider.md, "Flavor export is a hybrid
 * model"; issue 16). Every rule (F1–F5) against the simulator over HTTP: Nova's flavors (with extra specs
 * the test sets through Nova's admin API) read by FlavorInventory through a Region's connection, plus a
 * few pure cases for the parsing edges; the cache is counted in the simulator's call log.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlavorInventory, flavorInventoryConfigOf, gpuFromExtraSpecs, resolveFlavors, type Flavor, type FlavorMetadata } from '../../../src/provider/inventory/flavors.js';
import { regionFlavorIDs } from '../../../src/provider/inventory/volume-classes.js';
import { startSimulator, type RunningSimulator } from '../../../src/simulator/index.js';
import { SEED } from '../../../src/simulator/seed.js';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../../src/kube/embedded/store.js';
import { applyManifests } from '../../../src/kube/cli/manifests.js';
import { RegionConnections } from '../../../src/provider/regions/connections.js';
import { connect } from '../../../src/openstack/session.js';
import type { Region } from '../../../src/resources/region.js';
import { formatFlavors, runGetFlavors, type RegionFlavor } from '../../../src/cli/commands/get-flavors.js';

describe('Flavor inventory against the simulator over HTTP', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let dir: string;
  let source: EmbeddedResourceSource;
  let connections: RegionConnections;
  let metadata: Record<string, FlavorMetadata[]>;
  let inventory: FlavorInventory;

  const flavorLists = () => sim.calls({ method: 'GET' }).filter((c) => c.path.endsWith('/flavors/detail')).length;
  const region = (name: string, openstack: string) =>
    applyManifests(
      source,
      `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: ${name} }
spec:
  provider: openstack
  openstack:
    endpoint: ${sim.url}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: region-one-credentials }
${openstack
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => `    ${l}`)
  .join('\n')}
`,
    );
  const exported = async (name: string) => (await inventory.flavors('default', name))!;
  const byId = (flavors: readonly Flavor[], id: string): Flavor => {
    const f = flavors.find((x) => x.id === id);
    if (!f) expect.fail(`flavor ${id} is not exported (exported: ${flavors.map((x) => x.id).join(', ')})`);
    return f;
  };

  before(async () => {
    sim = await startSimulator({ clock: 'real' });
    dir = mkdtempSync(join(tmpdir(), 'regent-flavors-'));
    source = openEmbeddedSource({ path: join(dir, 'resources.db') });
    const options = { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } };
    connections = new RegionConnections({ source, connect: (cloud) => connect(cloud, options) });
    metadata = {};
    inventory = new FlavorInventory(connections, { metadataOf: (r: Region) => metadata[r.metadata.name] });
    await source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-admin' });
    await region('plain', '');
    // GPU flavors, created through Nova's admin API with the Region's own (admin) session
    const nova = (await connections.region('default', 'plain'))!.session.nova;
    await nova.createFlavor({ id: 'g1', name: 'g1.a100x2', vcpus: 16, ram: 65536, disk: 100 });
    await nova.setFlavorExtraSpecs('g1', { 'pci_passthrough:alias': 'a100:2' });
    await nova.createFlavor({ id: 'g2', name: 'g2.mixed', vcpus: 16, ram: 65536, disk: 100 });
    await nova.setFlavorExtraSpecs('g2', { 'pci_passthrough:alias': 'a100:1, t4:2' });
    await nova.createFlavor({ id: 'v1', name: 'v1.vgpu', vcpus: 4, ram: 8192, disk: 40 });
    await nova.setFlavorExtraSpecs('v1', { 'resources:VGPU': '1' });
    await nova.createFlavor({ id: 'bad', name: 'bad.alias', vcpus: 1, ram: 512, disk: 1 });
    await nova.setFlavorExtraSpecs('bad', { 'pci_passthrough:alias': 'a100', 'resources:VGPU': 'two' });
  });
  after(async () => {
    await source.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('F1 the flavor selector', () => {
    it('F1 an omitted flavorSelector exports every (public) flavor Nova lists, with Nova\'s sizes', async () => {
      const { flavors, problems } = await exported('plain');
      expect(flavors.map((f) => f.id)).to.include.members(['1', '2', '3', '4', '5', 'c1', 'huge', SEED.baremetalFlavor, 'g1', 'g2', 'v1', 'bad']);
      expect(flavors.map((f) => f.id)).to.not.include('private');
      expect(byId(flavors, '2')).to.deep.equal({ id: '2', name: 'm1.small', cpus: 1, memoryMiB: 2048, diskGiB: 20, architecture: 'x86_64', baremetal: false });
      expect(problems.filter((p) => !p.field.includes('flavor bad'))).to.deep.equal([]);
    });
    it('F1 a flavorSelector exports only the listed IDs Nova has, in its order, and reports the one Nova lacks', async () => {
      await region('selected', 'compute: { flavorSelector: { ids: [c1, nope, "1"] } }');
      const { flavors, problems } = await exported('selected');
      expect(flavors.map((f) => f.id)).to.deep.equal(['c1', '1']);
      expect(problems).to.deep.equal([{ field: 'spec.openstack.compute.flavorSelector.ids[1]', message: 'Nova has no flavor nope: not exported' }]);
    });
    it('F1 agrees with the allowlist VolumeClasses resolve supportedFlavors against (regionFlavorIDs)', async () => {
      const r = (await connections.region('default', 'selected'))!;
      const nova = await r.session.nova.listFlavors();
      expect((await exported('selected')).flavors.map((f) => f.id)).to.deep.equal(regionFlavorIDs(nova, r.region.spec.openstack.compute));
    });
  });

  describe('F2 architecture', () => {
    it('F2 without any configuration a flavor is x86_64 (the legacy fallback)', async () => {
      expect(byId((await exported('plain')).flavors, '1').architecture).to.equal('x86_64');
    });
    it("F2 the Region's defaultArchitecture applies to every flavor without its own", async () => {
      await region('arm', 'defaultArchitecture: aarch64');
      const { flavors } = await exported('arm');
      expect(new Set(flavors.map((f) => f.architecture))).to.deep.equal(new Set(['aarch64']));
    });
    it("F2 a per-flavor cpu.architecture wins over the Region's default", async () => {
      metadata.arm = [{ id: 'c1', cpu: { architecture: 'x86_64' } }];
      const { flavors } = await exported('arm');
      expect(byId(flavors, 'c1').architecture).to.equal('x86_64');
      expect(byId(flavors, '1').architecture).to.equal('aarch64');
      delete metadata.arm;
    });
    it('F2 the architecture is never read from Nova extra specs', () => {
      const [f] = resolveFlavors([{ id: 'x', name: 'x', vcpus: 1, ram: 1, disk: 1, extra_specs: { 'hw:architecture': 'aarch64', 'capabilities:cpu_arch': 'aarch64' } }], {}).flavors;
      expect(f!.architecture).to.equal('x86_64');
    });
  });

  describe('F3 baremetal', () => {
    it('F3 a flavor listed in baremetalFlavorIDs is baremetal; the others are not', async () => {
      await region('bm', `compute: { baremetalFlavorIDs: [${SEED.baremetalFlavor}, ghost] }`);
      const { flavors, problems } = await exported('bm');
      expect(byId(flavors, SEED.baremetalFlavor).baremetal).to.equal(true);
      expect(flavors.filter((f) => f.baremetal).map((f) => f.id)).to.deep.equal([SEED.baremetalFlavor]);
      expect(problems).to.deep.include({ field: 'spec.openstack.compute.baremetalFlavorIDs[1]', message: 'Nova has no flavor ghost: nothing is marked baremetal by it' });
    });
    it('F3 a flavor with custom resource classes is not baremetal unless the Region says so', async () => {
      expect(byId((await exported('plain')).flavors, SEED.baremetalFlavor).baremetal).to.equal(false);
    });
  });

  describe('F4 GPU semantics', () => {
    it('F4 pci_passthrough:alias <alias>:<count> is a passthrough GPU: count, and the alias as model', async () => {
      expect(byId((await exported('plain')).flavors, 'g1').gpu).to.deep.equal({ kind: 'passthrough', model: 'a100', count: 2 });
    });
    it('F4 several aliases add up, and name every alias', async () => {
      expect(byId((await exported('plain')).flavors, 'g2').gpu).to.deep.equal({ kind: 'passthrough', model: 'a100,t4', count: 3 });
    });
    it('F4 resources:VGPU is a vGPU request with its count', async () => {
      expect(byId((await exported('plain')).flavors, 'v1').gpu).to.deep.equal({ kind: 'vgpu', count: 1 });
    });
    it('F4 a flavor whose extra specs request no GPU has none', async () => {
      expect(byId((await exported('plain')).flavors, 'c1')).to.not.have.property('gpu');
    });
    it('F4 unparseable GPU extra specs are ignored and reported', async () => {
      const { flavors, problems } = await exported('plain');
      expect(byId(flavors, 'bad')).to.not.have.property('gpu');
      expect(problems.map((p) => p.field)).to.deep.equal(['nova flavor bad extra spec pci_passthrough:alias', 'nova flavor bad extra spec resources:VGPU']);
    });
    it('F4 configured vendor and model override; a configured count wins over the extra specs and the difference is reported', async () => {
      metadata.plain = [{ id: 'g1', gpu: { vendor: 'NVIDIA', model: 'A100-80GB', count: 1 } }];
      const { flavors, problems } = await exported('plain');
      expect(byId(flavors, 'g1').gpu).to.deep.equal({ kind: 'passthrough', vendor: 'NVIDIA', model: 'A100-80GB', count: 1 });
      expect(problems).to.deep.include({ field: 'spec.openstack.compute.flavorMetadata[0].gpu.count', message: "configured 1, Nova's extra specs request 2: the configured count is exported" });
      delete metadata.plain;
    });
    it('F4 configuration alone can give a flavor a GPU (kind configured); without a count it gives none', async () => {
      metadata.plain = [{ id: '4', gpu: { vendor: 'AMD', model: 'MI300', count: 8 } }, { id: '5', gpu: { vendor: 'AMD' } }];
      const { flavors, problems } = await exported('plain');
      expect(byId(flavors, '4').gpu).to.deep.equal({ kind: 'configured', vendor: 'AMD', model: 'MI300', count: 8 });
      expect(byId(flavors, '5')).to.not.have.property('gpu');
      expect(problems.map((p) => p.field)).to.include('spec.openstack.compute.flavorMetadata[1].gpu.count');
      delete metadata.plain;
    });
    it('F4 passthrough and vGPU on one flavor: passthrough is exported, the vGPU request reported', () => {
      const r = gpuFromExtraSpecs('x', { 'pci_passthrough:alias': 'a:1', 'resources:VGPU': '2' });
      expect(r.gpu).to.deep.equal({ kind: 'passthrough', model: 'a', count: 1 });
      expect(r.problems.map((p) => p.field)).to.deep.equal(['nova flavor x extra spec resources:VGPU']);
    });
    it('F4 other extra specs (resources:PGPU, CUSTOM classes, traits) are not read as GPUs', () => {
      expect(gpuFromExtraSpecs('x', { 'resources:PGPU': '1', 'resources:CUSTOM_GPU': '1', 'trait:CUSTOM_GPU': 'required' })).to.deep.equal({ problems: [] });
    });
  });

  describe('F5 configuration that exports nothing is visible', () => {
    it('F5 metadata for a flavor that is not selected is reported and ignored', async () => {
      metadata.selected = [{ id: '2', cpu: { architecture: 'aarch64' } }];
      const { problems } = await exported('selected');
      expect(problems).to.deep.include({ field: 'spec.openstack.compute.flavorMetadata[0].id', message: 'metadata for flavor 2, which is not exported: ignored' });
      delete metadata.selected;
    });
  });

  describe("the Region's fields are read", () => {
    it('compute.flavorMetadata (validated by the Region codec) gives per-flavor architecture and GPU', async () => {
      await region('meta', `defaultArchitecture: aarch64
compute:
  flavorSelector: { ids: [g1, c1, "3"] }
  flavorMetadata:
    - { id: g1, gpu: { vendor: NVIDIA, model: A100-80GB } }
    - { id: c1, cpu: { architecture: x86_64 } }
    - { id: "3", gpu: { vendor: Intel, model: Max-1550, count: 1 } }`);
      const { flavors, problems } = await exported('meta');
      expect(flavors.map((f) => [f.id, f.architecture, f.gpu])).to.deep.equal([
        ['g1', 'aarch64', { kind: 'passthrough', vendor: 'NVIDIA', model: 'A100-80GB', count: 2 }],
        ['c1', 'x86_64', undefined],
        ['3', 'aarch64', { kind: 'configured', vendor: 'Intel', model: 'Max-1550', count: 1 }],
      ]);
      expect(problems).to.deep.equal([]);
    });

    it('defaultArchitecture, compute.baremetalFlavorIDs and compute.flavorSelector reach the configuration', async () => {
      await region('all', 'defaultArchitecture: aarch64\ncompute: { baremetalFlavorIDs: [bm.gold], flavorSelector: { ids: [bm.gold] } }');
      const r = (await connections.region('default', 'all'))!;
      expect(flavorInventoryConfigOf(r.region.spec.openstack)).to.deep.equal({ defaultArchitecture: 'aarch64', baremetalFlavorIDs: ['bm.gold'], flavorSelector: { ids: ['bm.gold'] }, metadata: [] });
      expect((await exported('all')).flavors).to.deep.equal([{ id: 'bm.gold', name: 'bm.gold', cpus: 32, memoryMiB: 262144, diskGiB: 960, architecture: 'aarch64', baremetal: true }]);
    });
  });

  describe('the cache', () => {
    it("Nova's flavors are listed once per Region connection; a new Region generation lists them again", async () => {
      await exported('selected');
      sim.control.sim.calls.clear();
      for (let i = 0; i < 4; i++) await exported('selected');
      expect(flavorLists()).to.equal(0);
      await region('selected', 'compute: { flavorSelector: { ids: ["1"] } }');
      expect((await exported('selected')).flavors.map((f) => f.id)).to.deep.equal(['1']);
      await exported('selected');
      expect(flavorLists()).to.equal(1);
    });
    it('no such Region is undefined', async () => {
      expect(await inventory.flavors('default', 'nope')).to.equal(undefined);
    });
  });

  describe('regent get flavors printer', () => {
    const row = (f: Partial<Flavor> = {}): RegionFlavor => ({ region: { namespace: 'default', name: 'plain' }, id: 'g1', name: 'g1.a100x2', cpus: 16, memoryMiB: 65536, diskGiB: 100, architecture: 'x86_64', baremetal: false, gpu: { kind: 'passthrough', vendor: 'NVIDIA', model: 'a100', count: 2 }, ...f });
    it('a table with the GPU in one cell', () => {
      const lines = formatFlavors([row(), row({ id: '1', name: 'm1.tiny', cpus: 1, memoryMiB: 512, diskGiB: 1, gpu: undefined as never })], 'table').split('\n');
      expect(lines[0]!.split(/\s+/)).to.deep.equal(['REGION', 'ID', 'NAME', 'CPUS', 'MEMORY', 'DISK', 'ARCH', 'BAREMETAL', 'GPU']);
      expect(lines[1]!.split(/\s+/)).to.deep.equal(['plain', 'g1', 'g1.a100x2', '16', '64Gi', '100G', 'x86_64', 'false', '2x', 'NVIDIA', 'a100', '(passthrough)']);
      expect(lines[2]!.split(/\s+/)).to.deep.equal(['plain', '1', 'm1.tiny', '1', '512Mi', '1G', 'x86_64', 'false', '<none>']);
    });
    it('-o json is a List of the flavors with their Region, or the one flavor', () => {
      expect(JSON.parse(formatFlavors([row()], 'json'))).to.deep.equal({ apiVersion: 'v1', kind: 'List', items: [row()] });
      expect(JSON.parse(formatFlavors([row()], 'json', { single: true }))).to.deep.equal(row());
    });
    it('no flavor is "No resources found."', () => expect(formatFlavors([], 'table')).to.equal('No resources found.'));
    it('runGetFlavors (what `regent get flavors` dispatches to) reads the Region from the resource store and prints its flavors', async () => {
      const printed: string[] = [];
      const warned: string[] = [];
      const [log, error] = [console.log, console.error];
      console.log = (line: string) => printed.push(line);
      console.error = (line: string) => warned.push(line);
      try {
        await runGetFlavors(undefined, { output: 'json', region: 'selected', resources: `embedded:${join(dir, 'resources.db')}` });
      } finally {
        [console.log, console.error] = [log, error];
      }
      const listed = JSON.parse(printed.join('\n')) as { items: RegionFlavor[] };
      expect(listed.items.map((f) => [f.region.name, f.id])).to.deep.equal([['selected', '1']]);
      expect(warned).to.deep.equal([]);
      const missing = await runGetFlavors(undefined, { output: 'table', resources: `embedded:${join(dir, 'nope.db')}` }).then(() => undefined, (e: unknown) => e);
      expect((missing as Error).message).to.contain('no resource store at');
    });
  });
});
