/**
 * `npm run bench:images`: the image cache of issue 16 against the simulator's Glance with 1,000 images and
 * 200 ms of Glance latency injected on every image read (a simulator delay fault). A script, never a timed
 * test: the figures are printed, with the uncached call measured in the same run beside them (ratios).
 *
 *   uncached  an image query straight to Glance: list (one page of 1,000) + validate + translate + filter
 *   cached    the same query through ImageInventory's refresh-ahead cache, reads spread over a few refresh
 *             periods so background refreshes happen while callers read; a tenth of the reads are gets
 *
 * Printed: the cache hit ratio (reads answered from the snapshot without waiting / all reads, the cold load
 * included), p50/p99 of the query through the cache and uncached, and their ratios.
 * Options (environment): BENCH_IMAGES (1000), BENCH_LATENCY_MS (200), BENCH_UNCACHED (20),
 * BENCH_DURATION_MS (6000), BENCH_REFRESH_MS (1000), BENCH_STALE_MS (5000).
 */
import { performance } from 'node:perf_hooks';
import { startSimulator } from '../src/simulator/index.js';
import { createImage } from '../src/simulator/glance/images.js';
import { connect } from '../src/openstack/session.js';
import { cloudFromYaml } from '../src/openstack/keystone/clouds-config.js';
import { classifyImage, glanceImageOf, ImageInventory, matchesQuery, type ImageQuery } from '../src/provider/inventory/images.js';

const num = (name: string, fallback: number): number => (process.env[name] !== undefined ? Number(process.env[name]) : fallback);
const IMAGES = num('BENCH_IMAGES', 1000);
const LATENCY_MS = num('BENCH_LATENCY_MS', 200);
const UNCACHED = num('BENCH_UNCACHED', 20);
const DURATION_MS = num('BENCH_DURATION_MS', 6000);
const REFRESH_MS = num('BENCH_REFRESH_MS', 1000);
const STALE_MS = num('BENCH_STALE_MS', 5000);

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
const summary = (samples: number[]) => {
  const s = [...samples].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN };
};
const ms = (v: number): string => `${v.toFixed(v < 10 ? 3 : 1)} ms`;
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

const sim = await startSimulator({ clock: 'real', seed: false });
try {
  const distros = ['ubuntu', 'debian', 'rocky', 'flatcar'];
  const ids: string[] = [];
  for (let i = 0; i < IMAGES; i++) {
    const distro = distros[i % distros.length] ?? 'ubuntu';
    const img = createImage(sim.control.sim, {
      name: `image-${String(i).padStart(4, '0')}`,
      owner: 'bench',
      visibility: 'public',
      containerFormat: 'bare',
      diskFormat: 'qcow2',
      tags: i % 10 === 0 ? ['gpu'] : [],
      properties: {
        os_type: 'linux',
        os_distro: distro,
        os_version: `${20 + (i % 5)}.04`,
        architecture: i % 3 === 0 ? 'aarch64' : 'x86_64',
        'regent.dev:package:kubernetes': `1.${28 + (i % 4)}.0`,
        ...(i % 10 === 0 ? { 'regent.dev:gpu:vendor': 'NVIDIA', 'regent.dev:gpu:models': 'H100' } : {}),
      },
      data: Buffer.from(`image ${i}`),
    });
    ids.push(img.id);
  }
  const os = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'), { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 30_000 });
  await os.glance.listImages({}, { pageSize: 1000 }); // token and connection warm, before the latency is on
  sim.control.addFault({ method: 'GET', path: '/v2/images', delayMs: LATENCY_MS, count: null });
  const query: ImageQuery = { architecture: 'x86_64', distro: 'ubuntu' };

  // uncached: what every caller would pay without the cache
  const uncached: number[] = [];
  let uncachedCount = 0;
  for (let i = 0; i < UNCACHED; i++) {
    const t0 = performance.now();
    const listing = await os.glance.listImages({}, { pageSize: 1000 });
    uncachedCount = listing.map((o) => classifyImage(glanceImageOf(o), {})).filter((e) => e.exported && matchesQuery(e.image, query)).length;
    uncached.push(performance.now() - t0);
  }

  // cached: the same query through the inventory, reads spread over several refresh periods
  const inventory = new ImageInventory({ glance: os.glance, config: { cache: { refreshAfterMs: REFRESH_MS, staleAfterMs: STALE_MS } } });
  const cached: number[] = [];
  const gets: number[] = [];
  let cachedCount = 0;
  const end = performance.now() + DURATION_MS;
  let n = 0;
  while (performance.now() < end) {
    const t0 = performance.now();
    if (n % 10 === 9) {
      await inventory.get(ids[(n * 7919) % ids.length] ?? '');
      gets.push(performance.now() - t0);
    } else {
      cachedCount = (await inventory.query(query)).images.length;
      cached.push(performance.now() - t0);
    }
    n++;
    if (n % 50 === 0) await sleep(5); // let background refreshes' I/O in, as a server's event loop would
  }
  const status = inventory.cacheStatus();
  if (!status) throw new Error('cache disabled');
  const { hits, misses, refreshes, failedRefreshes } = status.stats;
  const u = summary(uncached);
  const c = summary(cached);
  const g = summary(gets);
  if (cachedCount !== uncachedCount) throw new Error(`the cached query found ${cachedCount} images, the uncached one ${uncachedCount}`);

  console.log(`image cache: ${IMAGES} images in the simulator's Glance, ${LATENCY_MS} ms injected on every image read, refreshAfter ${REFRESH_MS} ms, staleAfter ${STALE_MS} ms`);
  console.log(`  query (architecture x86_64, distro ubuntu → ${cachedCount} images)`);
  console.log(`  uncached   n=${u.n}  p50 ${ms(u.p50)}  p99 ${ms(u.p99)}  max ${ms(u.max)}`);
  console.log(`  cached     n=${c.n}  p50 ${ms(c.p50)}  p99 ${ms(c.p99)}  max ${ms(c.max)} (the cold load)   (gets n=${g.n} p50 ${ms(g.p50)} p99 ${ms(g.p99)})`);
  console.log(`  ratio uncached/cached  p50 ${(u.p50 / c.p50).toFixed(0)}×  p99 ${(u.p99 / c.p99).toFixed(0)}×`);
  console.log(`  hit ratio ${((hits / (hits + misses)) * 100).toFixed(3)}% (${hits} hits, ${misses} misses incl. the cold load; ${refreshes} refreshes, ${failedRefreshes} failed)`);
} finally {
  await sim.close();
}
