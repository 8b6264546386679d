/**
 * The flavor inventory (src/provider/inventory/flavors.ts) against the sandbox's real Nova: flavors the run
 * creates with GPU extra specs (`pci_passthrough:alias`, `resources:VGPU`) are discovered through
 * FlavorInventory (one GET /flavors/detail at the session's microversion, extra specs inline) and
 * translated with the Region configuration: selector, defaultArchitecture, per-flavor cpu.architecture,
 * baremetalFlavorIDs and configured GPU vendor/model.
 */
import { expect } from 'chai';
import type { Context } from 'mocha';
import { FlavorInventory, type FlavorMetadata } from '../../src/provider/inventory/flavors.js';
import type { RegionConnection } from '../../src/provider/regions/connections.js';
import type { Region } from '../../src/resources/region.js';
import { realRun, type RealRun } from './support/run.js';

describe('flavor inventory against real Nova', function () {
  let run: RealRun;
  const ids: Record<string, string> = {};

  before(async function (this: Context) {
    run = await realRun();
    if (!run.admin) this.skip();
    const nova = run.admin.nova;
    for (const [key, specs] of [['pci', { 'pci_passthrough:alias': 'a100:2' }], ['vgpu', { 'resources:VGPU': '1' }], ['bm', {}]] as const) {
      const name = run.name(`flavor-${key}`);
      const f = await nova.createFlavor({ name, vcpus: 1, ram: 512, disk: 1 });
      run.cleanup.add(`flavor ${name}`, () => nova.deleteFlavor(f.id));
      if (Object.keys(specs).length > 0) await nova.setFlavorExtraSpecs(f.id, specs);
      ids[key] = f.id;
    }
  });

  it('discovers the flavors with their extra specs and translates them with the Region configuration', async () => {
    const region = {
      metadata: { uid: 'real-region', name: 'sandbox', namespace: 'default', generation: 1 },
      spec: { provider: 'openstack', openstack: { endpoint: 'http://127.0.0.1:5000/v3', region: 'RegionOne', credentialsSecretRef: { name: 'x' }, defaultArchitecture: 'aarch64', compute: { baremetalFlavorIDs: [ids.bm!], flavorSelector: { ids: [ids.pci!, ids.vgpu!, ids.bm!, 'no-such-flavor'] } } } },
    } as unknown as Region;
    const connection = { region, secretVersion: '1', cloud: {} as never, session: run.admin! } as RegionConnection;
    const metadata: FlavorMetadata[] = [{ id: ids.pci!, gpu: { vendor: 'NVIDIA', model: 'A100' } }, { id: ids.vgpu!, cpu: { architecture: 'x86_64' } }];
    const inventory = new FlavorInventory({ region: async () => connection }, { metadataOf: () => metadata });
    const found = (await inventory.flavors('default', 'sandbox'))!;
    expect(found.flavors.map((f) => f.id)).to.deep.equal([ids.pci, ids.vgpu, ids.bm]);
    expect(found.flavors[0]).to.deep.include({ cpus: 1, memoryMiB: 512, diskGiB: 1, architecture: 'aarch64', baremetal: false, gpu: { kind: 'passthrough', vendor: 'NVIDIA', model: 'A100', count: 2 } });
    expect(found.flavors[1]).to.deep.include({ architecture: 'x86_64', baremetal: false, gpu: { kind: 'vgpu', count: 1 } });
    expect(found.flavors[2]).to.deep.include({ architecture: 'aarch64', baremetal: true });
    expect(found.flavors[2]).to.not.have.property('gpu');
    expect(found.problems).to.deep.equal([{ field: 'spec.openstack.compute.flavorSelector.ids[3]', message: 'Nova has no flavor no-such-flavor: not exported' }]);
  });
});
