// The HTTP pipeline: read the body, honour injected faults, settle due transitions, route, authenticate,
// negotiate the microversion, run the handler, and answer with the service's own headers and error shapes.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ANONYMOUS } from './auth.js';
import { SimError, UNAUTHORIZED_BODY, errorBody, serviceForPath } from './http.js';
import type { ServiceName, SimRequest, SimResponse } from './http.js';
import { requestId as newRequestId } from './ids.js';
import { resolveToken } from './keystone/tokens.js';
import { negotiate } from './microversion.js';
import type { Ctx, Router } from './router.js';
import { handleSimApi } from './sim-api.js';
import type { SimControl } from './control.js';
import type { Sim } from './state.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

export interface HttpHandle { server: Server; port: number; close(): Promise<void> }

export async function listen(sim: Sim, router: Router, control: SimControl, port: number): Promise<HttpHandle> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(sim, router, control, req, res, Buffer.concat(chunks)).catch((e: unknown) => {
        if (!res.headersSent) {
          res.writeHead(500, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ error: { code: 500, message: String(e) } }));
        }
      });
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    server,
    port: actual,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

function normalisePath(raw: string): string {
  let p = raw.replace(/\/{2,}/g, '/');
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  // Neutron accepts `/v2.0/networks.json`.
  if (p.startsWith('/network/') && p.endsWith('.json')) p = p.slice(0, -5);
  return p;
}

function parseBody(raw: Buffer, contentType: string | undefined): { body: unknown; malformed: boolean } {
  if (raw.length === 0) return { body: undefined, malformed: false };
  const ct = (contentType ?? '').toLowerCase();
  const text = raw.toString('utf8');
  const looksJson = ct.includes('json') || (!ct.includes('octet-stream') && /^\s*[[{]/.test(text));
  if (!looksJson) return { body: undefined, malformed: false };
  try {
    return { body: JSON.parse(text), malformed: false };
  } catch {
    return { body: undefined, malformed: true };
  }
}

const VERSION_HEADERS: Array<[string, string]> = [
  ['openstack-api-version', 'OpenStack-API-Version'], ['x-openstack-nova-api-version', 'X-OpenStack-Nova-API-Version'],
  ['x-openstack-ironic-api-version', 'X-OpenStack-Ironic-API-Version'],
];

/** Only the microversion headers are kept in the call log: never the token. */
function versionHeaders(headers: IncomingMessage['headers']): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const [lower, name] of VERSION_HEADERS) {
    const v = headers[lower];
    if (v !== undefined) (out ??= {})[name] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** Passwords and secrets (Keystone bodies) never reach the call log. */
function redact(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(redact);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'password' || k === 'secret' || k === 'adminPass' ? '***' : redact(x)]));
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function handle(sim: Sim, router: Router, control: SimControl, req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
  const started = Date.now();
  const at = sim.clock.now();
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const path = normalisePath(url.pathname);
  const method = (req.method ?? 'GET').toUpperCase();
  const rid = newRequestId();
  const service = serviceForPath(path);

  if (path === '/_sim' || path.startsWith('/_sim/')) {
    if (!LOOPBACK.has(req.socket.remoteAddress ?? '')) return send(res, method, 403, { error: 'loopback only' }, {}, rid);
    const { body, malformed } = parseBody(raw, req.headers['content-type']);
    if (malformed) return send(res, method, 400, { error: { code: 400, message: 'malformed JSON body' } }, {}, rid);
    const out = handleSimApi(sim, control, { method, path, query: url.searchParams, body });
    return send(res, method, out.status, out.body, out.headers ?? {}, rid, out.raw, out.contentType);
  }

  const query = url.search.startsWith('?') ? url.search.slice(1) : '';
  const { body, malformed } = parseBody(raw, req.headers['content-type']);
  const mutating = method === 'POST' || method === 'PUT' || method === 'PATCH';
  const action = path.endsWith('/action') && body && typeof body === 'object' && !Array.isArray(body)
    ? Object.keys(body)[0] : undefined;
  const versions = versionHeaders(req.headers);
  const record = (status: number, fault?: string): void => sim.calls.record({
    method, path, query, status, at, durationMs: Date.now() - started,
    ...(mutating && body !== undefined ? { body: redact(body) } : {}), ...(action ? { action } : {}), ...(fault ? { fault } : {}),
    ...(versions ? { versions } : {}),
  });

  const rule = sim.faults.take(method, query ? `${path}?${query}` : path, raw.toString('utf8'));
  if (rule) {
    if (rule.delayMs > 0) await sleep(rule.delayMs);
    if (rule.timeout) {
      // Hang: never answer. The client's timeout fires; close() tears the socket down.
      record(0, `timeout#${rule.id}`);
      return;
    }
    if (rule.status !== null) {
      const status = rule.status;
      const b = rule.body !== undefined ? rule.body : errorBody(service, status, `Injected fault ${rule.id}: HTTP ${status}`, rid);
      record(status, `status#${rule.id}`);
      return send(res, method, status, b, {}, rid, undefined, undefined, service);
    }
  }

  const result = dispatch(sim, router, { method, path, query: url.searchParams, headers: req.headers, body, raw, params: {}, requestId: rid }, service, malformed);
  record(result.status);
  send(res, method, result.status, result.body, result.headers ?? {}, rid, result.raw, result.contentType, service);
}

