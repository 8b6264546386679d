/**
 * The power and console verbs against the simulator's Nova (manual clock: tasks finish when it advances).
 * Each title is the rule and the status it answers.
 */
import { expect } from 'chai';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { valueOr } from '../../src/openstack/decoders/field.js';
import { auditStream } from '../../src/api/audit.js';
import { ENDPOINTS, OPERATIONS } from '../../src/api/auth.js';
import type { IdentitySessions } from '../../src/provider/identity/sessions.js';
import type { IdentitySessionSource } from '../../src/api/verbs.js';
import { projectAcl, startApiRig, v2Body, type ApiRig } from './rig.js';

// IdentitySessions fits identityCompute as it is (a compile-time check).
export const identitySessionsFit: IdentitySessions extends IdentitySessionSource ? true : never = true;

describe('api: power and console verbs (simulator Nova)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let os: OpenStackSession;
  let rig: ApiRig;
  let id: string;
  let novaId: string;

  before(async () => {
    sim = await startSimulator({ clock: 'manual' });
    os = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'), { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 10_000 });
  });
  after(async () => sim.close());
  beforeEach(async () => {
    rig = await startApiRig({ compute: { novaFor: async () => os.nova } });
    const created = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { sshInjection: 'none' }) });
    id = (created.body as { metadata: { id: string } }).metadata.id;
    novaId = (await os.nova.createServer({ name: 'web-1', flavorRef: '1', imageRef: SEED.images.cirros, networks: 'none' })).id;
    await settle();
    await rig.source.patchStatus('Server', 'default', id, { serverID: novaId });
  });
  afterEach(async () => rig.close());

  const settle = async () => {
    sim.clock.advance(120_000);
    await new Promise((r) => setTimeout(r, 10));
  };
  const novaStatus = async () => valueOr((await os.nova.getServer(novaId)).status, 'unreadable');
  const events = async () => {
    const uid = (await rig.source.get('Server', 'default', id))?.metadata.uid as string;
    return (await rig.events.readStream(auditStream(uid))).filter((e) => e.type !== 'api.server.created');
  };

  it('stop, start, softreboot, hardreboot → 202 each; Nova carries them out; each is an event with its actor and Nova\'s answer', async () => {
    expect(await novaStatus()).to.equal('ACTIVE');
    expect((await rig.call('POST', `/api/v2/servers/${id}/stop`)).status).to.equal(202);
    await settle();
    expect(await novaStatus()).to.equal('SHUTOFF');
    expect((await rig.call('POST', `/api/v2/servers/${id}/start`)).status).to.equal(202);
    await settle();
    expect(await novaStatus()).to.equal('ACTIVE');
    expect((await rig.call('POST', `/api/v2/servers/${id}/softreboot`)).status).to.equal(202);
    await settle();
    expect((await rig.call('POST', `/api/v2/servers/${id}/hardreboot`)).status).to.equal(202);
    const recorded = await events();
    expect(recorded.map((e) => [e.type, e.metadata.actor, e.metadata.source, (e.data as unknown as { details: { nova: { outcome: string } } }).details.nova.outcome])).to.deep.equal([
      ['api.server.stop', 'admin', 'api', 'accepted'],
      ['api.server.start', 'admin', 'api', 'accepted'],
      ['api.server.softreboot', 'admin', 'api', 'accepted'],
      ['api.server.hardreboot', 'admin', 'api', 'accepted'],
    ]);
  });

  it('start on a running server: Nova\'s conflict → 409 naming the verb, recorded with Nova\'s refusal', async () => {
    const reply = await rig.call('POST', `/api/v2/servers/${id}/start`);
    expect(reply.status).to.equal(409);
    expect((reply.body as { error_description: string }).error_description).to.match(/^cannot start server "web-1" now: Nova refused/);
    const [event] = await events();
    expect((event?.data as unknown as { details: { nova: { outcome: string; status: number } } }).details.nova).to.include({ outcome: 'conflict', status: 409 });
  });

  it('a Nova server that is gone → 404 "Nova no longer has it" (power verbs and the console)', async () => {
    await os.nova.deleteServer(novaId);
    await settle();
    for (const [method, verb] of [['POST', 'stop'], ['GET', 'consoleoutput']] as const) {
      const reply = await rig.call(method, `/api/v2/servers/${id}/${verb}`);
      expect(reply.status, verb).to.equal(404);
      expect((reply.body as { error_description: string }).error_description, verb).to.contain('Nova no longer has it');
    }
  });

  it('a server Nova has not created yet → 409, Nova is not asked', async () => {
    const other = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-2', { sshInjection: 'none' }) });
    const before = sim.calls().length;
    const reply = await rig.call('POST', `/api/v2/servers/${(other.body as { metadata: { id: string } }).metadata.id}/stop`);
    expect(reply.status).to.equal(409);
    expect((reply.body as { error_description: string }).error_description).to.contain('Nova has not created it yet');
    expect(sim.calls().length).to.equal(before);
  });

  it('consoleoutput → 200 with the console log; consolesession → 200 with a URL', async () => {
    const output = await rig.call('GET', `/api/v2/servers/${id}/consoleoutput?length=10`);
    expect(output.status, JSON.stringify(output.body)).to.equal(200);
    expect((output.body as { contents: string }).contents).to.be.a('string');
    const session = await rig.call('GET', `/api/v2/servers/${id}/consolesession`);
    expect(session.status, JSON.stringify(session.body)).to.equal(200);
    expect((session.body as { url: string }).url).to.match(/^https?:\/\//);
  });

  it('a reader may read the console output but not power the server (403) nor open a console session (403); an outsider gets 404', async () => {
    const reader = await rig.token(projectAcl('acme', 'web', [ENDPOINTS.serversV2], ['read']));
    expect((await rig.call('GET', `/api/v2/servers/${id}/consoleoutput`, { token: reader })).status).to.equal(200);
    expect((await rig.call('POST', `/api/v2/servers/${id}/stop`, { token: reader })).status).to.equal(403);
    expect((await rig.call('GET', `/api/v2/servers/${id}/consolesession`, { token: reader })).status).to.equal(403);
    const outsider = await rig.token({ organizations: [{ id: 'other', endpoints: [{ name: ENDPOINTS.serversV2, operations: [...OPERATIONS] }] }] });
    expect((await rig.call('POST', `/api/v2/servers/${id}/stop`, { token: outsider })).status).to.equal(404);
    expect(await novaStatus()).to.equal('ACTIVE');
  });

  it('snapshot → 201: the image carries its provenance (source server) and the server\'s organization and project; recorded with source server and image', async () => {
    const reply = await rig.call('POST', `/api/v2/servers/${id}/snapshot`, { body: { metadata: { name: 'web-1-before-upgrade' } } });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    const { imageId, sourceServerId } = reply.body as { imageId: string; sourceServerId: string };
    expect(sourceServerId).to.equal(id);
    const image = await os.glance.getImage(imageId);
    expect(image.properties).to.include({ 'regent.dev:source-server-id': id, 'regent.dev:organization-id': 'acme', 'regent.dev:project-id': 'web' });
    const [event] = await events();
    expect(event?.type).to.equal('api.server.snapshot');
    expect((event?.data as unknown as { details: { image: unknown } }).details.image).to.deep.equal({ imageId, sourceServerId: id });
  });

  it('snapshot needs server visibility (404) and image create in the organization (403): a project-level images grant is not enough', async () => {
    const projectOnly = await rig.token(projectAcl('acme', 'web', [ENDPOINTS.serversV2, ENDPOINTS.images]));
    expect((await rig.call('POST', `/api/v2/servers/${id}/snapshot`, { token: projectOnly, body: { metadata: { name: 's' } } })).status).to.equal(403);
    const orgImages = await rig.token({ organizations: [{ id: 'acme', endpoints: [{ name: ENDPOINTS.images, operations: ['create'] }], projects: [{ id: 'web', endpoints: [{ name: ENDPOINTS.serversV2, operations: ['read'] }] }] }] });
    expect((await rig.call('POST', `/api/v2/servers/${id}/snapshot`, { token: orgImages, body: { metadata: { name: 's' } } })).status).to.equal(201);
    const imagesOnly = await rig.token({ organizations: [{ id: 'acme', endpoints: [{ name: ENDPOINTS.images, operations: ['create'] }] }] });
    expect((await rig.call('POST', `/api/v2/servers/${id}/snapshot`, { token: imagesOnly, body: { metadata: { name: 's' } } })).status).to.equal(404);
  });

  it('a bad length → 400', async () => {
    expect((await rig.call('GET', `/api/v2/servers/${id}/consoleoutput?length=abc`)).status).to.equal(400);
  });
});

describe('api: verbs without a compute connection', () => {
  it('answer 501 after the visibility check (404 for an unknown server)', async () => {
    const rig = await startApiRig();
    try {
      const created = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1') });
      const id = (created.body as { metadata: { id: string } }).metadata.id;
      expect((await rig.call('POST', `/api/v2/servers/${id}/stop`)).status).to.equal(501);
      expect((await rig.call('POST', '/api/v2/servers/unknown/stop')).status).to.equal(404);
    } finally {
      await rig.close();
    }
  });
});

describe('api: identityCompute', () => {
  it('runs a verb with the session of the server\'s identity (its label), in the server\'s namespace', async () => {
    const { identityCompute } = await import('../../src/api/verbs.js');
    const asked: string[] = [];
    const nova = {} as never;
    const compute = identityCompute({ forIdentity: async (ns, name) => (asked.push(`${ns}/${name}`), { session: { nova } }) });
    expect(await compute.novaFor({ metadata: { name: 's', namespace: 'default', labels: { 'regent.dev/identity': 'id-a' } } } as never)).to.equal(nova);
    expect(asked).to.deep.equal(['default/id-a']);
  });
});
