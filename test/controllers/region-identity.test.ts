/**
 * Regions and Identities (issue 11) against the simulator over real HTTP, one pass at a time:
 * the Region is the cloud (its clients from its spec and Secret, rebuilt when the Secret changes), an
 * Identity is realized in the managed domain by deterministic names and adopted on re-run, its
 * credential lives only in its Secret, a revoked credential is rotated, deletion waits for dependents.
 */
import { expect } from 'chai';
import { startIdentityRig, type IdentityRig } from './identity-rig.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { identityProjectName, identitySecretName, identityUserName } from '../../src/provider/identity/names.js';
import { identityLifecycleStream } from '../../machines/identity-lifecycle.js';

describe('regions and identities (simulator)', function () {
  this.timeout(30_000);
  let rig: IdentityRig;
  beforeEach(async () => (rig = await startIdentityRig()));
  afterEach(async () => rig.close());

  const uidOf = async (name = 'acme-web') => (await rig.source.get('Identity', 'default', name))?.metadata.uid as string;

  describe('the Region is the cloud', () => {
    it('a Region with its credentials Secret connects: Available, naming who Regent is and the managed domain', async () => {
      await rig.applyRegion();
      expect((await rig.regionPass()).kind).to.equal('yield');
      const available = await rig.available('Region', 'region-one');
      expect(available).to.include({ status: 'True', reason: 'Provisioned' });
      expect(available?.message).to.include(`managed domain ${rig.domainId}`);
      expect((await rig.status('Region', 'region-one')).conditions?.find((c) => c.type === 'SpecRealized')).to.include({ status: 'True' });
    });

    it('a missing Secret, another Keystone in it, or refused credentials: Available=False/CredentialsInvalid, never a value', async () => {
      await applyManifests(rig.source, `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec: { provider: openstack, openstack: { endpoint: ${rig.sim.url}/identity/v3, region: RegionOne, credentialsSecretRef: { name: region-one-credentials } } }
`);
      await rig.regionPass();
      expect(await rig.available('Region', 'region-one')).to.include({ status: 'False', reason: 'CredentialsInvalid' });
      expect((await rig.available('Region', 'region-one'))?.message).to.match(/Secret default\/region-one-credentials does not exist/);
      await rig.source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': rig.sim.cloudsYaml().replaceAll(rig.sim.url, 'http://127.0.0.1:1'), cloud: 'sim-admin' });
      await rig.regionPass();
      expect((await rig.available('Region', 'region-one'))?.message).to.match(/is for Keystone http:\/\/127\.0\.0\.1:1\/identity\/v3, but the Region's endpoint is/);
      await rig.source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': rig.sim.cloudsYaml().replace(/password: admin-sandbox/g, 'password: wrong-password'), cloud: 'sim-admin' });
      await rig.regionPass();
      expect(await rig.available('Region', 'region-one')).to.include({ status: 'False', reason: 'CredentialsInvalid' });
      for (const line of rig.logLines) expect(line).to.not.include('wrong-password');
    });

    it('a changed Secret is used on the next call, and the old credentials no longer', async () => {
      await rig.applyRegion();
      const before = await rig.connections.region('default', 'region-one');
      expect(before?.session.initialToken.user.name).to.equal('admin');
      await rig.source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': rig.sim.cloudsYaml(), cloud: 'sim-demo' });
      const after = await rig.connections.region('default', 'region-one');
      expect(after?.session.initialToken.user.name).to.equal('demo');
      expect(after?.session).to.not.equal(before?.session);
      // unchanged: the same connection is reused (no new token)
      expect((await rig.connections.region('default', 'region-one'))?.session).to.equal(after?.session);
    });
  });

  describe('identity scoping', () => {
    it('an Identity is realized in the managed domain by deterministic names: project, user, managed roles, application credential', async () => {
      await rig.applyRegion();
      await rig.applyIdentity();
      const passes = await rig.realize();
      const last = passes.at(-1);
      expect(last?.kind === 'yield' ? last.why : last?.kind).to.equal('realized');
      const uid = await uidOf();
      const project = await rig.admin.identityAdmin.findProject({ domainId: rig.domainId, name: identityProjectName(uid) });
      const user = await rig.admin.identityAdmin.findUser({ domainId: rig.domainId, name: identityUserName(uid) });
      expect(project).to.not.equal(undefined);
      expect(user).to.not.equal(undefined);
      for (const role of ['manager', 'member', 'load-balancer_member']) {
        const r = await rig.admin.identityAdmin.findRoleByName(role);
        expect(await rig.admin.identityAdmin.hasProjectRole({ projectId: project!.id, userId: user!.id, roleId: r!.id }), role).to.equal(true);
      }
      const secret = await rig.source.secrets.get('default', identitySecretName(uid));
      expect(Object.keys(secret?.data ?? {}).sort()).to.deep.equal(['application_credential_id', 'application_credential_secret', 'password', 'ssh_private_key', 'ssh_public_key']);
      const status = await rig.status('Identity', 'acme-web');
      expect(status.openstack).to.deep.equal({ projectID: project!.id, userID: user!.id, applicationCredentialID: secret?.data.application_credential_id });
      expect(status.credentialsSecretRef).to.deep.equal({ name: identitySecretName(uid) });
      expect((await rig.available('Identity', 'acme-web'))?.status).to.equal('True');
    });

    it("the Region's managedRoles override the default roles, and a role added to them is granted to a realized identity on its next pass", async () => {
      const rolesOf = async () => {
        const uid = await uidOf();
        const project = await rig.admin.identityAdmin.findProject({ domainId: rig.domainId, name: identityProjectName(uid) });
        const user = await rig.admin.identityAdmin.findUser({ domainId: rig.domainId, name: identityUserName(uid) });
        return (await rig.admin.identityAdmin.listRoleAssignments({ projectId: project!.id, userId: user!.id })).map((a) => a.roleName).sort();
      };
      await rig.applyRegion({ managedRoles: ['member', 'reader'] });
      await rig.applyIdentity();
      expect((await rig.realize()).at(-1)).to.deep.include({ why: 'realized' });
      expect(await rolesOf()).to.deep.equal(['member', 'reader']);
      await rig.applyRegion({ managedRoles: ['member', 'reader', 'load-balancer_member'] });
      await rig.regionPass();
      expect((await rig.realize()).at(-1)).to.deep.include({ why: 'realized' });
      expect(await rolesOf()).to.deep.equal(['load-balancer_member', 'member', 'reader']);
    });

    it('secrets never enter events or logs: every stored event and log line is scanned for the password and the credential secret', async () => {
      await rig.applyRegion();
      await rig.applyIdentity();
      await rig.realize();
      const secret = await rig.source.secrets.get('default', identitySecretName(await uidOf()));
      const values = [secret?.data.password, secret?.data.application_credential_secret, 'admin-sandbox'].filter((v): v is string => typeof v === 'string' && v.length > 0);
      expect(values.length).to.equal(3);
      const events = JSON.stringify(await rig.store.readAll({}));
      for (const value of values) {
        expect(events).to.not.include(value);
        for (const line of rig.logLines) expect(line).to.not.include(value);
      }
      // the event carries a reference and a digest instead
      const issued = (await rig.store.readStream(identityLifecycleStream(await uidOf()))).find((e) => e.type === 'identityLifecycle.stepDone' && (e.data as unknown as { step: string }).step === 'credential');
      expect(issued?.data).to.include({ secretRef: `default/${identitySecretName(await uidOf())}` });
      expect((issued?.data as unknown as { digest: string }).digest).to.match(/^sha256:[0-9a-f]{16}$/);
    });

    it('re-running on an empty history adopts what exists by exact name: nothing is created again', async () => {
      await rig.applyRegion();
      await rig.applyIdentity();
      await rig.realize();
      const creates = () => rig.sim.calls({ method: 'POST' }).filter((c) => /\/(projects|users|application_credentials)$/.test(c.path)).length;
      const before = creates();
      rig.forgetHistory();
      const passes = await rig.realize();
      expect(passes.map((d) => (d.kind === 'yield' ? d.why : d.kind))).to.deep.equal(['realized']);
      expect(creates()).to.equal(before);
    });

    it('a credential Keystone no longer accepts (deleted) is detected on the next pass and re-issued; the old one is gone', async () => {
      await rig.applyRegion();
      await rig.applyIdentity();
      await rig.realize();
      const uid = await uidOf();
      const old = (await rig.source.secrets.get('default', identitySecretName(uid)))?.data.application_credential_id as string;
      const user = await rig.admin.identityAdmin.findUser({ domainId: rig.domainId, name: identityUserName(uid) });
      await rig.admin.identityAdmin.deleteApplicationCredential({ userId: user!.id, id: old });
      await rig.realize();
      const fresh = (await rig.source.secrets.get('default', identitySecretName(uid)))?.data.application_credential_id;
      expect(fresh).to.be.a('string').and.not.equal(old);
      const types = (await rig.store.readStream(identityLifecycleStream(uid))).map((e) => e.type);
      expect(types).to.include('identityLifecycle.credentialRotating');
      expect((await rig.available('Identity', 'acme-web'))?.status).to.equal('True');
    });

    it('in a Region without a managed domain the identity uses the region credentials\' own project: nothing is created, and the status says there is no isolation', async () => {
      await rig.applyRegion({ unmanaged: true });
      await rig.applyIdentity();
      const creates = () => rig.sim.calls({ method: 'POST' }).filter((c) => !c.path.includes('/auth/tokens')).length;
      const before = creates();
      await rig.realize();
      expect(creates()).to.equal(before);
      const available = await rig.available('Identity', 'acme-web');
      expect(available).to.include({ status: 'True', reason: 'Provisioned' });
      expect(available?.message).to.match(/region credentials' own project .*not isolated/);
    });
  });

  describe('deleting an Identity', () => {
    it('waits while a Network of the identity remains (saying which), then deletes credential, user and project, and releases the finalizer', async () => {
      await rig.applyRegion();
      await rig.applyIdentity();
      await rig.realize();
      const uid = await uidOf();
      await applyManifests(rig.source, `apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-a }
spec: { identityRef: { name: acme-web }, prefix: 10.0.0.0/24 }
`);
      await rig.source.delete('Identity', 'default', 'acme-web');
      expect((await rig.identityPass()).kind).to.equal('yield');
      const waiting = await rig.available('Identity', 'acme-web');
      expect(waiting).to.include({ status: 'False', reason: 'Deleting' });
      expect(waiting?.message).to.include('Network/net-a');
      expect(await rig.admin.identityAdmin.findProject({ domainId: rig.domainId, name: identityProjectName(uid) })).to.not.equal(undefined);
      await rig.source.delete('Network', 'default', 'net-a');
      for (let i = 0; i < 8 && (await rig.source.get('Identity', 'default', 'acme-web')); i++) await rig.identityPass();
      expect(await rig.source.get('Identity', 'default', 'acme-web')).to.equal(undefined);
      expect(await rig.admin.identityAdmin.findProject({ domainId: rig.domainId, name: identityProjectName(uid) })).to.equal(undefined);
      expect(await rig.admin.identityAdmin.findUser({ domainId: rig.domainId, name: identityUserName(uid) })).to.equal(undefined);
      expect(await rig.source.secrets.get('default', identitySecretName(uid))).to.equal(undefined);
    });

    it('an identity that was never realized (its Region does not exist) deletes as a no-op', async () => {
      await rig.applyIdentity();
      await rig.identityPass();
      await rig.source.delete('Identity', 'default', 'acme-web');
      await rig.identityPass();
      expect(await rig.source.get('Identity', 'default', 'acme-web')).to.equal(undefined);
    });
  });
});
