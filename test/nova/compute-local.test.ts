/**
 * The embedded default's NovaCompute pool adapters (src/nova/compute/local.ts): the store's Nodes selected by labels,
 * one supervised nova-compute process per node as the pool's "DaemonSet", its configs as directories, no Hypervisor
 * kind. Real child processes: a stand-in `node -e` program instead of nova-compute (the real nova-compute is checked
 * here only as a command line; the real-OpenStack test boots it against a real Nova).
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeLauncherCode, novaComputeLauncher, type ComputeLauncher } from '../../src/nova/compute/compute-launcher.js';
import { LOCAL_HYPERVISORS_MESSAGE, LocalHypervisors, LocalNodeReader, LocalPoolWorkloads, localComputeCluster, type LocalPoolWorkloadsOptions, type StoredNode } from '../../src/nova/compute/local.js';
import { CONTRACT_HASH_ANNOTATION, ComputeClusterError, type PoolDaemonSetSpec } from '../../src/nova/compute/port.js';

const NS = 'openstack';
const POOL = 'pool-a';
const OWNER = { name: POOL, uid: 'uid-pool-a' };
const FRAGMENT = '[placement]\nauth_type = password\nusername = nova\n';
const SECRETS: Record<string, string> = {
  'nova-compute-config/transport_url': 'rabbit://nova:pw-bus-8e1f@127.0.0.1:5672/nova',
  'nova-compute-config/auth_url': 'http://127.0.0.1:5000/v3',
  'nova-compute-config/compute.conf': FRAGMENT,
  'nova-service-user/password': 'pw-service-user-51d7',
};
const SECRET_VALUES = ['pw-bus-8e1f', 'pw-service-user-51d7'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The stand-in: records each start (pid, time) in `<nodeDir>/starts`; FAKE_MODE=ignore-term ignores SIGTERM. */
const PROGRAM = `
const fs = require('node:fs');
fs.appendFileSync(process.argv[1], process.pid + ' ' + Date.now() + '\\n');
process.on('SIGTERM', () => { if (process.env.FAKE_MODE !== 'ignore-term') process.exit(0); });
console.log('stand-in nova-compute up, pid ' + process.pid);
setInterval(() => {}, 1e6);
`;
/** The real launcher's arguments after its `-c <program>`, given to the stand-in: the cmdline shows the config files. */
const standIn: ComputeLauncher = (input) => ({ command: process.execPath, args: ['-e', PROGRAM, join(input.nodeDir, 'starts'), ...novaComputeLauncher()(input).args.slice(2)] });

const specOf = (nodes: string[], extra: Partial<PoolDaemonSetSpec> = {}): PoolDaemonSetSpec => ({
  namespace: NS,
  pool: POOL,
  owner: OWNER,
  nova: 'nova',
  image: 'ghcr.io/c5c3/nova-compute:2025.1',
  config: { name: `${POOL}-config-abc123`, files: { 'compute-pool.conf': '[DEFAULT]\ncpu_allocation_ratio = 4.0\n' } },
  contractSecret: 'nova-compute-config',
  serviceUserSecret: 'nova-service-user',
  annotations: { [CONTRACT_HASH_ANNOTATION]: 'a'.repeat(64) },
  affinity: { selector: { labels: { pool: 'a' }, excluded: [] }, held: [] },
  nodes,
  ...extra,
});

const groupMembers = (pgid: number): number[] =>
  execFileSync('ps', ['-eo', 'pid=,pgid='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([pid, group]) => group === pgid && pid !== undefined && !Number.isNaN(pid))
    .map(([pid]) => pid!);

/** The pids whose command line names a file under `dir` (every process of the pool, whoever started it). */
const processesUnder = (dir: string): number[] =>
  readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
      } catch {
        return false;
      }
    })
    .map(Number);

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));

