/**
 * What an incident timeline is asked for (issue 30, "one incident timeline across resources"), and how the web
 * page, the JSON API and `regent timeline` turn their text into it.
 *
 *   window     `from` inclusive, `to` exclusive, on each event's `metadata.recordedAt`: [from, to). Either bound is an
 *              ISO 8601 time (`2026-12-01T10:00:00Z`, `2026-12-01`; without a zone it is UTC) or a duration back from
 *              now (`30m`, `2h`, `1d`, `90s`, `1w`): `--since 30m` is "from 30 minutes ago". Absent: unbounded.
 *   resource   `Kind/namespace/name` (the kind in any letter case; `Kind/name` is namespace `default`). Absent: every
 *              stream in the window.
 *   related    with a resource: also every resource related to it (related.ts).
 *   kinds      only events of streams whose resource is of one of these kinds.
 *   sources    only events with one of these `metadata.source` values (reconciler, monitor, effect, api, operator).
 *   limit      at most this many rows (default 500, at most 10,000), the earliest first; the answer says when more
 *              events lay in the window.
 *
 * Bad input is a UsageError naming what was wrong (the web answers 400, the CLI exits 2); a resource no history
 * names is `NoHistory` (404).
 */
import { UsageError } from '../../errors/usage.js';
import { SOURCES, type Source } from '../../events/envelope.js';
import { KIND_NAMES } from '../../resources/registry.js';

export interface IncidentSubject {
  kind: string;
  namespace: string;
  name: string;
}

/** What a caller asks for, as text or values. */
export interface IncidentQueryInput {
  from?: string | Date | null | undefined;
  to?: string | Date | null | undefined;
  resource?: IncidentSubject | string | null | undefined;
  related?: boolean | undefined;
  kinds?: readonly string[] | undefined;
  sources?: readonly string[] | undefined;
  limit?: number | string | undefined;
}

/** The same, checked and resolved against a clock: what every answer repeats as its `query`. */
export interface IncidentQuery {
  /** ISO time, inclusive; null: from the first event. */
  from: string | null;
  /** ISO time, exclusive; null: to the last event. */
  to: string | null;
  resource: IncidentSubject | null;
  related: boolean;
  /** Canonical kind names; empty: every kind. */
  kinds: string[];
  sources: Source[];
  limit: number;
}

export const DEFAULT_LIMIT = 500;
export const MAX_LIMIT = 10_000;

/** A resource no stream names (by its recorded subject). */
export class NoHistory extends UsageError {}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const RELATIVE = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i;
/** A date, or a date and a time (seconds and fraction optional), with an optional zone. */
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** An ISO time or a duration back from `now`; UsageError for anything else. */
export const parseTime = (text: string | Date, now: Date, what: string): Date => {
  if (text instanceof Date) {
    if (Number.isNaN(text.getTime())) throw new UsageError(`${what}: not a time`);
    return text;
  }
  const value = text.trim();
  const relative = RELATIVE.exec(value);
  if (relative) return new Date(now.getTime() - Number(relative[1]) * (UNITS[(relative[2] as string).toLowerCase()] as number));
  if (ISO.test(value)) {
    // without a zone, UTC (recordedAt is UTC): "2026-12-01T10:00" is 10:00Z, never the server's local time
    const zoned = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(value) || !/[T ]/.test(value) ? value : `${value}Z`;
    const ms = Date.parse(zoned.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
    if (!Number.isNaN(ms)) return new Date(ms);
  }
  throw new UsageError(`${what} ${JSON.stringify(value)} is neither an ISO time (2026-12-01T10:00:00Z) nor a duration back from now (30m, 2h, 1d)`);
};

/** A kind name in any letter case → the kind's own spelling; UsageError naming the kinds for one Regent does not have. */
export const canonicalKind = (kind: string): string => {
  const known = KIND_NAMES.find((k) => k.toLowerCase() === kind.trim().toLowerCase());
  if (!known) throw new UsageError(`unknown kind ${JSON.stringify(kind)} (kinds: ${KIND_NAMES.join(', ')})`);
  return known;
};

/** `Kind/namespace/name` or `Kind/name` (namespace default). */
export const parseSubject = (text: string): IncidentSubject => {
  const parts = text.trim().split('/');
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => p === '')) {
    throw new UsageError(`resource ${JSON.stringify(text)} must be Kind/namespace/name (e.g. Server/default/web-2)`);
  }
  const [kind, namespace, name] = parts.length === 3 ? (parts as [string, string, string]) : [parts[0] as string, 'default', parts[1] as string];
  return { kind: canonicalKind(kind), namespace, name };
};

