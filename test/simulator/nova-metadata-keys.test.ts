import { expect } from 'chai';
import { SEED } from '../../src/simulator/index.js';
import { bootServer, harness, http } from './helpers.js';
import type { Harness } from './helpers.js';

/**
 * Nova's metadata key pattern, as the real Zed sandbox answers it (docs/simulator-differences.md #5): a key
 * outside ^[a-zA-Z0-9-_:. ]{1,255}$ is a 400 on create, rebuild and the metadata calls, and nothing changes.
 */
describe('simulator: Nova metadata keys are validated as Nova validates them', () => {
  let hs: Harness;
  beforeEach(async () => { hs = await harness(); });
  afterEach(async () => { await hs.sim.close(); });

  const realMessage = "Invalid input for field/attribute metadata. Value: {'regent.dev/uid': 'x'}. 'regent.dev/uid' does not match any of the regexes: '^[a-zA-Z0-9-_:. ]{1,255}$'";

  it("create with {'regent.dev/uid': 'x'} is a 400 worded as real Nova words it, and no server is created", async () => {
    const headers = await hs.h('demo', 'compute 2.96');
    const r = await http.post(`${hs.nova}/servers`, { server: { name: 'meta-slash', imageRef: SEED.images.cirros, flavorRef: '1', networks: 'auto', metadata: { 'regent.dev/uid': 'x' } } }, { headers });
    expect(r.status).to.equal(400);
    expect(r.data.badRequest).to.deep.equal({ code: 400, message: realMessage });
    const list = await http.get(`${hs.nova}/servers?name=meta-slash`, { headers });
    expect(list.data.servers).to.deep.equal([]);
  });

  it("keys with ':' '.' '-' '_' and spaces are accepted (regent.dev:uid)", async () => {
    const id = await bootServer(hs, 'demo', 'meta-ok', { metadata: { 'regent.dev:uid': 'x', 'a-b_c d.e': 'y' } });
    hs.advance(300);
    const md = await http.get(`${hs.nova}/servers/${id}/metadata`, { headers: await hs.h('demo') });
    expect(md.data.metadata).to.deep.equal({ 'regent.dev:uid': 'x', 'a-b_c d.e': 'y' });
  });

  it('rebuild, POST/PUT metadata and PUT metadata/{key} refuse a bad key and change nothing', async () => {
    const id = await bootServer(hs, 'demo', 'meta-later', { metadata: { keep: 'me' } });
    hs.advance(300);
    const headers = await hs.h('demo', 'compute 2.96');
    const rebuild = await http.post(`${hs.nova}/servers/${id}/action`, { rebuild: { imageRef: SEED.images.ubuntu, metadata: { 'regent.dev/uid': 'x' } } }, { headers });
    expect(rebuild.status).to.equal(400);
    expect(rebuild.data.badRequest.message).to.equal(realMessage);
    const server = await http.get(`${hs.nova}/servers/${id}`, { headers });
    expect(server.data.server.image.id).to.equal(SEED.images.cirros);
    expect(server.data.server['OS-EXT-STS:task_state']).to.equal(null);
    for (const [method, path, body] of [
      ['post', `/servers/${id}/metadata`, { metadata: { 'a/b': 'x' } }],
      ['put', `/servers/${id}/metadata`, { metadata: { 'a/b': 'x' } }],
      ['put', `/servers/${id}/metadata/a%2Fb`, { meta: { 'a/b': 'x' } }],
    ] as const) {
      const r = await http.request({ method, url: `${hs.nova}${path}`, data: body, headers });
      expect(r.status, `${method} ${path}`).to.equal(400);
      expect(r.data.badRequest.message).to.match(/'a\/b' does not match any of the regexes/);
    }
    const md = await http.get(`${hs.nova}/servers/${id}/metadata`, { headers });
    expect(md.data.metadata).to.deep.equal({ keep: 'me' });
  });

  it("a value longer than 255 characters is a 400 on create and rebuild (Nova's maxLength), worded as Nova's validator words it; 255 is accepted", async () => {
    const headers = await hs.h('demo', 'compute 2.96');
    const long = 'v'.repeat(256);
    const create = await http.post(`${hs.nova}/servers`, { server: { name: 'meta-long', imageRef: SEED.images.cirros, flavorRef: '1', networks: 'auto', metadata: { 'regent.dev:k': long } } }, { headers });
    expect(create.status).to.equal(400);
    expect(create.data.badRequest.message).to.equal(`Invalid input for field/attribute regent.dev:k. Value: ${long}. '${long}' is too long`);
    expect((await http.get(`${hs.nova}/servers?name=meta-long`, { headers })).data.servers).to.deep.equal([]);
    const id = await bootServer(hs, 'demo', 'meta-255', { metadata: { 'regent.dev:k': 'v'.repeat(255) } });
    hs.advance(300);
    const rebuild = await http.post(`${hs.nova}/servers/${id}/action`, { rebuild: { imageRef: SEED.images.ubuntu, metadata: { 'regent.dev:k': long } } }, { headers });
    expect(rebuild.status).to.equal(400);
    expect((await http.get(`${hs.nova}/servers/${id}/metadata`, { headers })).data.metadata).to.deep.equal({ 'regent.dev:k': 'v'.repeat(255) });
  });
});
