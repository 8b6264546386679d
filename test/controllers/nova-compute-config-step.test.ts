/**
 * The ComputeConfig step (src/controllers/nova/steps/compute-config.ts): the contract `{name}-compute-config` (its
 * three keys a pool waits for, ca.crt on a TLS bus), written only when it differs; a contract that cannot be rendered
 * leaves the published Secret as it was; spec.remoteCompute's twin and WaitingForRemoteTransportURL without halting
 * the lane; the remote Secret this Nova controls deleted when the block goes; the status references handed on.
 */
import { expect } from 'chai';
import { runLane } from '../../src/controllers/nova/lane.js';
import { computeConfigStep } from '../../src/controllers/nova/steps/compute-config.js';
import { REQUIRED_CONTRACT_KEYS } from '../../src/nova/config/compute.js';
import { LocalConfigStore } from '../../src/nova/config/local.js';
import { OWNER_UID_LABEL } from '../../src/kube/secrets.js';
import type { NovaSpec } from '../../src/resources/nova.js';
import { CREDENTIALS, NAME, NS, UID, baseSpec, readIni, transportURL } from '../nova/support/config-fixtures.js';
import { openConfigRig, upstreamValues, withConfigs, type ConfigRig } from './nova-config-rig.js';

const MAIN = `${NAME}-compute-config`;
const REMOTE = `${NAME}-remote-compute-config`;
const EXTERNAL = transportURL(CREDENTIALS.remoteBusPassword, 'rabbit.example.org:5671');
const remoteSpec = (key?: string): NovaSpec => baseSpec((s) => (s.remoteCompute = { transportURLSecretRef: { name: 'nova-bus-external', ...(key ? { key } : {}) } }));
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('the ComputeConfig step', () => {
  let rig: ConfigRig;
  const secret = async (name: string) => rig.source.secrets.get(NS, name);
  beforeEach(() => (rig = openConfigRig()));
  afterEach(async () => rig.close());

  it('publishes {name}-compute-config with the three keys a pool waits for, owned by the Nova; ComputeConfigPublished; the status reference handed on', async () => {
    const pass = rig.pass();
    const result = await runLane([computeConfigStep], pass);
    expect(result.outcome).to.deep.equal({ kind: 'continue' });
    expect(result.conditions).to.deep.equal([{ type: 'ComputeConfigReady', status: 'True', reason: 'ComputeConfigPublished', message: `${MAIN} published` }]);
    const stored = (await secret(MAIN))!;
    expect(Object.keys(stored.data).sort()).to.deep.equal([...REQUIRED_CONTRACT_KEYS].sort());
    expect(stored.data.transport_url).to.equal(transportURL());
    expect(stored.data.auth_url).to.equal('https://keystone.example:5000/v3');
    expect(stored.labels).to.include({ [OWNER_UID_LABEL]: UID, 'regent.dev/nova': NAME });
    expect(pass.values.computeConfigSecretRef).to.equal(MAIN);
    expect(pass.values.remoteComputeConfigSecretRef).to.equal(null);
  });

  it('compute.conf is the fragment a compute node shares: the service user\'s keystoneauth sections without a password, [glance], [vnc]', async () => {
    await computeConfigStep.run(rig.pass(baseSpec((s) => (s.consoleProxy = { enabled: true, gateway: { parentRef: { name: 'gw' }, hostname: 'vnc.example.org' } }))));
    const fragment = readIni((await secret(MAIN))!.data['compute.conf']!);
    expect(Object.keys(fragment)).to.deep.equal(['service_user', 'placement', 'neutron', 'glance', 'cinder', 'vnc']);
    for (const section of ['service_user', 'placement', 'neutron', 'cinder']) expect(fragment[section], section).to.include({ auth_type: 'password', username: 'nova' }).and.not.have.property('password');
    expect(fragment.vnc).to.deep.equal({ enabled: 'true', novncproxy_base_url: 'https://vnc.example.org/vnc_lite.html' });
  });

  it('on a TLS bus: the broker CA bundle as ca.crt, and ssl in the fragment', async () => {
    await computeConfigStep.run(rig.pass(baseSpec((s) => (s.messaging.tls = { enabled: true, caSecretRef: { name: 'bus-ca' } })), { ...upstreamValues(), messagingCA: CA }));
    const stored = (await secret(MAIN))!;
    expect(stored.data['ca.crt']).to.equal(CA);
    expect(readIni(stored.data['compute.conf']!).oslo_messaging_rabbit).to.deep.equal({ ssl: 'true' });
  });

  it('a pass that renders the same contract writes nothing', async () => {
    await computeConfigStep.run(rig.pass());
    await computeConfigStep.run(rig.pass());
    expect(rig.secrets.writes).to.deep.equal([MAIN]);
  });

  it('a changed transport URL (a rotated bus password) is written again', async () => {
    await computeConfigStep.run(rig.pass());
    await computeConfigStep.run(rig.pass(baseSpec(), { ...upstreamValues(), transportURL: transportURL('rotated-pw') }));
    expect(rig.secrets.writes).to.deep.equal([MAIN, MAIN]);
    expect((await secret(MAIN))!.data.transport_url).to.equal(transportURL('rotated-pw'));
  });

  it('no credential but the bus URL (transport_url, the contract\'s reason to be a Secret) is in the contract, and none in the condition', async () => {
    const report = await computeConfigStep.run(rig.pass());
    const { transport_url: _url, ...rest } = (await secret(MAIN))!.data;
    const text = JSON.stringify([rest, report]);
    for (const [what, value] of Object.entries(CREDENTIALS)) expect(text, what).to.not.include(value);
  });

  describe('a contract that cannot be rendered', () => {
    const broken = { ...upstreamValues(), transportURL: `${transportURL()}\nx` };

    it('a control character: nothing written, the published Secret stays as it was and stays referenced; ComputeConfigError; the lane continues', async () => {
      await computeConfigStep.run(rig.pass());
      const before = await secret(MAIN);
      const pass = rig.pass(baseSpec(), broken);
      const result = await runLane([computeConfigStep], pass);
      expect(result.outcome).to.deep.equal({ kind: 'continue' });
      expect(result.conditions).to.deep.equal([
        { type: 'ComputeConfigReady', status: 'False', reason: 'ComputeConfigError', message: `${MAIN} is not written: transport_url: the transport URL carries a control character; the published Secret stays as it was` },
      ]);
      expect(await secret(MAIN)).to.deep.equal(before);
      expect(rig.secrets.writes).to.deep.equal([MAIN]);
      expect(pass.values.computeConfigSecretRef).to.equal(MAIN);
    });

    it('a control character and none published yet: nothing written, nothing referenced', async () => {
      const pass = rig.pass(baseSpec(), broken);
      const report = await computeConfigStep.run(pass);
      expect(report.conditions[0]).to.include({ status: 'False', reason: 'ComputeConfigError' });
      expect(report.conditions[0]!.message).to.match(/none is published yet$/);
      expect(await secret(MAIN)).to.equal(undefined);
      expect(pass.values.computeConfigSecretRef).to.equal(undefined);
    });

    it('no Keystone URL configured: a compute node could not authenticate, ComputeConfigError', async () => {
      const configs = new LocalConfigStore({ dir: `${rig.dir}/no-keystone` });
      const report = await computeConfigStep.run(withConfigs(rig.pass(), configs));
      expect(report.conditions[0]).to.include({ status: 'False', reason: 'ComputeConfigError' });
      expect(report.conditions[0]!.message).to.include('auth_url: no Keystone URL is configured');
    });
  });

  describe('spec.remoteCompute', () => {
    it('its Secret there: {name}-remote-compute-config with the external URL beside the contract; both references; ComputeConfigPublished', async () => {
      await rig.source.secrets.put(NS, 'nova-bus-external', { url: EXTERNAL });
      const pass = rig.pass(remoteSpec());
      const report = await computeConfigStep.run(pass);
      expect(report.conditions).to.deep.equal([{ type: 'ComputeConfigReady', status: 'True', reason: 'ComputeConfigPublished', message: `${MAIN} published; ${REMOTE} published` }]);
      expect((await secret(REMOTE))!.data.transport_url).to.equal(EXTERNAL);
      expect((await secret(REMOTE))!.data['compute.conf']).to.equal((await secret(MAIN))!.data['compute.conf']);
      expect((await secret(MAIN))!.data.transport_url).to.equal(transportURL());
      expect(pass.values).to.include({ computeConfigSecretRef: MAIN, remoteComputeConfigSecretRef: REMOTE });
    });

    it('a named key is read (the default is url)', async () => {
      await rig.source.secrets.put(NS, 'nova-bus-external', { external: EXTERNAL });
      await computeConfigStep.run(rig.pass(remoteSpec('external')));
      expect((await secret(REMOTE))!.data.transport_url).to.equal(EXTERNAL);
    });

    const waits: Array<[string, () => Promise<unknown>, string]> = [
      ['no Secret', async () => undefined, 'no Secret nova-bus-external (spec.remoteCompute.transportURLSecretRef)'],
      ['no key', async () => rig.source.secrets.put(NS, 'nova-bus-external', { other: 'x' }), 'Secret nova-bus-external has no key url (spec.remoteCompute.transportURLSecretRef)'],
    ];
    for (const [title, arrange, missing] of waits) {
      it(`${title}: WaitingForRemoteTransportURL, the lane continues, the local contract published anyway`, async () => {
        await arrange();
        const pass = rig.pass(remoteSpec());
        const result = await runLane([computeConfigStep], pass);
        expect(result.outcome).to.deep.equal({ kind: 'continue' });
        expect(result.conditions).to.deep.equal([
          { type: 'ComputeConfigReady', status: 'False', reason: 'WaitingForRemoteTransportURL', message: `waiting for the remote transport URL: ${missing}; ${REMOTE} is not published yet` },
        ]);
        expect(await secret(MAIN)).to.not.equal(undefined);
        expect(pass.values.computeConfigSecretRef).to.equal(MAIN);
        expect(pass.values.remoteComputeConfigSecretRef).to.equal(undefined);
      });
    }

    it('its Secret gone after a remote contract was published: that contract stays as it was, still referenced', async () => {
      await rig.source.secrets.put(NS, 'nova-bus-external', { url: EXTERNAL });
      await computeConfigStep.run(rig.pass(remoteSpec()));
      const before = await secret(REMOTE);
      await rig.source.secrets.delete(NS, 'nova-bus-external');
      const pass = rig.pass(remoteSpec());
      const report = await computeConfigStep.run(pass);
      expect(report.conditions[0]).to.include({ status: 'False', reason: 'WaitingForRemoteTransportURL' });
      expect(report.conditions[0]!.message).to.match(new RegExp(`${REMOTE} stays as it was$`));
      expect(await secret(REMOTE)).to.deep.equal(before);
      expect(pass.values.remoteComputeConfigSecretRef).to.equal(REMOTE);
    });

    it('a remote URL carrying a control character: ComputeConfigError naming the remote contract, the local one published', async () => {
      await rig.source.secrets.put(NS, 'nova-bus-external', { url: `${EXTERNAL}\u0000` });
      const report = await computeConfigStep.run(rig.pass(remoteSpec()));
      expect(report.conditions[0]).to.include({ status: 'False', reason: 'ComputeConfigError' });
      expect(report.conditions[0]!.message).to.equal(`${REMOTE} is not written: transport_url: the transport URL carries a control character; none is published yet`);
      expect(await secret(MAIN)).to.not.equal(undefined);
      expect(await secret(REMOTE)).to.equal(undefined);
    });

    it('a contract that cannot be rendered outranks a remote wait: ComputeConfigError (the wait would not fix it)', async () => {
      const report = await computeConfigStep.run(rig.pass(remoteSpec(), { ...upstreamValues(), transportURL: `${transportURL()}\n` }));
      expect(report.conditions[0]).to.include({ status: 'False', reason: 'ComputeConfigError' });
    });

    it('the block removed: the remote Secret this Nova controls is deleted and the reference cleared', async () => {
      await rig.source.secrets.put(NS, 'nova-bus-external', { url: EXTERNAL });
      await computeConfigStep.run(rig.pass(remoteSpec()));
      const pass = rig.pass();
      const report = await computeConfigStep.run(pass);
      expect(report.conditions[0]).to.include({ status: 'True', reason: 'ComputeConfigPublished' });
      expect(await secret(REMOTE)).to.equal(undefined);
      expect(rig.secrets.deletes).to.deep.equal([REMOTE]);
      expect(pass.values.remoteComputeConfigSecretRef).to.equal(null);
    });

    it('the block removed: a Secret of that name this Nova does not control is left alone (the reference cleared all the same)', async () => {
      await rig.source.secrets.put(NS, REMOTE, { transport_url: 'rabbit://someone-elses' }, { ownerUid: 'another-uid' });
      const pass = rig.pass();
      await computeConfigStep.run(pass);
      expect(await secret(REMOTE)).to.not.equal(undefined);
      expect(rig.secrets.deletes).to.deep.equal([]);
      expect(pass.values.remoteComputeConfigSecretRef).to.equal(null);
    });
  });

  it('a lane that reaches it without the transport URL is a table bug, named (an error, not a wait)', async () => {
    const { transportURL: _dropped, ...values } = upstreamValues();
    const result = await runLane([computeConfigStep], rig.pass(baseSpec(), values));
    expect(result.outcome.kind).to.equal('error');
    expect((result.outcome as { error: Error }).error.message).to.match(/TransportURLSecret step must run before it/);
  });
});
