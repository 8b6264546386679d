/**
 * The control plane's HTTP endpoint on loopback: /metrics (Prometheus), /healthz (the process
 * answers), /readyz (stores open, informers synced, leadership known), and any mounted routes (the
 * audit web pages).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from '../observability/metrics.js';

/** The endpoint could not listen (address in use, permission): an operator-facing, one-line error. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
}

export type Route = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

export interface HttpEndpoint {
  url: string;
  close(): Promise<void>;
}

export const startHttpEndpoint = async (options: {
  host: string;
  port: number;
  metrics: Metrics;
  ready: () => { ready: boolean; detail: Record<string, unknown> };
  routes?: readonly Route[];
  /** Maps a listen failure (EADDRINUSE, EACCES) to the error to report. */
  onListenError?: (error: NodeJS.ErrnoException) => Error;
}): Promise<HttpEndpoint> => {
  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        const path = (req.url ?? '/').split('?')[0];
        if (path === '/metrics') {
          res.writeHead(200, { 'content-type': options.metrics.registry.contentType });
          res.end(await options.metrics.registry.metrics());
          return;
        }
        if (path === '/healthz') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('ok\n');
          return;
        }
        if (path === '/readyz') {
          const { ready, detail } = options.ready();
          res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
          res.end(`${JSON.stringify({ ready, ...detail })}\n`);
          return;
        }
        for (const route of options.routes ?? []) if (await route(req, res)) return;
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found\n');
      } catch (error) {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`internal error: ${(error as Error).message}\n`);
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(options.onListenError ? options.onListenError(error) : error));
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
};
