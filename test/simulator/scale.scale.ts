/**
 * The simulator at scale: 10,000 servers, paged as Nova pages them. A scale test (`*.scale.ts`): run by
 * `npm run test:scale` (its own CI stage), not by `npm test` (issue 25).
 */
import { expect } from 'chai';
import type { AxiosResponse } from 'axios';
import { harness, http } from './helpers.js';
import type { Harness } from './helpers.js';

describe('simulator: scale', function () {
  this.timeout(60_000);
  let hs: Harness;
  before(async () => { hs = await harness(); });
  after(async () => { await hs.sim.close(); });

  it('holds 10,000 servers and pages through all of them with limit=1000 (the time is printed, never asserted)', async () => {
    const t0 = Date.now();
    const ids = hs.sim.control.createServers({ project: 'demo', count: 10_000, namePrefix: 'scale-', network: true });
    const seeded = Date.now() - t0;
    expect(ids).to.have.length(10_000);
    const h = await hs.h('demo', 'compute 2.96');
    const seen = new Set<string>();
    let pages = 0;
    const t1 = Date.now();
    let url: string | undefined = `${hs.nova}/servers/detail?limit=1000`;
    while (url) {
      const r: AxiosResponse = await http.get(url, { headers: h });
      expect(r.status).to.equal(200);
      for (const s of r.data.servers as Array<{ id: string }>) seen.add(s.id);
      pages++;
      url = r.data.servers_links?.[0]?.href;
    }
    const listed = Date.now() - t1;
    console.log(`      seeded 10,000 servers in ${seeded} ms; listed them in ${pages} pages (limit=1000) in ${listed} ms`);
    expect(seen.size).to.equal(10_000);
    // Nova adds a next link to every full page, so the walk ends on an empty eleventh page.
    expect(pages).to.equal(11);
  });
});
