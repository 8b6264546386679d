/**
 * Provider-create gates end to end (issue 17; server-api.md: "create can carry immutable providerCreateGates;
 * reads expose only status.remainingProviderCreateGates, while the stored Kubernetes object retains per-gate
 * status details for operators"; the issue: "the server is created in Nova only once every gate is
 * satisfied"). The whole control plane on the embedded stores against the simulator over HTTP, with its server
 * REST API on 127.0.0.1: a Server created through the API with two gates is not created in Nova while either
 * remains, visibly (ProviderCreateGatesPending, in the lifecycle's history); satisfying the second through
 * POST …/provider-create-gates leads to the Nova create, whose decision records who satisfied the gates. A
 * server without gates is created at once; an image change of it is a rebuild that sends neither key_name
 * nor user_data, though the server was created with user data.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { createTokenIssuer, ENDPOINTS, OPERATIONS, type TokenIssuer } from '../../src/api/auth.js';
import { serverLifecycleStream } from '../../machines/server-lifecycle.js';
import { networkManifest, planeOptions, until } from './support/plane.js';

interface Condition { type: string; status: string; reason: string; message: string }
interface StoredStatus {
  phase?: string;
  serverID?: string;
  provisioningStatus?: string;
  conditions?: Condition[];
  providerCreateGates?: Array<{ name: string; satisfied: boolean; actor?: string; reason?: string; message?: string; satisfiedAt?: string }>;
  remainingProviderCreateGates?: string[];
}
interface Read { metadata: { id: string; provisioningStatus: string }; status: Record<string, unknown> & { remainingProviderCreateGates: string[] } }

describe('e2e: provider-create gates (issue 17)', function () {
  this.timeout(120_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane | undefined;
  let issuer: TokenIssuer;
  let admin: string;
  let service: string;
  beforeEach(async () => {
    sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 100, serverDelete: 100, serverAction: 100 } });
    dir = mkdtempSync(join(tmpdir(), 'regent-gates-'));
    issuer = await createTokenIssuer();
    const everything = { global: Object.values(ENDPOINTS).map((name) => ({ name, operations: [...OPERATIONS] })) };
    admin = await issuer.sign({ sub: 'admin', acl: everything });
    service = await issuer.sign({ sub: 'svc:fabric-controller', acl: { global: [ENDPOINTS.serversV2, ENDPOINTS.providerCreateGates].map((name) => ({ name, operations: [...OPERATIONS] })) } });
    plane = await startControlPlane(planeOptions(dir, sim, { api: { host: '127.0.0.1', port: 0, auth: { jwks: issuer.jwks } } }));
    await until('leadership', () => plane?.isLeader());
    await applyManifests(plane.source, networkManifest);
  });
  afterEach(async () => {
    await plane?.stop().catch(() => undefined);
    plane = undefined;
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, body?: unknown, token = admin): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(`${plane?.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };
  const create = async (name: string, extra: Record<string, unknown> = {}): Promise<string> => {
    const reply = await call('POST', '/api/v2/servers', { metadata: { name }, spec: { networkId: 'net-a', flavorId: '2', imageId: SEED.images.cirros, sshInjection: 'none', ...extra } });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return (reply.body as Read).metadata.id;
  };
  const satisfy = async (id: string, gate: string, reason: string) => {
    const reply = await call('POST', `/api/v2/servers/${id}/provider-create-gates`, { name: gate, reason, message: `${gate} done for the test` }, service);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body as Read;
  };
  const stored = async (id: string) => (await plane?.source.get('Server', 'default', id))?.status as StoredStatus | undefined;
  const condition = async (id: string, type: string) => (await stored(id))?.conditions?.find((c) => c.type === type);
  const inNova = (name: string) => [...sim.control.sim.nova.servers.values()].filter((s) => s.name === name);
  const createPosts = (name: string) => sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/servers') && (c.body as { server?: { name?: string } } | undefined)?.server?.name === name);
  const history = async (id: string) => {
    const uid = (await plane?.source.get('Server', 'default', id))?.metadata.uid as string;
    return (await plane!.store.readStream(serverLifecycleStream(uid))).map((e) => ({ type: e.type, data: e.data as { reason?: string; message?: string; desired?: Record<string, unknown> } }));
  };

  it('a Server with two gates is not created in Nova while either remains; satisfying the second through the API creates it, and the history says why it waited and who let it go', async () => {
    const gated = await create('gated-1', { providerCreateGates: [{ name: 'fabric' }, { name: 'dns', description: 'DNS record published' }] });
    const plain = await create('plain-1');

    // a server without gates is unaffected
    await until('the server without gates runs', async () => (await stored(plain))?.phase === 'Running', 60_000);

    // the gated one waits, visibly, and nothing was sent to Nova
    await until('the gates are shown pending', async () => (await condition(gated, 'Available'))?.reason === 'ProviderCreateGatesPending', 30_000);
    expect((await condition(gated, 'Available'))?.message).to.include('2 of 2 provider-create gates not satisfied: fabric, dns');
    expect((await stored(gated))?.provisioningStatus).to.equal('provisioning');
    expect((await stored(gated))?.remainingProviderCreateGates).to.deep.equal(['fabric', 'dns']);
    expect(inNova('gated-1')).to.have.length(0);
    expect(createPosts('gated-1')).to.have.length(0);
    const read = (await call('GET', `/api/v2/servers/${gated}`)).body as Read;
    expect(read.metadata.provisioningStatus).to.equal('provisioning');
    expect(read.status.remainingProviderCreateGates).to.deep.equal(['fabric', 'dns']);

    // one of two satisfied: still waiting, the record names what is left and who satisfied the other
    const afterFirst = await satisfy(gated, 'fabric', 'PortsProgrammed');
    expect(afterFirst.status.remainingProviderCreateGates).to.deep.equal(['dns']);
    await until('the pass saw the first gate', async () => (await condition(gated, 'Available'))?.message.includes('satisfied: fabric (by svc:fabric-controller'), 30_000);
    expect((await condition(gated, 'Available'))?.reason).to.equal('ProviderCreateGatesPending');
    expect((await condition(gated, 'Available'))?.message).to.include('1 of 2 provider-create gates not satisfied: dns');
    expect(inNova('gated-1')).to.have.length(0);
    expect(createPosts('gated-1')).to.have.length(0);
    // the stored object keeps the per-gate details for operators; reads expose only the remaining list
    expect((await stored(gated))?.providerCreateGates?.[0]).to.include({ name: 'fabric', satisfied: true, actor: 'svc:fabric-controller', reason: 'PortsProgrammed', message: 'fabric done for the test' });
    const between = (await call('GET', `/api/v2/servers/${gated}`)).body as Read;
    expect(between.status.remainingProviderCreateGates).to.deep.equal(['dns']);
    expect(between.status).to.not.have.property('providerCreateGates');
    expect(JSON.stringify(between)).to.not.include('fabric done for the test');

    // the second: the create goes
    expect((await satisfy(gated, 'dns', 'Published')).status.remainingProviderCreateGates).to.deep.equal([]);
    await until('the gated server runs', async () => (await stored(gated))?.phase === 'Running', 60_000);
    expect(inNova('gated-1')).to.have.length(1);
    expect(createPosts('gated-1')).to.have.length(1);
    expect((await stored(gated))?.remainingProviderCreateGates).to.deep.equal([]);
    expect((await stored(gated))?.providerCreateGates?.map((g) => [g.name, g.satisfied, g.actor, g.reason])).to.have.deep.members([
      ['fabric', true, 'svc:fabric-controller', 'PortsProgrammed'],
      ['dns', true, 'svc:fabric-controller', 'Published'],
    ]);
    // SpecRealized no longer names providerCreateGates
    const realized = await condition(gated, 'SpecRealized');
    expect(realized?.message ?? '').to.not.include('providerCreateGates');
    expect(realized?.status).to.equal('True');
    await until('the gated server is available', async () => (await condition(gated, 'Available'))?.status === 'True', 30_000);

    // the history: why the create waited (each change of the pending set), and the decision that let it go
    const events = await history(gated);
    const waits = events.filter((e) => e.type === 'serverLifecycle.desiredUnresolvable');
    expect(waits.map((e) => e.data.reason)).to.deep.equal(['ProviderCreateGatesPending', 'ProviderCreateGatesPending']);
    expect(waits[0]?.data.message).to.include('not satisfied: fabric, dns');
    expect(waits[1]?.data.message).to.include('not satisfied: dns').and.include('satisfied: fabric (by svc:fabric-controller');
    const createdAt = events.findIndex((e) => e.type === 'serverLifecycle.createSubmitted');
    expect(createdAt).to.be.greaterThan(events.indexOf(waits[1] as (typeof events)[number]));
    const gates = events[createdAt]?.data.desired?.providerCreateGates as Array<{ name: string; actor: string; satisfiedAt: string }>;
    expect(gates.map((g) => [g.name, g.actor])).to.deep.equal([['fabric', 'svc:fabric-controller'], ['dns', 'svc:fabric-controller']]);
    expect(JSON.stringify(events)).to.not.include('done for the test');
  });

  it('an image change of a server created with user data is a rebuild that sends neither key_name nor user_data', async () => {
    const userData = Buffer.from('#cloud-config\nhostname: plain-2\n').toString('base64');
    const id = await create('plain-2', { userData });
    await until('the server runs', async () => (await stored(id))?.phase === 'Running', 60_000);
    expect(JSON.stringify(createPosts('plain-2')[0]?.body)).to.include('user_data');
    const current = (await call('GET', `/api/v2/servers/${id}`)).body as Read & { spec: Record<string, unknown> };
    const reply = await call('PUT', `/api/v2/servers/${id}`, { metadata: { name: 'plain-2' }, spec: { ...current.spec, imageId: SEED.images.ubuntu } });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    const serverId = (await stored(id))?.serverID as string;
    const rebuilds = () => sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith(`/servers/${serverId}/action`) && (c.body as Record<string, unknown>).rebuild !== undefined);
    await until('the rebuild was sent', () => rebuilds().length > 0, 60_000);
    expect(rebuilds()[0]?.body).to.deep.equal({ rebuild: { imageRef: SEED.images.ubuntu } });
    expect((rebuilds()[0]?.body as { rebuild: Record<string, unknown> }).rebuild).to.not.have.any.keys('key_name', 'user_data');
  });
});
