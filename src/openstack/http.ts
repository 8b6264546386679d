/**
 * The shared axios session of one OpenStack service endpoint: base URL, X-Auth-Token, microversion headers,
 * bounded retries of reads, exactly one re-auth on 401, error mapping, debug logging.
 *
 * Invariants:
 * - Every non-2xx becomes a typed error from errors.ts; an AxiosError never escapes (it holds the token).
 * - GET/HEAD are retried on 5xx/408/timeouts/connection errors with backoff; POST/PUT/PATCH/DELETE never are,
 *   except the single re-send after a 401 (keystonemiddleware refuses the token before the service acts, so the
 *   first request had no effect). `idempotent: true` opts a POST in (only token issue uses it: it creates nothing).
 * - Redirects are not followed (a redirect would carry X-Auth-Token to wherever it points).
 * - Logs carry method, path (no query), status, duration, request id; never headers or bodies.
 */
import type https from 'node:https';
import axios from 'axios';
import type { AxiosInstance, AxiosResponse } from 'axios';
import type { Logger } from '../log/logger.js';
import { silentLogger } from '../log/logger.js';
import type { HttpMethod, OpenStackError, RequestContext } from './errors.js';
import { Cancelled, RequestFailed, Timeout, errorForStatus, faultMessage, redact } from './errors.js';
import type { CancelScope } from './cancel.js';
import type { Microversions } from './microversions.js';
import { DEFAULT_MICROVERSIONS } from './microversions.js';
import type { RetryPolicy } from './retry.js';
import { DEFAULT_RETRY, backoffDelay, isRetryableStatus, sleep as realSleep } from './retry.js';

/** Supplies tokens to a service session; implemented by keystone/session.ts. */
export interface TokenSource {
  /** A token believed valid (cached, or freshly issued). */
  token(): Promise<string>;
  /** The service refused this token (401): drop it so the next token() re-authenticates. */
  invalidate(token: string): void;
  /** Every secret string in play (tokens, password, application-credential secret), for redaction. */
  secrets(): readonly string[];
}

export type QueryValue = string | number | boolean | readonly string[] | null | undefined;
export type Query = Readonly<Record<string, QueryValue>>;

export interface RequestSpec {
  method: HttpMethod;
  /** Path relative to the endpoint, starting with '/'. */
  path: string;
  query?: Query;
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
  /** Allow automatic retry of a non-GET (only for calls that create or change nothing). */
  idempotent?: boolean;
  /** Send without X-Auth-Token (Keystone token issue). */
  anonymous?: boolean;
}

export interface HttpResponse {
  status: number;
  data: unknown;
  headers: Readonly<Record<string, string>>;
  requestId?: string;
  /** ISO time at which the answer arrived: the `observedAt` of what it carries. */
  receivedAt: string;
  /** The method and path (no query) that produced it, for error context. */
  method: HttpMethod;
  path: string;
}

export interface HttpSessionOptions {
  /** Service type for logs and errors ('compute', 'identity', …). */
  service: string;
  baseUrl: string;
  auth?: TokenSource;
  /** Sent on every request (microversion pins). */
  headers?: Readonly<Record<string, string>>;
  retry?: RetryPolicy;
  /** Client-side timeout of one attempt. */
  timeoutMs?: number;
  logger?: Logger;
  httpsAgent?: https.Agent;
  /** Secrets known to this session besides the token source's (the Keystone password), for redaction. */
  secrets?: () => readonly string[];
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** The pinned microversions, for calls that pick a per-call version (Placement candidates, Octavia PROXYV2). */
  microversions?: Microversions;
  /** Abandons every request in flight when cancelled (the control plane stops, or loses leadership). */
  cancel?: CancelScope;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

const REQUEST_ID_HEADERS = ['x-openstack-request-id', 'x-compute-request-id', 'openstack-request-id'];

const isIdempotentMethod = (method: HttpMethod): boolean => method === 'GET' || method === 'HEAD';

/** `a=1&b=x&b=y`: OpenStack wants repeated keys for lists, not axios' `b[]=`. */
export const encodeQuery = (query: Query | undefined): string => {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value as readonly string[]) params.append(key, item);
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
};

