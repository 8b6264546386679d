/**
 * Issue 26 against the real Nova: the whole pipeline on the embedded default, as `npm start` runs it — the Nova
 * controller's lane and group over the sandbox's MariaDB (scratch schemas provisioned by the SQL adapter), a scratch
 * vhost of its RabbitMQ (never "/", where the sandbox's own conductor listens), its Keystone and Placement, the
 * genuine Zed nova-manage and nova-status in the Jobs, and the five roles as real processes of Debian's python3-nova
 * booted from the config Regent renders (src/nova/config/) through the local workloads:
 *   - Ready=True/AllReady: every sub-condition True, with the conductor and the scheduler registered (a real
 *     `nova-manage service list` against the scratch schemas shows both up), the API answering GET / with its
 *     version document at status.endpoint, and a real Keystone token accepted by that API (the rendered
 *     [keystone_authtoken]);
 *   - a release bump: expand and migrate run with the roles untouched, RollingUpdate restarts the real processes in
 *     the spec's order, contract runs after, installedRelease is promoted, and Ready comes back True;
 *   - an abort mid-upgrade: the phase Jobs deleted, the phase cleared, Ready again on the installed release;
 *   - the figures: the time to Ready, each role's memory (RSS of its process group), and the upgrade's duration;
 *   - deletion (issue 27): the finalizer drops exactly the Nova's schemas and users, holding one pass while they were
 *     live; a second Nova's schemas in the same MariaDB, and a schema Regent did not create, stay.
 * Credentials reach the processes as environment only: no secret value is in a file under the data directory.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { SqlDatabaseProvisioner } from '../../src/nova/database/sql.js';
import { resolveClusterFromSecrets } from '../../src/nova/database/cluster-secret.js';
import { UPGRADE_ROLE_ORDER } from '../../src/nova/workloads/port.js';
import type { NovaSpec } from '../../src/resources/nova.js';
import { openNovaRig, type NovaRig, type NovaStatusView } from '../nova/support/nova-rig.js';
import { runPoolLifecycle } from './support/nova-compute-pools.js';

const SANDBOX = process.env.SANDBOX_HOME ?? '/var/tmp/regent-openstack';
const SOCKET = join(SANDBOX, 'data/mysql/mysqld.sock');
const NOVA_MANAGE = join(SANDBOX, 'bin/nova-manage');
const KEYSTONE = 'http://127.0.0.1:5000/v3';
const id = randomBytes(3).toString('hex');
const NAME = `nova-p${id}`;
const API_DB = `regent_p${id}_api`;
const CELL_DB = `regent_p${id}`;
const USERS = [`regent_p${id}_a`, `regent_p${id}_c`];
const VHOST = `regent_p${id}`;
/** The second Nova, provisioned in the same MariaDB, and a schema no Nova of Regent's created. */
const OTHER = { name: `nova-q${id}`, api: `regent_q${id}_api`, cell: `regent_q${id}`, users: [`regent_q${id}_a`, `regent_q${id}_c`] };
const FOREIGN_DB = `regent_p${id}_foreign`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** rabbitmqctl as the broker's own user (its Erlang cookie lives in the sandbox's data dir). */
const rabbitmqctl = (...args: string[]): string =>
  execFileSync('runuser', ['-u', 'rabbitmq', '--', 'env', `HOME=${SANDBOX}/data/rabbitmq`, `RABBITMQ_CONF_ENV_FILE=${SANDBOX}/etc/rabbitmq/rabbitmq-env.conf`, '/usr/lib/rabbitmq/bin/rabbitmqctl', '-n', 'rabbit@localhost', ...args], { encoding: 'utf8', cwd: '/tmp' });

/** The sandbox's service-user password, read from its own nova.conf: no credential is written into this file. */
const sandboxServicePassword = (): string => {
  const conf = readFileSync(join(SANDBOX, 'etc/nova/nova.conf'), 'utf8');
  const section = /\[service_user\]([^[]*)/.exec(conf)?.[1] ?? '';
  const password = /^password\s*=\s*(.+)$/m.exec(section)?.[1]?.trim();
  if (!password) throw new Error('the sandbox nova.conf names no [service_user] password');
  return password;
};

/** The process group's resident memory, MiB. */
const groupRssMiB = (pgid: number): number => {
  const pids = execFileSync('ps', ['-eo', 'pid=,pgid='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([, g]) => g === pgid)
    .map(([p]) => p!);
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone in between
    }
  }
  return Math.round(kb / 1024);
};

const filesUnder = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));

