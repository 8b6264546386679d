/**
 * The image inventory's shell over HTTP against the simulator's Glance (src/provider/inventory/images.ts,
 * image-cache.ts): Glance calls counted in the simulator's call log, time on the simulator's manual clock,
 * latency and failures injected with its faults. Each title is the rule it proves.
 */
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { startSimulator, SEED, type RunningSimulator } from '../../../src/simulator/index.js';
import { createImage as simCreateImage } from '../../../src/simulator/glance/images.js';
import { connect, type OpenStackSession } from '../../../src/openstack/session.js';
import { cloudFromYaml } from '../../../src/openstack/keystone/clouds-config.js';
import { NotFound, ServerError } from '../../../src/openstack/errors.js';
import type { Logger } from '../../../src/log/logger.js';
import { ImageExcluded, ImageInventory, ImagesUnavailable, type ImageInventoryConfig, type ImageOperation } from '../../../src/provider/inventory/images.js';
import { PROP } from '../../../src/provider/inventory/image-properties.js';
import { signImage } from '../../../src/provider/inventory/image-signature.js';

const OS = { os_type: 'linux', os_distro: 'rocky', os_version: '9.4' };
const REFRESH = 1_000;
const STALE = 5_000;

interface Logged {
  level: string;
  message: string;
  meta: Record<string, unknown>;
}

const capturingLogger = (): { logger: Logger; logs: Logged[] } => {
  const logs: Logged[] = [];
  const at = (level: string) => (message: string, meta: Record<string, unknown> = {}) => void logs.push({ level, message, meta });
  return { logger: { warn: at('warn'), info: at('info'), error: at('error'), debug: at('debug') } as unknown as Logger, logs };
};

const settle = (ms = 20) => new Promise((r) => setTimeout(r, ms));