function dispatch(sim: Sim, router: Router, req: SimRequest, pathService: ServiceName, malformed: boolean): SimResponse {
  let service = pathService;
  let echo: Record<string, string> = {};
  try {
    sim.settle();
    const m = router.match(req.method, req.path);
    if (m === null) {
      // keystonemiddleware runs before routing: an unknown path without a valid token is a 401, not a 404.
      const token = req.headers['x-auth-token'];
      if (typeof token !== 'string' || !resolveToken(sim, token)) return { status: 401, body: UNAUTHORIZED_BODY };
      throw new SimError(404, 'The resource could not be found.');
    }
    if ('methodNotAllowed' in m) throw new SimError(405, 'The method specified is not allowed for this resource.');
    service = m.route.service;
    let auth = ANONYMOUS;
    if (m.route.auth) {
      const token = req.headers['x-auth-token'];
      const resolved = typeof token === 'string' ? resolveToken(sim, token) : null;
      if (!resolved) {
        return { status: 401, body: UNAUTHORIZED_BODY,
          headers: { 'WWW-Authenticate': `Keystone uri="${sim.url('/identity')}"` } };
      }
      auth = resolved;
    }
    const negotiated = negotiate(service, req.headers);
    echo = negotiated.echo;
    if (malformed) throw new SimError(400, 'Malformed request body');
    req.params = m.params;
    const ctx: Ctx = {
      req, sim, auth, mv: negotiated.version,
      p(name: string): string {
        const v = req.params[name];
        if (v === undefined) throw new Error(`route has no parameter ${name}`);
        return v;
      },
      q: (name: string) => req.query.get(name) ?? undefined,
    };
    const out = m.route.handler(ctx);
    return { ...out, headers: { ...echo, ...(out.headers ?? {}) } };
  } catch (e) {
    if (e instanceof SimError) {
      return { status: e.status, body: errorBody(service, e.status, e.message, req.requestId, e.type), headers: { ...echo, ...(e.headers ?? {}) } };
    }
    const message = e instanceof Error ? e.message : String(e);
    if (process.env.SIM_DEBUG) console.error(e);
    return { status: 500, body: errorBody(service, 500, `Unexpected API Error: ${message}`, req.requestId), headers: echo };
  }
}

function send(res: ServerResponse, method: string, status: number, body: unknown, headers: Record<string, string>, rid: string,
  raw?: Buffer | string, contentType?: string, service?: ServiceName): void {
  const h: Record<string, string> = { 'X-Openstack-Request-Id': rid, ...headers };
  if (service === 'nova') h['X-Compute-Request-Id'] = rid;
  let payload: Buffer | string | undefined;
  if (raw !== undefined) {
    payload = raw;
    h['Content-Type'] = contentType ?? 'application/octet-stream';
  } else if (body !== undefined && status !== 204) {
    payload = JSON.stringify(body);
    h['Content-Type'] = contentType ?? 'application/json';
  }
  h['Content-Length'] = String(payload === undefined ? 0 : typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length);
  res.writeHead(status, h);
  res.end(method === 'HEAD' ? undefined : payload);
}
