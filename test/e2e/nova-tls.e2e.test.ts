/**
 * Issue 24 end to end on the embedded default (npm test, no MariaDB): a Nova whose database blocks have tls. The
 * controller's pass, the engine, the local JobRunner running the db-sync script as a real child process against a
 * scripted nova-manage that reports, for every call, the ssl_* files its DSNs name and their modes; the status
 * runner. The provisioner is a recording fake (the SQL adapter's TLS is proven against a real TLS-only MariaDB in
 * test/real-openstack/nova-database-tls.openstack.ts).
 */
import { expect } from 'chai';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlockPlan, ProvisionOutcome } from '../../src/nova/database/port.js';
import { RecordingProvisionerBase } from '../nova/support/recording-provisioner.js';
import type { NovaSpec } from '../../src/resources/nova.js';
import { openNovaRig, type NovaRig, type NovaStatusView } from '../nova/support/nova-rig.js';
import { makeTlsFixtures, opensslAvailable, type TlsFixtures } from '../nova/support/tls-fixtures.js';

const NAME = 'nova';
const CELL1 = '5d3b0a52-3a6e-4c55-9d0e-2f1b6c7a8e91';

/**
 * A scripted nova-manage: for each call, every ssl_* file named by the two DSNs, with its mode, goes to
 * <state>/files ("<verb> <env> <param> <mode> <path>"); a named file that is not there fails the call.
 */
const writeFakeNova = (bin: string, state: string): void => {
  writeFileSync(
    join(bin, 'nova-manage'),
    `#!/bin/sh
while [ "$1" = "--config-file" ]; do shift 2; done
verb="$1 $2"
for env in OS_API_DATABASE__CONNECTION OS_DATABASE__CONNECTION; do
  eval "dsn=\\"\\\${$env:-}\\""
  for p in ssl_ca ssl_cert ssl_key; do
    f=$(printf '%s' "$dsn" | sed -n "s/.*[?&]$p=\\([^&]*\\).*/\\1/p")
    [ -n "$f" ] || continue
    [ -r "$f" ] || { echo "$env names $p=$f, which is not there" >&2; exit 7; }
    echo "$verb $env $p $(stat -c %a "$f") $f" >> ${state}/files
  done
done
case "$verb" in
  "api_db sync"|"db sync") exit 0 ;;
  "cell_v2 map_cell0") touch ${state}/cell0; exit 0 ;;
  "cell_v2 create_cell") touch ${state}/cell1; exit 0 ;;
  "cell_v2 list_cells")
    echo '+-------+--------------------------------------+'
    echo '|  Name |                 UUID                 |'
    [ -f ${state}/cell0 ] && echo '| cell0 | 00000000-0000-0000-0000-000000000000 |'
    [ -f ${state}/cell1 ] && echo '| cell1 | ${CELL1} |'
    exit 0 ;;
esac
exit 99
`,
  );
  chmodSync(join(bin, 'nova-manage'), 0o755);
};

class RecordingProvisioner extends RecordingProvisionerBase {
  tlsSeen: string[] = [];
  async provision(_namespace: string, plan: BlockPlan, read: (s: { name: string; key: string }) => Promise<string | undefined>): Promise<ProvisionOutcome> {
    this.plans.push(plan);
    if (plan.tls) for (const ref of [plan.tls.ca, plan.tls.cert, plan.tls.key]) if (ref) this.tlsSeen.push(`${plan.instance} ${ref.name}/${ref.key} ${(await read(ref)) === undefined ? 'missing' : 'read'}`);
    return { kind: 'ready' };
  }
}

