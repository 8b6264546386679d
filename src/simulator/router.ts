// A tiny path router: `/compute/v2.1/servers/:id/action` patterns, grouped by their first segment so a
// request only scans its own service's routes.
import type { AuthContext } from './auth.js';
import type { ServiceName, SimRequest, SimResponse } from './http.js';
import type { Version } from './microversion.js';
import type { Sim } from './state.js';

export interface Ctx {
  req: SimRequest;
  sim: Sim;
  auth: AuthContext;
  mv: Version;
  /** Request parameter from the pattern (`:id`); throws if the pattern has none by that name. */
  p(name: string): string;
  /** First value of a query parameter. */
  q(name: string): string | undefined;
}

export type Handler = (ctx: Ctx) => SimResponse;

export interface Route {
  method: string;
  segments: string[];
  service: ServiceName;
  /** false: no X-Auth-Token needed (version documents, POST /auth/tokens). */
  auth: boolean;
  handler: Handler;
}

export type Match = { route: Route; params: Record<string, string> } | { methodNotAllowed: true } | null;

export class Router {
  private byFirst = new Map<string, Route[]>();

  add(method: string, pattern: string, service: ServiceName, handler: Handler, opts: { auth?: boolean } = {}): void {
    const segments = pattern.split('/').filter(Boolean);
    const first = segments[0] ?? '';
    const list = this.byFirst.get(first) ?? [];
    list.push({ method, segments, service, auth: opts.auth ?? true, handler });
    this.byFirst.set(first, list);
  }

  /** A registrar bound to one service and path prefix, to keep route tables short. */
  scope(service: ServiceName, prefix: string): Registrar {
    const reg = (method: string) => (pattern: string, handler: Handler, opts?: { auth?: boolean }) =>
      this.add(method, `${prefix}${pattern}`, service, handler, opts);
    return { get: reg('GET'), post: reg('POST'), put: reg('PUT'), patch: reg('PATCH'), del: reg('DELETE'), head: reg('HEAD') };
  }

  /** The matching route with the most literal segments wins, so `/servers/detail` beats `/servers/:id`. */
  match(method: string, path: string): Match {
    const parts = path.split('/').filter(Boolean);
    const list = this.byFirst.get(parts[0] ?? '') ?? [];
    let pathMatched = false;
    let best: { route: Route; params: Record<string, string>; score: number } | null = null;
    for (const route of list) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let score = 0;
      let okay = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = route.segments[i] as string;
        const part = parts[i] as string;
        if (seg.startsWith(':')) {
          params[seg.slice(1)] = safeDecode(part);
        } else if (seg === part) {
          score++;
        } else {
          okay = false;
          break;
        }
      }
      if (!okay) continue;
      if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) {
        pathMatched = true;
        continue;
      }
      if (!best || score > best.score) best = { route, params, score };
    }
    if (best) return { route: best.route, params: best.params };
    return pathMatched ? { methodNotAllowed: true } : null;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export interface Registrar {
  get(pattern: string, handler: Handler, opts?: { auth?: boolean }): void;
  post(pattern: string, handler: Handler, opts?: { auth?: boolean }): void;
  put(pattern: string, handler: Handler, opts?: { auth?: boolean }): void;
  patch(pattern: string, handler: Handler, opts?: { auth?: boolean }): void;
  del(pattern: string, handler: Handler, opts?: { auth?: boolean }): void;
  head(pattern: string, handler: Handler, opts?: { auth?: boolean }): void;
}
