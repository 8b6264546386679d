import { expect } from 'chai';
import util from 'node:util';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { EndpointNotFound, Unauthorized } from '../../src/openstack/errors.js';
import type { CloudConfig } from '../../src/openstack/keystone/clouds-config.js';
import { connect, connectFromEnvironment } from '../../src/openstack/session.js';
import { FAST_RETRY, captureLogs, cloudFor, connectAs, fault, rejectionOf, simApi, start } from './support/sim.js';

describe('keystone over HTTP (simulator)', function () {
  this.timeout(20_000);
  let sim: RunningSimulator;
  before(async () => {
    sim = await start({ seed: false });
  });
  after(async () => {
    await sim.close();
  });
  beforeEach(async () => {
    await simApi(sim, 'POST', '/reset');
  });

  it('password auth issues a project-scoped token whose catalog selects every service by type', async () => {
    const os = await connectAs(sim, 'demo');
    expect(os.projectId).to.equal(sim.credentials.demo.projectId);
    expect(os.initialToken.roles).to.include('member');
    expect(os.endpoint('compute')).to.equal(`${sim.url}/compute/v2.1`);
    expect(os.endpoint('block-storage')).to.equal(`${sim.url}/volume/v3/${sim.credentials.demo.projectId}`);
    expect(os.endpoint('image')).to.equal(`${sim.url}/image/v2`);
    expect(os.endpoint('network')).to.equal(`${sim.url}/network/v2.0`);
    expect(os.endpoint('load-balancer')).to.equal(`${sim.url}/load-balancer/v2`);
    expect(os.endpoint('placement')).to.equal(`${sim.url}/placement`);
    expect(os.endpoint('baremetal')).to.equal(`${sim.url}/baremetal/v1`);
    expect(os.endpoint('identity')).to.equal(`${sim.url}/identity/v3`);
    expect(sim.calls({ method: 'POST', pathIncludes: '/auth/tokens' })).to.have.length(1);
  });

  it('a region the catalog does not have is EndpointNotFound on first use', async () => {
    const os = await connect({ ...cloudFor(sim, 'demo'), regionName: 'RegionTwo' }, { retry: FAST_RETRY });
    expect(() => os.nova).to.throw(EndpointNotFound, /region RegionTwo/);
  });

  it('the interface is honoured (internal)', async () => {
    const os = await connect({ ...cloudFor(sim, 'demo'), interface: 'internal' }, { retry: FAST_RETRY });
    expect(os.endpoint('compute')).to.equal(`${sim.url}/compute/v2.1`);
  });

  it('a domain-scoped token has no project endpoints for Cinder', async () => {
    const cloud: CloudConfig = { ...cloudFor(sim, 'admin'), scope: { kind: 'domain', domain: { name: 'Default' } } };
    const os = await connect(cloud, { retry: FAST_RETRY });
    expect(os.initialToken.domain?.id).to.equal('default');
    expect(os.projectId).to.equal(undefined);
    expect(() => os.endpoint('block-storage')).to.throw(EndpointNotFound);
  });

  it('application credentials authenticate by id and by name + user, scoped to their project', async () => {
    const demo = await connectAs(sim, 'demo');
    const created = await demo.http('identity').post(`/users/${sim.credentials.demo.userId}/application_credentials`, {
      application_credential: { name: 'regent', secret: 'app-cred-secret-0001' },
    });
    const id = (created.data as { application_credential: { id: string } }).application_credential.id;
    const byId: CloudConfig = { ...cloudFor(sim, 'demo'), auth: { type: 'application-credential', credential: { id }, secret: 'app-cred-secret-0001' }, scope: { kind: 'unscoped' } };
    const os1 = await connect(byId, { retry: FAST_RETRY });
    expect(os1.projectId).to.equal(sim.credentials.demo.projectId);
    expect(os1.initialToken.methods).to.deep.equal(['application_credential']);
    const byName: CloudConfig = {
      ...byId, auth: { type: 'application-credential', credential: { name: 'regent', user: { name: 'demo', domain: { name: 'Default' } } }, secret: 'app-cred-secret-0001' },
    };
    expect((await connect(byName, { retry: FAST_RETRY })).projectId).to.equal(sim.credentials.demo.projectId);
  });

  it('a wrong application-credential secret is Unauthorized and the secret appears nowhere', async () => {
    const logs = captureLogs();
    const secret = 'not-the-secret-QWERTY-987';
    const cloud: CloudConfig = { ...cloudFor(sim, 'demo'), auth: { type: 'application-credential', credential: { id: 'no-such-credential' }, secret }, scope: { kind: 'unscoped' } };
    const error = await rejectionOf(connect(cloud, { retry: FAST_RETRY, logger: logs.logger }));
    expect(error).to.be.instanceOf(Unauthorized);
    for (const text of [(error as Error).message, (error as Error).stack ?? '', JSON.stringify(error), util.inspect(error, { depth: 10 }), logs.text()]) {
      expect(text).to.not.contain(secret);
    }
  });

  it('a wrong password is Unauthorized, and neither the password nor any token leaks into the error or the logs', async () => {
    const logs = captureLogs();
    const password = 'wrong-password-XYZZY-123';
    const cloud = cloudFor(sim, 'demo');
    const bad: CloudConfig = { ...cloud, auth: { ...(cloud.auth as Extract<CloudConfig['auth'], { type: 'password' }>), password } };
    const error = await rejectionOf(connect(bad, { retry: FAST_RETRY, logger: logs.logger }));
    expect(error).to.be.instanceOf(Unauthorized);
    const e = error as Unauthorized;
    expect(e.status).to.equal(401);
    expect(e.method).to.equal('POST');
    expect(e.path).to.equal('/identity/v3/auth/tokens');
    expect(e.requestId).to.match(/^req-/);
    for (const text of [e.message, e.stack ?? '', JSON.stringify(e), util.inspect(e, { depth: 10 }), logs.text()]) {
      expect(text).to.not.contain(password);
    }
    expect(logs.text()).to.contain('/identity/v3/auth/tokens');
  });

  it('an expired token is refused (401), re-issued exactly once, and the call retried once', async () => {
    const os = await connectAs(sim, 'demo');
    await os.http('identity').get('/auth/projects');
    await simApi(sim, 'POST', '/clock/advance', { ms: 2 * 3_600_000 });
    const response = await os.http('identity').get('/auth/projects');
    expect(response.status).to.equal(200);
    expect(sim.calls({ method: 'POST', pathIncludes: '/auth/tokens' })).to.have.length(2);
    expect(sim.calls({ method: 'GET', pathIncludes: '/auth/projects' }).map((c) => c.status)).to.deep.equal([200, 401, 200]);
    expect(os.keystone.issueCount).to.equal(2);
  });

  it('a 401 that persists after the one re-auth is Unauthorized (no loop)', async () => {
    const os = await connectAs(sim, 'demo');
    await fault(sim, { method: 'GET', path: '/identity/v3/auth/projects', status: 401, count: 5 });
    const error = await rejectionOf(os.http('identity').get('/auth/projects'));
    expect(error).to.be.instanceOf(Unauthorized);
    expect(sim.calls({ method: 'GET', pathIncludes: '/auth/projects' })).to.have.length(2);
    expect(sim.calls({ method: 'POST', pathIncludes: '/auth/tokens' })).to.have.length(2);
  });

  it('the token is refreshed a little before expires_at, on our clock, without a 401', async () => {
    let now = Date.now();
    const os = await connectAs(sim, 'demo', { now: () => now, refreshMarginMs: 60_000 });
    await os.http('identity').get('/auth/projects');
    now += 3_600_000 - 120_000; // still before the refresh point
    await os.http('identity').get('/auth/projects');
    expect(os.keystone.issueCount).to.equal(1);
    now += 90_000; // inside the 60 s margin
    await os.http('identity').get('/auth/projects');
    expect(os.keystone.issueCount).to.equal(2);
    expect(sim.calls({ method: 'GET', pathIncludes: '/auth/projects' }).every((c) => c.status === 200)).to.equal(true);
  });

  it('concurrent callers after an expiry share one re-auth', async () => {
    const os = await connectAs(sim, 'demo');
    await simApi(sim, 'POST', '/clock/advance', { ms: 2 * 3_600_000 });
    await Promise.all([1, 2, 3, 4, 5].map(() => os.http('identity').get('/auth/projects')));
    expect(os.keystone.issueCount).to.equal(2);
    expect(sim.calls({ method: 'POST', pathIncludes: '/auth/tokens' })).to.have.length(2);
  });
});

describe('connectFromEnvironment (simulator)', () => {
  it('reads OS_CLOUD and OS_CLIENT_CONFIG_FILE through the reader and connects', async () => {
    const sim = await start({ seed: false });
    try {
      const os = await connectFromEnvironment({
        env: { OS_CLOUD: 'sim-other', OS_CLIENT_CONFIG_FILE: '/virtual/clouds.yaml' },
        readFile: (path) => Promise.resolve(path === '/virtual/clouds.yaml' ? sim.cloudsYaml() : undefined),
        retry: FAST_RETRY,
      });
      expect(os.cloud.cloudName).to.equal('sim-other');
      expect(os.projectId).to.equal(sim.credentials.other.projectId);
    } finally {
      await sim.close();
    }
  });
});
