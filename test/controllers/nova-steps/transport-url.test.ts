/**
 * The TransportURLSecret step (src/controllers/nova/steps/transport-url.ts): an accepted URL is written, digested and
 * its broker port resolved; a URL without an explicit port or with an IPv6 literal host is TransportURLRejected before
 * the write, so `{name}-transport-url` keeps the last accepted URL byte for byte (no put at all); a missing URL waits
 * as WaitingForMessagingCredentials; every wait is 15 s; nothing it says carries the bus password.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { transportURLSecretStep } from '../../../src/controllers/nova/steps/transport-url.js';
import { SECRET_POLLING_MS } from '../../../src/controllers/nova/steps/secrets.js';
import { DIGEST_ANNOTATIONS } from '../../../src/controllers/nova/pass.js';
import { allSecrets, baseSpec, containsNoCredential, makePass, recordingSecrets, spoken, transportURL, VALUES } from './pass-rig.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

describe('nova lane: the TransportURLSecret step (SecretsReady)', () => {
  it('an accepted brownfield URL is written to {name}-transport-url, digested, and its broker port resolved', async () => {
    const pass = makePass();
    const report = await transportURLSecretStep.run(pass);
    expect(report).to.deep.equal({ conditions: [], outcome: { kind: 'continue' } });
    expect(pass.secrets.puts).to.deep.equal(['nova-transport-url']);
    expect(pass.secrets.data.get('nova-transport-url')).to.deep.equal({ url: transportURL() });
    expect(pass.values.transportURL).to.equal(transportURL());
    expect(pass.values.brokerPort).to.equal(5672);
    expect(pass.values.digests).to.deep.equal({ [DIGEST_ANNOTATIONS.transportURL]: sha256(transportURL()) });
  });

  it('a managed cluster\'s URL is read from rabbitmq-<clusterRef>, key url; the first host\'s port is the broker port', async () => {
    const seed = allSecrets();
    seed['rabbitmq-bus'] = { url: 'rabbit://nova:x@r1.svc:5671,nova:x@r2.svc:5672/' };
    const pass = makePass({ spec: { ...baseSpec(), messaging: { clusterRef: { name: 'bus' } } }, secrets: recordingSecrets(seed) });
    expect((await transportURLSecretStep.run(pass)).outcome.kind).to.equal('continue');
    expect(pass.values.brokerPort).to.equal(5671);
  });

  describe('a rejected URL: TransportURLRejected before the write, so the last accepted URL stays byte-identical', () => {
    const table: Array<[string, string, string]> = [
      ['a brownfield URL without an explicit port', transportURL('rabbit.openstack.svc'), 'has no explicit port'],
      ['a brownfield URL with an IPv6 literal host', transportURL('[fd00::7]:5672'), 'IPv6 literal ([fd00::7])'],
      ['a brownfield URL with one of several hosts without a port', `rabbit://nova:${VALUES.busPassword}@r1:5672,nova:${VALUES.busPassword}@r2/`, 'host 2 of 2 has no explicit port'],
    ];
    for (const [what, url, says] of table) {
      it(`${what} is rejected; {name}-transport-url keeps the accepted URL; no value or digest is handed on`, async () => {
        const seed = allSecrets();
        const accepted = transportURL('rabbit-old.openstack.svc:5672');
        seed['nova-transport-url'] = { url: accepted };
        seed['nova-bus'] = { url };
        const pass = makePass({ secrets: recordingSecrets(seed) });
        const report = await transportURLSecretStep.run(pass);
        expect(report.conditions).to.have.length(1);
        expect(report.conditions[0]).to.include({ type: 'SecretsReady', status: 'False', reason: 'TransportURLRejected' });
        expect(report.conditions[0]!.message).to.include('Secret nova-bus, key url').and.include(says).and.include('nova-transport-url keeps the last accepted URL');
        expect(report.outcome).to.deep.include({ kind: 'requeue', afterMs: SECRET_POLLING_MS });
        expect(pass.secrets.puts, 'no write at all').to.deep.equal([]);
        expect(pass.secrets.data.get('nova-transport-url')).to.deep.equal({ url: accepted });
        expect(pass.values.transportURL).to.equal(undefined);
        expect(pass.values.brokerPort).to.equal(undefined);
        expect(pass.values.digests).to.deep.equal({});
        expect(containsNoCredential(spoken(report))).to.equal(undefined);
      });
    }
  });

  it('no Secret holding the URL waits as WaitingForMessagingCredentials, 15 s, writing nothing', async () => {
    const seed = allSecrets();
    delete seed['nova-bus'];
    const pass = makePass({ secrets: recordingSecrets(seed) });
    const report = await transportURLSecretStep.run(pass);
    expect(report.conditions[0]).to.include({ reason: 'WaitingForMessagingCredentials' });
    expect(report.outcome).to.deep.include({ kind: 'requeue', afterMs: SECRET_POLLING_MS });
    expect(pass.secrets.puts).to.deep.equal([]);
  });
});
