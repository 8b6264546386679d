/**
 * The DBConnectionSecrets step (src/controllers/nova/steps/db-connection-secrets.ts): the nova_api half first, on its
 * own 15 s requeue — the cell Secret is never written while the nova_api credentials or the nova_api cluster's address
 * are missing —, then the cell half; each DSN digested (SHA-256, only once written); a settled pass writes nothing;
 * the DSNs name the TLS files where the Jobs find them.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { dbConnectionSecretsStep } from '../../../src/controllers/nova/steps/db-connection-secrets.js';
import { SECRET_POLLING_MS } from '../../../src/controllers/nova/steps/secrets.js';
import { DIGEST_ANNOTATIONS } from '../../../src/controllers/nova/pass.js';
import { baseSpec, containsNoCredential, makePass, spoken, tlsDir, VALUES } from './pass-rig.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const CREDENTIALS = {
  apiCredentials: { username: 'nova_api', password: VALUES.apiPassword },
  cellCredentials: { username: 'nova', password: VALUES.cellPassword },
};
const API_ENDPOINT = { 'maria-api': { host: 'maria-api.openstack.svc', port: 3306 } };

describe('nova lane: the DBConnectionSecrets step (SecretsReady)', () => {
  describe('the nova_api half first: the cell Secret is never written while the nova_api half is missing', () => {
    const table: Array<[string, Parameters<typeof makePass>[0], string]> = [
      ['no nova_api credentials in this pass: nothing is written, WaitingForDBCredentials, 15 s', { values: {} }, 'nova_api credentials were not read'],
      ['the nova_api cluster\'s address is not known: nothing is written, WaitingForDBCredentials naming the cluster, 15 s', { values: CREDENTIALS, endpoints: { 'maria-cell': { host: 'c', port: 3306 } } }, 'the address of MariaDB maria-api (spec.database.api.clusterRef) is not known yet'],
    ];
    for (const [title, options, says] of table) {
      it(title, async () => {
        const pass = makePass({ ...options, secrets: undefined });
        const secretsBefore = [...pass.secrets.data.keys()];
        const report = await dbConnectionSecretsStep.run(pass);
        expect(report.conditions).to.deep.equal([{ type: 'SecretsReady', status: 'False', reason: 'WaitingForDBCredentials', message: report.conditions[0]!.message }]);
        expect(report.conditions[0]!.message).to.include(says);
        expect(report.outcome).to.deep.include({ kind: 'requeue', afterMs: SECRET_POLLING_MS });
        expect(pass.secrets.puts).to.deep.equal([]);
        expect([...pass.secrets.data.keys()]).to.deep.equal(secretsBefore);
        expect(pass.endpointAsks, 'the cell cluster is not even asked for').to.not.include('maria-cell');
        expect(pass.values.digests).to.deep.equal({});
      });
    }
  });

  it('the cell cluster\'s address unknown: the nova_api Secret is written and digested, the cell one is not, 15 s', async () => {
    const pass = makePass({ values: CREDENTIALS, endpoints: API_ENDPOINT });
    const report = await dbConnectionSecretsStep.run(pass);
    expect(report.conditions[0]).to.include({ reason: 'WaitingForDBCredentials' });
    expect(report.conditions[0]!.message).to.include('maria-cell');
    expect(report.outcome).to.deep.include({ kind: 'requeue', afterMs: SECRET_POLLING_MS });
    expect(pass.secrets.puts).to.deep.equal(['nova-api-db-connection']);
    expect(Object.keys(pass.values.digests)).to.deep.equal([DIGEST_ANNOTATIONS.apiDbConnection]);
  });

  it('both halves: nova_api written before the cell, each DSN digested with SHA-256, no condition set, the lane continues', async () => {
    const pass = makePass({ values: CREDENTIALS });
    const report = await dbConnectionSecretsStep.run(pass);
    expect(report).to.deep.equal({ conditions: [], outcome: { kind: 'continue' } });
    expect(pass.secrets.puts).to.deep.equal(['nova-api-db-connection', 'nova-db-connection']);
    const api = pass.secrets.data.get('nova-api-db-connection')!.connection!;
    const cell = pass.secrets.data.get('nova-db-connection')!;
    expect(api).to.equal(`mysql+pymysql://nova_api:${VALUES.apiPassword}@maria-api.openstack.svc:3306/nova_api?charset=utf8`);
    expect(cell.connection).to.equal(`mysql+pymysql://nova:${VALUES.cellPassword}@maria-cell.openstack.svc:3306/nova?charset=utf8`);
    expect(cell.cell0Connection).to.equal(`mysql+pymysql://nova:${VALUES.cellPassword}@maria-cell.openstack.svc:3306/nova_cell0?charset=utf8`);
    expect(pass.values.digests).to.deep.equal({ [DIGEST_ANNOTATIONS.apiDbConnection]: sha256(api), [DIGEST_ANNOTATIONS.dbConnection]: sha256(cell.connection!) });
    expect(containsNoCredential(spoken(report))).to.equal(undefined);
  });

  it('a settled pass writes nothing and stamps the same digests', async () => {
    const first = makePass({ values: CREDENTIALS });
    await dbConnectionSecretsStep.run(first);
    const second = makePass({ values: CREDENTIALS, secrets: first.secrets });
    const writes = first.secrets.puts.length;
    await dbConnectionSecretsStep.run(second);
    expect(second.secrets.puts).to.have.length(writes);
    expect(second.values.digests).to.deep.equal(first.values.digests);
  });

  it('a rotated cell password changes only db-connection-hash', async () => {
    const first = makePass({ values: CREDENTIALS });
    await dbConnectionSecretsStep.run(first);
    const rotated = makePass({ values: { ...CREDENTIALS, cellCredentials: { username: 'nova', password: 'rotated' } }, secrets: first.secrets });
    await dbConnectionSecretsStep.run(rotated);
    expect(rotated.values.digests[DIGEST_ANNOTATIONS.apiDbConnection]).to.equal(first.values.digests[DIGEST_ANNOTATIONS.apiDbConnection]);
    expect(rotated.values.digests[DIGEST_ANNOTATIONS.dbConnection]).to.not.equal(first.values.digests[DIGEST_ANNOTATIONS.dbConnection]);
  });

  it('a block with tls enabled: its DSNs (cell0\'s too) name the TLS files in the runner\'s directory', async () => {
    const spec = baseSpec();
    spec.database.cell.tls = { enabled: true, caSecretRef: { name: 'db-ca' }, clientCertSecretRef: { name: 'db-client' } };
    const pass = makePass({ spec, values: CREDENTIALS });
    await dbConnectionSecretsStep.run(pass);
    const dir = tlsDir('cell');
    const query = `?charset=utf8&ssl_ca=${dir}/ca.crt&ssl_cert=${dir}/tls.crt&ssl_key=${dir}/tls.key`;
    expect(pass.secrets.data.get('nova-db-connection')!.connection!.endsWith(`/nova${query}`)).to.equal(true);
    expect(pass.secrets.data.get('nova-db-connection')!.cell0Connection!.endsWith(`/nova_cell0${query}`)).to.equal(true);
    expect(pass.secrets.data.get('nova-api-db-connection')!.connection).to.match(/\?charset=utf8$/);
  });
});
