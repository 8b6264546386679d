/**
 * The Region inventories of issue 16 through the real `regent` program (node bin/regent.js in a child process),
 * as an operator runs them against a simulator over HTTP: `regent get flavors` (the selector, per-flavor
 * metadata, the baremetal flag), `regent get images` (the translated view, exclusions as warnings) and
 * `regent vlan leaks` on an empty event store. The modules have their own tests; this one proves the dispatch.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { runRegent, type RegentRun } from './support/run-regent.js';
import { openStore } from '../../src/store/open.js';

describe('regent get flavors / get images / vlan leaks (the commands, against a simulator)', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let dir: string;
  let db: string;
  let env: NodeJS.ProcessEnv;
  const regent = (args: string[]): Promise<RegentRun> => runRegent(args, env);

  before(async () => {
    sim = await startSimulator({ clock: 'real' });
    dir = mkdtempSync(join(tmpdir(), 'regent-inventory-cli-'));
    mkdirSync(join(dir, 'home'));
    db = join(dir, 'resources.db');
    env = { ...process.env, HOME: join(dir, 'home'), REGENT_LOG_LEVEL: 'warn', KUBECONFIG: '' };
    for (const key of ['OS_CLOUD', 'OS_CLIENT_CONFIG_FILE', 'REGENT_RESOURCES', 'REGENT_STORE', 'KUBERNETES_SERVICE_HOST']) delete env[key];
    const source = openEmbeddedSource({ path: db });
    try {
      await source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-admin' });
      await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec:
  provider: openstack
  openstack:
    endpoint: ${sim.url}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: region-one-credentials }
    defaultArchitecture: aarch64
    compute:
      flavorSelector: { ids: ['2', '${SEED.baremetalFlavor}'] }
      baremetalFlavorIDs: ['${SEED.baremetalFlavor}']
      flavorMetadata: [{ id: '2', cpu: { architecture: x86_64 }, gpu: { vendor: NVIDIA, model: A100, count: 1 } }]
`);
    } finally {
      await source.close();
    }
  });
  after(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('get flavors -o json: only the selected flavors, per-flavor metadata over the default architecture, the baremetal flag', async () => {
    const run = await regent(['get', 'flavors', '-o', 'json', '--resources', `embedded:${db}`]);
    expect(run.code, run.err).to.equal(0);
    const items = (JSON.parse(run.out) as { items: Array<{ id: string; architecture: string; baremetal: boolean; gpu?: { vendor?: string; model?: string } }> }).items;
    expect(items.map((f) => f.id).sort()).to.deep.equal(['2', SEED.baremetalFlavor].sort());
    const small = items.find((f) => f.id === '2');
    expect(small).to.deep.include({ architecture: 'x86_64', baremetal: false });
    expect(small?.gpu).to.deep.include({ vendor: 'NVIDIA', model: 'A100' });
    expect(items.find((f) => f.id === SEED.baremetalFlavor)).to.deep.include({ architecture: 'aarch64', baremetal: true });
  });

  it('get images: the translated view or the exclusions (each with its reason) for every image Glance lists; --region on a stored kind is refused', async () => {
    const run = await regent(['get', 'images', '-o', 'json', '--resources', `embedded:${db}`]);
    expect(run.code, run.err).to.equal(0);
    const listed = (JSON.parse(run.out) as { items: Array<{ id: string }> }).items.map((i) => i.id);
    const warned = [SEED.images.cirros, SEED.images.ubuntu, SEED.images.debian].filter((id) => run.err.includes(id));
    expect([...listed, ...warned].filter((id) => Object.values(SEED.images).includes(id as never)).sort(), 'every seeded image exported or excluded').to.deep.equal(Object.values(SEED.images).sort());
    expect(await regent(['get', 'servers', '--region', 'region-one', '--resources', `embedded:${db}`])).to.deep.include({ code: 2 });
  });

  it('get flavors and get images on a resource store that does not exist: a usage error naming it, and no store left behind', async () => {
    for (const kind of ['flavors', 'images']) {
      const missing = join(dir, `typo-${kind}`, 'resources.db');
      const run = await regent(['get', kind, '--resources', `embedded:${missing}`]);
      expect(run.code, `${kind}: ${run.err}`).to.equal(2);
      expect(run.err).to.include(`no resource store at ${missing}`);
      expect(existsSync(missing), kind).to.equal(false);
    }
  });

  it('vlan leaks: no event store yet is a usage error naming it; a store with no allocation has none, exit 0', async () => {
    const store = `sqlite:${join(dir, 'regent.db')}`;
    const missing = await regent(['vlan', 'leaks', '--store', store, '--resources', `embedded:${db}`]);
    expect(missing.code).to.equal(2);
    expect(missing.err).to.include('no store at');
    await (await openStore(store)).close();
    const run = await regent(['vlan', 'leaks', '--store', store, '--resources', `embedded:${db}`]);
    expect(run.code, run.err).to.equal(0);
    expect(run.out).to.include('no VLAN leaks');
  });
});
