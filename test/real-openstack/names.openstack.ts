/**
 * Fuzzy name filters against real Nova: `GET /servers?name=` is an unanchored MySQL REGEXP (for members
 * too), so `name=web` also returns `web-2` and `name=web.1` returns `webx1`. Regent's lookups send the name
 * anchored and escaped and post-filter exactly; two servers with one exact name are a consistency error,
 * at the client and through the provider's observation. All names carry the run prefix, so results are
 * filtered to it (other runs' servers may match an unanchored pattern too).
 */
import { expect } from 'chai';
import { ConsistencyError, NotFound } from '../../src/openstack/errors.js';
import { observeServer } from '../../src/provider/servers.js';
import { realRun, type RealRun } from './support/run.js';

const rejectionOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a rejection'); }, (error: unknown) => error);

describe("fuzzy name filters against real Nova (exact post-filter, duplicates)", function () {
  let run: RealRun;
  const ids: Record<string, string> = {};
  const n = (suffix: string): string => run.name(suffix);

  before(async () => {
    run = await realRun();
    for (const suffix of ['web', 'web-2', 'webx1', 'web.1', 'dup', 'dup']) {
      const server = await run.bootServer(suffix);
      ids[suffix === 'dup' && ids.dup !== undefined ? 'dup2' : suffix] = server.id;
    }
  });

  /** The raw Nova filter's answer, restricted to this run's servers, as suffixes. */
  const raw = async (pattern: string): Promise<string[]> =>
    (await run.tenant.nova.listServers({ name: pattern }))
      .map((s) => s.name)
      .filter((name) => name.startsWith(`${run.prefix}-`))
      .map((name) => name.slice(run.prefix.length + 1))
      .sort();

  it('name=<prefix>-web (unanchored) returns web, web-2, webx1 and web.1', async () => {
    expect(await raw(n('web'))).to.deep.equal(['web', 'web-2', 'web.1', 'webx1']);
  });

  it('name=web-2 without the prefix still finds <prefix>-web-2: the match is not anchored at the start either', async () => {
    expect(await raw('web-2')).to.deep.equal(['web-2']);
  });

  it('name=<prefix>-web.1 returns webx1 too: the dot is a regex wildcard', async () => {
    expect(await raw(n('web.1'))).to.deep.equal(['web.1', 'webx1']);
  });

  it('the exact lookup (anchored, escaped, post-filtered) finds only the exact name', async () => {
    expect((await run.tenant.nova.findServerByName(n('web'))).id).to.equal(ids.web);
    expect((await run.tenant.nova.findServerByName(n('web.1'))).id).to.equal(ids['web.1']);
    expect((await run.tenant.nova.lookupServerByName(n('webx1')))?.id).to.equal(ids.webx1);
    expect(await rejectionOf(run.tenant.nova.findServerByName(n('we')))).to.be.instanceOf(NotFound);
    expect(await run.tenant.nova.lookupServerByName(n('web.'))).to.equal(undefined);
  });

  it('case: whatever the database collation does with name=, the exact lookup of an upper-cased name finds nothing', async () => {
    const upper = n('web-2').toUpperCase();
    const folded = await raw(upper);
    // MySQL's default collation compares case-insensitively; recorded, not relied on.
    expect(folded.length === 0 || folded.includes('web-2')).to.equal(true);
    expect(await run.tenant.nova.lookupServerByName(upper)).to.equal(undefined);
  });

  it('two servers with one exact name: find and lookup are a ConsistencyError naming both ids; the provider refuses to pick one', async () => {
    const error = await rejectionOf(run.tenant.nova.findServerByName(n('dup')));
    expect(error).to.be.instanceOf(ConsistencyError);
    expect((error as Error).message).to.contain(ids.dup).and.to.contain(ids.dup2);
    expect(await rejectionOf(run.tenant.nova.lookupServerByName(n('dup')))).to.be.instanceOf(ConsistencyError);
    expect(await rejectionOf(observeServer(run.tenant, n('dup'), 'any-owner'))).to.be.instanceOf(ConsistencyError);
  });
});
