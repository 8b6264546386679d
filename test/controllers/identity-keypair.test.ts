/**
 * The identity's Nova keypair (machines/identity-lifecycle.ts I7; issue 17, "identityKeypair SSH injection")
 * over the simulator: realized with a keypair `regent-<uid>` owned by the identity's own user, whose private
 * key is in the identity's Secret and in no event or log line; adopted on an empty history; re-imported when
 * Nova lost it; replaced (recorded) when the Secret lost the private key; deleted before the user.
 */
import { expect } from 'chai';
import { startIdentityRig, type IdentityRig } from './identity-rig.js';
import { identityLifecycleStream } from '../../machines/identity-lifecycle.js';
import { identitySecretName, identityUserName } from '../../src/provider/identity/names.js';
import { identityKeypairName, samePublicKey, sshFingerprint } from '../../src/provider/identity/keypair.js';
import { keypairKey } from '../../src/simulator/nova/model.js';
import { publicHalf } from './ssh-keys.js';

describe('the identity keypair (I7, simulator)', function () {
  this.timeout(30_000);
  let rig: IdentityRig;
  beforeEach(async () => {
    rig = await startIdentityRig();
    await rig.applyRegion();
    await rig.applyIdentity();
  });
  afterEach(async () => rig.close());

  const uidOf = async () => (await rig.source.get('Identity', 'default', 'acme-web'))?.metadata.uid as string;
  const userIdOf = async () => (await rig.admin.identityAdmin.findUser({ domainId: rig.domainId, name: identityUserName(await uidOf()) }))?.id as string;
  const novaKeypair = async () => rig.sim.control.sim.nova.keypairs.get(keypairKey(await userIdOf(), identityKeypairName(await uidOf())));
  const secret = async () => (await rig.source.secrets.get('default', identitySecretName(await uidOf())))?.data ?? {};
  const imports = () => rig.sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/os-keypairs'));
  const outcomes = async () => (await rig.store.readStream(identityLifecycleStream(await uidOf()))).map((e) => e.type);

  it('a realized identity has its keypair in Nova under its own user; the Secret holds the private key OpenSSH reads; the event only name and fingerprint', async () => {
    const last = (await rig.realize()).at(-1);
    expect(last?.kind === 'yield' ? last.why : last?.kind).to.equal('realized');
    const keypair = await novaKeypair();
    expect(keypair, 'the keypair belongs to the identity user').to.not.equal(undefined);
    expect(imports()).to.have.length(1);
    const data = await secret();
    expect(data.ssh_private_key).to.match(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    expect(samePublicKey(publicHalf(data.ssh_private_key as string), keypair!.publicKey), 'the private key is the half of what Nova holds').to.equal(true);
    // the import was decided before the credential that Servers are created with
    const types = await outcomes();
    const events = await rig.store.readStream(identityLifecycleStream(await uidOf()));
    const done = events.find((e) => e.type === 'identityLifecycle.stepDone' && (e.data as { step?: string }).step === 'keypair');
    expect(done?.data).to.deep.include({ id: identityKeypairName(await uidOf()), fingerprint: sshFingerprint(keypair!.publicKey) });
    expect(types.indexOf('identityLifecycle.keypairRequested')).to.be.lessThan(types.indexOf('identityLifecycle.credentialRequested'));
    // the private key is in no event and no log line
    const body = (data.ssh_private_key as string).split('\n').slice(1, -2).join('');
    const all = JSON.stringify(await rig.store.readAll({}));
    for (const needle of [body, body.slice(0, 60), body.slice(-60)]) {
      expect(all).to.not.include(needle);
      for (const line of rig.logLines) expect(line).to.not.include(needle);
    }
  });

  it('re-running on an empty history adopts the keypair by exact name: nothing is imported again', async () => {
    await rig.realize();
    const before = (await novaKeypair())?.publicKey;
    rig.forgetHistory();
    expect((await rig.realize()).at(-1)).to.deep.include({ kind: 'yield', why: 'realized' });
    expect(imports()).to.have.length(1);
    expect((await novaKeypair())?.publicKey).to.equal(before);
  });

  it('a keypair deleted in Nova is imported again on the next pass', async () => {
    await rig.realize();
    rig.sim.control.sim.nova.keypairs.delete(keypairKey(await userIdOf(), identityKeypairName(await uidOf())));
    await rig.identityPass();
    expect((await outcomes()).slice(-2)).to.deep.equal(['identityLifecycle.keypairRequested', 'identityLifecycle.stepDone']);
    await rig.realize();
    expect(samePublicKey(publicHalf((await secret()).ssh_private_key as string), (await novaKeypair())!.publicKey)).to.equal(true);
  });

  it('present in Nova but the Secret lost the private key: deleted and imported again under the same name, recorded as keypairReplaced', async () => {
    await rig.realize();
    const old = (await novaKeypair())?.publicKey;
    const { ssh_private_key: _lost, ...rest } = await secret();
    await rig.source.secrets.put('default', identitySecretName(await uidOf()), rest);
    await rig.identityPass();
    expect((await outcomes()).slice(-2)).to.deep.equal(['identityLifecycle.keypairReplaced', 'identityLifecycle.stepDone']);
    await rig.realize();
    const now = await novaKeypair();
    expect(now?.publicKey).to.not.equal(old);
    expect(now?.name).to.equal(identityKeypairName(await uidOf()));
    expect(samePublicKey(publicHalf((await secret()).ssh_private_key as string), now!.publicKey)).to.equal(true);
    expect(rig.sim.calls().filter((c) => c.method === 'DELETE' && c.path.includes('/os-keypairs/'))).to.have.length(1);
  });

  it('deleting the identity deletes the keypair first (as its user), then credential, user and project', async () => {
    await rig.realize();
    const userId = await userIdOf();
    const uid = await uidOf();
    await rig.source.delete('Identity', 'default', 'acme-web');
    for (let i = 0; i < 10 && (await rig.source.get('Identity', 'default', 'acme-web')); i++) await rig.identityPass();
    expect(await rig.source.get('Identity', 'default', 'acme-web')).to.equal(undefined);
    expect(rig.sim.control.sim.nova.keypairs.get(keypairKey(userId, identityKeypairName(uid)))).to.equal(undefined);
    const types = (await rig.store.readStream(identityLifecycleStream(uid))).map((e) => e.type);
    expect(types.indexOf('identityLifecycle.keypairDeleteRequested')).to.be.greaterThan(-1);
    expect(types.indexOf('identityLifecycle.keypairDeleteRequested')).to.be.lessThan(types.indexOf('identityLifecycle.credentialDeleteRequested'));
    expect(types.indexOf('identityLifecycle.credentialDeleteRequested')).to.be.lessThan(types.indexOf('identityLifecycle.userDeleteRequested'));
  });
});
