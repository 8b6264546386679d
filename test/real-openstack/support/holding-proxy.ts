/**
 * A loopback HTTP proxy in front of one real endpoint (Nova's compute API), for the unknown-outcome tests.
 * Regent's client is pointed at it (`connect(..., { endpointOverrides: { compute: proxy.url } })`); every
 * request is forwarded unchanged (method, path, headers, body; the Host header stays the proxy's, so Nova's
 * links point back at the proxy) and recorded. On request the proxy takes ONE matching request aside:
 *
 * - `holdNext(match, ms)`: keeps it for `ms`, then forwards it to Nova whether or not the client is still
 *   waiting. With a client timeout shorter than the hold, the client gives up while Nova later receives and
 *   accepts the request: the field incident (a rebuild POST held in front of Nova past the client timeout).
 * - `answerNext(match, status, body)`: answers it itself (e.g. 503) and never forwards it: Nova never saw it.
 *
 * `taken()` resolves once the taken request is over (Nova answered the held one, or the proxy answered it), so a
 * test knows when the held request landed. Everything else passes straight through. Loopback only.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RequestSummary {
  method: string;
  /** Path and query as the client sent them. */
  path: string;
  /** The raw body. */
  body: Buffer;
}

export type RequestMatch = (request: RequestSummary) => boolean;

export interface ProxiedRequest {
  /** Order of arrival at the proxy, from 1. */
  seq: number;
  method: string;
  path: string;
  /** The top-level key of a JSON object body (`rebuild`, `os-stop`, …); null otherwise. */
  action: string | null;
  /** What the proxy did with it. */
  handling: 'forwarded' | 'held' | 'answered';
  receivedAt: number;
  /** When it was sent on to the upstream; null while held, or never (answered by the proxy). */
  forwardedAt: number | null;
  /** When the upstream's answer (or the proxy's own) was complete. */
  answeredAt: number | null;
  /** The upstream's status; null when it was never forwarded or no answer came. */
  upstreamStatus: number | null;
  /** The upstream's `x-openstack-request-id` (Nova's `x-compute-request-id`) of its answer. */
  upstreamRequestId: string | null;
  /** The status the client received; null when the client had gone before the answer. */
  clientStatus: number | null;
  /** The client closed the connection before it got an answer (it timed out). */
  clientGone: boolean;
  error: string | null;
}

export interface HoldingProxy {
  /** `http://127.0.0.1:<port>` plus the upstream's base path (e.g. `/v2.1`): what the client connects to. */
  readonly url: string;
  /** Every request, in order of arrival. */
  readonly requests: readonly ProxiedRequest[];
  /** Hold the next request matching `match` for `ms`, then forward it (once). */
  holdNext(match: RequestMatch, ms: number): void;
  /** Answer the next request matching `match` with `status` and a JSON body, never forwarding it (once). */
  answerNext(match: RequestMatch, status: number, body: unknown): void;
  /** The request taken aside, once its handling is over (rejects if nothing was taken before close). */
  taken(): Promise<ProxiedRequest>;
  /** Stops listening; a request still held is dropped (never forwarded). */
  close(): Promise<void>;
}

/** A JSON body's single top-level key, e.g. `rebuild` for `{"rebuild": {...}}`. */
const actionOf = (body: Buffer): string | null => {
  if (body.length === 0) return null;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    const keys = Object.keys(parsed);
    return keys.length === 1 ? (keys[0] as string) : null;
  } catch {
    return null;
  }
};

/** `POST …/servers/{serverId}/action` whose body is a `rebuild` action. */
export const isRebuildPost = (serverId?: string): RequestMatch => (request) => {
  if (request.method !== 'POST') return false;
  const m = /\/servers\/([^/?]+)\/action(?:\?|$)/.exec(request.path);
  if (!m || (serverId !== undefined && decodeURIComponent(m[1] as string) !== serverId)) return false;
  return actionOf(request.body) === 'rebuild';
};

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length']);