describe('local NovaCompute adapters', function () {
  this.timeout(30_000);

  describe('LocalNodeReader: the Node objects of the embedded store', () => {
    const nodes: StoredNode[] = [
      { metadata: { name: 'node-b', labels: { pool: 'a', 'topology.kubernetes.io/zone': 'az1' }, annotations: { note: 'x' } } },
      { metadata: { name: 'node-a', labels: { pool: 'a', 'topology.kubernetes.io/zone': 'az2' } } },
      { metadata: { name: 'node-c', labels: { pool: 'b' } } },
      { metadata: { name: 'node-d', labels: { pool: '' } } },
      { metadata: { name: 'node-e' } },
    ];
    const reader = new LocalNodeReader(async () => nodes);

    it('selects by label equality on every pair (sorted by name), an empty selector selects every Node', async () => {
      expect((await reader.list({ pool: 'a' })).map((n) => n.name)).to.deep.equal(['node-a', 'node-b']);
      expect((await reader.list({ pool: 'a', 'topology.kubernetes.io/zone': 'az1' })).map((n) => n.name)).to.deep.equal(['node-b']);
      expect((await reader.list({ pool: '' })).map((n) => n.name), 'an empty value matches only a label that is there and empty').to.deep.equal(['node-d']);
      expect((await reader.list({ pool: 'a', other: 'x' })).map((n) => n.name)).to.deep.equal([]);
      expect((await reader.list({})).map((n) => n.name)).to.deep.equal(['node-a', 'node-b', 'node-c', 'node-d', 'node-e']);
    });

    it('get: one Node with its labels and annotations (empty when absent), undefined when gone; a failed list is a ComputeClusterError', async () => {
      expect(await reader.get('node-b')).to.deep.equal({ name: 'node-b', labels: { pool: 'a', 'topology.kubernetes.io/zone': 'az1' }, annotations: { note: 'x' } });
      expect(await reader.get('node-e')).to.deep.equal({ name: 'node-e', labels: {}, annotations: {} });
      expect(await reader.get('gone')).to.equal(undefined);
      const failing = new LocalNodeReader(async () => {
        throw new Error('store closed');
      });
      const error = await failing.list({}).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ComputeClusterError);
      expect((error as Error).message).to.equal('cannot list the Nodes of the embedded store: store closed');
    });
  });

  describe('LocalHypervisors', () => {
    it('every read is notInstalled; a write is refused', async () => {
      const hypervisors = new LocalHypervisors();
      expect(await hypervisors.get('node-a')).to.deep.equal({ kind: 'notInstalled', message: 'the embedded default serves no kvm.cloud.sap/v1 Hypervisor kind (no hypervisor operator runs here)' });
      expect(LOCAL_HYPERVISORS_MESSAGE).to.contain('no hypervisor operator');
      const error = await hypervisors.setCustomTraits('node-a', ['CUSTOM_X']).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ComputeClusterError);
    });
  });

  describe('LocalPoolWorkloads: one supervised nova-compute per node', () => {
    let dir: string;
    let secrets: Record<string, string>;
    const opened: LocalPoolWorkloads[] = [];
    const open = (options: Partial<LocalPoolWorkloadsOptions> = {}): LocalPoolWorkloads => {
      const port = new LocalPoolWorkloads({ dir, readSecret: async (_ns, name, key) => secrets[`${name}/${key}`], launcher: standIn, readyAfterMs: 300, probeIntervalMs: 50, graceMs: 1_500, ...options });
      opened.push(port);
      return port;
    };
    const until = async (what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> => {
      for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(50)) if (await check()) return;
      throw new Error(`timed out waiting for ${what}`);
    };
    const nodeDir = (node: string) => join(dir, NS, POOL, 'nodes', node);
    const starts = (node: string): number[] => {
      try {
        return readFileSync(join(nodeDir(node), 'starts'), 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => Number(l.split(' ')[0]));
      } catch {
        return [];
      }
    };
    const pids = (port: LocalPoolWorkloads, nodes: string[]) => nodes.map((n) => port.pid(NS, POOL, n));

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'regent-compute-local-'));
      secrets = { ...SECRETS };
    });
    afterEach(async () => {
      for (const port of opened.splice(0)) await port.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('ensure starts one process per node with nova.conf, compute-pool.conf and regent-local.conf (host = the node); ready after the delay, then rolled out', async () => {
      const port = open();
      const status = await port.ensureDaemonSet(specOf(['node-b', 'node-a']));
      expect(status).to.deep.equal({ present: true, desiredNumberScheduled: 2, numberReady: 0, rolledOut: false, image: 'ghcr.io/c5c3/nova-compute:2025.1' });
      await until('both run', () => starts('node-a').length === 1 && starts('node-b').length === 1);
      const [a, b] = pids(port, ['node-a', 'node-b']);
      expect(a).to.be.a('number').and.not.equal(b);
      for (const node of ['node-a', 'node-b']) {
        const pid = port.pid(NS, POOL, node)!;
        const config = join(nodeDir(node), 'config');
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
        expect(cmdline.slice(-6)).to.deep.equal(['--config-file', join(config, 'nova.conf'), '--config-file', join(config, 'compute-pool.conf'), '--config-file', join(config, 'regent-local.conf')]);
        expect(readFileSync(join(config, 'nova.conf'), 'utf8')).to.equal(FRAGMENT);
        expect(readFileSync(join(config, 'compute-pool.conf'), 'utf8')).to.equal('[DEFAULT]\ncpu_allocation_ratio = 4.0\n');
        const local = readFileSync(join(config, 'regent-local.conf'), 'utf8');
        expect(local).to.contain(`[DEFAULT]\nhost = ${node}\ncompute_driver = fake.FakeDriver\nstate_path = ${join(nodeDir(node), 'state')}\n`);
        expect(local).to.contain(`[oslo_concurrency]\nlock_path = ${join(nodeDir(node), 'locks')}\n`);
        expect(local).to.not.contain('ssl_ca_file');
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        expect(environ).to.include(`OS_DEFAULT__TRANSPORT_URL=${SECRETS['nova-compute-config/transport_url']}`);
        expect(environ).to.include(`OS_PLACEMENT__PASSWORD=${SECRETS['nova-service-user/password']}`);
        expect(environ).to.include(`OS_SERVICE_USER__PASSWORD=${SECRETS['nova-service-user/password']}`);
        expect(environ).to.include(`HOME=${nodeDir(node)}`);
        expect(JSON.parse(readFileSync(join(nodeDir(node), 'process.json'), 'utf8'))).to.include({ pid });
      }
      expect(await port.podsOn(NS, POOL)).to.deep.equal(new Set(['node-a', 'node-b']));
      await until('both ready', async () => (await port.daemonSet(NS, POOL)).numberReady === 2);
      expect(await port.daemonSet(NS, POOL)).to.deep.equal({ present: true, desiredNumberScheduled: 2, numberReady: 2, rolledOut: true, image: 'ghcr.io/c5c3/nova-compute:2025.1' });
    });

    it('no Secret value is in any file under the data dir (configs, logs, records); config files are 0600', async () => {
      secrets['nova-compute-config/ca.crt'] = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
      const port = open();
      await port.ensureDaemonSet(specOf(['node-a']));
      await port.publishConfig(NS, OWNER, specOf([]).config);
      await until('ready', async () => (await port.daemonSet(NS, POOL)).rolledOut);
      const ca = join(nodeDir('node-a'), 'messaging-ca', 'ca.crt');
      expect(readFileSync(join(nodeDir('node-a'), 'config', 'regent-local.conf'), 'utf8')).to.contain(`[oslo_messaging_rabbit]\nssl_ca_file = ${ca}\n`);
      expect(statSync(ca).mode & 0o777).to.equal(0o400);
      const files = filesUnder(dir);
      expect(files.length).to.be.at.least(6);
      expect(files.some((f) => f.endsWith('nova-compute.log'))).to.equal(true);
      const onDisk = files.map((f) => readFileSync(f, 'utf8')).join('\n');
      expect(onDisk).to.contain('stand-in nova-compute up');
      for (const value of SECRET_VALUES) expect(onDisk).to.not.contain(value);
      for (const file of filesUnder(join(nodeDir('node-a'), 'config'))) expect(statSync(file).mode & 0o077, file).to.equal(0);
    });

    it('an unchanged ensure restarts nothing and rewrites no record; a template change (contract hash, image, config) restarts every node', async () => {
      const port = open();
      await port.ensureDaemonSet(specOf(['node-a', 'node-b']));
      await until('both run', () => starts('node-a').length === 1 && starts('node-b').length === 1);
      const first = pids(port, ['node-a', 'node-b']);
      const record = join(dir, NS, POOL, 'daemonset.json');
      const written = statSync(record).mtimeMs;
      await sleep(20);
      await port.ensureDaemonSet(specOf(['node-b', 'node-a']));
      expect(pids(port, ['node-a', 'node-b'])).to.deep.equal(first);
      expect(statSync(record).mtimeMs).to.equal(written);
      expect(starts('node-a')).to.have.length(1);

      const status = await port.ensureDaemonSet(specOf(['node-a', 'node-b'], { annotations: { [CONTRACT_HASH_ANNOTATION]: 'b'.repeat(64) } }));
      expect(status.rolledOut).to.equal(false);
      const second = pids(port, ['node-a', 'node-b']);
      expect(second[0]).to.not.equal(first[0]);
      expect(second[1]).to.not.equal(first[1]);
      for (const pid of first) expect(groupMembers(pid!), 'the old process is gone').to.deep.equal([]);
      await until('rolled out again', async () => (await port.daemonSet(NS, POOL)).rolledOut);

      await port.ensureDaemonSet(specOf(['node-a', 'node-b'], { annotations: { [CONTRACT_HASH_ANNOTATION]: 'b'.repeat(64) }, image: 'ghcr.io/c5c3/nova-compute:2025.2' }));
      expect(pids(port, ['node-a', 'node-b'])[0]).to.not.equal(second[0]);
      expect((await port.daemonSet(NS, POOL)).image).to.equal('ghcr.io/c5c3/nova-compute:2025.2');
      await until('the third start of node-a', () => starts('node-a').length === 3);
      const third = pids(port, ['node-a', 'node-b']);
      await port.ensureDaemonSet(specOf(['node-a', 'node-b'], { annotations: { [CONTRACT_HASH_ANNOTATION]: 'b'.repeat(64) }, image: 'ghcr.io/c5c3/nova-compute:2025.2', config: { name: `${POOL}-config-def456`, files: { 'compute-pool.conf': '[DEFAULT]\ncpu_allocation_ratio = 8.0\n' } } }));
      expect(pids(port, ['node-a', 'node-b'])[0]).to.not.equal(third[0]);
      expect(readFileSync(join(nodeDir('node-a'), 'config', 'compute-pool.conf'), 'utf8')).to.contain('8.0');
      await until('the fourth start of node-a', () => starts('node-a').length === 4);
      await sleep(100);
      expect(starts('node-a')).to.have.length(4);
    });

    it('a node dropped from spec.nodes loses its process; podsOn answers the nodes with a process among those asked', async () => {
      const port = open();
      await port.ensureDaemonSet(specOf(['node-a', 'node-b', 'node-c']));
      await until('three run', () => ['node-a', 'node-b', 'node-c'].every((n) => starts(n).length === 1));
      const dropped = port.pid(NS, POOL, 'node-b')!;
      const kept = port.pid(NS, POOL, 'node-a');
      expect(await port.podsOn(NS, POOL, ['node-b', 'node-x'])).to.deep.equal(new Set(['node-b']));
      const status = await port.ensureDaemonSet(specOf(['node-a', 'node-c']));
      expect(status.desiredNumberScheduled).to.equal(2);
      expect(groupMembers(dropped)).to.deep.equal([]);
      expect(port.pid(NS, POOL, 'node-b')).to.equal(undefined);
      expect(port.pid(NS, POOL, 'node-a')).to.equal(kept);
      expect(existsSync(join(nodeDir('node-b'), 'process.json'))).to.equal(false);
      expect(await port.podsOn(NS, POOL, ['node-b'])).to.deep.equal(new Set());
      expect(await port.podsOn(NS, POOL)).to.deep.equal(new Set(['node-a', 'node-c']));
      expect(await port.podsOn(NS, 'other-pool')).to.deep.equal(new Set());
    });

    it('a missing Secret or key refuses the ensure (names only) and leaves the running processes alone', async () => {
      const port = open();
      await port.ensureDaemonSet(specOf(['node-a']));
      await until('node-a runs', () => starts('node-a').length === 1);
      const pid = port.pid(NS, POOL, 'node-a');
      delete secrets['nova-service-user/password'];
      const error = await port.ensureDaemonSet(specOf(['node-a', 'node-b'], { annotations: { [CONTRACT_HASH_ANNOTATION]: 'c'.repeat(64) } })).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ComputeClusterError);
      expect((error as Error).message).to.equal('openstack/pool-a: cannot start nova-compute on node-a, node-b: key "password" of Secret openstack/nova-service-user does not exist (the Secret or the key is missing)');
      expect(port.pid(NS, POOL, 'node-a')).to.equal(pid);
      expect(port.pid(NS, POOL, 'node-b')).to.equal(undefined);
      secrets = { ...SECRETS };
      delete secrets['nova-compute-config/transport_url'];
      const fresh = await port.ensureDaemonSet(specOf(['node-a'], { pool: 'pool-b', owner: { name: 'pool-b', uid: 'u' } })).catch((e: unknown) => e);
      expect((fresh as Error).message).to.equal('openstack/pool-b: cannot start nova-compute on node-a: key "transport_url" of Secret openstack/nova-compute-config does not exist (the Secret or the key is missing)');
      expect(await port.podsOn(NS, 'pool-b')).to.deep.equal(new Set());
      expect(await port.daemonSet(NS, 'pool-b')).to.include({ present: true, numberReady: 0, rolledOut: false });
    });

    it('a Regent that died leaves processes: the next one on the same dir stops them first (not adopted) and its ensure starts exactly one per node', async () => {
      // the earlier Regent: its supervisor would restart a process only after a minute, as if it were gone
      const earlier = open({ backoff: { initialMs: 60_000, maxMs: 60_000, resetAfterMs: 60_000 } });
      await earlier.ensureDaemonSet(specOf(['node-a', 'node-b']));
      await until('both run', () => starts('node-a').length === 1 && starts('node-b').length === 1);
      const leftovers = pids(earlier, ['node-a', 'node-b']);
      expect(processesUnder(join(dir, NS, POOL)).sort()).to.deep.equal([...leftovers].sort());
      const next = open();
      expect(await next.daemonSet(NS, POOL), 'the recorded DaemonSet stays, nothing of it runs').to.deep.equal({ present: true, desiredNumberScheduled: 2, numberReady: 0, rolledOut: false, image: 'ghcr.io/c5c3/nova-compute:2025.1' });
      for (const pid of leftovers) expect(groupMembers(pid!)).to.deep.equal([]);
      expect(await next.podsOn(NS, POOL)).to.deep.equal(new Set());
      await next.ensureDaemonSet(specOf(['node-a', 'node-b']));
      await until('both run again', () => starts('node-a').length === 2 && starts('node-b').length === 2);
      await next.ensureDaemonSet(specOf(['node-a', 'node-b']));
      await sleep(200);
      const running = processesUnder(join(dir, NS, POOL));
      expect(running.sort(), 'one process per pool and node').to.deep.equal(pids(next, ['node-a', 'node-b']).sort());
      await until('rolled out', async () => (await next.daemonSet(NS, POOL)).rolledOut);
    });

    it('leader-scoped (the control plane): a standby starting on the data dir stops nothing; lead() stops what another replica runs; resign stops every node process', async () => {
      const slow = { backoff: { initialMs: 60_000, maxMs: 60_000, resetAfterMs: 60_000 } };
      const leader = open({ leaderScoped: true, ...slow });
      await leader.lead();
      await leader.ensureDaemonSet(specOf(['node-a']));
      await until('node-a runs', () => starts('node-a').length === 1);
      const first = leader.pid(NS, POOL, 'node-a')!;
      const standby = open({ leaderScoped: true, ...slow });
      await sleep(300);
      expect(groupMembers(first), "a standby's start leaves the leader's process alone").to.not.deep.equal([]);
      await standby.lead();
      expect(groupMembers(first), "the new leader stopped the old leader's process").to.deep.equal([]);
      await standby.ensureDaemonSet(specOf(['node-a']));
      await until('node-a runs under the new leader', () => starts('node-a').length === 2);
      const second = standby.pid(NS, POOL, 'node-a')!;
      await leader.resign();
      expect(groupMembers(second), "the old leader's resign leaves the new leader's process").to.not.deep.equal([]);
      await standby.resign();
      expect(groupMembers(second), 'resign stops every node process').to.deep.equal([]);
    });

    it('publishConfig writes a config once and keeps the three newest', async () => {
      const port = open();
      const config = (hash: string) => ({ name: `${POOL}-config-${hash}`, files: { 'compute-pool.conf': `# ${hash}\n` } });
      const configs = () => readdirSync(join(dir, NS, POOL, 'configs')).filter((e) => e.startsWith(POOL)).sort();
      expect(await port.publishConfig(NS, OWNER, config('h1'))).to.equal(true);
      expect(await port.publishConfig(NS, OWNER, config('h1'))).to.equal(false);
      expect(readFileSync(join(dir, NS, POOL, 'configs', `${POOL}-config-h1`, 'compute-pool.conf'), 'utf8')).to.equal('# h1\n');
      await port.publishConfig(NS, OWNER, config('h2'));
      await port.publishConfig(NS, OWNER, config('h3'));
      expect(configs()).to.deep.equal([`${POOL}-config-h1`, `${POOL}-config-h2`, `${POOL}-config-h3`]);
      // h1 published again: the newest, so h2 is the oldest when h4 comes
      expect(await port.publishConfig(NS, OWNER, config('h1'))).to.equal(false);
      expect(await port.publishConfig(NS, OWNER, config('h4'))).to.equal(true);
      expect(configs()).to.deep.equal([`${POOL}-config-h1`, `${POOL}-config-h3`, `${POOL}-config-h4`]);
      const published = JSON.parse(readFileSync(join(dir, NS, POOL, 'configs', 'published.json'), 'utf8')) as { published: Array<{ name: string }> };
      expect(published.published.map((p) => p.name)).to.deep.equal([`${POOL}-config-h4`, `${POOL}-config-h1`, `${POOL}-config-h3`]);
      const error = await port.publishConfig(NS, OWNER, { name: 'other-config-h1', files: {} }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ComputeClusterError);
      const badFile = await port.publishConfig(NS, OWNER, { name: `${POOL}-config-h5`, files: { '../x': '' } }).catch((e: unknown) => e);
      expect(badFile).to.be.instanceOf(ComputeClusterError);
    });

    it('deleteDaemonSet stops every process of the pool; removeAll also removes the configs and the directory, naming what went', async () => {
      const port = open();
      expect(await port.deleteDaemonSet(NS, POOL)).to.equal(false);
      await port.ensureDaemonSet(specOf(['node-a', 'node-b']));
      await until('both run', () => starts('node-a').length === 1 && starts('node-b').length === 1);
      const running = pids(port, ['node-a', 'node-b']);
      expect(await port.deleteDaemonSet(NS, POOL)).to.equal(true);
      for (const pid of running) expect(groupMembers(pid!)).to.deep.equal([]);
      expect(await port.daemonSet(NS, POOL)).to.deep.equal({ present: false, desiredNumberScheduled: 0, numberReady: 0, rolledOut: false, image: null });
      expect(await port.podsOn(NS, POOL)).to.deep.equal(new Set());

      await port.ensureDaemonSet(specOf(['node-a']));
      await port.publishConfig(NS, OWNER, specOf([]).config);
      await until('node-a runs', () => starts('node-a').length === 2);
      const pid = port.pid(NS, POOL, 'node-a')!;
      expect(await port.removeAll(NS, POOL)).to.deep.equal(['DaemonSet/pool-a-nova-compute', 'ConfigMap/pool-a-config-abc123']);
      expect(groupMembers(pid)).to.deep.equal([]);
      expect(existsSync(join(dir, NS, POOL))).to.equal(false);
      expect(await port.removeAll(NS, POOL)).to.deep.equal([]);
    });

    it('close stops every process: SIGTERM, then SIGKILL after the grace for one that ignores it', async () => {
      const port = open({ graceMs: 600, env: { FAKE_MODE: 'ignore-term' } });
      await port.ensureDaemonSet(specOf(['node-a', 'node-b']));
      await until('both run', () => starts('node-a').length === 1 && starts('node-b').length === 1);
      const running = pids(port, ['node-a', 'node-b']);
      const began = Date.now();
      await port.close();
      expect(Date.now() - began).to.be.at.least(600);
      for (const pid of running) expect(groupMembers(pid!)).to.deep.equal([]);
      expect(readFileSync(join(nodeDir('node-a'), 'nova-compute.log'), 'utf8')).to.contain('did not stop within 600 ms of SIGTERM: SIGKILL');
      expect(existsSync(join(nodeDir('node-a'), 'process.json'))).to.equal(false);
    });

    it('names that are not DNS-1123 are refused before anything is written', async () => {
      const port = open();
      for (const spec of [specOf(['../etc']), specOf(['node-a'], { pool: 'Pool' }), specOf(['node-a'], { namespace: 'a/b' })]) {
        const error = await port.ensureDaemonSet(spec).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(ComputeClusterError);
        expect((error as ComputeClusterError).status).to.equal(422);
      }
      expect(readdirSync(dir)).to.deep.equal([]);
    });

    it('localComputeCluster wires the three adapters', async () => {
      const cluster = localComputeCluster({ dir, readSecret: async () => undefined, listNodes: async () => [{ metadata: { name: 'n1', labels: { a: 'b' } } }], launcher: standIn });
      opened.push(cluster.workloads);
      expect((await cluster.nodes.list({ a: 'b' })).map((n) => n.name)).to.deep.equal(['n1']);
      expect((await cluster.hypervisors.get('n1')).kind).to.equal('notInstalled');
      expect(await cluster.workloads.daemonSet(NS, POOL)).to.include({ present: false });
    });
  });

  describe('the nova-compute launcher (the installed python3-nova)', () => {
    it('runs /usr/bin/python3 -c <launcher> with nova.conf, compute-pool.conf, then regent-local.conf', () => {
      const configFiles = ['/d/nodes/n1/config/nova.conf', '/d/nodes/n1/config/compute-pool.conf', '/d/nodes/n1/config/regent-local.conf'];
      const launch = novaComputeLauncher()({ node: 'n1', nodeDir: '/d/nodes/n1', configFiles });
      expect(launch.command).to.equal('/usr/bin/python3');
      expect(launch.args).to.deep.equal(['-c', computeLauncherCode(), '--config-file', configFiles[0], '--config-file', configFiles[1], '--config-file', configFiles[2]]);
      expect(computeLauncherCode()).to.contain('from nova.cmd.compute import main').and.contain('sys.argv[0] = "nova-compute"').and.contain('prctl(1, 15)');
      expect(novaComputeLauncher({ python: '/opt/nova/bin/python3' })({ node: 'n1', nodeDir: '/d', configFiles }).command).to.equal('/opt/nova/bin/python3');
    });
  });
});