const spec = (release: string): NovaSpec => ({
  image: `ghcr.io/c5c3/nova:${release}`,
  openStackRelease: release,
  database: {
    api: { clusterRef: { name: 'sandbox' }, database: API_DB, secretRef: { name: 'nova-api-db' } },
    cell: { clusterRef: { name: 'sandbox' }, database: CELL_DB, secretRef: { name: 'nova-db' } },
  },
  messaging: { secretRef: { name: 'scratch-rabbit', key: 'url' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
  metadata: { sharedSecretRef: { name: 'nova-metadata' } },
  consoleProxy: { enabled: true },
});

const cond = (s: NovaStatusView, type: string) => s.conditions?.find((c) => c.type === type);
const notTrue = (s: NovaStatusView) => (s.conditions ?? []).filter((c) => c.status !== 'True' && c.type !== 'Ready').map((c) => `${c.type}=${c.reason}: ${c.message}`);

describe('issue 26 against the real Nova: the pipeline on the embedded default, real roles from the rendered config', function () {
  let rig: NovaRig;
  let binDir: string;
  const passwords = { api: randomBytes(12).toString('base64url'), cell: randomBytes(12).toString('base64url'), metadata: randomBytes(12).toString('base64url') };
  const figures: string[] = [];

  /** A real Keystone token of the service user (admin in the service project, as the sandbox sets it up). */
  const serviceToken = async (): Promise<string> => {
    const auth = await fetch(`${KEYSTONE}/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ auth: { identity: { methods: ['password'], password: { user: { name: 'nova', domain: { name: 'Default' }, password: sandboxServicePassword() } } }, scope: { project: { name: 'service', domain: { name: 'Default' } } } } }),
    });
    expect(auth.status).to.equal(201);
    return auth.headers.get('x-subject-token')!;
  };

  /** The compute services our API lists from the scratch schemas (GET /os-services): `binary status state`. */
  const services = async (endpoint: string, token: string): Promise<string[]> => {
    const answer = await fetch(`${endpoint}/v2.1/os-services`, { headers: { 'x-auth-token': token } });
    expect(answer.status, await answer.clone().text()).to.equal(200);
    const body = (await answer.json()) as { services: Array<{ binary: string; status: string; state: string }> };
    return body.services.map((x) => `${x.binary} ${x.status} ${x.state}`).sort();
  };

  const untilReady = async (what: string, maxPasses = 240): Promise<NovaStatusView> => {
    try {
      return await rig.until((s) => cond(s, 'Ready')?.status === 'True' || /Failed$/.test(cond(s, 'DatabaseReady')?.reason ?? ''), { pollMs: 1000, maxPasses });
    } catch (error) {
      const logs = UPGRADE_ROLE_ORDER.map((role) => {
        const path = join(rig.dir, 'nova', 'default', NAME, `${role}.log`);
        return existsSync(path) ? `--- ${role}.log\n${readFileSync(path, 'utf8').split('\n').slice(-15).join('\n')}` : `--- ${role}: no log`;
      });
      throw new Error(`${what}: ${(error as Error).message.slice(0, 3000)}\n${logs.join('\n')}`, { cause: error });
    }
  };

  before(async function () {
    this.timeout(60_000);
    if (!existsSync(SOCKET) || !existsSync(NOVA_MANAGE) || !existsSync('/usr/bin/python3')) throw new Error(`the sandbox's MariaDB (${SOCKET}), nova-manage (${NOVA_MANAGE}) and /usr/bin/python3 with python3-nova must exist for the real suite`);
    binDir = mkdtempSync(join(tmpdir(), 'regent-nova-bin-'));
    symlinkSync(NOVA_MANAGE, join(binDir, 'nova-manage'));
    writeFileSync(join(binDir, 'nova-status'), "#!/bin/sh\nexec /usr/bin/python3 -c 'import sys; from nova.cmd.status import main; sys.exit(main())' \"$@\"\n");
    chmodSync(join(binDir, 'nova-status'), 0o755);
    rabbitmqctl('add_vhost', VHOST);
    rabbitmqctl('set_permissions', '-p', VHOST, 'guest', '.*', '.*', '.*');
    rig = await openNovaRig({
      name: NAME,
      provisioner: new SqlDatabaseProvisioner(resolveClusterFromSecrets({ get: (ns: string, n: string) => rig.source.secrets.get(ns, n) } as never)),
      databaseEndpoint: async () => ({ host: '127.0.0.1', port: 3306 }),
      binDir,
      python: '/usr/bin/python3',
      settings: { keystoneURL: KEYSTONE, regionName: 'RegionOne' },
    });
    await rig.source.secrets.put('default', 'mariadb-sandbox', { host: '127.0.0.1', port: '3306', adminUser: 'root', adminSocket: SOCKET });
    await rig.source.secrets.put('default', 'nova-api-db', { username: USERS[0]!, password: passwords.api });
    await rig.source.secrets.put('default', 'nova-db', { username: USERS[1]!, password: passwords.cell });
    await rig.source.secrets.put('default', 'nova-service-user', { password: sandboxServicePassword() });
    await rig.source.secrets.put('default', 'nova-metadata', { 'shared-secret': passwords.metadata });
    await rig.source.secrets.put('default', 'scratch-rabbit', { url: `rabbit://guest:guest@127.0.0.1:5672/${VHOST}` });
  });

  after(async function () {
    this.timeout(120_000);
    if (figures.length > 0) console.log(`      figures: ${figures.join('; ')}`);
    await rig?.close();
    if (binDir) rmSync(binDir, { recursive: true, force: true });
    try {
      rabbitmqctl('delete_vhost', VHOST);
    } catch (error) {
      console.log(`      could not delete vhost ${VHOST}: ${(error as Error).message}`);
    }
    const admin = await mysql.createConnection({ socketPath: SOCKET, user: 'root' });
    try {
      for (const db of [API_DB, CELL_DB, `${CELL_DB}_cell0`, OTHER.api, OTHER.cell, `${OTHER.cell}_cell0`, FOREIGN_DB]) await admin.query(`DROP DATABASE IF EXISTS \`${db}\``);
      for (const user of [...USERS, ...OTHER.users]) await admin.query(`DROP USER IF EXISTS '${user}'@'%'`);
    } finally {
      await admin.end();
    }
  });

  it('Ready=True/AllReady: schemas synced, conductor and scheduler registered, the API at status.endpoint answers and accepts a real token', async function () {
    this.timeout(600_000);
    const began = Date.now();
    await rig.apply(spec('2025.1'));
    const ready = await untilReady('the first Ready');
    expect(cond(ready, 'Ready'), notTrue(ready).join('\n')).to.include({ status: 'True', reason: 'AllReady' });
    figures.push(`Ready after ${((Date.now() - began) / 1000).toFixed(1)} s`);
    expect(cond(ready, 'NovaAPIReady')).to.include({ reason: 'APIHealthy' });
    expect(ready.installedRelease).to.equal('2025.1');
    const endpoint = ready.endpoint!;
    expect(endpoint).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    const root = await fetch(`${endpoint}/`);
    expect((await root.json()) as { versions?: Array<{ id: string }> }).to.have.nested.property('versions[0]');
    // the rendered [keystone_authtoken] validates a real token, and the API reads the scratch schemas: the conductor
    // and the scheduler registered there are up
    expect((await fetch(`${endpoint}/v2.1/servers`)).status, 'no token: refused').to.equal(401);
    const token = await serviceToken();
    const listed = await fetch(`${endpoint}/v2.1/servers`, { headers: { 'x-auth-token': token } });
    expect(listed.status, await listed.clone().text()).to.equal(200);
    let up: string[] = [];
    for (let i = 0; i < 60; i += 1) {
      up = await services(endpoint, token);
      if (up.includes('nova-conductor enabled up') && up.includes('nova-scheduler enabled up')) break;
      await sleep(1000);
    }
    expect(up).to.include.members(['nova-conductor enabled up', 'nova-scheduler enabled up']);
    figures.push(`memory ${UPGRADE_ROLE_ORDER.map((role) => `${role} ${groupRssMiB(rig.roles!.pid('default', NAME, role)!)} MiB`).join(', ')}`);
  });

  it('a release bump: expand and migrate with the roles untouched, the real processes restarted in order in RollingUpdate, contract after, Ready again', async function () {
    this.timeout(900_000);
    const pids = () => Object.fromEntries(UPGRADE_ROLE_ORDER.map((role) => [role, rig.roles!.pid('default', NAME, role)]));
    const before = pids();
    const began = Date.now();
    await rig.apply(spec('2025.2'));
    const rolling = await rig.until((s) => s.upgradePhase === 'RollingUpdate' || /Failed$/.test(cond(s, 'DatabaseReady')?.reason ?? ''), { pollMs: 1000, maxPasses: 300 });
    expect(rolling.upgradePhase, JSON.stringify(cond(rolling, 'DatabaseReady'))).to.equal('RollingUpdate');
    expect(pids(), 'expand and migrate restart no role').to.deep.equal(before);
    const done = await untilReady('Ready after the upgrade', 400);
    expect(cond(done, 'Ready'), notTrue(done).join('\n')).to.include({ status: 'True', reason: 'AllReady' });
    expect(done.installedRelease).to.equal('2025.2');
    figures.push(`upgrade 2025.1 → 2025.2 in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    for (const role of UPGRADE_ROLE_ORDER) expect(rig.roles!.pid('default', NAME, role), role).to.not.equal(before[role]);
    const history = await rig.store.readStream(`nova-database-${(await rig.source.get('Nova', 'default', NAME))!.metadata.uid}`);
    const flip = history.findIndex((e) => e.metadata.from === 'rollingUpdate' && e.metadata.to === 'contracting');
    const contract = history.findIndex((e) => e.metadata.effects.some((f) => f.type === 'nova.createJob' && (f as { job?: string }).job === 'contract'));
    expect(flip).to.be.greaterThan(-1);
    expect(contract, 'the contract Job after every role rolled').to.be.greaterThan(flip);
    // the roles' start order in RollingUpdate, from the pipeline's record: each role step went True in order
    const pipeline = await rig.store.readStream(`nova-pipeline-${(await rig.source.get('Nova', 'default', NAME))!.metadata.uid}`);
    const endedAt = pipeline.map((e) => (e.data as { endedAt?: string | null }).endedAt).filter((s): s is string => typeof s === 'string');
    const describe = pipeline.map((e) => {
      const d = e.data as unknown as { endedAt?: string | null; conditions: Array<{ type: string; status: string; reason: string; message: string }> };
      return `${d.endedAt}: ${d.conditions.filter((c) => c.status !== 'True').map((c) => `${c.type} ${c.reason} ${c.message}`).join('; ')}`;
    });
    const start = endedAt.indexOf('Conductor');
    const order = ['Conductor', 'Scheduler', 'Metadata', 'ConsoleProxy', 'Deployment'].map((step) => endedAt.indexOf(step, start));
    expect(order, `the lane waited on the roles in order:\n${describe.join('\n')}`).to.deep.equal([...order].sort((a, b) => a - b));
    expect(order.every((i) => i >= 0), 'each role held the lane during RollingUpdate').to.equal(true);
    console.log(`      the pipeline's record: ${describe.slice(-3).join(' / ')}`);
  });

  it('an abort: a bump to the next release, then the spec back at the installed one mid-upgrade, deletes the phase Jobs, clears the phase and leaves every real role running the installed image', async function () {
    this.timeout(600_000);
    await rig.apply(spec('2026.1'));
    const started = await rig.until((s) => s.upgradePhase !== undefined, { pollMs: 500, maxPasses: 120 });
    figures.push(`abort from ${started.upgradePhase}`);
    await rig.apply(spec('2025.2'));
    const back = await untilReady('Ready after the abort');
    expect(back.upgradePhase).to.equal(undefined);
    expect(back.installedRelease).to.equal('2025.2');
    expect(cond(back, 'Ready'), notTrue(back).join('\n')).to.include({ status: 'True', reason: 'AllReady' });
    for (const job of ['db-expand', 'db-migrate', 'db-contract']) expect(await rig.jobs.get('default', `${NAME}-${job}`), job).to.equal(undefined);
    for (const role of UPGRADE_ROLE_ORDER) expect((await rig.roles!.rollout('default', NAME, role, 'ghcr.io/c5c3/nova:2025.2')).rolledOut, role).to.equal(true);
  });

  it('no secret value is in any file under the data directory', () => {
    const onDisk = filesUnder(join(rig.dir, 'nova')).map((f) => readFileSync(f, 'utf8')).join('\n');
    for (const value of [...Object.values(passwords), sandboxServicePassword()]) expect(onDisk).to.not.contain(value);
  });

  it('issue 28: two NovaCompute pools of the Ready Nova run real nova-compute processes, go Pending → Active through host discovery, get their zone aggregates and traits, drain, release and are deleted clean', async function () {
    this.timeout(600_000);
    await runPoolLifecycle({ rig, nova: NAME, keystone: KEYSTONE, servicePassword: sandboxServicePassword(), figures });
  });

  it('deleting the Ready Nova (its finalizer): exactly its schemas and users are dropped, held one pass while they were live; a second Nova\'s schemas in the same MariaDB and a schema Regent did not create stay', async function () {
    this.timeout(300_000);
    const admin = await mysql.createConnection({ socketPath: SOCKET, user: 'root' });
    const other = await openNovaRig({
      name: OTHER.name,
      provisioner: new SqlDatabaseProvisioner(resolveClusterFromSecrets({ get: (ns: string, n: string) => other.source.secrets.get(ns, n) } as never)),
      databaseEndpoint: async () => ({ host: '127.0.0.1', port: 3306 }),
      binDir,
      jobsUnavailable: () => 'the second Nova runs no Job here: its schemas are all this test needs',
      settings: { keystoneURL: KEYSTONE, regionName: 'RegionOne' },
    });
    try {
      const schemas = async (): Promise<string[]> => ((await admin.query("SELECT SCHEMA_NAME AS s FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'regent\\_%'"))[0] as Array<{ s: string }>).map((r) => r.s).sort();
      const users = async (): Promise<string[]> => ((await admin.query("SELECT User AS u FROM mysql.user WHERE User LIKE 'regent\\_%'"))[0] as Array<{ u: string }>).map((r) => r.u).sort();
      // the second Nova: provisioned by Regent in the same MariaDB (it stops at WaitingForConfig: no Job runner)
      await other.source.secrets.put('default', 'mariadb-sandbox', { host: '127.0.0.1', port: '3306', adminUser: 'root', adminSocket: SOCKET });
      await other.source.secrets.put('default', 'nova-api-db', { username: OTHER.users[0]!, password: randomBytes(12).toString('base64url') });
      await other.source.secrets.put('default', 'nova-db', { username: OTHER.users[1]!, password: randomBytes(12).toString('base64url') });
      await other.source.secrets.put('default', 'nova-service-user', { password: sandboxServicePassword() });
      await other.source.secrets.put('default', 'nova-metadata', { 'shared-secret': randomBytes(12).toString('base64url') });
      await other.source.secrets.put('default', 'scratch-rabbit', { url: `rabbit://guest:guest@127.0.0.1:5672/${VHOST}` });
      await other.apply({ ...spec('2025.2'), database: { api: { ...spec('2025.2').database.api, database: OTHER.api }, cell: { ...spec('2025.2').database.cell, database: OTHER.cell } } });
      await other.until((s) => cond(s, 'DatabaseReady')?.reason === 'WaitingForConfig', { pollMs: 200, maxPasses: 50 });
      await admin.query(`CREATE DATABASE \`${FOREIGN_DB}\``);
      const mine = [API_DB, CELL_DB, `${CELL_DB}_cell0`];
      const kept = [OTHER.api, OTHER.cell, `${OTHER.cell}_cell0`, FOREIGN_DB];
      expect(await schemas()).to.include.members([...mine, ...kept]);
      expect(await users()).to.include.members([...USERS, ...OTHER.users]);

      const pids = UPGRADE_ROLE_ORDER.map((role) => rig.roles!.pid('default', NAME, role));
      await rig.source.delete('Nova', 'default', NAME);
      const held = await rig.pass();
      expect(held, 'the schemas were live before the drops: held one more pass').to.deep.include({ kind: 'yield', afterMs: 30_000 });
      expect(held.kind === 'yield' && held.why).to.contain('FinalizingDatabase');
      expect(await rig.source.get('Nova', 'default', NAME), 'still held by the finalizer').to.not.equal(undefined);
      expect(await rig.pass()).to.deep.include({ kind: 'done', why: 'DatabaseFinalized: the finalizer is released' });
      expect(await rig.source.get('Nova', 'default', NAME), 'released: gone').to.equal(undefined);
      const after = await schemas();
      for (const db of mine) expect(after, `${db} dropped`).to.not.include(db);
      expect(after, 'the second Nova\'s schemas and the foreign one stay').to.include.members(kept);
      const usersAfter = await users();
      for (const user of USERS) expect(usersAfter, `${user} dropped`).to.not.include(user);
      expect(usersAfter, 'the second Nova\'s users stay').to.include.members(OTHER.users);
      for (const [i, role] of UPGRADE_ROLE_ORDER.entries()) expect(rig.roles!.pid('default', NAME, role), `${role} (pid ${pids[i]}) stopped`).to.equal(undefined);
      const events = (await rig.source.listEvents()).map((e) => `${e.type} ${e.reason}`);
      expect(events).to.include.members(['Normal FinalizingDatabase', 'Normal DatabaseFinalized']);
      const ledger = await other.store.readStream(`nova-finalizer-${(await other.source.get('Nova', 'default', OTHER.name))!.metadata.uid}`);
      expect(ledger.length, 'the second Nova claimed its own schemas in its own stream').to.be.greaterThan(0);
    } finally {
      await other.close();
      await admin.end();
    }
  });
});