const endToEnd = (headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders => {
  const out: http.OutgoingHttpHeaders = {};
  for (const [key, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(key.toLowerCase())) out[key] = value;
  return out;
};

type Rule = { match: RequestMatch; kind: 'hold'; ms: number } | { match: RequestMatch; kind: 'answer'; status: number; body: unknown };

export const startHoldingProxy = async (upstreamUrl: string): Promise<HoldingProxy> => {
  const upstream = new URL(upstreamUrl);
  if (upstream.protocol !== 'http:') throw new Error(`holding proxy: only http upstreams (${upstreamUrl})`);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(upstream.hostname)) throw new Error(`holding proxy: loopback upstreams only (${upstreamUrl})`);
  const agent = new http.Agent({ keepAlive: true });
  const requests: ProxiedRequest[] = [];
  /** Holds in progress: their timers, and how to end them early (close). */
  const holds = new Map<NodeJS.Timeout, () => void>();
  let rule: Rule | undefined;
  let closed = false;
  let settleTaken: ((r: ProxiedRequest) => void) | undefined;
  let failTaken: ((e: Error) => void) | undefined;
  let takenPromise: Promise<ProxiedRequest> | undefined;

  const arm = (next: Rule): void => {
    if (rule) throw new Error('holding proxy: a rule is already armed');
    rule = next;
    takenPromise = new Promise<ProxiedRequest>((resolve, reject) => {
      settleTaken = resolve;
      failTaken = reject;
    });
    takenPromise.catch(() => undefined); // a close before anything matched is reported by taken(), not as unhandled
  };

  const forward = (req: http.IncomingMessage, body: Buffer): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const headers = endToEnd(req.headers);
      if (body.length > 0 || !['GET', 'HEAD', 'DELETE'].includes(req.method ?? 'GET')) headers['content-length'] = String(body.length);
      const out = http.request({ host: upstream.hostname.replace(/^\[|\]$/g, ''), port: upstream.port || 80, method: req.method, path: req.url, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      out.on('error', reject);
      out.end(body);
    });

  const reply = (res: http.ServerResponse, record: ProxiedRequest, status: number, headers: http.OutgoingHttpHeaders, body: Buffer): void => {
    record.answeredAt = Date.now();
    if (record.clientGone || res.destroyed) {
      record.clientGone = true;
      return;
    }
    res.writeHead(status, { ...headers, 'content-length': String(body.length) });
    res.end(body);
    record.clientStatus = status;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): Promise<void> => {
    const summary: RequestSummary = { method: req.method ?? 'GET', path: req.url ?? '/', body };
    const taken = rule !== undefined && rule.match(summary) ? rule : undefined;
    if (taken) rule = undefined;
    const record: ProxiedRequest = {
      seq: requests.length + 1, method: summary.method, path: summary.path, action: actionOf(body),
      handling: taken === undefined ? 'forwarded' : taken.kind === 'hold' ? 'held' : 'answered',
      receivedAt: Date.now(), forwardedAt: null, answeredAt: null, upstreamStatus: null, upstreamRequestId: null, clientStatus: null, clientGone: false, error: null,
    };
    requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.clientGone = true;
    });

    if (taken?.kind === 'answer') {
      reply(res, record, taken.status, { 'content-type': 'application/json' }, Buffer.from(JSON.stringify(taken.body)));
      settleTaken?.(record);
      return;
    }
    if (taken?.kind === 'hold') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          holds.delete(timer);
          resolve();
        }, taken.ms);
        holds.set(timer, resolve);
      });
      if (closed) {
        record.error = 'the proxy closed before forwarding';
        failTaken?.(new Error(`holding proxy closed while holding ${record.method} ${record.path}`));
        return;
      }
    }
    record.forwardedAt = Date.now();
    try {
      const answer = await forward(req, body);
      record.upstreamStatus = answer.status;
      const id = answer.headers['x-openstack-request-id'] ?? answer.headers['x-compute-request-id'];
      record.upstreamRequestId = typeof id === 'string' ? id : null;
      reply(res, record, answer.status, endToEnd(answer.headers), answer.body);
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
      reply(res, record, 502, { 'content-type': 'application/json' }, Buffer.from(JSON.stringify({ error: record.error })));
    }
    if (taken) settleTaken?.(record);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const basePath = upstream.pathname.replace(/\/+$/, '');

  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    requests,
    holdNext: (match, ms) => arm({ match, kind: 'hold', ms }),
    answerNext: (match, status, body) => arm({ match, kind: 'answer', status, body }),
    taken: () => takenPromise ?? Promise.reject(new Error('holding proxy: nothing was armed')),
    close: async () => {
      closed = true;
      for (const [timer, end] of holds) {
        clearTimeout(timer);
        holds.delete(timer);
        end(); // the held request is dropped, never forwarded (handle() records it and rejects taken())
      }
      if (rule) failTaken?.(new Error('holding proxy closed before a request matched'));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
};
