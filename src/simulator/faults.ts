// Injected faults: answer the next N calls matching method + path regex with an error, hang them (the
// client's timeout fires), or delay them. Matching is on the path with its query string, unanchored,
// like the sandbox's fault control regexes.
import { SimError, badRequest } from './http.js';
import { isObj } from './validate.js';

export interface FaultRule {
  id: string;
  method: string | null;
  path: RegExp;
  pathSource: string;
  /** Only calls whose raw body contains this text (e.g. "rebuild"). */
  bodyIncludes: string | null;
  /** Remaining matches; null = until deleted. */
  remaining: number | null;
  status: number | null;
  body: unknown;
  timeout: boolean;
  delayMs: number;
  hits: number;
}

export interface FaultSpec {
  method?: string; path?: string; bodyIncludes?: string; count?: number | null; status?: number;
  body?: unknown; timeout?: boolean; delayMs?: number;
}

export class FaultSet {
  private rules: FaultRule[] = [];
  private nextId = 1;

  add(spec: unknown): FaultRule {
    if (!isObj(spec)) throw badRequest('fault spec must be a JSON object');
    const s = spec as FaultSpec;
    let path: RegExp;
    const pathSource = typeof s.path === 'string' ? s.path : '.*';
    try {
      path = new RegExp(pathSource);
    } catch (e) {
      throw badRequest(`invalid path regex: ${(e as Error).message}`);
    }
    const status = typeof s.status === 'number' ? s.status : null;
    const timeout = s.timeout === true;
    const delayMs = typeof s.delayMs === 'number' ? Math.max(0, s.delayMs) : 0;
    if (status === null && !timeout && delayMs === 0) throw badRequest('a fault needs status, timeout or delayMs');
    if (status !== null && (status < 100 || status > 599)) throw badRequest('status must be an HTTP status code');
    const rule: FaultRule = {
      id: String(this.nextId++),
      method: typeof s.method === 'string' ? s.method.toUpperCase() : null,
      path, pathSource,
      bodyIncludes: typeof s.bodyIncludes === 'string' ? s.bodyIncludes : null,
      remaining: s.count === null ? null : typeof s.count === 'number' ? Math.max(1, Math.floor(s.count)) : 1,
      status, body: s.body, timeout, delayMs, hits: 0,
    };
    this.rules.push(rule);
    return rule;
  }

  /** The first rule matching this call; consumes one of its remaining matches. */
  take(method: string, pathWithQuery: string, rawBody: string): FaultRule | undefined {
    const i = this.rules.findIndex((r) =>
      (r.method === null || r.method === method) && r.path.test(pathWithQuery) &&
      (r.bodyIncludes === null || rawBody.includes(r.bodyIncludes)));
    const rule = this.rules[i];
    if (!rule) return undefined;
    rule.hits++;
    if (rule.remaining !== null && --rule.remaining <= 0) this.rules.splice(i, 1);
    return rule;
  }

  list(): Array<Record<string, unknown>> {
    return this.rules.map((r) => ({
      id: r.id, method: r.method, path: r.pathSource, bodyIncludes: r.bodyIncludes, remaining: r.remaining,
      status: r.status, body: r.body, timeout: r.timeout, delayMs: r.delayMs, hits: r.hits,
    }));
  }

  remove(id: string): void {
    const i = this.rules.findIndex((r) => r.id === id);
    if (i < 0) throw new SimError(404, `no fault ${id}`);
    this.rules.splice(i, 1);
  }

  clear(): void {
    this.rules = [];
  }
}
