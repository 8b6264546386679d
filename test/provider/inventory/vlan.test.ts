/**
 * The VLAN allocator (src/provider/inventory/vlan.ts over machines/vlan-allocation.ts; issue 16, "VLAN
 * allocation") through a real Engine on a sqlite file: durable (the ledger is the event stream: a fresh
 * engine over the reopened file gives the same network the same id), never two networks with one id while
 * two processes race on one store, kept after a failed create, released on delete, exhaustion a typed error
 * naming the range, and `regent vlan leaks`.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Engine } from '../../../src/engine/engine.js';
import { openStore } from '../../../src/store/open.js';
import type { EventStore } from '../../../src/store/port.js';
import { createProductRegistry } from '../../../machines/index.js';
import { neutronSegmentation, providerNetworkSettingsOf, VlanAllocator, VlanExhausted, VlanLedgerMismatch, vlanAllocationStream, vlanLeaks } from '../../../src/provider/inventory/vlan.js';
import { formatVlanLeaks } from '../../../src/cli/commands/vlan.js';
import { validateRegion, type Region } from '../../../src/resources/region.js';

const REGION = '6f1c0000-0000-4000-8000-000000000001';
const settings = { physicalNetwork: 'physnet1', vlan: { minID: 100, maxID: 103 } };

describe('VLAN allocator on a sqlite store', function () {
  this.timeout(60_000);
  let dir: string;
  let url: string;
  const opened: EventStore[] = [];
  const open = async () => {
    const store = await openStore(url);
    opened.push(store);
    return { store, allocator: new VlanAllocator(new Engine({ store, registry: createProductRegistry() })) };
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-vlan-'));
    url = `sqlite:${join(dir, 'regent.db')}`;
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads the Region's openstack.network.providerNetworks", () => {
    const region = validateRegion({
      apiVersion: 'regent.dev/v1alpha1', kind: 'Region', metadata: { name: 'r', namespace: 'default' },
      spec: { provider: 'openstack', openstack: { endpoint: 'http://127.0.0.1:1/v3', region: 'RegionOne', credentialsSecretRef: { name: 's' }, network: { providerNetworks: { physicalNetwork: 'physnet1', vlan: { minID: 100, maxID: 103 } } } } },
    });
    if (!region.ok) expect.fail(JSON.stringify(region));
    expect(providerNetworkSettingsOf((region.value as Region).spec.openstack)).to.deep.equal(settings);
  });

  it('V1 the allocation is an event on vlan-allocation-<region uid>-<physnet>, and the Neutron body carries it', async () => {
    const { store, allocator } = await open();
    const a = await allocator.allocate(REGION, settings, 'net-a', 'default/net-a');
    expect(a).to.deep.equal({ network: 'net-a', physicalNetwork: 'physnet1', segmentationId: 100, fresh: true });
    const events = await store.readStream(vlanAllocationStream(REGION, 'physnet1'));
    expect(events.map((e) => [e.type, e.revision, (e.data as unknown as { network: string }).network])).to.deep.equal([['vlanAllocation.allocated', 0, 'net-a']]);
    expect(neutronSegmentation(a)).to.deep.equal({ 'provider:network_type': 'vlan', 'provider:physical_network': 'physnet1', 'provider:segmentation_id': 100 });
  });

  it('V2 durable: after a crash (the store closed, a fresh engine over the same file) the network gets the same id back, and nothing new is stored', async () => {
    const first = await open();
    await first.allocator.allocate(REGION, settings, 'net-a');
    await first.allocator.allocate(REGION, settings, 'net-b');
    await first.store.close();
    opened.splice(opened.indexOf(first.store), 1);
    const { store, allocator } = await open();
    expect(await allocator.allocate(REGION, settings, 'net-b')).to.deep.include({ segmentationId: 101, fresh: false });
    expect(await allocator.allocate(REGION, settings, 'net-c')).to.deep.include({ segmentationId: 102, fresh: true });
    expect((await store.readStream(vlanAllocationStream(REGION, 'physnet1'))).length).to.equal(3);
  });

  it('V2 durable across a real crash: a process SIGKILLed right after its allocations; a fresh engine gives them back, unchanged', async () => {
    await open();
    const child = runRacer([url, REGION, 'physnet1', '100', '103', 'crashed', '2', 'hold']);
    await child.line((l) => l === 'ready');
    child.send('go');
    const report = JSON.parse(await child.line((l) => l.startsWith('{'))) as { allocations: { network: string; id: number }[] };
    child.kill();
    await child.closed;
    const { store, allocator } = await open();
    const before = (await store.readStream(vlanAllocationStream(REGION, 'physnet1'))).length;
    for (const a of report.allocations) expect(await allocator.allocate(REGION, settings, a.network)).to.deep.include({ segmentationId: a.id, fresh: false });
    expect((await store.readStream(vlanAllocationStream(REGION, 'physnet1'))).length).to.equal(before);
    expect((await allocator.allocate(REGION, settings, 'after-crash')).segmentationId).to.equal(102);
  });

  it('V3 exhaustion is VlanExhausted naming the physical network and the range; nothing is stored', async () => {
    const { store, allocator } = await open();
    const small = { physicalNetwork: 'physnet1', vlan: { minID: 7, maxID: 8 } };
    await allocator.allocate(REGION, small, 'a');
    await allocator.allocate(REGION, small, 'b');
    const error = await allocator.allocate(REGION, small, 'c').then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(VlanExhausted);
    expect((error as VlanExhausted).message).to.equal('no free VLAN id on physical network physnet1: the range 7-8 is exhausted (2 of 2 ids held)');
    expect((error as VlanExhausted).reason).to.equal('VlanRangeExhausted');
    expect((await store.readStream(vlanAllocationStream(REGION, 'physnet1'))).length).to.equal(2);
  });

  it('V4 a failed Neutron create keeps the id on the network: the next network gets another id, the failed one its own again', async () => {
    const { allocator } = await open();
    await allocator.allocate(REGION, settings, 'net-a');
    await allocator.createFailed(REGION, 'physnet1', 'net-a', 'Neutron 409: Unable to create the network. The VLAN 100 on physical network physnet1 is in use.');
    expect((await allocator.allocate(REGION, settings, 'net-b')).segmentationId).to.equal(101);
    expect((await allocator.allocate(REGION, settings, 'net-a')).segmentationId).to.equal(100);
    expect((await allocator.holdings(REGION, 'physnet1'))[0]).to.deep.include({ network: 'net-a', id: 100, createFailures: 1 });
  });

  it('V5 a deleted network releases its id, which the next network may take; V6 a second release returns nothing', async () => {
    const { allocator } = await open();
    await allocator.allocate(REGION, settings, 'net-a');
    await allocator.allocate(REGION, settings, 'net-b');
    expect(await allocator.release(REGION, 'physnet1', 'net-a')).to.equal(100);
    expect(await allocator.release(REGION, 'physnet1', 'net-a')).to.equal(null);
    expect((await allocator.allocate(REGION, settings, 'net-c')).segmentationId).to.equal(100);
  });

  it('V7 each physical network has its own ledger; the same network name on two physnets holds two ids', async () => {
    const { allocator } = await open();
    expect((await allocator.allocate(REGION, settings, 'n')).segmentationId).to.equal(100);
    expect((await allocator.allocate(REGION, { ...settings, physicalNetwork: 'physnet2' }, 'n')).segmentationId).to.equal(100);
    expect((await allocator.ledgers()).map((l) => [l.stream, l.physicalNetwork])).to.deep.equal([
      [vlanAllocationStream(REGION, 'physnet1'), 'physnet1'],
      [vlanAllocationStream(REGION, 'physnet2'), 'physnet2'],
    ]);
    expect(VlanLedgerMismatch).to.be.a('function');
  });

  it('regent vlan leaks: the held ids whose network no longer exists, and its printer', async () => {
    const { allocator } = await open();
    await allocator.allocate(REGION, settings, 'net-a', 'default/a');
    await allocator.allocate(REGION, settings, 'net-b', 'default/b');
    await allocator.allocate(REGION, { ...settings, physicalNetwork: 'physnet2' }, 'net-c');
    const leaks = vlanLeaks(await allocator.ledgers(), ['net-a']);
    expect(leaks).to.deep.equal([
      { stream: vlanAllocationStream(REGION, 'physnet1'), physicalNetwork: 'physnet1', segmentationId: 101, network: 'net-b', networkName: 'default/b' },
      { stream: vlanAllocationStream(REGION, 'physnet2'), physicalNetwork: 'physnet2', segmentationId: 100, network: 'net-c', networkName: null },
    ]);
    expect(vlanLeaks(await allocator.ledgers(), ['net-a', 'net-b', 'net-c'])).to.deep.equal([]);
    const table = formatVlanLeaks(leaks, 'table').split('\n');
    expect(table[0]!.split(/\s+/)).to.deep.equal(['PHYSICAL', 'NETWORK', 'VLAN', 'NETWORK', 'UID', 'NETWORK', 'STREAM']);
    expect(table[1]!.split(/\s+/)).to.deep.equal(['physnet1', '101', 'net-b', 'default/b', vlanAllocationStream(REGION, 'physnet1')]);
    expect(JSON.parse(formatVlanLeaks(leaks, 'json'))).to.deep.equal(leaks);
    expect(formatVlanLeaks([], 'table')).to.equal('no VLAN leaks: every held id belongs to an existing network');
  });

  it('never two networks with one id: two processes race on one sqlite store until the range is exhausted', async () => {
    // warm the file (schema) so both children open an existing store
    const { allocator } = await open();
    const range = { min: 1, max: 150 };
    // Every attempt must be correct; at least one must show the processes raced (an append lost to the other),
    // which scheduling on a busy machine does not promise for any single attempt. Each attempt is its own ledger.
    const attempts: string[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const region = `${REGION}-race-${attempt}`;
      const racers = ['left', 'right'].map((name) => runRacer([url, region, 'physnet1', String(range.min), String(range.max), name, '100']));
      await Promise.all(racers.map((r) => r.line((l) => l === 'ready')));
      racers.forEach((r) => r.send('go'));
      const reports = await Promise.all(racers.map(async (r) => JSON.parse(await r.line((l) => l.startsWith('{'))) as { name: string; allocations: { network: string; id: number }[]; exhausted: number; conflicts: number }));
      const all = reports.flatMap((r) => r.allocations);
      // 200 creates for 150 ids: every id handed out exactly once, the other 50 creates told the range is exhausted
      expect(all.length, `attempt ${attempt}`).to.equal(150);
      expect(new Set(all.map((a) => a.id)).size, `attempt ${attempt}`).to.equal(150);
      expect(reports.reduce((n, r) => n + r.exhausted, 0), `attempt ${attempt}`).to.equal(50);
      // the ledger agrees with what the processes were told
      const held = await allocator.holdings(region, 'physnet1');
      expect(Object.fromEntries(held.map((h) => [h.network, h.id])), `attempt ${attempt}`).to.deep.equal(Object.fromEntries(all.map((a) => [a.network, a.id])));
      attempts.push(JSON.stringify(reports.map((r) => [r.name, r.conflicts, r.allocations.length])));
      // proof that they raced rather than took turns: both allocated, and appends were lost to the other
      if (reports.every((r) => r.allocations.length > 0) && reports.reduce((n, r) => n + r.conflicts, 0) > 0) return;
    }
    expect.fail(`three attempts and the two processes never raced (name, lost appends, allocations): ${attempts.join(' ')}`);
  });
});

const RACER = fileURLToPath(new URL('./fixtures/vlan-racer.ts', import.meta.url));

/** A child process (node --import tsx) speaking in lines; killed by its pid if the test gives up on it. */
const runRacer = (args: readonly string[]) => {
  const child = spawn(process.execPath, ['--import', 'tsx', RACER, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const waiters: Array<{ match: (l: string) => boolean; resolve: (l: string) => void }> = [];
  createInterface({ input: child.stdout }).on('line', (l) => {
    lines.push(l);
    for (const w of [...waiters]) {
      if (!w.match(l)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(l);
    }
  });
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    closed,
    kill: () => child.kill('SIGKILL'),
    send: (l: string) => child.stdin.write(`${l}\n`),
    line: (match: (l: string) => boolean, timeoutMs = 40_000) =>
      new Promise<string>((resolve, reject) => {
        const seen = lines.find(match);
        if (seen !== undefined) return resolve(seen);
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`racer sent no matching line within ${timeoutMs} ms; stderr: ${stderr}`));
        }, timeoutMs);
        child.on('close', () => {
          clearTimeout(timer);
          const late = lines.find(match);
          if (late !== undefined) resolve(late);
          else reject(new Error(`racer exited; stderr: ${stderr}`));
        });
        waiters.push({
          match,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
      }),
  };
};

