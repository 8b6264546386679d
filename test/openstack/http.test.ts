import { expect } from 'chai';
import net from 'node:net';
import util from 'node:util';
import type { RunningSimulator } from '../../src/simulator/index.js';
import {
  BadRequest, Conflict, Forbidden, NotFound, OverLimit, RequestFailed, ServerError, Timeout, Unauthorized, UnexpectedStatus,
} from '../../src/openstack/errors.js';
import type { OpenStackError } from '../../src/openstack/errors.js';
import { HttpSession } from '../../src/openstack/http.js';
import { rebuildServer } from '../../src/openstack/nova/actions.js';
import { deleteServer } from '../../src/openstack/nova/servers.js';
import { captureLogs, connectAs, fault, rejectionOf, simApi, start } from './support/sim.js';

const PROJECTS = '/identity/v3/auth/projects';

describe('the shared HTTP session (simulator)', function () {
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

  const statusTable: Array<[number, new (...a: never[]) => OpenStackError, number]> = [
    [400, BadRequest, 1],
    [403, Forbidden, 1],
    [404, NotFound, 1],
    [409, Conflict, 1],
    [413, OverLimit, 1],
    [422, BadRequest, 1],
    [500, ServerError, 3],
    [503, ServerError, 3],
    [504, Timeout, 3],
    [418, UnexpectedStatus, 1],
  ];
  for (const [status, cls, attempts] of statusTable) {
    it(`a real HTTP ${status} becomes ${cls.name} with status, method, path and request id (${attempts} attempt${attempts > 1 ? 's' : ''})`, async () => {
      const os = await connectAs(sim, 'demo');
      await fault(sim, { method: 'GET', path: PROJECTS, status, count: 10 });
      const error = await rejectionOf(os.http('identity').get('/auth/projects', { secret_filter: 'q' }));
      expect(error).to.be.instanceOf(cls);
      const e = error as OpenStackError;
      expect(e.status).to.equal(status);
      expect(e.method).to.equal('GET');
      expect(e.path).to.equal(PROJECTS);
      expect(e.message).to.not.contain('secret_filter');
      expect(e.requestId).to.match(/^req-/);
      expect(e.fault).to.contain(`HTTP ${status}`);
      expect(sim.calls({ method: 'GET', pathIncludes: '/auth/projects' })).to.have.length(attempts);
    });
  }

  it('a 401 on a service call becomes Unauthorized after the one re-auth', async () => {
    const os = await connectAs(sim, 'demo');
    await fault(sim, { method: 'GET', path: PROJECTS, status: 401, count: 2 });
    expect(await rejectionOf(os.http('identity').get('/auth/projects'))).to.be.instanceOf(Unauthorized);
  });

  it('a GET is retried with backoff on 5xx and succeeds', async () => {
    const sleeps: number[] = [];
    const os = await connectAs(sim, 'demo', { retry: { retries: 3, baseDelayMs: 10, maxDelayMs: 1000 }, random: () => 1, sleep: (ms) => { sleeps.push(ms); return Promise.resolve(); } });
    await fault(sim, { method: 'GET', path: PROJECTS, status: 503, count: 2 });
    const response = await os.http('identity').get('/auth/projects');
    expect(response.status).to.equal(200);
    expect(sim.calls({ method: 'GET', pathIncludes: '/auth/projects' }).map((c) => c.status)).to.deep.equal([503, 503, 200]);
    expect(sleeps).to.deep.equal([10, 20]);
  });

  it('a GET is retried after a client-side timeout, and Timeout when every attempt hangs', async () => {
    const os = await connectAs(sim, 'demo', { timeoutMs: 200 });
    await fault(sim, { method: 'GET', path: PROJECTS, timeout: true, count: 1 });
    expect((await os.http('identity').get('/auth/projects')).status).to.equal(200);
    await fault(sim, { method: 'GET', path: PROJECTS, timeout: true, count: 3 });
    const error = await rejectionOf(os.http('identity').get('/auth/projects'));
    expect(error).to.be.instanceOf(Timeout);
    expect((error as Timeout).status).to.equal(undefined);
    expect(sim.calls({ method: 'GET', pathIncludes: '/auth/projects' })).to.have.length(5);
  });

  it('a 500 on a rebuild POST is called exactly once and surfaces as ServerError', async () => {
    const os = await connectAs(sim, 'demo');
    await fault(sim, { method: 'POST', path: '/compute/v2\\.1/servers/[^/]+/action', status: 500, count: 5 });
    const error = await rejectionOf(rebuildServer(os.http('compute'), 'srv-1', 'img-2'));
    expect(error).to.be.instanceOf(ServerError);
    const calls = sim.calls({ method: 'POST', pathIncludes: '/servers/srv-1/action' });
    expect(calls).to.have.length(1);
    expect(calls[0]?.body).to.deep.equal({ rebuild: { imageRef: 'img-2' } });
  });

  it('a mutating call that times out is not retried either (it may have been accepted)', async () => {
    const os = await connectAs(sim, 'demo', { timeoutMs: 200 });
    await fault(sim, { method: 'POST', path: '/action', timeout: true, count: 5 });
    expect(await rejectionOf(rebuildServer(os.http('compute'), 'srv-1', 'img-2'))).to.be.instanceOf(Timeout);
    await fault(sim, { method: 'DELETE', path: '/servers/', status: 503, count: 5 });
    expect(await rejectionOf(deleteServer(os.http('compute'), 'srv-1'))).to.be.instanceOf(ServerError);
    expect(sim.calls({ method: 'POST', pathIncludes: '/action' })).to.have.length(1);
    expect(sim.calls({ method: 'DELETE', pathIncludes: '/servers/srv-1' })).to.have.length(1);
  });

  it('the one exception for writes: a POST refused with 401 (token never reached the service) is re-sent once after re-auth', async () => {
    const os = await connectAs(sim, 'demo');
    const path = `/users/${sim.credentials.demo.userId}/application_credentials`;
    await fault(sim, { method: 'POST', path: '/application_credentials', status: 401, count: 1 });
    const created = await os.http('identity').post(path, { application_credential: { name: 'after-401' } });
    expect(created.status).to.equal(201);
    expect(sim.calls({ method: 'POST', pathIncludes: '/application_credentials' }).map((c) => c.status)).to.deep.equal([401, 201]);
    expect(os.keystone.issueCount).to.equal(2);
  });

  it('a refused connection is RequestFailed after the bounded retries', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    let sleeps = 0;
    const http = new HttpSession({ service: 'compute', baseUrl: `http://127.0.0.1:${port}/v2.1`, retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 2 }, sleep: () => { sleeps++; return Promise.resolve(); } });
    const error = await rejectionOf(http.get('/servers/detail'));
    expect(error).to.be.instanceOf(RequestFailed);
    expect((error as RequestFailed).code).to.equal('ECONNREFUSED');
    expect(sleeps).to.equal(2);
  });

  it('a service that echoes the token in its fault gets it redacted; token and password appear nowhere', async () => {
    const logs = captureLogs();
    const os = await connectAs(sim, 'demo', { logger: logs.logger });
    const token = await os.keystone.token();
    const password = sim.credentials.demo.password;
    await fault(sim, { method: 'POST', path: '/action', status: 400, body: { badRequest: { code: 400, message: `token ${token} and password ${password} refused` } } });
    const error = await rejectionOf(rebuildServer(os.http('compute'), 'srv-1', 'img-2'));
    expect(error).to.be.instanceOf(BadRequest);
    const e = error as BadRequest;
    expect(e.fault).to.equal('token [REDACTED] and password [REDACTED] refused');
    for (const text of [e.message, e.stack ?? '', JSON.stringify(e), util.inspect(e, { depth: 10 }), logs.text()]) {
      expect(text).to.not.contain(token);
      expect(text).to.not.contain(password);
    }
  });

  it('logs one debug line per attempt with method, path, status, duration and request id, and no headers', async () => {
    const logs = captureLogs();
    const os = await connectAs(sim, 'demo', { logger: logs.logger });
    await os.http('identity').get('/auth/projects', { name: 'x' });
    const line = logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.path === PROJECTS);
    expect(line).to.include({ level: 'debug', message: 'openstack request', service: 'identity', method: 'GET', path: PROJECTS, status: 200 });
    expect(line?.requestId).to.match(/^req-/);
    expect(line?.durationMs).to.be.a('number');
    const token = await os.keystone.token();
    expect(logs.text()).to.not.contain(token);
    expect(logs.text()).to.not.contain(sim.credentials.demo.password);
    expect(logs.text().toLowerCase()).to.not.contain('x-auth-token');
  });
});
