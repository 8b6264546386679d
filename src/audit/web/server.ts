/**
 * The audit pages served alone on a local port (`regent serve --audit-only`, tests). Binds 127.0.0.1 by default;
 * the caller owns the process (signals, exit): `close()` stops listening and ends open connections. With a
 * `planner` the plan view plans (plan-routes.ts); without one it says the plan is not available here.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventStore } from '../../store/port.js';
import type { MachineRegistry } from '../../../machines/registry.js';
import { createAuditRoutes } from './routes.js';
import { notFoundPage } from './pages.js';
import type { CheckpointShelf } from '../history/shelf.js';
import type { AuditPlanner } from './plan-routes.js';

export interface AuditServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

export const startAuditServer = async (options: { port?: number; host?: string; store: EventStore; registry: MachineRegistry; pageSize?: number; checkpoints?: CheckpointShelf; planner?: AuditPlanner }): Promise<AuditServer> => {
  const handle = createAuditRoutes({ store: options.store, registry: options.registry, pageSize: options.pageSize, ...(options.checkpoints ? { checkpoints: options.checkpoints } : {}), ...(options.planner ? { planner: options.planner } : {}) });
  const server = createServer((req, res) => {
    handle(req, res)
      .then((handled) => {
        if (!handled && !res.headersSent) {
          // Every path here is the audit's: an unknown one gets the site's 404 page, with the way back.
          const path = new URL(req.url ?? '/', 'http://localhost').pathname;
          res.writeHead(404, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
          res.end(req.method === 'HEAD' ? undefined : notFoundPage(path, 'no such audit page', { base: '', assets: 'linked' }));
        }
      })
      .catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(error instanceof Error ? error.message : 'internal error');
      });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}/`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