type Tls = NonNullable<NovaSpec['database']['api']['tls']>;
const MUTUAL: Tls = { enabled: true, caSecretRef: { name: 'db-ca' }, clientCertSecretRef: { name: 'nova-db-client' } };
const spec = (tls: { api?: Tls; cell?: Tls }): NovaSpec => ({
  image: 'ghcr.io/c5c3/nova:2025.1',
  openStackRelease: '2025.1',
  database: {
    api: { clusterRef: { name: 'mariadb' }, database: 'nova_api', secretRef: { name: 'nova-api-db' }, ...(tls.api ? { tls: tls.api } : {}) },
    cell: { clusterRef: { name: 'mariadb' }, database: 'nova', secretRef: { name: 'nova-db' }, ...(tls.cell ? { tls: tls.cell } : {}) },
  },
  messaging: { clusterRef: { name: 'rabbitmq' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
});

const cond = (s: NovaStatusView, type: string) => s.conditions?.find((c) => c.type === type);
const query = (dsn: string): Record<string, string> => Object.fromEntries(new URL(dsn).searchParams);

describe('issue 24 end to end: a Nova whose databases require TLS, on the embedded default (scripted nova-manage)', function () {
  this.timeout(60_000);
  let rig: NovaRig;
  let bin: string;
  let state: string;
  let provisioner: RecordingProvisioner;
  let tls: TlsFixtures;

  before(function () {
    if (!opensslAvailable()) this.skip();
    tls = makeTlsFixtures();
  });
  after(() => tls?.remove());

  const putSecrets = async (which: Array<'credentials' | 'ca' | 'client'>) => {
    const put = (name: string, data: Record<string, string>) => rig.source.secrets.put('default', name, data);
    if (which.includes('credentials')) {
      await put('nova-api-db', { username: 'nova_api', password: 'api-s3cret-value' });
      await put('nova-db', { username: 'nova', password: 'cell-s3cret-value' });
      await put('nova-service-user', { password: 'svc-s3cret-value' });
      await put('rabbitmq-rabbitmq', { url: 'rabbit://nova:mq-s3cret-value@10.0.0.5:5672/' });
    }
    if (which.includes('ca')) await put('db-ca', { 'ca.crt': tls.ca });
    if (which.includes('client')) await put('nova-db-client', { 'tls.crt': tls.clientCert, 'tls.key': tls.clientKey });
  };
  const dsn = async (secret: string, key = 'connection') => (await rig.source.secrets.get('default', secret))?.data[key];
  const files = () => (existsSync(join(state, 'files')) ? readFileSync(join(state, 'files'), 'utf8').trim().split('\n') : []);

  beforeEach(async () => {
    bin = mkdtempSync(join(tmpdir(), 'regent-fake-nova-bin-'));
    state = mkdtempSync(join(tmpdir(), 'regent-fake-nova-state-'));
    writeFakeNova(bin, state);
    provisioner = new RecordingProvisioner();
    rig = await openNovaRig({ name: NAME, provisioner, databaseEndpoint: async () => ({ host: '10.0.0.4', port: 3306 }), binDir: bin });
  });
  afterEach(async () => {
    await rig.close();
    rmSync(bin, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  });

  it('without the CA Secret the Nova waits on SecretsReady=WaitingForDBCredentials naming spec.database.cell.tls.caSecretRef: nothing provisioned, no DSN, no Job, Ready False', async () => {
    await rig.apply(spec({ cell: MUTUAL }));
    await putSecrets(['credentials', 'client']);
    await rig.pass();
    const s = await rig.status();
    expect(cond(s, 'SecretsReady')).to.include({ status: 'False', reason: 'WaitingForDBCredentials' });
    expect(cond(s, 'SecretsReady')?.message).to.contain('spec.database.cell.tls.caSecretRef').and.contain('"db-ca"');
    expect(cond(s, 'DatabaseReady')).to.include({ status: 'False', reason: 'WaitingForDatabase' });
    expect(cond(s, 'Ready')).to.include({ status: 'False' });
    expect(provisioner.plans).to.deep.equal([]);
    expect(await dsn(`${NAME}-db-connection`)).to.equal(undefined);
    expect(await rig.jobs.get('default', `${NAME}-db-sync`)).to.equal(undefined);
  });

  it('with the Secrets: every DSN names the files the runner wrote at 0400, nova-manage finds them on every call, the provisioner was handed the TLS Secrets, DatabaseSynced', async () => {
    await rig.apply(spec({ api: MUTUAL, cell: MUTUAL }));
    await putSecrets(['credentials', 'ca', 'client']);
    const s = await rig.until((v) => cond(v, 'DatabaseReady')?.status === 'True' || cond(v, 'DatabaseReady')?.reason === 'DBSyncFailed', { pollMs: 100 });
    expect(cond(s, 'DatabaseReady'), JSON.stringify(cond(s, 'DatabaseReady'))).to.include({ status: 'True', reason: 'DatabaseSynced' });

    const dirs = { api: rig.jobs.databaseTlsDir('default', NAME, 'api'), cell: rig.jobs.databaseTlsDir('default', NAME, 'cell') };
    const wanted = (block: 'api' | 'cell') => ({ charset: 'utf8', ssl_ca: `${dirs[block]}/ca.crt`, ssl_cert: `${dirs[block]}/tls.crt`, ssl_key: `${dirs[block]}/tls.key` });
    expect(query((await dsn(`${NAME}-api-db-connection`))!)).to.deep.equal(wanted('api'));
    expect(query((await dsn(`${NAME}-db-connection`))!)).to.deep.equal(wanted('cell'));
    expect(query((await dsn(`${NAME}-db-connection`, 'cell0Connection'))!), "cell0's DSN carries the cell block's query").to.deep.equal(wanted('cell'));

    // what the child saw: every call of the script found all six files, each 0400
    const seen = files();
    for (const verb of ['api_db sync', 'cell_v2 map_cell0', 'cell_v2 list_cells', 'db sync']) {
      const lines = seen.filter((l) => l.startsWith(`${verb} `));
      expect(lines.length, `${verb}: ${seen.join('\n')}`).to.be.at.least(6);
      for (const line of lines) expect(line.split(' ').at(-2), line).to.equal('400');
    }
    for (const block of ['api', 'cell'] as const) {
      expect(readFileSync(join(dirs[block], 'tls.key'), 'utf8')).to.equal(tls.clientKey);
      expect(statSync(join(dirs[block], 'tls.key')).mode & 0o777).to.equal(0o400);
    }
    // Regent's own provisioning connection was handed the same CA and client certificate
    expect(provisioner.tlsSeen).to.include.members(['nova-api db-ca/ca.crt read', 'nova-api nova-db-client/tls.key read', 'nova db-ca/ca.crt read', 'nova nova-db-client/tls.crt read']);
  });

  it('tls enabled on a synced Nova re-runs db-sync (a new Job, the template hash changed) with the TLS DSNs', async () => {
    await rig.apply(spec({}));
    await putSecrets(['credentials', 'ca', 'client']);
    await rig.until((v) => cond(v, 'DatabaseReady')?.status === 'True', { pollMs: 100 });
    const first = await rig.jobs.get('default', `${NAME}-db-sync`);
    expect(files(), 'no file named before tls').to.deep.equal([]);
    expect(query((await dsn(`${NAME}-db-connection`))!)).to.deep.equal({ charset: 'utf8' });

    await rig.apply(spec({ cell: MUTUAL }));
    // a synced release stays DatabaseSynced while db-sync runs again (NU10): wait for the new Job itself
    let second = await rig.jobs.get('default', `${NAME}-db-sync`);
    for (let i = 0; i < 200 && !(second && second.uid !== first?.uid && second.state === 'succeeded'); i++) {
      await rig.pass();
      await new Promise((r) => setTimeout(r, 100));
      second = await rig.jobs.get('default', `${NAME}-db-sync`);
    }
    expect(second?.uid).to.not.equal(first?.uid);
    expect(second?.state).to.equal('succeeded');
    await rig.pass();
    expect(cond(await rig.status(), 'DatabaseReady')).to.include({ status: 'True', reason: 'DatabaseSynced' });
    expect(files().filter((l) => l.startsWith('db sync OS_DATABASE__CONNECTION ssl_ca 400 '))).to.have.length(1);
  });
});
