/**
 * `?dryRun=All` on the API's create and update (issue 32): every check answers as without it; then the answer is the
 * plan of the write (src/plan/planner.ts) instead of the write — nothing stored, nothing audited, the cloud only read.
 * Over real HTTP on 127.0.0.1, the OpenStack simulator behind the plan; every answer is checked against openapi.yaml.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { serverResourceName } from '../../src/api/model.js';
import { ENDPOINTS } from '../../src/api/auth.js';
import type { DryRunAnswer } from '../../src/api/dry-run.js';
import { startApi } from '../../src/api/server.js';
import { kindTable } from '../../src/app/kinds.js';
import type { KindWiring } from '../../src/controllers/kind.js';
import { IMAGES } from '../plan/support/rig.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED } from '../../src/simulator/index.js';
import { startControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { createTokenIssuer } from '../../src/api/auth.js';
import { networkManifest, planeOptions, until } from '../e2e/support/plane.js';
import { startDryRunRig, type DryRunRig, type Reply } from './support/dry-run-rig.js';

interface Read {
  metadata: { id: string; name: string; provisioningStatus: string };
  spec: { imageId: string; userData?: string };
}
type Answer = DryRunAnswer<Read>;
interface ErrorBody {
  error: string;
  error_description: string;
}

const USER_DATA = Buffer.from('#cloud-config\npassword: hunter2\n').toString('base64');
const body = (name: string, spec: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { networkId: 'net-a', flavorId: '2', imageId: IMAGES.A, sshInjection: 'none', ...spec } });
const V1 = '/api/v1/organizations/acme/projects/web/identities/acme/servers';

describe('api: ?dryRun=All answers the plan and stores nothing', function () {
  this.timeout(60_000);
  let rig: DryRunRig;
  /** The Server the update tests change: created through the API, brought up by the real pass. */
  let web2: string;
  let novaId: string;

  /** Everything a write would change: the stored Servers (whole objects) and every stream's head. */
  const world = async () => ({
    servers: JSON.stringify((await rig.plan.source.list('Server')).items),
    streams: await rig.plan.store.listStreams(),
  });
  const mutations = (since: number) => rig.plan.sim.calls().slice(since).filter((c) => c.method !== 'GET' && c.path !== '/identity/v3/auth/tokens').map((c) => `${c.method} ${c.path}`);

  before(async () => {
    rig = await startDryRunRig();
    const created = await rig.call('POST', '/api/v2/servers', { body: body('web-2') });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    web2 = (created.body as Read).metadata.id;
    novaId = await rig.bringUp(web2);
  });
  after(async () => rig?.close());

  it('create: 200 with the server it would create and its plan — the create (L2), the Nova request with user data as a sha256 digest — and nothing stored', async () => {
    const before = await world();
    const firstCall = rig.plan.sim.calls().length;
    const reply = await rig.call('POST', '/api/v2/servers?dryRun=All', { body: body('web-1', { imageId: IMAGES.B, userData: USER_DATA }) });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    const answer = reply.body as Answer;
    const id = serverResourceName('net-a', 'web-1');
    expect(answer.dryRun).to.equal(true);
    expect(answer.server.metadata).to.include({ id, name: 'web-1', provisioningStatus: 'pending' });
    expect(answer.server.spec.imageId).to.equal(IMAGES.B);
    expect(answer.plan).to.include({ kind: 'Server', namespace: 'default', name: id, where: `request ${reply.headers.get('x-request-id')}`, verdict: 'planned', apply: 'created', destructive: false });
    const create = answer.plan.decisions[0];
    expect([create?.event, create?.rule?.id, create?.then]).to.deep.equal(['serverLifecycle.createSubmitted', 'L2', 'after Nova accepts the create: waits for the server to become ACTIVE']);
    const request = create?.effects[0]?.calls[0];
    expect([request?.service, request?.method, request?.path]).to.deep.equal(['compute', 'POST', '/servers']);
    const nova = (request?.body as { server: { user_data: string; imageRef: string } }).server;
    expect(nova.imageRef).to.equal(IMAGES.B);
    expect(nova.user_data).to.equal(`sha256:${createHash('sha256').update(USER_DATA).digest('hex')}`);
    expect(JSON.stringify(answer.plan)).to.not.include(USER_DATA).and.not.include('hunter2');
    expect(answer.plan.guarded.map((c) => `${c.method} ${c.path}`)).to.include('POST /servers');

    // nothing stored: no Server, no event (no audit event either: every stream's head as it was), the cloud only read
    expect((await rig.call('GET', `/api/v2/servers/${id}`)).status).to.equal(404);
    expect(await world()).to.deep.equal(before);
    expect(before.streams.filter((s) => s.stream.startsWith('api-server-')).map((s) => s.stream)).to.have.length(1); // web-2's create only
    expect(mutations(firstCall)).to.deep.equal([]);

    // not audited, but logged: who asked, which request, what the plan said — never the user data
    const line = rig.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === reply.headers.get('x-request-id'));
    expect(line).to.include({ message: 'API dry run: planned, nothing stored', actor: 'admin', action: 'create', apiVersion: 2, server: `default/${id}`, serverName: 'web-1', verdict: 'planned', destructive: false });
    expect(rig.logs.join('\n')).to.not.include(USER_DATA);
  });

  it('update changing the image of a running server: the destructive rebuild (R3, then R11 nova.rebuild), and the server unchanged', async () => {
    const stored = await rig.plan.source.get('Server', 'default', web2);
    const before = await world();
    const firstCall = rig.plan.sim.calls().length;
    const reply = await rig.call('PUT', `/api/v2/servers/${web2}?dryRun=All`, { body: body('web-2', { imageId: IMAGES.B }) });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    const answer = reply.body as Answer;
    expect(answer.server.spec.imageId).to.equal(IMAGES.B);
    const current = (await rig.call('GET', `/api/v2/servers/${web2}`)).body as Read & { status: unknown };
    expect((answer.server as Read & { status: unknown }).status, 'the status is the stored one: an update does not touch it').to.deep.equal(current.status);
    expect(answer.plan).to.include({ name: web2, verdict: 'planned', apply: 'configured', destructive: true });
    const rebuild = answer.plan.decisions.filter((d) => d.machine === 'serverRebuild');
    expect(rebuild.map((d) => [d.pass, d.event, d.rule?.id, d.destructive])).to.deep.equal([
      [1, 'serverRebuild.armed', 'R3', false],
      [2, 'serverRebuild.submitted', 'R11', true],
    ]);
    expect(rebuild[1]?.effects.map((e) => [e.type, e.destructive, e.calls])).to.deep.equal([['nova.rebuild', true, [{ service: 'compute', method: 'POST', path: `/servers/${novaId}/action`, body: { rebuild: { imageRef: IMAGES.B } } }]]]);
    expect(answer.plan.stops).to.equal('after Nova accepts the rebuild: waits for task_state to clear');

    const after = await rig.plan.source.get('Server', 'default', web2);
    expect(after?.metadata.resourceVersion).to.equal(stored?.metadata.resourceVersion);
    expect(after?.spec.image).to.deep.equal({ id: IMAGES.A });
    expect(((await rig.call('GET', `/api/v2/servers/${web2}`)).body as Read).spec.imageId).to.equal(IMAGES.A);
    expect(await world()).to.deep.equal(before);
    expect(mutations(firstCall)).to.deep.equal([]);
    expect(rig.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === reply.headers.get('x-request-id'))).to.include({ action: 'update', destructive: true });
  });

  it('an update that changes nothing: planned as unchanged, no effect to declare', async () => {
    const reply = await rig.call('PUT', `/api/v2/servers/${web2}?dryRun=All`, { body: body('web-2') });
    expect(reply.status).to.equal(200);
    const answer = reply.body as Answer;
    expect(answer.plan).to.include({ apply: 'unchanged', destructive: false });
    expect(answer.plan.decisions.filter((d) => d.effects.length > 0)).to.deep.equal([]);
  });

  describe('every check answers the same with and without dryRun, and nothing is stored', () => {
    const cases: { check: string; status: number; request: () => Promise<{ method: string; path: string; body?: unknown; raw?: string; token?: string | null }> }[] = [
      { check: 'no token', status: 401, request: async () => ({ method: 'POST', path: '/api/v2/servers', body: body('web-9'), token: null }) },
      { check: 'an unknown field', status: 400, request: async () => ({ method: 'POST', path: '/api/v2/servers', raw: JSON.stringify(body('web-9', { colour: 'blue' })) }) },
      { check: 'an update of a server that does not exist', status: 404, request: async () => ({ method: 'PUT', path: '/api/v2/servers/no-such-server', body: body('web-9') }) },
      {
        check: 'a create by a caller who may read the network but not create servers',
        status: 403,
        request: async () => ({ method: 'POST', path: '/api/v2/servers', body: body('web-9'), token: await rig.token({ organizations: [{ id: 'acme', projects: [{ id: 'web', endpoints: [{ name: ENDPOINTS.networksV2, operations: ['read'] }, { name: ENDPOINTS.serversV2, operations: ['read'] }] }] }] }) }),
      },
      {
        check: 'an update by a caller who may only read',
        status: 403,
        request: async () => ({ method: 'PUT', path: `/api/v2/servers/${web2}`, body: body('web-2', { imageId: IMAGES.B }), token: await rig.token({ organizations: [{ id: 'acme', projects: [{ id: 'web', endpoints: [{ name: ENDPOINTS.serversV2, operations: ['read'] }] }] }] }) }),
      },
      { check: 'a network that does not exist', status: 422, request: async () => ({ method: 'POST', path: '/api/v2/servers', body: body('web-9', { networkId: 'net-zz' }) }) },
      { check: 'a renamed server (names are immutable)', status: 422, request: async () => ({ method: 'PUT', path: `/api/v2/servers/${web2}`, body: body('web-9') }) },
      { check: 'user data cloud-init would not read', status: 422, request: async () => ({ method: 'POST', path: '/api/v2/servers', body: body('web-9', { userData: Buffer.from('just text').toString('base64') }) }) },
      { check: 'a duplicate create (the name is taken on this network)', status: 409, request: async () => ({ method: 'POST', path: '/api/v2/servers', body: body('web-2', { imageId: IMAGES.B }) }) },
    ];

    for (const { check, status, request } of cases) {
      it(`${status}: ${check}`, async () => {
        const r = await request();
        const before = await world();
        const send = (query: string): Promise<Reply> => rig.call(r.method, `${r.path}${query}`, { ...(r.body !== undefined ? { body: r.body } : {}), ...(r.raw !== undefined ? { raw: r.raw } : {}), ...(r.token !== undefined ? { token: r.token } : {}) });
        const real = await send('');
        const dry = await send('?dryRun=All');
        const unplanned = await rig.call(r.method, `${r.path}?dryRun=All`, { ...(r.body !== undefined ? { body: r.body } : {}), ...(r.raw !== undefined ? { raw: r.raw } : {}), ...(r.token !== undefined ? { token: r.token } : {}), unplanned: true });
        for (const [which, reply] of [['without dryRun', real], ['with dryRun', dry], ['with dryRun, no plan dependency', unplanned]] as const) {
          expect(reply.status, `${which}: ${JSON.stringify(reply.body)}`).to.equal(status);
          const { error, error_description } = reply.body as ErrorBody;
          expect({ error, error_description }, which).to.deep.equal({ error: (real.body as ErrorBody).error, error_description: (real.body as ErrorBody).error_description });
        }
        expect(await world()).to.deep.equal(before);
      });
    }
  });

  it('dryRun=foo → 400 naming the parameter and its one value; a misspelt parameter is refused too, never a real write', async () => {
    const before = await world();
    for (const query of ['?dryRun=foo', '?dryRun=all', '?dryRun=', '?dryRun=All&dryRun=All']) {
      const reply = await rig.call('POST', `/api/v2/servers${query}`, { body: body('web-7') });
      expect(reply.status, query).to.equal(400);
      expect((reply.body as ErrorBody).error_description, query).to.equal('query parameter "dryRun" takes one value, "All" (answer with the plan, store nothing)');
      const put = await rig.call('PUT', `/api/v2/servers/${web2}${query}`, { body: body('web-2', { imageId: IMAGES.B }) });
      expect(put.status, query).to.equal(400);
    }
    const misspelt = await rig.call('POST', '/api/v2/servers?dryrun=All', { body: body('web-7') });
    expect(misspelt.status).to.equal(400);
    expect((misspelt.body as ErrorBody).error_description).to.equal('unknown query parameter "dryrun" (a create or update takes only "dryRun")');
    expect(await world()).to.deep.equal(before);
  });

  it('an API started without a cloud to plan against: 501 after every check, nothing stored', async () => {
    const before = await world();
    const create = await rig.call('POST', '/api/v2/servers?dryRun=All', { body: body('web-1'), unplanned: true });
    expect(create.status).to.equal(501);
    expect(create.body).to.include({ error: 'not_implemented', error_description: 'dryRun=All needs a cloud to plan against, which this API was started without (regent serve gives it one)' });
    const update = await rig.call('PUT', `/api/v2/servers/${web2}?dryRun=All`, { body: body('web-2', { imageId: IMAGES.B }), unplanned: true });
    expect(update.status).to.equal(501);
    expect(await world()).to.deep.equal(before);
  });

  it('a plan that fails inside Regent (the pass throws) is a 500 whose body says nothing of the cause; nothing stored', async () => {
    // the Server's real wiring, its pass made to throw with a cause that must not reach the caller
    const table = kindTable().map((w): KindWiring => (w.kind === 'Server' && w.build ? { ...w, build: (services) => ({ ...w.build!(services), reconcile: async () => Promise.reject(new Error('pass failed talking to 10.9.9.9')) }) } : w));
    const failing = await startApi({ source: rig.plan.source, events: rig.plan.store, auth: { jwks: rig.issuer.jwks }, host: '127.0.0.1', port: 0, plan: { connect: async () => rig.plan.os, table } });
    try {
      const before = await world();
      const reply = await rig.call('POST', '/api/v2/servers?dryRun=All', { body: body('web-1'), url: failing.url });
      const answer = reply.body as ErrorBody;
      expect(reply.status).to.equal(500);
      expect(answer).to.include({ error: 'server_error', error_description: 'the request failed inside Regent; quote the request id when reporting it' });
      expect(JSON.stringify(answer)).to.not.include('10.9.9.9');
      expect(await world()).to.deep.equal(before);
    } finally {
      await failing.close();
    }
  });

  it('v1: create and update take dryRun too, answering the v1 view (an update ignores the imageId: nothing destructive)', async () => {
    const before = await world();
    const create = await rig.call('POST', `${V1}?dryRun=All`, { body: { metadata: { name: 'legacy-1' }, spec: { networkId: 'net-a', flavorId: '2', imageId: IMAGES.A } } });
    expect(create.status, JSON.stringify(create.body)).to.equal(200);
    const planned = create.body as Answer;
    expect(planned.server.metadata.name).to.equal('legacy-1');
    expect(planned.plan).to.include({ apply: 'created', verdict: 'planned' });
    expect(planned.plan.decisions[0]?.rule?.id).to.equal('L2');
    expect(await world()).to.deep.equal(before);

    const real = await rig.call('POST', V1, { body: { metadata: { name: 'legacy-2' }, spec: { networkId: 'net-a', flavorId: '2', imageId: IMAGES.A } } });
    expect(real.status).to.equal(201);
    const id = (real.body as Read).metadata.id;
    const afterCreate = await world();
    const update = await rig.call('PUT', `${V1}/${id}?dryRun=All`, { body: { metadata: { name: 'legacy-2' }, spec: { networkId: 'net-a', flavorId: '2', imageId: IMAGES.B } } });
    expect(update.status, JSON.stringify(update.body)).to.equal(200);
    const answer = update.body as Answer;
    expect(answer.server.spec.imageId).to.equal(IMAGES.A);
    expect(answer.plan).to.include({ apply: 'unchanged', destructive: false });
    expect(await world()).to.deep.equal(afterCreate);
    expect((await rig.call('DELETE', `${V1}/${id}`)).status).to.equal(202);
  });
});

