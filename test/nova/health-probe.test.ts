/**
 * The API-root probe and its TTL cache (src/nova/health-probe.ts) against a real HTTP server on 127.0.0.1 port 0:
 * 2xx healthy, 500 unhealthy, a server that accepts and never answers times out, a closed port is a connection
 * failure; no token is sent and user info never reaches the request; a success is reused for 30 s, a failure is
 * probed again after 10 s, per endpoint, concurrent probes share one request, and an evicted endpoint is probed anew.
 */
import { expect } from 'chai';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { apiRootURL, getRoot, HealthProbeCache, PROBE_RETRY_MS, PROBE_TTL_MS } from '../../src/nova/health-probe.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** A server answering `status` (or never, for 'hang'), recording every request. */
const serve = async (answer: () => number | 'hang'): Promise<{ endpoint: string; seen: Seen[]; close(): Promise<void> }> => {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const status = answer();
    if (status === 'hang') return;
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ versions: [{ id: 'v2.1', status: 'CURRENT' }] }));
  });
  server.on('connection', (socket) => (sockets.add(socket), socket.on('close', () => sockets.delete(socket))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))),
  };
};

/** A port nothing listens on: bound once, then closed. */
const closedPort = async (): Promise<string> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
};

describe('nova API health probe', () => {
  describe('one GET of the API root', () => {
    const table: Array<[string, number | 'hang', string]> = [
      ['a 200 from the root is healthy', 200, 'healthy'],
      ['a 204 is healthy (any 2xx)', 204, 'healthy'],
      ['a 500 is unhealthy, with its status', 500, 'unhealthy'],
      ['a 300 is unhealthy: no redirect or choice is followed', 300, 'unhealthy'],
      ['a server that accepts and never answers times out', 'hang', 'timeout'],
    ];
    for (const [title, status, kind] of table) {
      it(title, async () => {
        const server = await serve(() => status);
        try {
          const verdict = await getRoot(`${server.endpoint}/`, 300);
          expect(verdict.kind).to.equal(kind);
          if (typeof status === 'number') expect(verdict).to.deep.include({ status });
          else expect(verdict).to.deep.equal({ kind: 'timeout', afterMs: 300 });
          expect(server.seen.map((s) => `${s.method} ${s.url}`)).to.deep.equal(['GET /']);
        } finally {
          await server.close();
        }
      });
    }

    it('a closed port is a connection failure (ECONNREFUSED)', async () => {
      expect(await getRoot(`${await closedPort()}/`, 1000)).to.deep.equal({ kind: 'connectionFailed', code: 'ECONNREFUSED' });
    });

    it('an endpoint that is not http(s) fails without a request', async () => {
      expect((await getRoot('ftp://127.0.0.1:21/', 1000)).kind).to.equal('failed');
    });

    it('sends no token and no user info: no Authorization or X-Auth-Token header', async () => {
      const server = await serve(() => 200);
      try {
        const cache = new HealthProbeCache();
        const withUser = server.endpoint.replace('http://', 'http://admin:s3cret@');
        const result = await cache.probe(`${withUser}/compute/`);
        expect(result.url).to.equal(`${server.endpoint}/compute/`);
        expect(server.seen).to.have.length(1);
        expect(server.seen[0]!.url).to.equal('/compute/');
        expect(server.seen[0]!.headers).to.not.have.any.keys('authorization', 'x-auth-token');
      } finally {
        await server.close();
      }
    });

    it('the root of an endpoint keeps its path and has one trailing slash', () => {
      expect(apiRootURL('http://nova-api.openstack.svc:8774')).to.equal('http://nova-api.openstack.svc:8774/');
      expect(apiRootURL('http://h:8774/compute//')).to.equal('http://h:8774/compute/');
      expect(apiRootURL('not a url')).to.equal(undefined);
    });
  });

  describe('the TTL cache', () => {
    let clock = 0;
    let answer: number | 'hang' = 200;
    let server: Awaited<ReturnType<typeof serve>>;
    beforeEach(async () => {
      clock = 1_000_000;
      answer = 200;
      server = await serve(() => answer);
    });
    afterEach(() => server.close());
    const cache = () => new HealthProbeCache({ now: () => clock, timeoutMs: 300 });

    it('a success is reused for 30 s: no request inside the window, one after it', async () => {
      const probes = cache();
      expect(await probes.probe(server.endpoint)).to.deep.include({ cached: false, nextProbeInMs: PROBE_TTL_MS });
      clock += PROBE_TTL_MS - 1;
      expect(await probes.probe(server.endpoint)).to.deep.include({ cached: true, nextProbeInMs: 1 });
      expect(server.seen).to.have.length(1);
      clock += 1;
      expect((await probes.probe(server.endpoint)).cached).to.equal(false);
      expect(server.seen).to.have.length(2);
    });

    it('a failure is probed again after 10 s, not sooner', async () => {
      answer = 500;
      const probes = cache();
      expect((await probes.probe(server.endpoint)).verdict.kind).to.equal('unhealthy');
      clock += PROBE_RETRY_MS - 1;
      answer = 200;
      expect(await probes.probe(server.endpoint)).to.deep.include({ cached: true, nextProbeInMs: 1 });
      expect(server.seen).to.have.length(1);
      clock += 1;
      expect((await probes.probe(server.endpoint)).verdict.kind).to.equal('healthy');
      expect(server.seen).to.have.length(2);
    });

    it('entries are kept per endpoint', async () => {
      const other = await serve(() => 500);
      try {
        const probes = cache();
        expect((await probes.probe(server.endpoint)).verdict.kind).to.equal('healthy');
        expect((await probes.probe(other.endpoint)).verdict.kind).to.equal('unhealthy');
        expect(probes.size).to.equal(2);
      } finally {
        await other.close();
      }
    });

    it('concurrent probes of one endpoint share one request', async () => {
      const probes = cache();
      const results = await Promise.all([probes.probe(server.endpoint), probes.probe(server.endpoint), probes.probe(server.endpoint)]);
      expect(results.map((r) => r.verdict.kind)).to.deep.equal(['healthy', 'healthy', 'healthy']);
      expect(server.seen).to.have.length(1);
    });

    it('an evicted endpoint is probed anew at once', async () => {
      const probes = cache();
      await probes.probe(server.endpoint);
      expect(probes.evict(server.endpoint)).to.equal(true);
      expect(probes.evict(server.endpoint)).to.equal(false);
      expect((await probes.probe(server.endpoint)).cached).to.equal(false);
      expect(server.seen).to.have.length(2);
    });
  });
});
