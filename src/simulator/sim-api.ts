// /_sim: the unauthenticated, loopback-only control API (documented in README.md).
import type { ComputeHostSpec, SimControl } from './control.js';
import { SimError } from './http.js';
import type { SimResponse } from './http.js';
import type { Sim } from './state.js';
import { isObj } from './validate.js';
import type { Json } from './validate.js';

export interface SimApiRequest { method: string; path: string; query: URLSearchParams; body: unknown }

type SimHandler = (c: SimControl, req: SimApiRequest, m: RegExpExecArray) => SimResponse;

const json = (body: unknown, status = 200): SimResponse => ({ status, body });
const obj = (b: unknown): Json => (isObj(b) ? b : {});

const ROUTES: Array<[string, RegExp, SimHandler]> = [];
export function simRoute(method: string, pattern: RegExp, h: SimHandler): void {
  ROUTES.push([method, pattern, h]);
}

simRoute('GET', /^\/_sim$/, (c) => json({
  clock: { kind: c.sim.clock.kind, now: c.sim.clock.now() }, pendingTransitions: c.sim.scheduler.pending(),
  endpoints: ROUTES.map(([m, p]) => `${m} ${p.source}`),
}));
simRoute('POST', /^\/_sim\/reset$/, (c) => {
  c.reset();
  return json({ reset: true });
});
simRoute('GET', /^\/_sim\/clock$/, (c) => json({ kind: c.sim.clock.kind, now: c.sim.clock.now(), iso: new Date(c.sim.clock.now()).toISOString() }));
simRoute('POST', /^\/_sim\/clock\/advance$/, (c, req) => {
  const ms = obj(req.body).ms;
  if (typeof ms !== 'number' || !(ms >= 0)) throw new SimError(400, 'body must be {"ms": <non-negative number>}');
  const now = c.advance(ms);
  return json({ now, iso: new Date(now).toISOString() });
});
simRoute('GET', /^\/_sim\/config$/, (c) => json(c.sim.config));
simRoute('POST', /^\/_sim\/config$/, (c, req) => json(c.configure(obj(req.body))));
simRoute('GET', /^\/_sim\/faults$/, (c) => json({ faults: c.sim.faults.list() }));
simRoute('POST', /^\/_sim\/faults$/, (c, req) => {
  const r = c.addFault(obj(req.body));
  return json({ fault: c.sim.faults.list().find((f) => f.id === r.id) }, 201);
});
simRoute('DELETE', /^\/_sim\/faults$/, (c) => {
  c.clearFaults();
  return { status: 204 };
});
simRoute('DELETE', /^\/_sim\/faults\/([^/]+)$/, (c, _r, m) => {
  c.sim.faults.remove(m[1] ?? '');
  return { status: 204 };
});
simRoute('POST', /^\/_sim\/latency$/, (c, req) => {
  const b = obj(req.body);
  const ms = b.ms;
  if (typeof ms !== 'number' || ms < 0) throw new SimError(400, 'body must be {"ms": N, "method"?: M, "path"?: regex, "count"?: N|null}');
  const r = c.addFault({ method: typeof b.method === 'string' ? b.method : undefined, path: typeof b.path === 'string' ? b.path : undefined,
    delayMs: ms, count: b.count === undefined ? null : (b.count as number | null) });
  return json({ fault: c.sim.faults.list().find((f) => f.id === r.id) }, 201);
});
simRoute('GET', /^\/_sim\/calls$/, (c, req) => {
  const q = req.query;
  return json({ calls: c.calls({ method: q.get('method') ?? undefined, pathIncludes: q.get('pathIncludes') ?? undefined, action: q.get('action') ?? undefined }) });
});
simRoute('DELETE', /^\/_sim\/calls$/, (c) => {
  c.sim.calls.clear();
  return { status: 204 };
});

simRoute('POST', /^\/_sim\/servers$/, (c, req) => {
  const ids = c.createServers(obj(req.body));
  return json({ ids }, 201);
});
simRoute('POST', /^\/_sim\/servers\/([^/]+)\/state$/, (c, req, m) => json({ server: c.forceServer(m[1] ?? '', obj(req.body)) }));
simRoute('POST', /^\/_sim\/volumes\/([^/]+)\/state$/, (c, req, m) => json({ volume: c.forceVolume(m[1] ?? '', obj(req.body)) }));
simRoute('POST', /^\/_sim\/loadbalancers\/([^/]+)\/state$/, (c, req, m) => json({ loadbalancer: c.forceLoadBalancer(m[1] ?? '', obj(req.body)) }));
simRoute('POST', /^\/_sim\/floatingips\/([^/]+)\/state$/, (c, req, m) => json({ floatingip: c.forceFloatingIp(m[1] ?? '', obj(req.body)) }));
simRoute('POST', /^\/_sim\/compute-hosts$/, (c, req) => json({ computeHost: c.computeHost(obj(req.body) as unknown as ComputeHostSpec) }));
simRoute('POST', /^\/_sim\/duplicate$/, (c, req) => {
  const b = obj(req.body);
  if (typeof b.kind !== 'string' || typeof b.id !== 'string') throw new SimError(400, 'body must be {"kind": "server|volume|network|loadbalancer|image", "id": "<existing id>"}');
  return json({ id: c.duplicate(b.kind, b.id) }, 201);
});

export function handleSimApi(sim: Sim, control: SimControl, req: SimApiRequest): SimResponse {
  let pathMatched = false;
  try {
    for (const [method, pattern, h] of ROUTES) {
      const m = pattern.exec(req.path);
      if (!m) continue;
      if (method !== req.method) {
        pathMatched = true;
        continue;
      }
      sim.settle();
      return h(control, req, m);
    }
    return json({ error: { code: pathMatched ? 405 : 404, message: pathMatched ? 'method not allowed' : `no simulator endpoint ${req.method} ${req.path}` } }, pathMatched ? 405 : 404);
  } catch (e) {
    if (e instanceof SimError) return json({ error: { code: e.status, message: e.message } }, e.status);
    return json({ error: { code: 500, message: e instanceof Error ? e.message : String(e) } }, 500);
  }
}
