/**
 * The SSH certificate authority scope rule over real HTTP (server-api.md: "a referenced SSH certificate
 * authority (which is not network-scoped) must share the server's organization and project"): the
 * caller's RBAC reach is not enough. A CA of another organization or project, and one that does not
 * exist, answer the same 422 (no hint that an object exists in another tenancy); nothing is persisted.
 */
import { expect } from 'chai';
import { startApiRig, v2Body, type ApiRig } from './rig.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBf0Vr1k8mZXJ4S8b0m3v8x2Q1q2WmXl0w8p4r8e6x0N user-ca';

describe('api: the SSH certificate authority must share the server\'s organization and project', () => {
  let rig: ApiRig;
  before(async () => {
    rig = await startApiRig();
    // net-a is acme/web; acme/db and other/ops are the rig's other tenancies
    for (const [name, org, project] of [['ca-web', 'acme', 'web'], ['ca-db', 'acme', 'db'], ['ca-ops', 'other', 'ops']] as const) {
      await rig.source.create({ apiVersion: 'regent.dev/v1alpha1', kind: 'SSHCertificateAuthority', metadata: { name }, spec: { organizationID: org, projectID: project, publicKey: KEY } });
    }
  });
  after(async () => rig.close());

  const create = (name: string, spec: Record<string, unknown>) => rig.call('POST', '/api/v2/servers', { body: v2Body(name, spec) });

  it('a CA of the server\'s organization and project is bound (sshInjection ca, or omitted with the CA)', async () => {
    const explicit = await create('ca-1', { sshInjection: 'ca', sshCertificateAuthorityId: 'ca-web' });
    expect(explicit.status, JSON.stringify(explicit.body)).to.equal(201);
    const legacy = await create('ca-2', { sshCertificateAuthorityId: 'ca-web' });
    expect(legacy.status, JSON.stringify(legacy.body)).to.equal(201);
    const stored = (await rig.servers()).find((s) => s.spec.name === 'ca-2');
    expect(stored?.spec.sshCertificateAuthorityId).to.equal('ca-web');
  });

  for (const [title, ca] of [
    ['another project of the same organization', 'ca-db'],
    ['another organization', 'ca-ops'],
    ['no such CA', 'ca-missing'],
  ] as const) {
    it(`a CA of ${title} → 422, the same answer for each, nothing persisted`, async () => {
      const servers = (await rig.servers()).length;
      const events = (await rig.events.readAll()).length;
      const reply = await create(`bad-${ca}`, { sshInjection: 'ca', sshCertificateAuthorityId: ca });
      expect(reply.status).to.equal(422);
      const body = reply.body as { error: string; error_description: string };
      expect(body.error).to.equal('unprocessable_content');
      expect(body.error_description).to.equal(`spec.sshCertificateAuthorityId: no SSH certificate authority "${ca}" in the server's organization and project (acme/web)`);
      expect(body.error_description.replace(`"${ca}"`, ""), "no word of the CA's own tenancy").to.not.match(/other|ops|\bdb\b/);
      expect(await rig.servers()).to.have.length(servers);
      expect(await rig.events.readAll()).to.have.length(events);
    });
  }

  it('an update keeps the CA chosen at create (a request cannot rebind it)', async () => {
    const created = await create('ca-3', { sshInjection: 'ca', sshCertificateAuthorityId: 'ca-web' });
    const id = (created.body as { metadata: { id: string } }).metadata.id;
    const reply = await rig.call('PUT', `/api/v2/servers/${id}`, { body: v2Body('ca-3', { sshInjection: 'ca', sshCertificateAuthorityId: 'ca-ops' }) });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect((await rig.servers()).find((s) => s.spec.name === 'ca-3')?.spec.sshCertificateAuthorityId).to.equal('ca-web');
  });
});