export const joinUrl = (baseUrl: string, path: string): string => `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;

const pathOf = (url: string): string => {
  try {
    return new URL(url).pathname;
  } catch {
    return url.split('?')[0] ?? url;
  }
};

interface TransportFailure {
  kind: 'transport';
  code?: string;
  timedOut: boolean;
  /** Why the request was abandoned by Regent (set when the cancel scope fired). */
  cancelled?: string;
}

export class HttpSession {
  readonly service: string;
  readonly baseUrl: string;
  private readonly axios: AxiosInstance;
  private readonly options: HttpSessionOptions;
  private readonly retry: RetryPolicy;
  private readonly logger: Logger;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(options: HttpSessionOptions) {
    this.options = options;
    this.service = options.service;
    this.baseUrl = options.baseUrl;
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.logger = options.logger ?? silentLogger();
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.axios = axios.create({
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRedirects: 0,
      validateStatus: () => true,
      transitional: { clarifyTimeoutError: true, silentJSONParsing: true },
      ...(options.httpsAgent !== undefined ? { httpsAgent: options.httpsAgent } : {}),
    });
  }

  /** The pinned microversions of this connection (defaults when built standalone). */
  get microversions(): Microversions {
    return this.options.microversions ?? DEFAULT_MICROVERSIONS;
  }

  /** A session on the same endpoint with extra headers (e.g. a per-call microversion). */
  withHeaders(headers: Readonly<Record<string, string>>): HttpSession {
    return new HttpSession({ ...this.options, headers: { ...this.options.headers, ...headers } });
  }

  get<T = unknown>(path: string, query?: Query, headers?: Readonly<Record<string, string>>): Promise<HttpResponse & { data: T }> {
    return this.request({ method: 'GET', path, ...(query ? { query } : {}), ...(headers ? { headers } : {}) }) as Promise<HttpResponse & { data: T }>;
  }

  post(path: string, body?: unknown, headers?: Readonly<Record<string, string>>): Promise<HttpResponse> {
    return this.request({ method: 'POST', path, body, ...(headers ? { headers } : {}) });
  }

  put(path: string, body?: unknown, headers?: Readonly<Record<string, string>>): Promise<HttpResponse> {
    return this.request({ method: 'PUT', path, body, ...(headers ? { headers } : {}) });
  }

  patch(path: string, body: unknown, headers?: Readonly<Record<string, string>>): Promise<HttpResponse> {
    return this.request({ method: 'PATCH', path, body, ...(headers ? { headers } : {}) });
  }

  delete(path: string, query?: Query, headers?: Readonly<Record<string, string>>): Promise<HttpResponse> {
    return this.request({ method: 'DELETE', path, ...(query ? { query } : {}), ...(headers ? { headers } : {}) });
  }

  /** Every secret this session may have handled, for redaction. */
  secrets(): readonly string[] {
    return [...(this.options.auth?.secrets() ?? []), ...(this.options.secrets?.() ?? [])];
  }

  async request(spec: RequestSpec): Promise<HttpResponse> {
    const url = joinUrl(this.baseUrl, spec.path) + encodeQuery(spec.query);
    const path = pathOf(url);
    const retryable = spec.idempotent === true || isIdempotentMethod(spec.method);
    let retriesUsed = 0;
    let reauthenticated = false;

    for (;;) {
      const token = spec.anonymous === true || this.options.auth === undefined ? undefined : await this.options.auth.token();
      const started = Date.now();
      const outcome = await this.send(spec, url, token);
      const durationMs = Date.now() - started;

      if ('kind' in outcome) {
        if (outcome.cancelled !== undefined) throw new Cancelled(outcome.cancelled, { service: this.service, method: spec.method, path });
        this.logger.debug('openstack request failed', {
          service: this.service, method: spec.method, path, durationMs, code: outcome.code, timedOut: outcome.timedOut, attempt: retriesUsed + 1,
        });
        if (retryable && retriesUsed < this.retry.retries) {
          await this.sleep(backoffDelay(this.retry, retriesUsed++, this.random));
          continue;
        }
        const context: RequestContext = { service: this.service, method: spec.method, path };
        if (outcome.timedOut) throw new Timeout('request timed out', context);
        throw new RequestFailed('request failed', context, outcome.code);
      }

      const requestId = requestIdOf(outcome);
      this.logger.debug('openstack request', {
        service: this.service, method: spec.method, path, status: outcome.status, durationMs, requestId, attempt: retriesUsed + 1,
      });

      if (outcome.status >= 200 && outcome.status < 300) {
        return {
          status: outcome.status, data: outcome.data, headers: flatHeaders(outcome), receivedAt: new Date().toISOString(),
          method: spec.method, path, ...(requestId !== undefined ? { requestId } : {}),
        };
      }
      if (outcome.status === 401 && token !== undefined && !reauthenticated && this.options.auth !== undefined) {
        // Exactly one re-auth: a token that expired (or was revoked) early. A second 401 is a real refusal.
        reauthenticated = true;
        this.options.auth.invalidate(token);
        continue;
      }
      if (retryable && isRetryableStatus(outcome.status) && retriesUsed < this.retry.retries) {
        await this.sleep(backoffDelay(this.retry, retriesUsed++, this.random));
        continue;
      }
      throw this.toError(outcome, spec.method, path, requestId);
    }
  }

  private async send(spec: RequestSpec, url: string, token: string | undefined): Promise<AxiosResponse | TransportFailure> {
    const headers: Record<string, string> = { Accept: 'application/json', ...this.options.headers, ...spec.headers };
    if (token !== undefined) headers['X-Auth-Token'] = token;
    const hasBody = spec.body !== undefined;
    if (hasBody && headers['Content-Type'] === undefined) {
      headers['Content-Type'] = Buffer.isBuffer(spec.body) ? 'application/octet-stream' : 'application/json';
    }
    const scope = this.options.cancel;
    const signal = scope?.signal;
    if (signal?.aborted) return { kind: 'transport', timedOut: false, cancelled: scope?.reason() ?? 'cancelled' };
    try {
      return await this.axios.request({ method: spec.method, url, headers, ...(hasBody ? { data: spec.body } : {}), ...(signal ? { signal } : {}) });
    } catch (error: unknown) {
      if (signal?.aborted) return { kind: 'transport', timedOut: false, cancelled: scope?.reason() ?? 'cancelled' };
      // Keep only the code: the AxiosError holds the config (token header, auth body).
      const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
        ? (error as { code: string }).code : undefined;
      return { kind: 'transport', ...(code !== undefined ? { code } : {}), timedOut: code === 'ETIMEDOUT' || code === 'ECONNABORTED' };
    }
  }

  private toError(response: AxiosResponse, method: HttpMethod, path: string, requestId: string | undefined): OpenStackError {
    const message = faultMessage(response.data);
    const fault = message !== undefined ? redact(message, this.secrets()) : undefined;
    return errorForStatus(response.status, {
      service: this.service, method, path,
      ...(requestId !== undefined ? { requestId } : {}),
      ...(fault !== undefined ? { fault } : {}),
    });
  }
}

/** Error context of a successful answer whose body turned out unreadable. */
export const contextOf = (http: HttpSession, response: HttpResponse): RequestContext => ({
  service: http.service, method: response.method, path: response.path,
  ...(response.requestId !== undefined ? { requestId: response.requestId } : {}),
});

const flatHeaders = (response: AxiosResponse): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(response.headers as Record<string, unknown>)) {
    if (typeof value === 'string') out[key.toLowerCase()] = value;
    else if (Array.isArray(value)) out[key.toLowerCase()] = value.join(', ');
    else if (typeof value === 'number') out[key.toLowerCase()] = String(value);
  }
  return out;
};

const requestIdOf = (response: AxiosResponse): string | undefined => {
  const headers = response.headers as Record<string, unknown>;
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
};