describe('api: ?dryRun=All under regent serve (the control plane passes its cloud)', function () {
  this.timeout(60_000);

  it('the API regent serve starts plans a create against its own cloud, and nothing reaches the store or Nova', async () => {
    const sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 100, serverDelete: 100, serverAction: 100 } });
    const dir = mkdtempSync(join(tmpdir(), 'regent-dry-run-'));
    const issuer = await createTokenIssuer();
    const admin = await issuer.sign({ sub: 'admin', acl: { global: Object.values(ENDPOINTS).map((name) => ({ name, operations: ['create', 'read', 'update', 'delete'] })) } });
    const plane = await startControlPlane(planeOptions(dir, sim, { api: { host: '127.0.0.1', port: 0, auth: { jwks: issuer.jwks } } }));
    try {
      await until('leadership', () => plane.isLeader());
      await applyManifests(plane.source, networkManifest);
      const dryRun = async () => {
        const response = await fetch(`${plane.apiUrl}/api/v2/servers?dryRun=All`, {
          method: 'POST',
          headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
          body: JSON.stringify({ metadata: { name: 'web-1' }, spec: { networkId: 'net-a', flavorId: '2', imageId: SEED.images.cirros, sshInjection: 'none' } }),
        });
        return { status: response.status, body: (await response.json()) as Answer };
      };
      // once the Network is up, the Server's pass would create it in Nova: the plan says so (before, it says what it waits for)
      const planned = await until('a dry run planning the Nova create', async () => {
        const reply = await dryRun();
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        return reply.body.plan.decisions.some((d) => d.rule?.id === 'L2') && reply.body;
      });
      expect(planned.plan).to.include({ verdict: 'planned', apply: 'created', destructive: false });
      expect((await plane.source.list('Server')).items).to.deep.equal([]);
      expect(sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/servers'))).to.deep.equal([]);
      expect((await plane.store.listStreams()).filter((s) => s.stream.startsWith('api-server-'))).to.deep.equal([]);
    } finally {
      await plane.stop().catch(() => undefined);
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
