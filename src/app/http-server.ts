/**
 * The control plane's HTTP endpoints: the operations listener — /metrics (Prometheus), /healthz (the
 * process answers), /readyz (stores open, informers synced, leadership known) — and the mounted routes
 * (the audit web pages), on the same listener while both are on loopback, else on a listener of their own
 * (`ops: false`) whose `guard` may refuse a request before any route sees it (src/cli/commands/listeners.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from '../observability/metrics.js';

/** The endpoint could not listen (address in use, permission): an operator-facing, one-line error. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
}

export type Route = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
/** Answers (refuses) a request before the routes see it, returning true; false lets it through. */
export type Guard = Route;

export interface HttpEndpoint {
  url: string;
  close(): Promise<void>;
}

export const startHttpEndpoint = async (options: {
  host: string;
  port: number;
  /** /metrics, /healthz and /readyz (absent: this listener serves only `routes`). */
  ops?: { metrics: Metrics; ready: () => { ready: boolean; detail: Record<string, unknown> } };
  routes?: readonly Route[];
  guard?: Guard;
  /** Maps a listen failure (EADDRINUSE, EACCES) to the error to report. */
  onListenError?: (error: NodeJS.ErrnoException) => Error;
}): Promise<HttpEndpoint> => {
  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        const path = (req.url ?? '/').split('?')[0];
        const ops = options.ops;
        if (ops && path === '/metrics') {
          res.writeHead(200, { 'content-type': ops.metrics.registry.contentType });
          res.end(await ops.metrics.registry.metrics());
          return;
        }
        if (ops && path === '/healthz') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('ok\n');
          return;
        }
        if (ops && path === '/readyz') {
          const { ready, detail } = ops.ready();
          res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
          res.end(`${JSON.stringify({ ready, ...detail })}\n`);
          return;
        }
        if (options.guard && (await options.guard(req, res))) return;
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
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
};
