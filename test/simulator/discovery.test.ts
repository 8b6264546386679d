import { expect } from 'chai';
import { harness, http } from './helpers.js';
import type { Harness } from './helpers.js';

describe('simulator: version discovery and common headers', () => {
  let hs: Harness;
  before(async () => { hs = await harness(); });
  after(async () => { await hs.sim.close(); });

  it('serves each service root without a token, as the real services do', async () => {
    const u = (p: string) => `${hs.sim.url}${p}`;
    const keystone = await http.get(u('/identity'));
    expect(keystone.status).to.equal(300);
    expect(keystone.data.versions.values[0].id).to.equal('v3.14');
    const nova = await http.get(u('/compute'));
    const v21 = nova.data.versions.find((v: { id: string }) => v.id === 'v2.1');
    expect(v21).to.include({ version: '2.96', min_version: '2.1', status: 'CURRENT' });
    expect((await http.get(u('/volume'))).data.versions[0]).to.include({ version: '3.70', min_version: '3.0' });
    expect((await http.get(u('/placement'))).data.versions[0]).to.include({ max_version: '1.39', min_version: '1.0' });
    expect((await http.get(u('/baremetal'))).data.default_version).to.include({ version: '1.81' });
    expect((await http.get(u('/network'))).data.versions[0].id).to.equal('v2.0');
    expect((await http.get(u('/image'))).status).to.equal(300);
    expect((await http.get(u('/load-balancer'))).status).to.equal(200);
  });

  it('puts X-Openstack-Request-Id on every response, errors and 401s included', async () => {
    const h = await hs.h('demo');
    const responses = await Promise.all([
      http.get(`${hs.sim.url}/compute/v2.1/servers`, { headers: h }),
      http.get(`${hs.sim.url}/compute/v2.1/servers/nope`, { headers: h }),
      http.get(`${hs.sim.url}/compute/v2.1/servers`),
      http.get(`${hs.sim.url}/network/v2.0/ports`, { headers: h }),
      http.get(`${hs.sim.url}/identity/v3/auth/catalog`, { headers: h }),
      http.get(`${hs.sim.url}/_sim/clock`),
    ]);
    for (const r of responses) expect(r.headers['x-openstack-request-id'], r.config.url).to.match(/^req-[0-9a-f-]{36}$/);
    expect(responses[1]?.data).to.deep.equal({ itemNotFound: { code: 404, message: 'Instance nope could not be found.' } });
    expect(responses[2]?.status).to.equal(401);
    expect(responses[2]?.headers['www-authenticate']).to.contain('/identity');
  });

  it('records each call\'s microversion headers (and no other header) in the call log', async () => {
    const h = await hs.h('demo');
    await http.get(`${hs.sim.url}/compute/v2.1/flavors`, { headers: { ...h, 'OpenStack-API-Version': 'compute 2.90', 'X-OpenStack-Nova-API-Version': '2.90' } });
    await http.get(`${hs.sim.url}/compute/v2.1/flavors/detail`, { headers: h });
    const [pinned, plain] = hs.sim.calls({ pathIncludes: '/compute/v2.1/flavors' });
    expect(pinned?.versions).to.deep.equal({ 'OpenStack-API-Version': 'compute 2.90', 'X-OpenStack-Nova-API-Version': '2.90' });
    expect(plain).to.not.have.property('versions');
    expect(JSON.stringify(hs.sim.calls())).to.not.contain(h['X-Auth-Token']);
    expect(JSON.stringify(hs.sim.calls()), 'passwords are redacted from logged bodies').to.not.contain(hs.sim.credentials.demo.password);
  });
});
