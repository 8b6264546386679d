/**
 * `regent get volumeclasses` as an operator runs it: the real `node bin/regent.js` in a child process,
 * against an OpenStack simulator served over HTTP by this process and a temporary embedded resource
 * store holding the Region and its credentials Secret. What it prints (table, JSON, YAML), the warning
 * for a selected ID Cinder does not have, the one-line failures and their exit codes, and that one run
 * lists Cinder's volume types once per Region.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { SEED } from '../../src/simulator/seed.js';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { runRegent, type RegentRun } from './support/run-regent.js';

type Run = RegentRun;

const MISSING = '44444444-4444-4444-a444-444444444444';

describe('regent get volumeclasses (the command, against a simulator)', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let dir: string;
  let db: string;
  let env: NodeJS.ProcessEnv;

  const regent = (args: string[]): Promise<Run> => runRegent(args, env);
  const get = (...args: string[]) => regent(['get', 'volumeclasses', '--resources', `embedded:${db}`, ...args]);
  const typeLists = () => sim.calls({ method: 'GET' }).filter((c) => /\/types$/.test(c.path)).length;

  before(async () => {
    sim = await startSimulator({ clock: 'real' });
    dir = mkdtempSync(join(tmpdir(), 'regent-volumeclasses-cli-'));
    mkdirSync(join(dir, 'home'));
    db = join(dir, 'resources.db');
    env = { ...process.env, HOME: join(dir, 'home'), REGENT_LOG_LEVEL: 'warn', KUBECONFIG: '' };
    for (const key of ['OS_CLOUD', 'OS_CLIENT_CONFIG_FILE', 'REGENT_RESOURCES', 'REGENT_STORE', 'KUBERNETES_SERVICE_HOST']) delete env[key];
    const source = openEmbeddedSource({ path: db });
    try {
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
    compute: { flavorSelector: { ids: ['1', '2', '3'] } }
    blockStorage:
      volumeClasses:
        selector: { ids: [${SEED.volumeTypes.ssd}, ${SEED.volumeTypes.standard}, ${MISSING}] }
        metadata:
          - { id: ${SEED.volumeTypes.ssd}, minCapacityGiB: 1, maxCapacityGiB: 500, media: ssd, maxIOPS: 3000, encrypted: true, supportedFlavors: { ids: ['2', '3'] } }
---
apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: broken, namespace: broken }
spec:
  provider: openstack
  openstack:
    endpoint: ${sim.url}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: broken-credentials }
    blockStorage: { volumeClasses: { selector: { ids: [${SEED.volumeTypes.ssd}] } } }
`,
      );
    } finally {
      await source.close();
    }
  });
  after(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a table of the Region\'s exported classes and warns of a selected ID Cinder does not have; exit 0; one Cinder type list', async () => {
    sim.control.sim.calls.clear();
    const run = await get('-n', 'default');
    expect(run.code, run.err).to.equal(0);
    expect(run.out.trimEnd().split('\n').map((l) => l.split(/ {3,}/))).to.deep.equal([
      ['REGION', 'ID', 'NAME', 'MIN GIB', 'MAX GIB', 'MEDIA', 'ENCRYPTED', 'FLAVORS'],
      ['region-one', SEED.volumeTypes.ssd, 'ssd', '1', '500', 'ssd', 'true', '2,3'],
      ['region-one', SEED.volumeTypes.standard, 'standard', '<none>', '<none>', '<none>', 'false', '<any>'],
    ]);
    expect(run.err).to.equal(`Warning: Region default/region-one: spec.openstack.blockStorage.volumeClasses.selector.ids[2]: Cinder has no volume type ${MISSING}: not exported\n`);
    expect(typeLists()).to.equal(1);
  });

  it('-o json lists every field, with the resolved flavor allowlist (unrestricted: every exported flavor)', async () => {
    const run = await get('--region', 'region-one', '-o', 'json');
    expect(run.code, run.err).to.equal(0);
    const list = JSON.parse(run.out) as { kind: string; items: unknown[] };
    expect(list.kind).to.equal('List');
    expect(list.items).to.deep.equal([
      { region: { namespace: 'default', name: 'region-one' }, id: SEED.volumeTypes.ssd, name: 'ssd', minCapacityGiB: 1, maxCapacityGiB: 500, media: 'ssd', maxIOPS: 3000, encrypted: true, supportedFlavors: { restricted: true, ids: ['2', '3'] } },
      { region: { namespace: 'default', name: 'region-one' }, id: SEED.volumeTypes.standard, name: 'standard', encrypted: false, supportedFlavors: { restricted: false, ids: ['1', '2', '3'] } },
    ]);
  });

  it('-o yaml with a name shows that one class', async () => {
    const run = await get('standard', '--region', 'region-one', '-o', 'yaml');
    expect(run.code, run.err).to.equal(0);
    expect(parse(run.out)).to.deep.include({ id: SEED.volumeTypes.standard, name: 'standard' });
  });

  it('a Region whose credentials Secret is missing fails with one line naming the Region; exit 1', async () => {
    const run = await get('-n', 'broken');
    expect(run).to.deep.equal({ code: 1, out: '', err: 'regent: Region broken/broken: the credentials Secret broken/broken-credentials does not exist\n' });
  });

  it('an unknown --region, or a class no Region exports, fails with one line; exit 1', async () => {
    expect(await get('--region', 'nope')).to.deep.equal({ code: 1, out: '', err: 'regent: Region "default/nope" not found\n' });
    expect(await get('gold', '--region', 'region-one')).to.deep.include({ code: 1, out: '', err: 'regent: Region default/region-one exports no VolumeClass with ID or name "gold"\n' });
  });

  it('--region with another kind is a usage error: exit 2, one line', async () => {
    expect(await regent(['get', 'regions', '--region', 'region-one', '--resources', `embedded:${db}`])).to.deep.equal({ code: 2, out: '', err: 'regent: --region applies to volumeclasses, flavors and images only, not regions\n' });
  });

  it('no Region in the namespace: "No resources found."', async () => {
    expect(await get('-n', 'empty')).to.deep.equal({ code: 0, out: 'No resources found.\n', err: '' });
  });
});
