/**
 * The incident routes (issue 30), one `node:http` handler mounted beside the audit routes (routes.ts dispatches to
 * it). It answers its own paths and returns false for every other:
 *
 *   GET /incidents?from=&to=&resource=Kind/ns/name&related=1&kind=&source=&limit=    the page (incident-page.ts)
 *   GET /api/incidents?…                                                             the timeline as JSON
 *   GET /api/incidents/export?…                                                      the redacted export, as a download
 *
 * `kind` and `source` may repeat (or be comma-separated); the query is described in src/audit/incident/query.ts.
 * Bad input (a time that is neither ISO nor a duration, an unknown kind or source, a malformed resource) answers
 * 400, a resource no history names 404: the page with the form as typed and the reason, `{error}` under /api/.
 *
 * State: one index of stream heads (src/audit/incident/heads.ts) per handler, refreshed per request (only streams
 * whose head moved are read again). No module-level state.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventStore } from '../../store/port.js';
import type { MachineRegistry } from '../../../machines/registry.js';
import { UsageError } from '../../errors/usage.js';
import type { PageOptions } from './pages.js';
import { IncidentIndex } from '../incident/heads.js';
import { NoHistory, queryOfSearch, type IncidentQueryInput } from '../incident/query.js';
import { incidentTimeline } from '../incident/timeline.js';
import { incidentExport } from '../incident/export.js';
import { incidentErrorPage, incidentPage, type IncidentFormValues } from './incident-page.js';

export interface IncidentRoutesOptions {
  store: Pick<EventStore, 'listStreams' | 'readStream' | 'description'>;
  /** Which effects are destructive; default: the product machines. */
  registry?: MachineRegistry;
  /** Mount point, e.g. `/audit`; default '' (the root). */
  basePath?: string;
  now?: () => Date;
}

export type IncidentHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

const PATHS = new Set(['/incidents', '/incidents/', '/api/incidents', '/api/incidents/', '/api/incidents/export']);

const send = (res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers });
  res.end(body);
};

const formValues = (params: URLSearchParams, input: IncidentQueryInput): IncidentFormValues => ({
  resource: typeof input.resource === 'string' ? input.resource : undefined,
  related: input.related,
  from: params.get('from') ?? undefined,
  to: params.get('to') ?? undefined,
  kinds: (input.kinds ?? []).flatMap((k) => k.split(',')).filter((k) => k.trim() !== ''),
  sources: (input.sources ?? []).flatMap((s) => s.split(',')).filter((s) => s.trim() !== ''),
  limit: params.get('limit') ?? undefined,
});

/** A file name for the export: the resource (or `all`) and the time it was generated. */
const exportName = (resource: { kind: string; namespace: string; name: string } | null, at: string): string =>
  `incident-${resource ? `${resource.kind}-${resource.namespace}-${resource.name}` : 'all'}-${at.replace(/[:.]/g, '-')}.json`.replace(/[^A-Za-z0-9._-]/g, '_');

export const createIncidentRoutes = (options: IncidentRoutesOptions): IncidentHandler => {
  const base = (options.basePath ?? '').replace(/\/$/, '');
  const page: PageOptions = { base, assets: 'linked' };
  const index = new IncidentIndex(options.store);
  const common = { index, base, ...(options.registry ? { registry: options.registry } : {}), ...(options.now ? { now: options.now } : {}) };

  return async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (base && !url.pathname.startsWith(`${base}/`)) return false;
    const path = url.pathname.slice(base.length);
    if (!PATHS.has(path)) return false;
    const api = path.startsWith('/api/');
    const input = queryOfSearch(url.searchParams);
    try {
      if (path === '/api/incidents/export') {
        const file = await incidentExport(options.store, input, common);
        send(res, 200, 'application/json', `${JSON.stringify(file, null, 2)}\n`, { 'content-disposition': `attachment; filename="${exportName(file.query.resource, file.generatedAt)}"` });
      } else if (api) {
        send(res, 200, 'application/json', JSON.stringify(await incidentTimeline(options.store, input, common)));
      } else {
        send(res, 200, 'text/html', incidentPage(await incidentTimeline(options.store, input, common), formValues(url.searchParams, input), page));
      }
    } catch (error) {
      const status = error instanceof NoHistory ? 404 : error instanceof UsageError ? 400 : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (api) send(res, status, 'application/json', JSON.stringify({ error: message }));
      else if (status === 500) send(res, 500, 'text/plain', message);
      else send(res, status, 'text/html', incidentErrorPage(message, formValues(url.searchParams, input), page));
    }
    return true;
  };
};
