/**
 * The HealthCheck step's probe of a Nova API (nova-operator.md, "Pipeline": "HTTP GET of the cluster-local API root
 * through the shared TTL probe cache"; "Requeue semantics": "10s / 30s TTL … A failed probe of the API root retries;
 * a passing one is reused within the TTL"). The compute API ships no /healthcheck route, so the probe is a GET of `/`,
 * the version document nova-api answers without a token; a 2xx is healthy.
 *
 * The cache is keyed by endpoint. A success is reused for 30 s and a failure for 10 s: a pass inside that window gets
 * the remembered verdict and sends nothing, so a burst of passes (every Secret or Deployment event wakes one) does not
 * become a burst of probes against an API that is starting or failing. Concurrent probes of one endpoint share one
 * request. A deleted Nova's entry is evicted (nova-operator.md, "Rotation and deletion").
 *
 * No token, no credential: the request carries no Authorization header, and a user-info part of the endpoint is
 * dropped before the request, so neither a message nor a log line can carry one.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** RequeueDeploymentPolling's sibling for the probe: a failed probe is sent again after this long. */
export const PROBE_RETRY_MS = 10_000;
/** A passing probe is reused for this long. */
export const PROBE_TTL_MS = 30_000;
/** A probe that has no answer (status line and headers) after this long is a timeout. */
export const PROBE_TIMEOUT_MS = 5_000;

export type ProbeVerdict =
  /** a 2xx from the API root */
  | { kind: 'healthy'; status: number }
  /** an answer that is not a 2xx (nova-api serves `/` with 200; anything else is a failing API or a proxy's error) */
  | { kind: 'unhealthy'; status: number }
  /** no answer within the timeout */
  | { kind: 'timeout'; afterMs: number }
  /** the connection could not be made or was torn down (refused, reset, no route, the name does not resolve) */
  | { kind: 'connectionFailed'; code: string }
  /** anything else: an endpoint that is not an http(s) URL, a TLS failure, … */
  | { kind: 'failed'; detail: string };

export interface ProbeResult {
  verdict: ProbeVerdict;
  /** The URL that was (or would be) requested: the endpoint's root, without user info. */
  url: string;
  /** True when the verdict was remembered from an earlier probe within its window. */
  cached: boolean;
  /** When the next probe of this endpoint will be sent, from now (the step's requeue after a failure). */
  nextProbeInMs: number;
}

/** Sends one GET and classifies the outcome; never throws. */
export type RootGetter = (url: string, timeoutMs: number) => Promise<ProbeVerdict>;

export interface HealthProbeOptions {
  retryMs?: number;
  ttlMs?: number;
  timeoutMs?: number;
  /** Milliseconds, monotonic enough for windows of seconds (default Date.now). */
  now?: () => number;
  get?: RootGetter;
}

/** The API root of an endpoint: its path with one trailing `/`, user info dropped; undefined when it is not a URL. */
export const apiRootURL = (endpoint: string): string | undefined => {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return undefined;
  }
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/`;
  return url.toString();
};

/** Codes of a connection that could not be made or was torn down: the API is not there (yet). */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED']);

class ProbeTimeout extends Error {}

/** One GET of `url` with node's http client: no token, no redirect followed, the body discarded. */
export const getRoot: RootGetter = (url, timeoutMs) =>
  new Promise<ProbeVerdict>((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ kind: 'failed', detail: 'the endpoint is not a URL' });
      return;
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      resolve({ kind: 'failed', detail: `the endpoint's scheme ${target.protocol} is not http or https` });
      return;
    }
    let settled = false;
    const settle = (verdict: ProbeVerdict) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(verdict);
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req: ClientRequest = send(target, { method: 'GET', headers: { accept: 'application/json' }, agent: false }, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      res.resume();
      res.on('error', () => undefined);
      settle(status >= 200 && status < 300 ? { kind: 'healthy', status } : { kind: 'unhealthy', status });
      // the verdict is in: the rest of the body is not read, and the socket is not kept
      req.destroy();
    });
    // the deadline covers connect and the status line: a server that accepts and never answers is a timeout
    const timer = setTimeout(() => req.destroy(new ProbeTimeout()), timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof ProbeTimeout) settle({ kind: 'timeout', afterMs: timeoutMs });
      else if (error.code && CONNECTION_CODES.has(error.code)) settle({ kind: 'connectionFailed', code: error.code });
      else settle({ kind: 'failed', detail: error.code ?? error.message });
    });
    req.end();
  });

interface Entry {
  verdict: ProbeVerdict;
  url: string;
  at: number;
}

export class HealthProbeCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<Entry>>();
  private readonly retryMs: number;
  private readonly ttlMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly get: RootGetter;

  constructor(options: HealthProbeOptions = {}) {
    this.retryMs = options.retryMs ?? PROBE_RETRY_MS;
    this.ttlMs = options.ttlMs ?? PROBE_TTL_MS;
    this.timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
    this.get = options.get ?? getRoot;
  }

  /** How long a verdict is reused: a success for the TTL, anything else for the retry interval. */
  private windowOf(verdict: ProbeVerdict): number {
    return verdict.kind === 'healthy' ? this.ttlMs : this.retryMs;
  }

  private result(entry: Entry, cached: boolean): ProbeResult {
    return { verdict: entry.verdict, url: entry.url, cached, nextProbeInMs: Math.max(0, entry.at + this.windowOf(entry.verdict) - this.now()) };
  }

  /** The endpoint's verdict: remembered while its window lasts, else probed now (one request per endpoint at a time). */
  async probe(endpoint: string): Promise<ProbeResult> {
    const known = this.entries.get(endpoint);
    if (known && this.now() - known.at < this.windowOf(known.verdict)) return this.result(known, true);
    let pending = this.inFlight.get(endpoint);
    if (!pending) {
      pending = this.send(endpoint).finally(() => this.inFlight.delete(endpoint));
      this.inFlight.set(endpoint, pending);
    }
    return this.result(await pending, false);
  }

  private async send(endpoint: string): Promise<Entry> {
    const url = apiRootURL(endpoint);
    const verdict: ProbeVerdict = url === undefined ? { kind: 'failed', detail: 'the endpoint is not a URL' } : await this.get(url, this.timeoutMs);
    const entry = { verdict, url: url ?? '(not a URL)', at: this.now() };
    this.entries.set(endpoint, entry);
    return entry;
  }

  /** Forgets an endpoint (its Nova was deleted, or its endpoint changed); true when there was an entry. */
  evict(endpoint: string): boolean {
    return this.entries.delete(endpoint);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The process's one cache, as the spec's "shared TTL probe cache": the Nova controller's default. */
export const sharedHealthProbes = new HealthProbeCache();
