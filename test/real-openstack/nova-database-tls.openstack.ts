/**
 * Issue 24 for real: a MariaDB that requires TLS accepts the connections Regent opens and renders. The test starts
 * its own mariadbd (the sandbox's binary, never the sandbox's server) on a free loopback port with a throwaway CA
 * made with openssl, require_secure_transport=ON, and users that REQUIRE X509, so a connection without TLS, or
 * without the client certificate, is refused by the server itself:
 *   - Regent's provisioning connection (the SQL adapter over TCP) with the block's CA and client certificate is
 *     accepted and provisions both blocks; without tls it is refused; with a CA that did not sign the server's
 *     certificate it is refused too (the server is verified);
 *   - the real Zed nova-manage, run by the local JobRunner with the DSNs Regent derived (ssl_ca, ssl_cert, ssl_key
 *     naming the files the runner wrote at 0400), runs the whole db-sync (both schemas migrated, cell0 and cell1
 *     mapped) and the contract Job, whose second pass goes through cell0's DSN: the cell block's query, kept.
 * The server, its data directory and the keys are removed in after(); nothing of the sandbox is touched.
 */
import { expect } from 'chai';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { SqlDatabaseProvisioner, type MariaDBServer } from '../../src/nova/database/sql.js';
import { resolveClusterFromSecrets } from '../../src/nova/database/cluster-secret.js';
import { planDatabases } from '../../src/nova/database/plan.js';
import { renderNovaJob } from '../../src/nova/jobs/render.js';
import type { SecretStore, StoredSecret } from '../../src/kube/secrets.js';
import type { NovaSpec } from '../../src/resources/nova.js';
import { openNovaRig, type NovaRig } from '../nova/support/nova-rig.js';
import { makeTlsFixtures, type TlsFixtures } from '../nova/support/tls-fixtures.js';

const SANDBOX = process.env.SANDBOX_HOME ?? '/var/tmp/regent-openstack';
const NOVA_MANAGE = join(SANDBOX, 'bin/nova-manage');
const id = randomBytes(3).toString('hex');
const NAME = `nova-tls${id}`;
const API_DB = `regent_t${id}_api`;
const CELL_DB = `regent_t${id}`;
const USERS = { api: `regent_t${id}_a`, cell: `regent_t${id}_c` };
const ADMIN = 'regent_admin';