describe('image inventory over HTTP (simulator Glance)', function () {
  let sim: RunningSimulator;
  let os: OpenStackSession;
  let logs: Logged[];
  let logger: Logger;

  before(async () => {
    sim = await startSimulator({ clock: 'manual' });
  });
  after(async () => sim.close());
  beforeEach(async () => {
    sim.control.reset();
    sim.control.clearFaults();
    os = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'), { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 10_000 });
    ({ logger, logs } = capturingLogger());
  });

  /** Glance list calls (GET /v2/images, any query), as the simulator saw them. */
  const listCalls = () => sim.calls({ method: 'GET', pathIncludes: '/v2/images' }).filter((c) => /\/v2\/images$/.test(c.path)).length;
  const glanceCalls = () => sim.calls().filter((c) => c.path.includes('/image/')).length;
  const inventory = (config: ImageInventoryConfig = { cache: { refreshAfterMs: REFRESH, staleAfterMs: STALE } }) =>
    new ImageInventory({ glance: os.glance, nova: os.nova, config, now: () => sim.clock.now(), logger });
  /** An image put straight into the simulator's Glance, behind the cache's back. */
  const seedImage = (name: string, properties: Record<string, string> = OS, visibility = 'public') =>
    simCreateImage(sim.control.sim, { name, owner: 'someone', visibility, containerFormat: 'bare', diskFormat: 'qcow2', properties, data: Buffer.from(name) }).id;

  describe('translation of what Glance holds', () => {
    it('the seeded images are exported, translated, with their explicit architectures', async () => {
      const { images, excluded } = await inventory().query();
      expect(excluded).to.deep.equal([]);
      expect(images.map((i) => [i.name, i.architecture, i.os.distro, i.os.version, i.ownership.scope])).to.deep.equal([
        ['cirros-0.6.2-x86_64-disk', 'x86_64', 'cirros', '0.6.2', 'public'],
        ['debian-12', 'aarch64', 'debian', '12', 'public'],
        ['ubuntu-22.04', 'x86_64', 'ubuntu', '22.04', 'public'],
      ]);
    });

    it('an image with invalid properties is excluded from the query, with the property and what was wrong', async () => {
      const id = seedImage('broken', { os_type: 'linux', os_version: '1', architecture: 'ppc64le' });
      const inv = inventory();
      const { images, excluded } = await inv.query();
      expect(images.map((i) => i.id)).not.to.include(id);
      expect(excluded).to.deep.equal([{ id, name: 'broken', reasons: ['architecture is "ppc64le", expected one of x86_64, aarch64', 'os_distro is missing (required)'] }]);
      const error = await inv.get(id).then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(ImageExcluded);
      expect((error as ImageExcluded).message).to.include('os_distro is missing (required)');
    });

    it('without an architecture property the configured default applies', async () => {
      const id = seedImage('noarch');
      const inv = inventory({ defaultArchitecture: 'aarch64', cache: { refreshAfterMs: REFRESH, staleAfterMs: STALE } });
      expect((await inv.get(id)).architecture).to.equal('aarch64');
    });

    it('with a signing key, unsigned public images are excluded and the signed one is exported', async () => {
      const keys = generateKeyPairSync('ed25519', { publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
      const id = seedImage('signed');
      const img = sim.control.sim.glance.images.get(id);
      if (!img) throw new Error('seeded image missing');
      img.properties[PROP.signature] = signImage({ id, name: 'signed', tags: [], properties: img.properties }, keys.privateKey);
      const privateId = seedImage('private-unsigned', OS, 'private');
      const { images, excluded } = await inventory({ signingKeyPem: keys.publicKey, cache: { refreshAfterMs: REFRESH, staleAfterMs: STALE } }).query();
      expect(images.map((i) => [i.id, i.signed])).to.deep.equal([[privateId, false], [id, true]]);
      expect(excluded.map((e) => e.name).sort()).to.deep.equal(['cirros-0.6.2-x86_64-disk', 'debian-12', 'ubuntu-22.04']);
      expect(excluded[0]?.reasons).to.deep.equal([`${PROP.signature} is missing: a public image must be signed by the Region's signing key`]);
    });
  });

  describe('the refresh-ahead cache', () => {
    it('once warm, queries and gets cost no Glance call', async () => {
      const inv = inventory();
      await inv.query();
      const before = glanceCalls();
      await inv.query();
      await inv.get(SEED.images.ubuntu);
      await inv.query({ architecture: 'aarch64' });
      expect(glanceCalls()).to.equal(before);
      expect(inv.cacheStatus()?.stats).to.include({ hits: 3, misses: 1, refreshes: 1 });
    });

    it('a read younger than refreshAfterMs starts no refresh; from refreshAfterMs one background refresh, shared by concurrent reads', async () => {
      const inv = inventory();
      await inv.query();
      sim.clock.advance(REFRESH - 1);
      await inv.query();
      expect(listCalls()).to.equal(1);
      sim.clock.advance(1);
      await Promise.all([inv.query(), inv.query(), inv.get(SEED.images.cirros)]);
      await settle();
      expect(listCalls()).to.equal(2);
      expect(inv.cacheStatus()?.ageMs).to.equal(0);
    });

    it('warm reads never wait on Glance: a read in the refresh-ahead window answers while the slow refresh is still in flight', async () => {
      const inv = inventory();
      await inv.query();
      const added = seedImage('new-behind-the-back');
      sim.control.addFault({ method: 'GET', path: '/v2/images\\?', delayMs: 1_500, count: 1 });
      sim.clock.advance(REFRESH);
      const { images } = await inv.query();
      // answered from the old snapshot, and the refresh it started has not come back yet
      expect(images.map((i) => i.id)).not.to.include(added);
      expect(inv.cacheStatus()?.refreshing).to.equal(true);
      await inv.refresh();
      expect((await inv.query()).images.map((i) => i.id)).to.include(added);
    });

    it(`the staleness bound: no read is served from a snapshot older than staleAfterMs (${STALE} ms) while Glance answers`, async () => {
      const inv = inventory();
      await inv.query();
      const added = seedImage('appears-later');
      // no read during the refresh-ahead window: the snapshot ages up to the bound untouched
      sim.clock.advance(STALE - 1);
      // just inside the bound: served from the snapshot (and a refresh starts in the background)
      sim.control.addFault({ method: 'GET', path: '/v2/images\\?', delayMs: 300, count: 1 });
      expect((await inv.query()).images.map((i) => i.id)).not.to.include(added);
      await inv.refresh();
      sim.clock.advance(STALE);
      // past the bound: the read waits for fresh data and sees the image
      const listsBefore = listCalls();
      expect((await inv.query()).images.map((i) => i.id)).to.include(added);
      expect(listCalls()).to.equal(listsBefore + 1);
      expect(inv.cacheStatus()?.ageMs).to.equal(0);
    });

    it('keepWarm refreshes an idle cache on a timer, so it does not reach the bound without a read', async () => {
      // real time here: keepWarm is the timer the control plane runs
      const inv = new ImageInventory({ glance: os.glance, config: { cache: { refreshAfterMs: 40, staleAfterMs: 400 } }, logger });
      await inv.query();
      const stop = inv.keepWarm();
      try {
        await settle(200);
      } finally {
        stop();
      }
      expect(inv.cacheStatus()?.stats.refreshes).to.be.at.least(3);
      expect(listCalls()).to.equal(inv.cacheStatus()?.stats.refreshes);
    });

    it('a failed refresh keeps serving the last good snapshot, logs it, and keeps the typed error in the status', async () => {
      const inv = inventory();
      const first = await inv.query();
      sim.control.addFault({ method: 'GET', path: '/v2/images\\?', status: 503, count: null });
      sim.clock.advance(REFRESH);
      expect(await inv.query()).to.deep.equal(first);
      await settle(100);
      const status = inv.cacheStatus();
      expect(status?.lastError).to.be.instanceOf(ServerError);
      expect(status?.stats.failedRefreshes).to.equal(1);
      expect(logs.filter((l) => l.level === 'warn').map((l) => l.message)).to.deep.equal(['image cache: refresh failed; still serving the last good snapshot']);
      // past the bound with Glance still failing: the last good snapshot is all there is, served (and logged)
      sim.clock.advance(STALE);
      expect(await inv.query()).to.deep.equal(first);
      expect(logs.filter((l) => l.level === 'warn')).to.have.length(2);
      // Glance back: the next refresh clears the error
      sim.control.clearFaults();
      await inv.refresh();
      expect(inv.cacheStatus()?.lastError).to.equal(undefined);
    });

    it('a cold cache whose load fails throws Glance typed error (nothing to serve)', async () => {
      sim.control.addFault({ method: 'GET', path: '/v2/images\\?', status: 500, count: 1 });
      const error = await inventory().query().then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(ServerError);
      expect((error as ServerError).service).to.equal('image');
      expect(logs.map((l) => l.message)).to.deep.equal(['image cache: the first load failed; no snapshot to serve yet']);
    });

    it('a get of an id the snapshot lacks asks Glance once (a miss) and holds what it found; an unknown id is NotFound', async () => {
      const inv = inventory();
      await inv.query();
      const added = seedImage('created-elsewhere');
      expect((await inv.get(added)).name).to.equal('created-elsewhere');
      const gets = sim.calls({ method: 'GET' }).filter((c) => c.path.endsWith(`/v2/images/${added}`)).length;
      await inv.get(added);
      expect(sim.calls({ method: 'GET' }).filter((c) => c.path.endsWith(`/v2/images/${added}`)).length).to.equal(gets);
      const error = await inv.get('00000000-0000-4000-a000-00000000dead').then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(NotFound);
    });
  });

  describe('writes go through the cache', () => {
    it('create: the new image is in the cache at once, without a refresh', async () => {
      const inv = inventory();
      await inv.query();
      const entry = await inv.create({ name: 'uploaded', diskFormat: 'qcow2', containerFormat: 'bare', properties: OS });
      const lists = listCalls();
      const { images } = await inv.query({ activeOnly: false });
      expect(images.map((i) => i.id)).to.include(entry.id);
      expect((await inv.get(entry.id)).status).to.equal('queued');
      expect(listCalls()).to.equal(lists);
    });

    it('delete: the image leaves the cache at once; deleting an image Glance no longer has is success', async () => {
      const inv = inventory();
      await inv.query();
      await inv.delete(SEED.images.debian);
      expect((await inv.query()).images.map((i) => i.id)).not.to.include(SEED.images.debian);
      expect(sim.control.sim.glance.images.has(SEED.images.debian)).to.equal(false);
      await inv.delete(SEED.images.debian);
    });

    it('snapshot: Nova creates the image and the cache holds it, read back from Glance', async () => {
      const inv = inventory();
      await inv.query();
      const small = (await os.nova.findFlavorByName('m1.small')).id;
      const { id: serverId } = await os.nova.createServer({ name: 'snap-src', imageRef: SEED.images.ubuntu, flavorRef: small, networks: 'none' });
      sim.control.advance(60_000);
      await inv.refresh();
      const entry = await inv.snapshot(serverId, 'snap-1', { ...OS, [PROP.organization]: 'org1' });
      if (!entry.exported) expect.fail(entry.excluded.reasons.join('; '));
      expect(entry.image.ownership).to.deep.equal({ scope: 'organization', organizationId: 'org1' });
      expect((await inv.query({ activeOnly: false })).images.map((i) => i.id)).to.include(entry.id);
      expect(sim.calls({ method: 'POST' }).filter((c) => c.action === 'createImage')).to.have.length(1);
    });

    it('a write during an in-flight refresh is not undone by the older listing it returns', async () => {
      // The listing is answered by Glance first, then held "in transit" until the writes are done: the
      // simulator's delay fault sleeps before it answers, which would list the writes already.
      let release: () => void = () => undefined;
      const inTransit = new Promise<void>((r) => (release = r));
      let listed = false;
      const glance = {
        ...os.glance,
        listImages: async (...args: Parameters<typeof os.glance.listImages>) => {
          const answer = await os.glance.listImages(...args);
          listed = true;
          await inTransit;
          return answer;
        },
      };
      const inv = new ImageInventory({ glance, config: { cache: { refreshAfterMs: REFRESH, staleAfterMs: STALE } }, now: () => sim.clock.now(), logger });
      const cold = inv.refresh();
      while (!listed) await settle(5);
      // the listing in flight still shows debian and lacks the new image
      await inv.delete(SEED.images.debian);
      const created = await inv.create({ name: 'during-refresh', diskFormat: 'qcow2', containerFormat: 'bare', properties: OS });
      release();
      await cold;
      const ids = (await inv.query({ activeOnly: false })).images.map((i) => i.id);
      expect(ids).not.to.include(SEED.images.debian);
      expect(ids).to.include(created.id);
    });
  });

  describe('with caching disabled the image operations are unavailable, not silently slow', () => {
    const ops: Array<[ImageOperation, (inv: ImageInventory) => Promise<unknown>]> = [
      ['query', (inv) => inv.query()],
      ['get', (inv) => inv.get(SEED.images.ubuntu)],
      ['create', (inv) => inv.create({ name: 'x', diskFormat: 'qcow2', containerFormat: 'bare' })],
      ['delete', (inv) => inv.delete(SEED.images.ubuntu)],
      ['snapshot', (inv) => inv.snapshot('server', 'snap')],
    ];
    for (const [operation, run] of ops) {
      it(`${operation} throws ImagesUnavailable and calls nothing`, async () => {
        const before = glanceCalls();
        const error = await run(inventory({ cache: false })).then(() => undefined, (e: unknown) => e);
        expect(error).to.be.instanceOf(ImagesUnavailable);
        expect(error).to.include({ operation, reason: 'image-cache-disabled' });
        expect(glanceCalls()).to.equal(before);
        expect(sim.control.sim.glance.images.has(SEED.images.ubuntu)).to.equal(true);
      });
    }
  });
});
