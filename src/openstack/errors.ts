/**
 * Typed OpenStack errors. Every non-2xx answer, every transport failure and every answer that does not decode
 * becomes one of these classes with a closed `reason`.
 *
 * Why the fields are copied, never wrapped: an AxiosError carries the request config (X-Auth-Token header, the
 * Keystone password in the auth body). Keeping it as `cause` would leak those through `util.inspect`, JSON
 * serialization or a log transport. So these errors hold only plain, user-safe strings and numbers, and every
 * text that came from the wire (the fault message) is passed through `redact` with the secrets in play.
 */

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The closed set of reasons an OpenStack call can fail with. */
export type OpenStackErrorReason =
  | 'not-found'
  | 'conflict'
  | 'bad-request'
  | 'forbidden'
  | 'unauthorized'
  | 'over-limit'
  | 'server-error'
  | 'timeout'
  | 'request-failed'
  | 'cancelled'
  | 'unexpected-status'
  | 'unreadable-response'
  | 'duplicate-name'
  | 'no-endpoint'
  | 'invalid-config';

/** Where a failed call went: every field is safe to log and to show (no query string, no headers, no body). */
export interface RequestContext {
  service?: string;
  method?: HttpMethod;
  /** URL path only; the query string is dropped because it can carry secrets or user data. */
  path?: string;
  status?: number;
  /** `x-openstack-request-id`, `x-compute-request-id` or `openstack-request-id`. */
  requestId?: string;
  /** The OpenStack fault message, redacted and truncated. */
  fault?: string;
}

export abstract class OpenStackError extends Error {
  abstract readonly reason: OpenStackErrorReason;
  readonly service?: string;
  readonly method?: HttpMethod;
  readonly path?: string;
  readonly status?: number;
  readonly requestId?: string;
  readonly fault?: string;

  constructor(summary: string, context: RequestContext = {}) {
    super(formatMessage(summary, context));
    this.name = new.target.name;
    if (context.service !== undefined) this.service = context.service;
    if (context.method !== undefined) this.method = context.method;
    if (context.path !== undefined) this.path = context.path;
    if (context.status !== undefined) this.status = context.status;
    if (context.requestId !== undefined) this.requestId = context.requestId;
    if (context.fault !== undefined) this.fault = context.fault;
  }

  /** A log-safe plain object (also what JSON.stringify produces). */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, reason: this.reason, message: this.message };
    for (const key of ['service', 'method', 'path', 'status', 'requestId', 'fault'] as const) {
      if (this[key] !== undefined) out[key] = this[key];
    }
    return out;
  }
}

const formatMessage = (summary: string, c: RequestContext): string => {
  const where = c.method !== undefined && c.path !== undefined ? ` on ${c.method} ${c.path}` : '';
  const service = c.service !== undefined ? `${c.service}: ` : '';
  const status = c.status !== undefined ? ` (HTTP ${c.status})` : '';
  const fault = c.fault !== undefined && c.fault !== '' ? `: ${c.fault}` : '';
  const rid = c.requestId !== undefined ? ` [request ${c.requestId}]` : '';
  return `${service}${summary}${status}${where}${fault}${rid}`;
};

/** 404. Also raised by the exact-name helper when no resource carries the name (then `status` is unset). */
export class NotFound extends OpenStackError {
  readonly reason = 'not-found' as const;
  readonly resourceKind?: string;
  readonly lookupName?: string;
  constructor(summary: string, context: RequestContext = {}, lookup?: { kind: string; name: string }) {
    super(summary, context);
    if (lookup !== undefined) {
      this.resourceKind = lookup.kind;
      this.lookupName = lookup.name;
    }
  }
  override toJSON(): Record<string, unknown> {
    const out = super.toJSON();
    if (this.resourceKind !== undefined) out.resourceKind = this.resourceKind;
    if (this.lookupName !== undefined) out.lookupName = this.lookupName;
    return out;
  }
}

/** 409: Nova task_state busy, Octavia immutable while PENDING_*, Neutron in-use, … */
export class Conflict extends OpenStackError {
  readonly reason = 'conflict' as const;
}

/** 400 and 422 (and 405/406/415: the request itself is wrong). */
export class BadRequest extends OpenStackError {
  readonly reason = 'bad-request' as const;
}

/** 403: policy refused it, or Nova's quota ("Quota exceeded for cores"). */
export class Forbidden extends OpenStackError {
  readonly reason = 'forbidden' as const;
}

/** 401: bad credentials at Keystone, or a token that is still refused after the one re-auth. */
export class Unauthorized extends OpenStackError {
  readonly reason = 'unauthorized' as const;
}

/** 413 and 429: Cinder's quota answer (`overLimit`) and rate limits. */
export class OverLimit extends OpenStackError {
  readonly reason = 'over-limit' as const;
}

/** 5xx other than 504. */
export class ServerError extends OpenStackError {
  readonly reason = 'server-error' as const;
}

/** The call did not complete in time: the client-side timeout (no status), HTTP 408 or 504. */
export class Timeout extends OpenStackError {
  readonly reason = 'timeout' as const;
}

/** No HTTP answer at all: connection refused or reset, DNS, TLS. `code` is the Node error code. */
export class RequestFailed extends OpenStackError {
  readonly reason = 'request-failed' as const;
  readonly code?: string;
  constructor(summary: string, context: RequestContext = {}, code?: string) {
    super(code !== undefined ? `${summary} (${code})` : summary, context);
    if (code !== undefined) this.code = code;
  }
  override toJSON(): Record<string, unknown> {
    const out = super.toJSON();
    if (this.code !== undefined) out.code = this.code;
    return out;
  }
}

