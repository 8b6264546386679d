/**
 * The HealthCheck step (src/controllers/nova/steps/health-check.ts): every reason of the spec's NovaAPIReady row,
 * against a real HTTP server on 127.0.0.1 port 0 (answering 200, 500, hanging) and a closed port, through the probe
 * cache; a healthy API continues the lane, a failure requeues for what is left of the 10 s retry window.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ENDPOINT_POLLING_MS, healthCheckStep } from '../../../src/controllers/nova/steps/health-check.js';
import { HealthProbeCache, PROBE_RETRY_MS } from '../../../src/nova/health-probe.js';
import { makePass } from './pass-rig.js';

type Answer = number | 'hang';

const listen = async (answer: Answer): Promise<{ endpoint: string; requests: () => number; close(): Promise<void> }> => {
  let requests = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => {
    requests += 1;
    if (answer !== 'hang') res.writeHead(answer).end('{"versions":[]}');
  });
  server.on('connection', (socket) => (sockets.add(socket), socket.on('close', () => sockets.delete(socket))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, requests: () => requests, close: () => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))) };
};

const closedEndpoint = async (): Promise<string> => {
  const server = await listen(200);
  await server.close();
  return server.endpoint;
};

describe('nova lane: the HealthCheck step (NovaAPIReady)', () => {
  let clock = 0;
  const probes = () => new HealthProbeCache({ now: () => clock, timeoutMs: 300 });
  beforeEach(() => void (clock = 5_000_000));

  const table: Array<{ title: string; answer: Answer | 'closed' | 'not-http'; status: 'True' | 'False'; reason: string; says: string }> = [
    { title: 'a 200 from the API root is True/APIHealthy and continues the lane', answer: 200, status: 'True', reason: 'APIHealthy', says: 'answered 200' },
    { title: 'a 500 is False/APIUnhealthy, probed again after 10 s', answer: 500, status: 'False', reason: 'APIUnhealthy', says: 'answered 500, not 2xx' },
    { title: 'an API that accepts and never answers is False/HealthCheckTimeout', answer: 'hang', status: 'False', reason: 'HealthCheckTimeout', says: 'no answer within 300 ms' },
    { title: 'a refused connection is False/ConnectionFailed', answer: 'closed', status: 'False', reason: 'ConnectionFailed', says: 'could not connect (ECONNREFUSED)' },
    { title: 'an endpoint that is not http(s) is False/HealthCheckFailed', answer: 'not-http', status: 'False', reason: 'HealthCheckFailed', says: 'is not http or https' },
  ];
  for (const c of table) {
    it(c.title, async () => {
      const server = typeof c.answer === 'number' || c.answer === 'hang' ? await listen(c.answer) : undefined;
      try {
        const endpoint = server?.endpoint ?? (c.answer === 'closed' ? await closedEndpoint() : 'ftp://127.0.0.1:21');
        const pass = makePass({ values: { endpoint }, healthProbe: probes() });
        const report = await healthCheckStep.run(pass);
        expect(report.conditions).to.have.length(1);
        expect(report.conditions[0]).to.include({ type: 'NovaAPIReady', status: c.status, reason: c.reason });
        expect(report.conditions[0]!.message).to.include(c.says);
        expect(report.outcome).to.deep.include(c.status === 'True' ? { kind: 'continue' } : { kind: 'requeue', afterMs: PROBE_RETRY_MS });
      } finally {
        await server?.close();
      }
    });
  }

  it('no endpoint in this pass is False/EndpointNotReady, polled after 10 s, with no probe', async () => {
    const cache = probes();
    const report = await healthCheckStep.run(makePass({ healthProbe: cache }));
    expect(report.conditions[0]).to.include({ type: 'NovaAPIReady', status: 'False', reason: 'EndpointNotReady' });
    expect(report.outcome).to.deep.include({ kind: 'requeue', afterMs: ENDPOINT_POLLING_MS });
    expect(cache.size).to.equal(0);
  });

  it('covers every reason of the spec\'s NovaAPIReady row', () => {
    const row = ['APIHealthy', 'APIUnhealthy', 'EndpointNotReady', 'HealthCheckTimeout', 'ConnectionFailed', 'HealthCheckFailed'];
    expect([...table.map((c) => c.reason), 'EndpointNotReady'].sort()).to.deep.equal(row.sort());
  });

  it('through the cache: a pass 4 s after a failure sends nothing and requeues for the 6 s left; a healthy API is not probed again within 30 s', async () => {
    const failing = await listen(500);
    const healthy = await listen(200);
    try {
      const cache = probes();
      await healthCheckStep.run(makePass({ values: { endpoint: failing.endpoint }, healthProbe: cache }));
      clock += 4_000;
      const again = await healthCheckStep.run(makePass({ values: { endpoint: failing.endpoint }, healthProbe: cache }));
      expect(again.outcome).to.deep.include({ kind: 'requeue', afterMs: 6_000 });
      expect(failing.requests()).to.equal(1);
      for (let i = 0; i < 3; i++) {
        expect((await healthCheckStep.run(makePass({ values: { endpoint: healthy.endpoint }, healthProbe: cache }))).conditions[0]?.reason).to.equal('APIHealthy');
        clock += 9_000;
      }
      expect(healthy.requests()).to.equal(1);
    } finally {
      await failing.close();
      await healthy.close();
    }
  });
});