/** Repeated or comma-separated values, trimmed, empty ones dropped. */
const listOf = (values: readonly string[] | undefined): string[] => (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');

export const normalizeQuery = (input: IncidentQueryInput, now: Date): IncidentQuery => {
  const from = input.from === undefined || input.from === null || input.from === '' ? null : parseTime(input.from, now, 'from');
  const to = input.to === undefined || input.to === null || input.to === '' ? null : parseTime(input.to, now, 'to');
  if (from && to && from.getTime() >= to.getTime()) throw new UsageError(`the window is empty: from ${from.toISOString()} is not before to ${to.toISOString()}`);
  const resource = input.resource === undefined || input.resource === null || input.resource === '' ? null : typeof input.resource === 'string' ? parseSubject(input.resource) : { ...input.resource, kind: canonicalKind(input.resource.kind) };
  const kinds = [...new Set(listOf(input.kinds).map(canonicalKind))];
  const sources = [...new Set(listOf(input.sources))].map((s) => {
    const known = SOURCES.find((k) => k === s.toLowerCase());
    if (!known) throw new UsageError(`unknown source ${JSON.stringify(s)} (sources: ${SOURCES.join(', ')})`);
    return known;
  });
  let limit = DEFAULT_LIMIT;
  if (input.limit !== undefined && input.limit !== '') {
    const n = typeof input.limit === 'number' ? input.limit : /^\d+$/.test(input.limit.trim()) ? Number(input.limit) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) throw new UsageError(`limit ${JSON.stringify(String(input.limit))} must be a whole number from 1 to ${MAX_LIMIT}`);
    limit = n;
  }
  if (input.related && !resource) throw new UsageError('related needs a resource (Kind/namespace/name)');
  return { from: from?.toISOString() ?? null, to: to?.toISOString() ?? null, resource, related: Boolean(input.related) && resource !== null, kinds, sources, limit };
};

/** The query of a URL's search parameters (`from`, `to`, `resource`, `related=1`, `kind` and `source` repeatable or comma-separated, `limit`). */
export const queryOfSearch = (params: URLSearchParams): IncidentQueryInput => {
  const one = (key: string) => {
    const value = params.get(key)?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const related = one('related');
  return {
    from: one('from'),
    to: one('to'),
    resource: one('resource'),
    related: related !== undefined && !/^(0|false|no|off)$/i.test(related),
    kinds: params.getAll('kind'),
    sources: params.getAll('source'),
    limit: one('limit'),
  };
};

/** The search parameters that ask for `query` again (relative times already resolved). */
export const searchOfQuery = (query: IncidentQuery): URLSearchParams => {
  const params = new URLSearchParams();
  if (query.resource) params.set('resource', `${query.resource.kind}/${query.resource.namespace}/${query.resource.name}`);
  if (query.related) params.set('related', '1');
  if (query.from) params.set('from', query.from);
  if (query.to) params.set('to', query.to);
  for (const kind of query.kinds) params.append('kind', kind);
  for (const source of query.sources) params.append('source', source);
  if (query.limit !== DEFAULT_LIMIT) params.set('limit', String(query.limit));
  return params;
};

export const subjectKey = (s: IncidentSubject): string => `${s.kind}/${s.namespace}/${s.name}`;
export const subjectText = (s: IncidentSubject): string => `${s.kind} ${s.namespace}/${s.name}`;
