/**
 * Maps the client's failures to the port's typed errors. The API server answers with a Status
 * object whose `reason` tells Conflict from AlreadyExists (both 409) and carries the field causes of
 * a 422; a connection failure or 5xx becomes SourceUnavailable (retry after a backoff).
 */
import { AlreadyExists, BadRequest, Conflict, Gone, Invalid, NotFound, ResourceError, SourceUnavailable } from '../errors.js';

export interface StatusBody {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: { name?: string; kind?: string; causes?: Array<{ field?: string; message?: string; reason?: string }> };
}

const parseBody = (body: unknown): StatusBody => {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as StatusBody;
    } catch {
      return { message: body };
    }
  }
  return typeof body === 'object' && body !== null ? (body as StatusBody) : {};
};

export interface Target {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** The typed error for an HTTP status and Status body about `target`. */
export const errorFromStatus = (code: number, body: unknown, target: Target): ResourceError => {
  const status = parseBody(body);
  const message = status.message ?? `HTTP ${code}`;
  switch (code) {
    case 404:
      return new NotFound(target.kind, target.namespace, target.name);
    case 409:
      return status.reason === 'AlreadyExists' ? new AlreadyExists(target.kind, target.namespace, target.name) : new Conflict(target.kind, target.namespace, target.name);
    case 410:
      return new Gone('', message);
    case 422:
      return new Invalid(message, (status.details?.causes ?? []).map((c) => ({ path: c.field ?? '', message: c.message ?? c.reason ?? 'Invalid value' })));
    case 400:
    case 415:
      return new BadRequest(message);
    default:
      return new SourceUnavailable(`${target.kind} "${target.namespace}/${target.name}": ${message}`, { code });
  }
};

/** Converts anything the client throws: ApiException (code, body) or a network error. */
export const toResourceError = (error: unknown, target: Target): Error => {
  if (error instanceof ResourceError) return error;
  const candidate = error as { code?: unknown; body?: unknown; statusCode?: unknown };
  if (typeof candidate.code === 'number') return errorFromStatus(candidate.code, candidate.body, target);
  if (typeof candidate.statusCode === 'number') return errorFromStatus(candidate.statusCode, candidate.body, target);
  return new SourceUnavailable(`cannot reach the Kubernetes API: ${(error as Error)?.message ?? String(error)}`, { cause: error });
};

/** The `Warning:` headers of a response (pruned unknown fields), as plain texts. */
export const warningsFrom = (headers: Record<string, string> | undefined): string[] => {
  const raw = headers?.warning ?? headers?.Warning;
  if (!raw) return [];
  return [...raw.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? '').replace(/\\"/g, '"'));
};
