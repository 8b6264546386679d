/**
 * The Secrets step (src/controllers/nova/steps/secrets.ts): every False reason of the spec's SecretsReady row that
 * this step owns, as a table — each case closes one gate, and the step sets SecretsReady False with that reason,
 * requeues after 15 s, hands on no value and stamps no digest (a pass stopped at a gate rolls nothing), and says no
 * credential. Then the order of the gates (the first closed one wins), and the open pass: every value filled, the two
 * digests stamped, no condition set (SecretsAvailable says True later).
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { secretsStep, SECRET_POLLING_MS } from '../../../src/controllers/nova/steps/secrets.js';
import { DIGEST_ANNOTATIONS } from '../../../src/controllers/nova/pass.js';
import { embeddedSecretStoreGate, namespacedSecretStoreGate, type SecretStoreGate } from '../../../src/nova/secret-store.js';
import type { NovaSpec } from '../../../src/resources/nova.js';
import { makeTlsFixtures, type TlsFixtures } from '../../nova/support/tls-fixtures.js';
import { allSecrets, baseSpec, containsNoCredential, makePass, recordingSecrets, spoken, VALUES } from './pass-rig.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

interface Case {
  title: string;
  reason: string;
  spec?: (spec: NovaSpec) => NovaSpec;
  secrets?: (secrets: Record<string, Record<string, string>>, tls: TlsFixtures) => void;
  gate?: SecretStoreGate;
  /** Words the message must carry (a field, a Secret, a key). */
  says: string[];
}

const notReadyStore = namespacedSecretStoreGate(async () => ({ conditions: [{ type: 'Ready', status: 'False', reason: 'InvalidProviderConfig', message: 'could not reach OpenBao' }] }));
const apiTls = (spec: NovaSpec): NovaSpec => ({ ...spec, database: { ...spec.database, api: { ...spec.database.api, tls: { enabled: true, caSecretRef: { name: 'db-ca' } } } } });
const cellMutualTls = (spec: NovaSpec): NovaSpec => ({ ...spec, database: { ...spec.database, cell: { ...spec.database.cell, tls: { enabled: true, caSecretRef: { name: 'db-ca' }, clientCertSecretRef: { name: 'db-client' } } } } });
const tlsBus = (spec: NovaSpec, caSecretRef: { name: string } | undefined = { name: 'bus-ca' }): NovaSpec => ({ ...spec, messaging: { ...spec.messaging, tls: { enabled: true, ...(caSecretRef ? { caSecretRef } : {}) } } });