/**
 * Regent itself abandoned the request (it is stopping, or lost leadership): a request already sent may
 * still be carried out by the service, so for a mutation the outcome is unknown, never "not done".
 */
export class Cancelled extends OpenStackError {
  readonly reason = 'cancelled' as const;
  readonly why: string;
  constructor(why: string, context: RequestContext = {}) {
    super(`request cancelled: ${why}`, context);
    this.why = why;
  }
}

/** Any other status (3xx because redirects are never followed, 1xx, unknown 4xx). */
export class UnexpectedStatus extends OpenStackError {
  readonly reason = 'unexpected-status' as const;
}

/**
 * A 2xx answer whose body does not have the shape a caller depends on (e.g. `servers` is not an array, an item
 * has no string `id`). `problems` lists the failing key paths, never the values.
 */
export class UnreadableResponse extends OpenStackError {
  readonly reason = 'unreadable-response' as const;
  readonly problems: readonly string[];
  constructor(summary: string, problems: readonly string[], context: RequestContext = {}) {
    super(`${summary} [${problems.slice(0, 5).join('; ')}]`, context);
    this.problems = problems;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), problems: this.problems };
  }
}

/** An exact-name lookup found more than one resource: OpenStack names are not unique, so we refuse to guess. */
export class ConsistencyError extends OpenStackError {
  readonly reason = 'duplicate-name' as const;
  readonly resourceKind: string;
  readonly lookupName: string;
  readonly ids: readonly string[];
  constructor(kind: string, name: string, ids: readonly string[], context: RequestContext = {}) {
    super(`${ids.length} ${kind} resources are named exactly '${name}' (ids ${ids.join(', ')})`, context);
    this.resourceKind = kind;
    this.lookupName = name;
    this.ids = ids;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), resourceKind: this.resourceKind, lookupName: this.lookupName, ids: this.ids };
  }
}

/** The catalog has no (unique) endpoint for a service type / interface / region. */
export class EndpointNotFound extends OpenStackError {
  readonly reason = 'no-endpoint' as const;
}

/** clouds.yaml / OS_* environment that cannot be turned into a cloud config. */
export class InvalidConfig extends OpenStackError {
  readonly reason = 'invalid-config' as const;
}

const REDACTED = '[REDACTED]';

/**
 * Replace every occurrence of a known secret in `text`. Secrets shorter than 4 characters are skipped (they would
 * shred ordinary words and cannot be meaningfully protected by substring replacement anyway).
 */
export const redact = (text: string, secrets: readonly string[]): string => {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    out = out.split(secret).join(REDACTED);
  }
  return out;
};

const MAX_FAULT = 500;

/**
 * The human message of an OpenStack fault body, whatever service produced it:
 * Nova/Cinder `{"itemNotFound": {"message"}}`, Keystone `{"error": {"message"}}`, Neutron `{"NeutronError":
 * {"message"}}`, Octavia `{"faultstring"}`, Placement `{"errors": [{"detail"}]}`, Ironic `{"error_message": "<json>"}`,
 * Glance plain text or HTML.
 */
export const faultMessage = (body: unknown): string | undefined => {
  const text = extractFault(body, 0);
  if (text === undefined) return undefined;
  const clean = text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  if (clean === '') return undefined;
  return clean.length > MAX_FAULT ? `${clean.slice(0, MAX_FAULT)}…` : clean;
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const extractFault = (body: unknown, depth: number): string | undefined => {
  if (depth > 3) return undefined;
  if (typeof body === 'string') {
    const trimmed = body.trim();
    if (trimmed.startsWith('{')) {
      try {
        return extractFault(JSON.parse(trimmed), depth + 1) ?? trimmed;
      } catch {
        return trimmed;
      }
    }
    return trimmed;
  }
  if (Buffer.isBuffer(body)) return extractFault(body.toString('utf8'), depth + 1);
  if (!isRecord(body)) return undefined;
  for (const key of ['faultstring', 'message', 'detail', 'error_message', 'title']) {
    const value = body[key];
    if (typeof value === 'string' && value.trim() !== '') return extractFault(value, depth + 1);
  }
  const errors = body.errors;
  if (Array.isArray(errors) && errors.length > 0) return extractFault(errors[0], depth + 1);
  // Nova/Cinder/Keystone/Neutron wrap the fault in one named object: {"conflictingRequest": {...}}.
  for (const value of Object.values(body)) {
    if (isRecord(value)) {
      const inner = extractFault(value, depth + 1);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
};

/** The error class for an HTTP status (non-2xx). */
export const errorForStatus = (status: number, context: RequestContext): OpenStackError => {
  const c = { ...context, status };
  if (status === 404) return new NotFound('not found', c);
  if (status === 409) return new Conflict('conflict', c);
  if (status === 400 || status === 422 || status === 405 || status === 406 || status === 415) return new BadRequest('bad request', c);
  if (status === 401) return new Unauthorized('unauthorized', c);
  if (status === 403) return new Forbidden('forbidden', c);
  if (status === 413 || status === 429) return new OverLimit('over limit', c);
  if (status === 408 || status === 504) return new Timeout('timed out', c);
  if (status >= 500 && status <= 599) return new ServerError('server error', c);
  return new UnexpectedStatus('unexpected status', c);
};
