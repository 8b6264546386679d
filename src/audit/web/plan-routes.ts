/**
 * The plan view's routes (issue 32), one `node:http` handler routes.ts dispatches to before its own. It answers its
 * own paths and returns false for every other:
 *
 *   GET  /plan                 the form: paste manifests or upload YAML files (plan-page.ts)
 *   POST /api/plan             {files: [{name, text}], resource?: "Kind/namespace/name"} → the plan as JSON, the same
 *                              data as `regent plan -o json` (src/plan/report.ts)
 *   POST /plan/view            the same body → the plan drawn (an HTML fragment the page inserts: plan-page.ts)
 *   GET  /assets/plan.js, /assets/plan.css
 *
 * The plan itself is the host's: it passes a `planner` (src/plan/planner.ts `plan()` over its own event store,
 * resource source and cloud — `regent serve` does, src/app/control-plane.ts), so this code never opens a store or a
 * cloud and never imports the command line. Without one the page says the plan is not available here and the POSTs
 * answer 501.
 *
 * Input is checked before anything is planned: a JSON body (content-type application/json, at most
 * MAX_PLAN_BODY_BYTES), `files` a non-empty array of at most MAX_PLAN_FILES `{name, text}`, `resource` a
 * `Kind/namespace/name`; then the manifests are parsed as `apply` parses them (a YAML or schema error refuses the set,
 * with apply's message). Each fails with 400 and says what is wrong; `apply`'s refusal of a document is not an error
 * but part of the plan. Plans run one at a time per handler (each reads the cloud); at most MAX_WAITING wait, more
 * are answered 503.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import type { MachineRegistry } from '../../../machines/registry.js';
import type { Plan } from '../../plan/report.js';
import { parseManifestFiles, type ManifestDocument } from '../../kube/cli/manifest-documents.js';
import { resolveKind } from '../../kube/kinds.js';
import type { KindName } from '../../resources/index.js';
import { renderChartViews } from '../graph/render.js';
import { planCharts, planErrorHtml, planPage, planResultHtml, type DrawnPlanChart } from './plan-page.js';
import type { PageOptions } from './pages.js';

/** What the host plans: the manifests' documents (parsed as apply parses them), narrowed to one resource or not. */
export interface PlanRequest {
  documents: readonly ManifestDocument[];
  only?: { kind: KindName; namespace: string; name: string };
}

/** The host's plan: src/plan/planner.ts `plan()` with its store, source and cloud bound. */
export type AuditPlanner = (request: PlanRequest) => Promise<Plan>;

/** Thrown by a planner that cannot plan yet (the control plane has not reached its cloud): 503. */
export class PlanUnavailable extends Error {}

export const MAX_PLAN_BODY_BYTES = 1024 * 1024;
export const MAX_PLAN_FILES = 64;
const MAX_NAME_CHARS = 256;
/** Plans waiting behind the running one before a request is turned away. */
export const MAX_WAITING = 4;

export interface PlanRoutesOptions {
  registry: MachineRegistry;
  planner?: AuditPlanner;
  /** Mount point, e.g. `/audit`; default '' (the root). */
  basePath?: string;
  /** DOT → standalone SVG (the audit handler's layout cache); default graph/render.ts renderSvg. */
  layout?: (dot: string) => Promise<string>;
}

export type PlanHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/** A request the plan cannot be made from: 400 with its message. */
class BadPlanRequest extends Error {}

const NOT_AVAILABLE = 'this audit server was started without a planner (regent serve --audit-only or a static server reads the event store only, not the resources or a cloud); run regent plan -f <manifests>, or open the plan view of `regent serve`';

const asset = (name: 'plan.js' | 'plan.css'): string => readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');

const send = (res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers });
  res.end(body);
};