const CASES: Case[] = [
  { title: 'any spec.targetClusterRef is TargetClusterUnavailable: Regent has no target clusters, and the message says so', reason: 'TargetClusterUnavailable', spec: (s) => ({ ...s, targetClusterRef: { name: 'edge-1' } }), says: ['edge-1', 'no target clusters'] },
  { title: 'the default store (ClusterSecretStore openbao-cluster-store) on namespace-scoped Kubernetes is ClusterSecretStoreUnsupported', reason: 'ClusterSecretStoreUnsupported', gate: notReadyStore, says: ['ClusterSecretStore openbao-cluster-store', 'namespaced RBAC'] },
  { title: 'a selected ClusterSecretStore on namespace-scoped Kubernetes is ClusterSecretStoreUnsupported', reason: 'ClusterSecretStoreUnsupported', spec: (s) => ({ ...s, secretStoreRef: { name: 'vault', kind: 'ClusterSecretStore' } }), gate: notReadyStore, says: ['ClusterSecretStore vault'] },
  { title: 'a SecretStore that is not Ready is SecretStoreNotReady, with its own reason and message', reason: 'SecretStoreNotReady', spec: (s) => ({ ...s, secretStoreRef: { name: 'openbao' } }), gate: notReadyStore, says: ['SecretStore openbao', 'InvalidProviderConfig', 'could not reach OpenBao'] },
  { title: 'a SecretStore that does not exist is SecretStoreNotReady', reason: 'SecretStoreNotReady', spec: (s) => ({ ...s, secretStoreRef: { name: 'openbao', kind: 'SecretStore' } }), gate: namespacedSecretStoreGate(async () => undefined), says: ['SecretStore openbao', 'there is none'] },
  { title: 'no nova_api credentials Secret is WaitingForDBCredentials', reason: 'WaitingForDBCredentials', secrets: (s) => void delete s['nova-api-db'], says: ['nova_api', 'nova-api-db'] },
  { title: 'a nova_api credentials Secret without its password key is WaitingForDBCredentials', reason: 'WaitingForDBCredentials', secrets: (s) => void (s['nova-api-db'] = { username: 'nova_api' }), says: ['nova-api-db', 'password'] },
  { title: 'with nova_api tls enabled, no CA Secret is WaitingForDBCredentials naming the tls field', reason: 'WaitingForDBCredentials', spec: apiTls, says: ['spec.database.api.tls.caSecretRef', 'db-ca'] },
  { title: 'no cell credentials Secret is WaitingForDBCredentials', reason: 'WaitingForDBCredentials', secrets: (s) => void delete s['nova-db'], says: ['cell', 'nova-db'] },
  { title: 'with cell tls enabled, no client certificate Secret is WaitingForDBCredentials naming the tls field', reason: 'WaitingForDBCredentials', spec: cellMutualTls, secrets: (s, tls) => void (s['db-ca'] = { 'ca.crt': tls.ca }), says: ['spec.database.cell.tls.clientCertSecretRef', 'db-client'] },
  { title: 'no service-user Secret is WaitingForServiceUserCredentials', reason: 'WaitingForServiceUserCredentials', secrets: (s) => void delete s['nova-service-user'], says: ['service-user', 'nova-service-user'] },
  { title: 'an empty service-user password is WaitingForServiceUserCredentials', reason: 'WaitingForServiceUserCredentials', secrets: (s) => void (s['nova-service-user'] = { password: '' }), says: ['nova-service-user', 'password'] },
  { title: 'no metadata shared secret Secret is WaitingForMetadataSharedSecret', reason: 'WaitingForMetadataSharedSecret', secrets: (s) => void delete s['nova-metadata'], says: ['spec.metadata.sharedSecretRef', 'nova-metadata'] },
  { title: 'a metadata Secret without the shared-secret key is WaitingForMetadataSharedSecret', reason: 'WaitingForMetadataSharedSecret', secrets: (s) => void (s['nova-metadata'] = { other: 'x' }), says: ['nova-metadata', 'shared-secret'] },
  { title: 'a metadata shared-secret key that exists but is empty waits as MetadataSharedSecretEmpty', reason: 'MetadataSharedSecretEmpty', secrets: (s) => void (s['nova-metadata'] = { 'shared-secret': '' }), says: ['empty', 'nova-metadata'] },
  { title: 'a metadata shared-secret key of white space only waits as MetadataSharedSecretEmpty', reason: 'MetadataSharedSecretEmpty', secrets: (s) => void (s['nova-metadata'] = { 'shared-secret': ' \n' }), says: ['empty'] },
  { title: 'a TLS bus without spec.messaging.tls.caSecretRef is WaitingForMessagingCA', reason: 'WaitingForMessagingCA', spec: (s) => tlsBus(s, undefined), says: ['spec.messaging.tls.caSecretRef'] },
  { title: 'a TLS bus whose CA Secret is missing is WaitingForMessagingCA', reason: 'WaitingForMessagingCA', spec: (s) => tlsBus(s), says: ['bus-ca'] },
  { title: 'a TLS bus whose CA bundle is not a PEM certificate is WaitingForMessagingCA', reason: 'WaitingForMessagingCA', spec: (s) => tlsBus(s), secrets: (s) => void (s['bus-ca'] = { 'ca.crt': 'not a certificate' }), says: ['bus-ca', 'not a PEM certificate'] },
  { title: 'no Secret holding the brownfield transport URL is WaitingForMessagingCredentials', reason: 'WaitingForMessagingCredentials', secrets: (s) => void delete s['nova-bus'], says: ['nova-bus'] },
  { title: 'on a TLS bus with its CA, no transport URL key is WaitingForMessagingCredentials', reason: 'WaitingForMessagingCredentials', spec: (s) => tlsBus(s), secrets: (s, tls) => void ((s['bus-ca'] = { 'ca.crt': tls.ca }), (s['nova-bus'] = {})), says: ['nova-bus', 'url'] },
  { title: 'a managed cluster whose rabbitmq-<clusterRef> Secret is missing is WaitingForMessagingCredentials', reason: 'WaitingForMessagingCredentials', spec: (s) => ({ ...s, messaging: { clusterRef: { name: 'rabbitmq' } } }), says: ['rabbitmq-rabbitmq'] },
];