type Tls = NonNullable<NovaSpec['database']['api']['tls']>;
const MUTUAL: Tls = { enabled: true, caSecretRef: { name: 'db-ca' }, clientCertSecretRef: { name: 'nova-db-client' } };
/** null: no tls block at all (undefined would take the default). */
const spec = (tls: Tls | null = MUTUAL): NovaSpec => ({
  image: 'ghcr.io/c5c3/nova:2025.1',
  openStackRelease: '2025.1',
  database: {
    api: { clusterRef: { name: 'tls' }, database: API_DB, secretRef: { name: 'nova-api-db' }, ...(tls ? { tls } : {}) },
    cell: { clusterRef: { name: 'tls' }, database: CELL_DB, secretRef: { name: 'nova-db' }, ...(tls ? { tls } : {}) },
  },
  messaging: { secretRef: { name: 'rabbit', key: 'url' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
});

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('nova database TLS for real: a MariaDB that requires TLS (its own mariadbd, require_secure_transport=ON)', function () {
  let tls: TlsFixtures;
  let data: string;
  let binDir: string;
  let mariadbd: ChildProcess | undefined;
  let port: number;
  const socket = () => join(data, 'mysqld.sock');
  const adminPassword = randomBytes(12).toString('base64url');
  const passwords = { api: randomBytes(12).toString('base64url'), cell: randomBytes(12).toString('base64url') };
  const root = () => mysql.createConnection({ socketPath: socket(), user: 'root' });

  before(async function () {
    this.timeout(120_000);
    for (const binary of ['/usr/sbin/mariadbd', '/usr/bin/mariadb-install-db', NOVA_MANAGE]) if (!existsSync(binary)) throw new Error(`the real suite needs ${binary}`);
    tls = makeTlsFixtures();
    data = mkdtempSync(join(tmpdir(), 'regent-tls-mariadb-'));
    execFileSync('/usr/bin/mariadb-install-db', ['--no-defaults', `--datadir=${join(data, 'db')}`, '--user=root', '--auth-root-authentication-method=socket', '--skip-test-db'], { stdio: 'ignore' });
    port = await freePort();
    mariadbd = spawn(
      '/usr/sbin/mariadbd',
      [
        '--no-defaults',
        `--datadir=${join(data, 'db')}`,
        `--socket=${socket()}`,
        `--pid-file=${join(data, 'mysqld.pid')}`,
        `--log-error=${join(data, 'error.log')}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        '--user=root',
        '--skip-name-resolve',
        '--skip-log-bin',
        '--innodb-buffer-pool-size=32M',
        `--ssl-ca=${tls.files.ca}`,
        `--ssl-cert=${tls.files.serverCert}`,
        `--ssl-key=${tls.files.serverKey}`,
        '--require-secure-transport=ON',
      ],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 300 && !existsSync(socket()); i++) await sleep(100);
    if (!existsSync(socket())) throw new Error(`mariadbd did not start: see ${join(data, 'error.log')}`);
    const admin = await root();
    try {
      // the admin Regent provisions as must present the client certificate too: proof that mysql2 sends it
      await admin.query(`CREATE USER '${ADMIN}'@'127.0.0.1' IDENTIFIED BY ? REQUIRE X509`, [adminPassword]);
      await admin.query(`GRANT ALL PRIVILEGES ON *.* TO '${ADMIN}'@'127.0.0.1' WITH GRANT OPTION`);
      // Nova's users exist already and require a client certificate; the SQL adapter only resizes them (an ALTER
      // USER without REQUIRE keeps it), so every connection nova-manage opens must present the certificate
      for (const block of ['api', 'cell'] as const) await admin.query(`CREATE USER '${USERS[block]}'@'%' IDENTIFIED BY ? REQUIRE X509 WITH MAX_USER_CONNECTIONS 1`, [passwords[block]]);
    } finally {
      await admin.end();
    }
    binDir = mkdtempSync(join(tmpdir(), 'regent-nova-bin-'));
    symlinkSync(NOVA_MANAGE, join(binDir, 'nova-manage'));
  });

  after(async function () {
    this.timeout(60_000);
    if (mariadbd?.pid !== undefined && mariadbd.exitCode === null) {
      mariadbd.kill('SIGTERM');
      for (let i = 0; i < 300 && mariadbd.exitCode === null; i++) await sleep(100);
      if (mariadbd.exitCode === null) mariadbd.kill('SIGKILL');
    }
    if (data) rmSync(data, { recursive: true, force: true });
    if (binDir) rmSync(binDir, { recursive: true, force: true });
    tls?.remove();
  });

  const secretsOf = (values: Record<string, Record<string, string>>): SecretStore =>
    ({ get: async (_ns: string, name: string) => (values[name] ? ({ data: values[name], version: '1', labels: {} } satisfies StoredSecret) : undefined) }) as unknown as SecretStore;
  const server = (host = '127.0.0.1'): MariaDBServer => ({ admin: { host, port, user: ADMIN, password: adminPassword }, host, port });
  const plans = (s: NovaSpec) => {
    const plan = planDatabases({ metadata: { name: NAME }, spec: s }, { api: { username: USERS.api }, cell: { username: USERS.cell } });
    if (!plan.ok) throw new Error(plan.problems.join('; '));
    return plan.blocks;
  };
  const tlsSecrets = (ca: string) => ({ 'db-ca': { 'ca.crt': ca }, 'nova-db-client': { 'tls.crt': tls.clientCert, 'tls.key': tls.clientKey }, 'nova-api-db': { password: passwords.api }, 'nova-db': { password: passwords.cell } });
  const provision = async (s: NovaSpec, values: Record<string, Record<string, string>>, host?: string) => {
    const provisioner = new SqlDatabaseProvisioner(async () => server(host), { connectTimeoutMs: 5_000 });
    const secrets = secretsOf(values);
    try {
      const outcomes = [];
      for (const block of plans(s)) outcomes.push(await provisioner.provision('default', block, async (ref) => (await secrets.get('default', ref.name))?.data[ref.key]));
      return outcomes;
    } finally {
      await provisioner.close();
    }
  };

  it("Regent's provisioning connection with the block's CA and client certificate is accepted by the TLS-only server and provisions both blocks", async function () {
    this.timeout(60_000);
    const outcomes = await provision(spec(), tlsSecrets(tls.ca));
    expect(outcomes, JSON.stringify(outcomes)).to.deep.equal([{ kind: 'ready' }, { kind: 'ready' }]);
    const admin = await root();
    try {
      const [schemas] = await admin.query<mysql.RowDataPacket[]>('SELECT SCHEMA_NAME AS s FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?', [`regent\\_t${id}%`]);
      expect(schemas.map((r) => r.s).sort()).to.deep.equal([CELL_DB, API_DB, `${CELL_DB}_cell0`].sort());
      const [users] = await admin.query<mysql.RowDataPacket[]>("SELECT User AS u, ssl_type AS t, max_user_connections AS m FROM mysql.user WHERE User LIKE 'regent\\_t%'");
      for (const row of users) expect(row.t, `${row.u} still requires X509`).to.equal('X509');
      expect(users.every((r) => Number(r.m) > 1), 'resized for the topology').to.equal(true);
    } finally {
      await admin.end();
    }
  });

  it('without tls the same server refuses that connection: clusterNotReady in words (require_secure_transport is real)', async function () {
    this.timeout(60_000);
    const [api] = await provision(spec(null), tlsSecrets(tls.ca));
    expect(api?.kind).to.equal('clusterNotReady');
    expect((api as { message: string }).message, (api as { message: string }).message).to.match(/insecure transport|X509|Access denied/i).and.not.contain(adminPassword);
  });

  it("a CA that did not sign the server's certificate is refused before anything is sent: the server is verified, never trusted blindly", async function () {
    this.timeout(60_000);
    const [api] = await provision(spec(), tlsSecrets(tls.otherCa));
    expect(api?.kind).to.equal('clusterNotReady');
    expect((api as { message: string }).message).to.match(/certificate|self[- ]signed|verify/i).and.contain('over TLS');
  });

  it("a host name is checked against the server's certificate: localhost, which it does not name, is refused although the CA signed it", async function () {
    this.timeout(60_000);
    const [api] = await provision(spec(), tlsSecrets(tls.ca), 'localhost');
    expect(api?.kind).to.equal('clusterNotReady');
    expect((api as { message: string }).message).to.match(/altnames|does not match/i).and.contain('over TLS');
  });

  describe('the real nova-manage over the DSNs Regent derived', function () {
    let rig: NovaRig;
    before(async function () {
      this.timeout(60_000);
      rig = await openNovaRig({
        name: NAME,
        provisioner: new SqlDatabaseProvisioner(resolveClusterFromSecrets({ get: (ns: string, n: string) => rig.source.secrets.get(ns, n) } as never)),
        databaseEndpoint: async () => ({ host: '127.0.0.1', port }),
        binDir,
      });
      const put = (name: string, values: Record<string, string>) => rig.source.secrets.put('default', name, values);
      await put('mariadb-tls', { host: '127.0.0.1', port: String(port), adminUser: ADMIN, adminPassword });
      await put('nova-api-db', { username: USERS.api, password: passwords.api });
      await put('nova-db', { username: USERS.cell, password: passwords.cell });
      await put('nova-service-user', { password: 'unused' });
      await put('rabbit', { url: 'rabbit://guest:guest@127.0.0.1:5672/' });
      await put('db-ca', { 'ca.crt': tls.ca });
      await put('nova-db-client', { 'tls.crt': tls.clientCert, 'tls.key': tls.clientKey });
    });
    after(async function () {
      this.timeout(60_000);
      await rig?.close();
    });

    it('db-sync: both schemas migrated and cell0 and cell1 mapped by nova-manage over TLS with the client certificate (the files 0400, where the DSNs point)', async function () {
      this.timeout(400_000);
      await rig.apply(spec());
      const status = await rig.until((s) => ['DatabaseSynced', 'DBSyncFailed'].includes(s.conditions?.find((c) => c.type === 'DatabaseReady')?.reason ?? ''), { pollMs: 1000, maxPasses: 360 });
      const ready = status.conditions?.find((c) => c.type === 'DatabaseReady');
      expect(ready, JSON.stringify(ready)).to.include({ status: 'True', reason: 'DatabaseSynced' });
      expect(status.cells?.map((c) => c.name).sort()).to.deep.equal(['cell0', 'cell1']);
      const cell = (await rig.source.secrets.get('default', `${NAME}-db-connection`))!.data;
      const dir = rig.jobs.databaseTlsDir('default', NAME, 'cell');
      expect(Object.fromEntries(new URL(cell.connection!).searchParams)).to.deep.equal({ charset: 'utf8', ssl_ca: `${dir}/ca.crt`, ssl_cert: `${dir}/tls.crt`, ssl_key: `${dir}/tls.key` });
      for (const file of ['ca.crt', 'tls.crt', 'tls.key']) expect(statSync(join(dir, file)).mode & 0o777, file).to.equal(0o400);
      const admin = await root();
      try {
        const [tables] = await admin.query<mysql.RowDataPacket[]>('SELECT TABLE_SCHEMA AS s, COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA IN (?, ?, ?) GROUP BY TABLE_SCHEMA', [API_DB, CELL_DB, `${CELL_DB}_cell0`]);
        expect(tables.map((r) => r.s).sort(), 'all three schemas migrated').to.deep.equal([CELL_DB, API_DB, `${CELL_DB}_cell0`].sort());
        // nova's own sessions used TLS: the server counts them
        const [ssl] = await admin.query<mysql.RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Ssl_accepts'");
        expect(Number(ssl[0]?.Value)).to.be.greaterThan(0);
      } finally {
        await admin.end();
      }
    });

    it("the contract Job's cell0 pass connects through cell0's DSN, which carries the cell block's TLS query", async function () {
      this.timeout(300_000);
      const ref = { namespace: 'default', name: NAME, uid: (await rig.source.get('Nova', 'default', NAME))!.metadata.uid };
      const job = renderNovaJob(ref, spec(), 'contract', { databaseTlsDir: (block) => rig.jobs.databaseTlsDir('default', NAME, block) });
      await rig.jobs.create(job);
      let observed = await rig.jobs.get('default', job.name);
      for (let i = 0; i < 600 && observed?.state === 'running'; i++) {
        await sleep(500);
        observed = await rig.jobs.get('default', job.name);
      }
      expect(observed?.state, observed?.failureMessage).to.equal('succeeded');
      const cell = (await rig.source.secrets.get('default', `${NAME}-db-connection`))!.data;
      expect(new URL(cell.cell0Connection!).search).to.equal(new URL(cell.connection!).search);
    });
  });
});