/** The body, at most `limit` bytes; a longer one is read to its end (so the answer reaches the client) and refused. */
const readBody = (req: IncomingMessage, limit: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => (size > limit ? reject(new BadPlanRequest(`the request is too large: ${size} bytes, at most ${limit} (${MAX_PLAN_FILES} files); plan fewer manifests at a time`)) : resolve(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `Kind/namespace/name` (or `Kind/name`, in default), as `regent plan --resource` takes it. */
const parseResource = (text: string): PlanRequest['only'] => {
  const parts = text.split('/');
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => p.trim() === '')) throw new BadPlanRequest(`resource ${JSON.stringify(text)}: expected Kind/namespace/name`);
  let kind: KindName;
  try {
    kind = resolveKind(parts[0] as string);
  } catch (error) {
    throw new BadPlanRequest(`resource ${JSON.stringify(text)}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parts.length === 3 ? { kind, namespace: parts[1] as string, name: parts[2] as string } : { kind, namespace: 'default', name: parts[1] as string };
};

/** The plan request a body asks for; BadPlanRequest saying what is wrong with it. */
export const planRequestOf = (contentType: string | undefined, text: string): PlanRequest => {
  if (!/^application\/json\s*(;|$)/i.test(contentType ?? '')) throw new BadPlanRequest(`expected a JSON body (content-type: application/json), not ${contentType ? JSON.stringify(contentType) : 'none'}: {"files": [{"name": "servers.yaml", "text": "…"}], "resource": "Kind/namespace/name"}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new BadPlanRequest(`the body is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(body)) throw new BadPlanRequest('expected a JSON object: {"files": [{"name", "text"}], "resource"?}');
  const { files, resource } = body;
  if (files === undefined) throw new BadPlanRequest('files is missing: expected {"files": [{"name": "servers.yaml", "text": "…"}]}');
  if (!Array.isArray(files) || files.length === 0) throw new BadPlanRequest('files: expected a non-empty array of {"name", "text"}');
  if (files.length > MAX_PLAN_FILES) throw new BadPlanRequest(`files: ${files.length} files, at most ${MAX_PLAN_FILES}`);
  const manifests = files.map((file, i) => {
    if (!isObject(file) || typeof file.text !== 'string') throw new BadPlanRequest(`files[${i}]: expected {"name": string, "text": string}`);
    const name = file.name === undefined ? `file ${i + 1}` : file.name;
    if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_CHARS) throw new BadPlanRequest(`files[${i}].name: expected a file name of 1 to ${MAX_NAME_CHARS} characters`);
    return { file: name, text: file.text };
  });
  if (resource !== undefined && resource !== null && resource !== '' && typeof resource !== 'string') throw new BadPlanRequest('resource: expected "Kind/namespace/name"');
  const only = typeof resource === 'string' && resource.trim() !== '' ? parseResource(resource.trim()) : undefined;
  let documents: ManifestDocument[];
  try {
    documents = parseManifestFiles(manifests);
  } catch (error) {
    // a YAML or schema error: apply refuses the whole set with this message, and so does the plan
    throw new BadPlanRequest(error instanceof Error ? error.message : String(error));
  }
  if (documents.length === 0) throw new BadPlanRequest('no document in the manifests: nothing to plan');
  return { documents, ...(only ? { only } : {}) };
};

export const createPlanRoutes = (options: PlanRoutesOptions): PlanHandler => {
  const base = (options.basePath ?? '').replace(/\/$/, '');
  const page: PageOptions = { base, assets: 'linked' };
  const assets = { js: asset('plan.js'), css: asset('plan.css') };
  const { planner, registry } = options;
  // one plan at a time: each reads the cloud, and the control plane beside it keeps its share
  let queue: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  const serialised = async (request: PlanRequest): Promise<Plan> => {
    if (!planner) throw new PlanUnavailable(NOT_AVAILABLE);
    if (waiting >= MAX_WAITING) throw new PlanUnavailable(`${waiting} plans are waiting already; try again in a moment`);
    waiting++;
    const turn = queue.then(() => planner(request));
    queue = turn.catch(() => undefined).finally(() => waiting--);
    return turn;
  };
  /** Every stream that decided, drawn with its decisions over its statechart, by resource index. */
  const drawn = async (plan: Plan): Promise<Map<number, DrawnPlanChart[]>> => {
    const out = new Map<number, DrawnPlanChart[]>();
    for (const [i, resource] of plan.resources.entries()) {
      const charts: DrawnPlanChart[] = [];
      for (const chart of planCharts(resource, registry)) charts.push({ chart, svg: await renderChartViews(chart.chart, chart.overlay, options.layout ? { layout: options.layout } : {}) });
      out.set(i, charts);
    }
    return out;
  };
  const statusOf = (error: unknown): number => (error instanceof BadPlanRequest ? 400 : error instanceof PlanUnavailable ? (planner ? 503 : 501) : 500);

  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (base && !url.pathname.startsWith(`${base}/`)) return false;
    const path = url.pathname.slice(base.length);
    const get = req.method === 'GET' || req.method === 'HEAD';
    if (get && path === '/assets/plan.js') return send(res, 200, 'text/javascript', assets.js), true;
    if (get && path === '/assets/plan.css') return send(res, 200, 'text/css', assets.css), true;
    if (get && (path === '/plan' || path === '/plan/')) return send(res, 200, 'text/html', planPage(page, planner ? undefined : NOT_AVAILABLE)), true;
    if (path !== '/api/plan' && path !== '/plan/view') return false;
    const api = path === '/api/plan';
    if (req.method !== 'POST') {
      const message = `${path} takes POST {"files": [{"name", "text"}], "resource"?}`;
      if (api) send(res, 405, 'application/json', JSON.stringify({ error: message }), { allow: 'POST' });
      else send(res, 405, 'text/html', planErrorHtml(message), { allow: 'POST' });
      return true;
    }
    try {
      // without a planner nothing is read: the answer does not depend on the body
      if (!planner) throw new PlanUnavailable(NOT_AVAILABLE);
      const request = planRequestOf(req.headers['content-type'], await readBody(req, MAX_PLAN_BODY_BYTES));
      const plan = await serialised(request);
      if (api) send(res, 200, 'application/json', JSON.stringify(plan));
      else send(res, 200, 'text/html', planResultHtml(plan, await drawn(plan), page));
    } catch (error) {
      const status = statusOf(error);
      const message = status === 501 ? `the plan is not available here: ${NOT_AVAILABLE}` : error instanceof Error ? error.message : String(error);
      if (!req.readableEnded) req.resume();
      if (api) send(res, status, 'application/json', JSON.stringify({ error: message }));
      else send(res, status, 'text/html', planErrorHtml(message));
    }
    return true;
  };
};
