/**
 * The security-group scope rule over real HTTP (server-api.md): every name in a Server's
 * securityGroups must be a SecurityGroup in the server's namespace on the server's network; else 422
 * naming the group and why, with nothing persisted — also for a group the caller may read on another
 * network (the RBAC read is not enough), on create and update, v2 and v1.
 */
import { expect } from 'chai';
import { ENDPOINTS } from '../../src/api/auth.js';
import { IMAGE, projectAcl, startApiRig, v2Body, type ApiRig } from './rig.js';

const V1 = '/api/v1/organizations/acme/projects/web/identities/id-a/servers';

interface Read {
  metadata: { id: string };
  spec: { securityGroups?: string[] };
}

describe('api: the security-group scope rule (a referenced group must be on the server\'s network)', () => {
  let rig: ApiRig;
  beforeEach(async () => {
    rig = await startApiRig();
    for (const [name, networkID] of [['web-sg', 'net-a'], ['web-ssh', 'net-a'], ['db-sg', 'net-c'], ['ops-sg', 'net-b']] as const)
      await rig.source.create({ apiVersion: 'regent.dev/v1alpha1', kind: 'SecurityGroup', metadata: { name, labels: { 'regent.dev/network': networkID } }, spec: { networkID, rules: [{ direction: 'ingress', protocol: 'tcp', portRangeMin: 22, portRangeMax: 22 }] } });
  });
  afterEach(async () => rig.close());

  /** What a rejection must leave as it was: the Servers and the audit stream. */
  const snapshot = async () => ({ servers: JSON.stringify(await rig.servers()), events: (await rig.events.readAll()).length });
  const rejected = (reply: { status: number; body: unknown }, ...fragments: string[]) => {
    expect(reply.status, JSON.stringify(reply.body)).to.equal(422);
    const body = reply.body as { error: string; error_description: string };
    expect(body.error).to.equal('unprocessable_content');
    for (const f of fragments) expect(body.error_description).to.contain(f);
  };

  it('v2 create with groups on the server\'s network → 201, the groups stored in the spec', async () => {
    const reply = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { securityGroups: ['web-sg', 'web-ssh'] }) });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    const server = await rig.source.get('Server', 'default', (reply.body as Read).metadata.id);
    expect(server?.spec.securityGroups).to.deep.equal(['web-sg', 'web-ssh']);
  });

  it('v2 create with a group on another network the caller can read → 422 naming the group and both networks; nothing persisted', async () => {
    // acme/web and acme/db: the caller may read net-c and db-sg's tenancy, and still may not attach it to a net-a server.
    const token = await rig.token({ organizations: [{ id: 'acme', projects: ['web', 'db'].map((id) => ({ id, endpoints: Object.values(ENDPOINTS).map((name) => ({ name, operations: ['read', 'create', 'update', 'delete'] })) })) }] });
    const before = await snapshot();
    rejected(await rig.call('POST', '/api/v2/servers', { token, body: v2Body('web-1', { securityGroups: ['web-sg', 'db-sg'] }) }), 'spec.securityGroups', '"db-sg"', 'belongs to network net-c, not net-a');
    expect(await snapshot()).to.deep.equal(before);
  });

  it('v2 create with a group that does not exist → 422 "not found"; nothing persisted', async () => {
    const before = await snapshot();
    const reply = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { securityGroups: ['nope'] }) });
    rejected(reply, 'security group "nope" not found');
    expect(await snapshot()).to.deep.equal(before);
  });

  it('v2 create naming two bad groups → one 422 naming both', async () => {
    rejected(await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { securityGroups: ['ops-sg', 'nope'] }) }), 'security group "ops-sg" belongs to network net-b, not net-a', 'security group "nope" not found');
  });

  it('v2 create without groups is not affected', async () => {
    expect((await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1') })).status).to.equal(201);
  });

  it('v2 update: groups on the network → 200; a group on another network or missing → 422 and the stored server unchanged', async () => {
    const created = (await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { securityGroups: ['web-sg'] }) })).body as Read;
    const path = `/api/v2/servers/${created.metadata.id}`;
    const ok = await rig.call('PUT', path, { body: v2Body('web-1', { securityGroups: ['web-sg', 'web-ssh'] }) });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect((await rig.source.get('Server', 'default', created.metadata.id))?.spec.securityGroups).to.deep.equal(['web-sg', 'web-ssh']);
    const before = await snapshot();
    rejected(await rig.call('PUT', path, { body: v2Body('web-1', { securityGroups: ['db-sg'] }) }), 'security group "db-sg" belongs to network net-c, not net-a');
    rejected(await rig.call('PUT', path, { body: v2Body('web-1', { securityGroups: ['web-sg', 'gone'] }) }), 'security group "gone" not found');
    expect(await snapshot()).to.deep.equal(before);
  });

  it('a group being deleted counts as not found', async () => {
    await rig.source.addFinalizer('SecurityGroup', 'default', 'web-ssh', 'regent.dev/security-group');
    await rig.source.delete('SecurityGroup', 'default', 'web-ssh');
    rejected(await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { securityGroups: ['web-ssh'] }) }), 'security group "web-ssh" not found');
  });

  it('v1 create and update apply the same rule', async () => {
    const token = await rig.token(projectAcl('acme', 'web', [ENDPOINTS.serversV1]));
    const body = (securityGroups: string[]) => ({ metadata: { name: 'old-1' }, spec: { networkId: 'net-a', flavorId: 'm1.small', imageId: IMAGE, securityGroups } });
    const before = await snapshot();
    rejected(await rig.call('POST', V1, { token, body: body(['ops-sg']) }), 'security group "ops-sg" belongs to network net-b, not net-a');
    rejected(await rig.call('POST', V1, { token, body: body(['nope']) }), 'security group "nope" not found');
    expect(await snapshot()).to.deep.equal(before);
    const created = await rig.call('POST', V1, { token, body: body(['web-sg']) });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const path = `${V1}/${(created.body as Read).metadata.id}`;
    const after = await snapshot();
    rejected(await rig.call('PUT', path, { token, body: body(['db-sg']) }), 'security group "db-sg" belongs to network net-c, not net-a');
    expect(await snapshot()).to.deep.equal(after);
    expect((await rig.call('PUT', path, { token, body: body(['web-sg', 'web-ssh']) })).status).to.equal(200);
  });
});