describe('nova lane: the Secrets step (SecretsReady)', () => {
  let tls: TlsFixtures;
  before(() => void (tls = makeTlsFixtures()));
  after(() => tls.remove());

  describe('every closed gate: SecretsReady False with its reason, a 15 s requeue, no value, no digest, no credential said', () => {
    for (const c of CASES) {
      it(c.title, async () => {
        const seed = allSecrets();
        c.secrets?.(seed, tls);
        const pass = makePass({ spec: (c.spec ?? ((s) => s))(baseSpec()), secrets: recordingSecrets(seed), ...(c.gate ? { secretStoreGate: c.gate } : {}) });
        const report = await secretsStep.run(pass);
        expect(report.conditions).to.have.length(1);
        expect(report.conditions[0]).to.include({ type: 'SecretsReady', status: 'False', reason: c.reason });
        for (const word of c.says) expect(report.conditions[0]!.message).to.include(word);
        expect(report.outcome).to.deep.include({ kind: 'requeue', afterMs: SECRET_POLLING_MS });
        expect(pass.values).to.deep.equal({ digests: {} });
        expect(pass.secrets.puts, 'the Secrets step writes nothing').to.deep.equal([]);
        expect(containsNoCredential(spoken(report))).to.equal(undefined);
      });
    }
  });

  it('covers every False reason of the spec\'s SecretsReady row except those the later steps own', () => {
    const row = ['TargetClusterUnavailable', 'SecretStoreNotReady', 'ClusterSecretStoreUnsupported', 'WaitingForDBCredentials', 'WaitingForServiceUserCredentials', 'WaitingForMetadataSharedSecret', 'MetadataSharedSecretEmpty', 'WaitingForMessagingCA', 'WaitingForMessagingCredentials', 'TransportURLRejected', 'ConfigError'];
    const later = ['TransportURLRejected', 'ConfigError'];
    expect([...new Set(CASES.map((c) => c.reason))].sort()).to.deep.equal(row.filter((r) => !later.includes(r)).sort());
  });

  describe('the gates in the spec\'s order: the first closed one is the reason', () => {
    const order: Array<[string, string, (s: Record<string, Record<string, string>>) => void, (s: NovaSpec) => NovaSpec]> = [
      ['a target cluster outranks an unsupported store and every missing Secret', 'TargetClusterUnavailable', (s) => Object.keys(s).forEach((k) => delete s[k]), (s) => ({ ...s, targetClusterRef: { name: 'x' } })],
      ['the store outranks every missing Secret', 'ClusterSecretStoreUnsupported', (s) => Object.keys(s).forEach((k) => delete s[k]), (s) => s],
      ['the nova_api credentials outrank the cell\'s, the service user and the bus', 'WaitingForDBCredentials', (s) => ['nova-api-db', 'nova-db', 'nova-service-user', 'nova-bus'].forEach((k) => delete s[k]), (s) => s],
      ['the service user outranks the metadata secret and the bus', 'WaitingForServiceUserCredentials', (s) => ['nova-service-user', 'nova-metadata', 'nova-bus'].forEach((k) => delete s[k]), (s) => s],
      ['the metadata secret outranks the broker CA', 'WaitingForMetadataSharedSecret', (s) => ['nova-metadata', 'nova-bus'].forEach((k) => delete s[k]), (s) => tlsBus(s)],
      ['the broker CA outranks the messaging credentials', 'WaitingForMessagingCA', (s) => delete s['nova-bus'], (s) => tlsBus(s)],
    ];
    for (const [title, reason, remove, spec] of order) {
      it(title, async () => {
        const seed = allSecrets();
        remove(seed);
        // the namespaced gate (which refuses the default cluster store) only where the store's rank is the point
        const gate = ['TargetClusterUnavailable', 'ClusterSecretStoreUnsupported'].includes(reason) ? { secretStoreGate: notReadyStore } : {};
        const report = await secretsStep.run(makePass({ spec: spec(baseSpec()), secrets: recordingSecrets(seed), ...gate }));
        expect(report.conditions[0]?.reason).to.equal(reason);
      });
    }
  });

  it('every gate open: the values are handed on, authtoken-hash and metadata-secret-hash stamped (SHA-256), no condition set, the lane continues', async () => {
    const seed = allSecrets();
    seed['bus-ca'] = { 'ca.crt': tls.ca };
    const pass = makePass({ spec: tlsBus(baseSpec()), secrets: recordingSecrets(seed) });
    const report = await secretsStep.run(pass);
    expect(report).to.deep.equal({ conditions: [], outcome: { kind: 'continue' } });
    expect(pass.values.apiCredentials).to.deep.equal({ username: 'nova_api', password: VALUES.apiPassword });
    expect(pass.values.cellCredentials).to.deep.equal({ username: 'nova', password: VALUES.cellPassword });
    expect(pass.values.serviceUserPassword).to.equal(VALUES.serviceUser);
    expect(pass.values.metadataSharedSecret).to.equal(VALUES.metadata);
    expect(pass.values.messagingCA).to.equal(tls.ca);
    expect(pass.values.digests).to.deep.equal({ [DIGEST_ANNOTATIONS.authtoken]: sha256(VALUES.serviceUser), [DIGEST_ANNOTATIONS.metadataSecret]: sha256(VALUES.metadata) });
  });

  it('without a spec.metadata block there is no metadata gate, value or digest', async () => {
    const seed = allSecrets();
    delete seed['nova-metadata'];
    const spec = baseSpec();
    delete spec.metadata;
    const pass = makePass({ spec, secrets: recordingSecrets(seed) });
    expect((await secretsStep.run(pass)).outcome.kind).to.equal('continue');
    expect(pass.values.metadataSharedSecret).to.equal(undefined);
    expect(pass.values.digests).to.have.keys([DIGEST_ANNOTATIONS.authtoken]);
  });

  it('on the embedded default Regent\'s own secret store stands for the selected store, of either kind', async () => {
    for (const store of [{ name: 'openbao-cluster-store', kind: 'ClusterSecretStore' as const }, { name: 'mine', kind: 'SecretStore' as const }]) {
      const verdict = await embeddedSecretStoreGate.check('openstack', store);
      expect(verdict.kind).to.equal('ready');
      expect(verdict.message).to.include(`${store.kind} ${store.name}`).and.include("Regent's own secret store stands for");
    }
    // and the step uses it when no gate is wired
    expect((await secretsStep.run(makePass())).outcome.kind).to.equal('continue');
  });
});
