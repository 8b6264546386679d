/**
 * The audit pages' plan view over HTTP (issue 32: "the audit pages get a plan view (paste or upload manifests) that
 * draws the decisions over each machine's statechart"): POST /api/plan answers the plan `regent plan -o json` prints
 * for the same manifests (a Server's image change over the simulator: R3, then R11 declaring nova.rebuild,
 * DESTRUCTIVE), reading only — the event store's head and every stream's revision unchanged, only GETs at the cloud;
 * POST /plan/view draws it (the decision rows, the statechart with the transitions taken labelled by step); apply's
 * refusal is shown with its message; a Secret only by its keys; bad input answers 400 saying what is wrong; an audit
 * server without a planner says the plan is not available there (501).
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProductRegistry } from '../../machines/index.js';
import { startAuditServer, type AuditServer } from '../../src/audit/web/server.js';
import { createAuditRoutes } from '../../src/audit/web/routes.js';
import { MAX_PLAN_BODY_BYTES, MAX_PLAN_FILES, type AuditPlanner } from '../../src/audit/web/plan-routes.js';
import { connect } from '../../src/openstack/session.js';
import { plan } from '../../src/plan/planner.js';
import type { Plan } from '../../src/plan/report.js';
import { IMAGES, serverManifest, startPlanRig, type PlanRig } from '../plan/support/rig.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED } from '../../src/simulator/index.js';
import { startControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { networkManifest, planeOptions, until } from '../e2e/support/plane.js';

const SECRET_VALUE = 'hunter2-do-not-show';
const SECRET = `apiVersion: v1
kind: Secret
metadata: { name: db-credentials }
stringData:
  password: ${SECRET_VALUE}
  user: admin
`;

describe('audit web: the plan view over HTTP (POST /api/plan, /plan/view, GET /plan)', function () {
  this.timeout(90_000);
  let rig: PlanRig;
  let serverId: string;
  let server: AuditServer;
  let bare: AuditServer;
  let planned = 0;

  /** The host's planner, as `regent serve` binds it: src/plan's plan() over the rig's stores and cloud. */
  const planner: AuditPlanner = async (request) => {
    planned++;
    return plan({
      store: rig.store,
      source: rig.source,
      documents: request.documents,
      connect: (c) => connect(c, { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 5_000 }),
      processRegion: { name: 'default', cloud: rig.cloud, session: rig.os },
      ...(request.only ? { only: request.only } : {}),
    });
  };
  const post = (base: string, path: string, body: unknown, contentType = 'application/json') =>
    fetch(new URL(path, base), { method: 'POST', headers: { 'content-type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const planOf = async (body: unknown): Promise<Plan> => {
    const res = await post(server.url, 'api/plan', body);
    expect(res.status, await res.clone().text()).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    return (await res.json()) as Plan;
  };
  const errorOf = async (res: Response) => ({ status: res.status, error: ((await res.json()) as { error: string }).error });

  before(async () => {
    rig = await startPlanRig();
    serverId = await rig.bringUp('web-2', IMAGES.A);
    server = await startAuditServer({ store: rig.store, registry: createProductRegistry(), planner });
    bare = await startAuditServer({ store: rig.store, registry: createProductRegistry() });
  });
  after(async () => {
    await server?.close();
    await bare?.close();
    await rig?.close();
  });

  it("answers the plan of a Server's image change: the same data as regent plan -o json (R3 arm, R11 nova.rebuild DESTRUCTIVE, the wait)", async () => {
    const text = serverManifest('web-2', IMAGES.B);
    const answered = await planOf({ files: [{ name: 'web-2.yaml', text }] });
    const [web2] = answered.resources;
    expect(web2).to.include({ kind: 'Server', namespace: 'default', name: 'web-2', where: 'web-2.yaml: document 1', verdict: 'planned', apply: 'configured', destructive: true });
    const rebuild = web2?.decisions.filter((d) => d.machine === 'serverRebuild') ?? [];
    expect(rebuild.map((d) => [d.pass, d.event, d.rule?.id, d.destructive])).to.deep.equal([
      [1, 'serverRebuild.armed', 'R3', false],
      [2, 'serverRebuild.submitted', 'R11', true],
    ]);
    expect(rebuild[1]?.effects[0]?.calls).to.deep.equal([{ service: 'compute', method: 'POST', path: `/servers/${serverId}/action`, body: { rebuild: { imageRef: IMAGES.B } } }]);
    expect(web2?.stops).to.equal('after Nova accepts the rebuild: waits for task_state to clear');
    expect(answered.destructive).to.equal(true);
    // what `regent plan -o json` prints: plan() of the same documents (the CLI prints JSON.stringify of it)
    const direct = JSON.parse(JSON.stringify(await rig.plan(text))) as Plan;
    expect({ ...answered, resources: answered.resources.map((r) => ({ ...r, where: 'x' })) }).to.deep.equal({ ...direct, resources: direct.resources.map((r) => ({ ...r, where: 'x' })) });
  });

  it('reads only: the event store head and every stream unchanged, only GETs (and the token) at the cloud, no rebuild sent', async () => {
    const position = await rig.store.lastPosition();
    const heads = await rig.store.listStreams();
    const firstCall = rig.sim.calls().length;
    await planOf({ files: [{ name: 'web-2.yaml', text: serverManifest('web-2', IMAGES.B) }] });
    const view = await post(server.url, 'plan/view', { files: [{ name: 'web-2.yaml', text: serverManifest('web-2', IMAGES.B) }] });
    expect(view.status).to.equal(200);
    expect(await rig.store.lastPosition()).to.equal(position);
    expect(await rig.store.listStreams()).to.deep.equal(heads);
    const sent = rig.sim.calls().slice(firstCall);
    expect(sent.filter((c) => c.method !== 'GET' && c.path !== '/identity/v3/auth/tokens').map((c) => `${c.method} ${c.path}`)).to.deep.equal([]);
    expect(sent.filter((c) => c.method === 'GET').length).to.be.greaterThan(0);
    expect((await rig.source.get('Server', 'default', 'web-2'))?.spec.image).to.deep.equal({ id: IMAGES.A });
  });

  it('POST /plan/view draws it: each decision with its rule and DESTRUCTIVE, the wait, each machine\'s statechart with the steps taken', async () => {
    const res = await post(server.url, 'plan/view', { files: [{ name: 'web-2.yaml', text: serverManifest('web-2', IMAGES.B) }] });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const html = await res.text();
    expect(html).to.match(/<section class="panel plan-resource" id="plan-resource-0" data-resource="Server\/default\/web-2" data-verdict="planned" data-destructive="true">/);
    expect(html).to.match(/<tr class="plan-decision" data-step="2" data-machine="serverRebuild"[^>]* data-rule="R3">/);
    const r11 = /<tr class="plan-decision destructive" data-step="3" data-machine="serverRebuild"[^>]* data-rule="R11">[\s\S]*?<\/tr>/.exec(html)?.[0] ?? '';
    expect(r11).to.include('<b class="plan-rule-id">R11</b>');
    expect(r11).to.include('<span class="plan-flag destructive">DESTRUCTIVE</span>');
    expect(r11).to.include(`POST /servers/${serverId}/action {&quot;rebuild&quot;:{&quot;imageRef&quot;:&quot;${IMAGES.B}&quot;}}`);
    expect(html).to.include('<b>stops:</b> after Nova accepts the rebuild: waits for task_state to clear');
    expect(html).to.include('(regent plan would exit 2)');
    // one chart per stream that decided, the serverRebuild one with its two steps and the views of the states they left
    const chart = /<section class="plan-chart" id="plan-chart-0-1" data-machine="serverRebuild"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    expect(chart).to.include('data-step="2" data-focus="serverRebuild.noMarker" data-edges="e--serverRebuild.noMarker--reconcile--2"');
    expect(chart).to.match(/class="plan-step destructive" data-step="3" data-focus="serverRebuild.Initiated" data-edges="e--serverRebuild.Initiated--reconcile--7"/);
    expect(chart).to.include('data-view="whole"');
    expect(chart).to.include('data-view="focus" data-focus="serverRebuild.noMarker"');
    expect(chart).to.include('data-view="focus" data-focus="serverRebuild.Initiated"');
    // the drawing: the arm's edge fired, both steps labelled by their number, the states visited
    expect(chart).to.match(/<g id="p&#45;&#45;serverRebuild.noMarker&#45;&#45;serverRebuild.Initiated" class="edge transition fired">/);
    expect(chart).to.include('×1 · plan · step 2');
    expect(chart).to.include('×1 · plan · step 3');
    expect(chart).to.match(/id="n&#45;&#45;serverRebuild.Initiated" class="node atomic visited"/);
    expect(html).to.include('data-machine="serverLifecycle"');
  });

  it("apply's refusal is shown with apply's message; the documents after it are not applied", async () => {
    const answered = await planOf({ files: [{ name: 'web-2.yaml', text: `${serverManifest('web-2', IMAGES.A, 'm1.large')}---\n${serverManifest('web-9', IMAGES.B)}` }] });
    expect(answered.resources.map((r) => r.verdict)).to.deep.equal(['refused', 'not-applied']);
    expect(answered.resources[0]?.refusal).to.match(/^web-2\.yaml: document 1: Server "default\/web-2" is invalid: spec\.flavor: .*flavor is immutable/);
    const html = await (await post(server.url, 'plan/view', { files: [{ name: 'web-2.yaml', text: serverManifest('web-2', IMAGES.A, 'm1.large') }] })).text();
    expect(html).to.match(/<div class="banner bad plan-refusal">apply would refuse it: web-2\.yaml: document 1: Server &quot;default\/web-2&quot; is invalid: spec\.flavor: [^<]*flavor is immutable/);
  });

  it('--resource narrows it, as regent plan --resource does', async () => {
    const text = `${SECRET}---\n${serverManifest('web-2', IMAGES.B)}`;
    const all = await planOf({ files: [{ name: 'a.yaml', text }] });
    expect(all.resources.map((r) => `${r.kind}/${r.name}`)).to.deep.equal(['Secret/db-credentials', 'Server/web-2']);
    const one = await planOf({ files: [{ name: 'a.yaml', text }], resource: 'Server/default/web-2' });
    expect(one.resources.map((r) => `${r.kind}/${r.name}`)).to.deep.equal(['Server/web-2']);
  });

  it('a Secret in the manifests appears by its key names only, never its value (JSON and drawing)', async () => {
    const body = { files: [{ name: 'secret.yaml', text: SECRET }, { name: 'web-2.yaml', text: serverManifest('web-2', IMAGES.B) }] };
    const json = await (await post(server.url, 'api/plan', body)).text();
    const html = await (await post(server.url, 'plan/view', body)).text();
    for (const text of [json, html]) {
      expect(text).to.not.include(SECRET_VALUE);
      expect(text).to.not.include(Buffer.from(SECRET_VALUE).toString('base64'));
      expect(text).to.include('to the secret store (keys password, user)');
    }
    expect(html).to.include('data-resource="Secret/default/db-credentials" data-verdict="secret"');
  });

  it('bad input answers 400 saying what is wrong, before anything is planned', async () => {
    const before = planned;
    const good = { name: 'web-2.yaml', text: serverManifest('web-2', IMAGES.B) };
    const cases: Array<[string, Response, RegExp]> = [
      ['not JSON', await post(server.url, 'api/plan', '{"files": [', 'application/json'), /^the body is not JSON: /],
      ['not a JSON content type', await post(server.url, 'api/plan', JSON.stringify({ files: [good] }), 'text/plain'), /^expected a JSON body \(content-type: application\/json\), not "text\/plain"/],
      ['not an object', await post(server.url, 'api/plan', [good]), /^expected a JSON object/],
      ['files missing', await post(server.url, 'api/plan', { manifests: 'x' }), /^files is missing/],
      ['files empty', await post(server.url, 'api/plan', { files: [] }), /^files: expected a non-empty array/],
      ['a file without text', await post(server.url, 'api/plan', { files: [{ name: 'a.yaml' }] }), /^files\[0\]: expected \{"name": string, "text": string\}/],
      ['too many files', await post(server.url, 'api/plan', { files: Array.from({ length: MAX_PLAN_FILES + 1 }, () => good) }), new RegExp(`^files: ${MAX_PLAN_FILES + 1} files, at most ${MAX_PLAN_FILES}`)],
      ['too large', await post(server.url, 'api/plan', { files: [{ name: 'big.yaml', text: `# ${'x'.repeat(MAX_PLAN_BODY_BYTES)}\n${good.text}` }] }), /^the request is too large: \d+ bytes, at most 1048576/],
      ['a bad resource', await post(server.url, 'api/plan', { files: [good], resource: 'Server' }), /^resource "Server": expected Kind\/namespace\/name/],
      ['an unknown kind', await post(server.url, 'api/plan', { files: [good], resource: 'Gizmo/default/x' }), /^resource "Gizmo\/default\/x": unknown kind "Gizmo"/],
      ['bad YAML', await post(server.url, 'api/plan', { files: [{ name: 'bad.yaml', text: 'kind: Server\n  metadata: [' }] }), /^bad\.yaml: document 1: /],
      ['a schema error', await post(server.url, 'api/plan', { files: [{ name: 's.yaml', text: serverManifest('web-2', IMAGES.B).replace('  flavor: { name: m1.small }\n', '') }] }), /^s\.yaml: document 1: .*flavor/],
      ['no document', await post(server.url, 'api/plan', { files: [{ name: 'empty.yaml', text: '# nothing\n' }] }), /^no document in the manifests/],
    ];
    for (const [name, res, message] of cases) {
      const { status, error } = await errorOf(res);
      expect(status, name).to.equal(400);
      expect(error, name).to.match(message);
    }
    expect(planned, 'nothing was planned').to.equal(before);
    // the page's fragment says the same in its error banner
    const view = await post(server.url, 'plan/view', { files: [{ name: 'bad.yaml', text: 'kind: Server\n  metadata: [' }] });
    expect(view.status).to.equal(400);
    expect(await view.text()).to.match(/^<div class="banner bad" id="plan-error">bad\.yaml: document 1: /);
    expect((await fetch(new URL('api/plan', server.url))).status).to.equal(405);
  });

  it('without a planner: the page says the plan is not available here, the API answers 501', async () => {
    const res = await post(bare.url, 'api/plan', { files: [{ name: 'web-2.yaml', text: serverManifest('web-2', IMAGES.B) }] });
    const { status, error } = await errorOf(res);
    expect(status).to.equal(501);
    expect(error).to.match(/^the plan is not available here: this audit server was started without a planner/);
    expect((await post(bare.url, 'plan/view', { files: [] })).status).to.equal(501);
    const page = await (await fetch(new URL('plan', bare.url))).text();
    expect(page).to.include('<div class="banner bad" id="plan-unavailable">The plan is not available here: ');
    expect(page).to.match(/<button type="submit" id="plan-submit" disabled>Plan<\/button>/);
    const ready = await (await fetch(new URL('plan', server.url))).text();
    expect(ready).to.not.include('plan-unavailable');
    expect(ready).to.match(/<textarea id="plan-manifests"[^>]*><\/textarea>/);
    expect(ready).to.match(/<input type="file" id="plan-files" name="files" multiple/);
    for (const asset of ['assets/plan.js', 'assets/plan.css']) expect((await fetch(new URL(asset, server.url))).status, asset).to.equal(200);
    // the index page links to it (the page is found, not only typed)
    expect(await (await fetch(new URL('.', server.url))).text()).to.match(/<a id="plan-link" href="[^"]*\/plan">/);
  });

  it('the control plane (regent serve) gives its audit pages a planner over its own stores and cloud: it plans, nothing is stored or sent', async () => {
    const sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 100, serverDelete: 100, serverAction: 100 } });
    const dir = mkdtempSync(join(tmpdir(), 'regent-plan-view-'));
    const plane = await startControlPlane({ ...planeOptions(dir, sim), routes: ({ store, engine, planner: hosted }) => [createAuditRoutes({ store, registry: engine.registry, planner: hosted })] });
    try {
      await until('leadership', () => plane.isLeader());
      await applyManifests(plane.source, networkManifest);
      const manifest = serverManifest('web-1', SEED.images.cirros);
      // once the Network is up, the Server's pass would create it in Nova: the plan says so
      const planned = await until('a plan of the Nova create', async () => {
        const res = await post(`${plane.url}/`, 'api/plan', { files: [{ name: 'web-1.yaml', text: manifest }] });
        expect(res.status, await res.clone().text()).to.equal(200);
        const answer = (await res.json()) as Plan;
        return answer.resources[0]?.decisions.some((d) => d.rule?.id === 'L2') && answer;
      });
      expect(planned.resources[0]).to.include({ kind: 'Server', name: 'web-1', verdict: 'planned', apply: 'created', destructive: false });
      expect((await plane.source.list('Server')).items).to.deep.equal([]);
      expect(sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/servers'))).to.deep.equal([]);
      expect((await fetch(`${plane.url}/plan`)).status).to.equal(200);
    } finally {
      await plane.stop().catch(() => undefined);
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('mounted under a base path, as the control plane mounts the audit pages', async () => {
    const handle = createAuditRoutes({ store: rig.store, registry: createProductRegistry(), basePath: '/audit', planner });
    const http: Server = createServer((req, res) => void handle(req, res).then((handled) => handled || (res.writeHead(404), res.end())));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`;
      const answered = (await (await post(base, 'audit/api/plan', { files: [{ name: 'web-2.yaml', text: serverManifest('web-2', IMAGES.B) }] })).json()) as Plan;
      expect(answered.destructive).to.equal(true);
      const page = await (await fetch(new URL('audit/plan', base))).text();
      expect(page).to.include('<script src="/audit/assets/plan.js" defer></script>');
      expect(page).to.include('&quot;view&quot;:&quot;/audit/plan/view&quot;'.replace(/&quot;/g, '"'));
    } finally {
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});