describe('regent vlan leaks (the registered command, over a sqlite store and an embedded resource source)', function () {
  this.timeout(60_000);
  it('prints the held ids whose Network resource is gone, and exits 1; none left, exit 0', async () => {
    const { Command } = await import('commander');
    const { registerVlanCommands } = await import('../../../src/cli/commands/vlan.js');
    const { openEmbeddedSource } = await import('../../../src/kube/embedded/store.js');
    const { applyManifests } = await import('../../../src/kube/cli/manifests.js');
    const dir = mkdtempSync(join(tmpdir(), 'regent-vlan-cli-'));
    const storeUrl = `sqlite:${join(dir, 'regent.db')}`;
    const resources = `embedded:${join(dir, 'resources.db')}`;
    try {
      const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
      await applyManifests(source, 'apiVersion: regent.dev/v1alpha1\nkind: Network\nmetadata: { name: net-a }\nspec: { identityRef: { name: acme }, prefix: 10.0.0.0/24 }\n');
      const uid = (await source.get('Network', 'default', 'net-a'))!.metadata.uid;
      await source.close();
      const store = await openStore(storeUrl);
      const allocator = new VlanAllocator(new Engine({ store, registry: createProductRegistry() }));
      await allocator.allocate(REGION, settings, uid, 'default/net-a');
      await allocator.allocate(REGION, settings, 'gone-uid', 'default/net-gone');
      await store.close();

      const run = async () => {
        const program = new Command('regent').option('--store <url>').exitOverride();
        registerVlanCommands(program, () => program.opts());
        const printed: string[] = [];
        const log = console.log;
        console.log = (line: string) => printed.push(line);
        process.exitCode = undefined;
        try {
          await program.parseAsync(['--store', storeUrl, 'vlan', 'leaks', '--resources', resources, '-o', 'json'], { from: 'user' });
        } finally {
          console.log = log;
        }
        const code = process.exitCode;
        process.exitCode = undefined;
        return { leaks: JSON.parse(printed.join('\n')) as Array<{ network: string; segmentationId: number }>, code };
      };
      const first = await run();
      expect(first.leaks.map((l) => [l.network, l.segmentationId])).to.deep.equal([['gone-uid', 101]]);
      expect(first.code).to.equal(1);
      const again = await openStore(storeUrl);
      await new VlanAllocator(new Engine({ store: again, registry: createProductRegistry() })).release(REGION, 'physnet1', 'gone-uid');
      await again.close();
      const second = await run();
      expect(second.leaks).to.deep.equal([]);
      expect(second.code).to.equal(undefined);
      // a missing resource store is an error, never "every allocation leaks"
      const program = new Command('regent').option('--store <url>').exitOverride();
      registerVlanCommands(program, () => program.opts());
      const missing = await program.parseAsync(['--store', storeUrl, 'vlan', 'leaks', '--resources', `embedded:${join(dir, 'nope.db')}`], { from: 'user' }).then(() => undefined, (e: unknown) => e);
      expect((missing as Error).message).to.equal(`no resource store at ${join(dir, 'nope.db')} (pass --resources embedded:<path> or kubernetes)`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
