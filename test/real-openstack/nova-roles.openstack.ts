/**
 * Issue 26 against the real Nova: the local role workloads (src/nova/workloads/local.ts) run Debian's python3-nova
 * (Zed) as the embedded default would — every role a supervised process from the templates the workload steps build
 * (roleTemplate), with a hand-written minimal config — against scratch schemas in the sandbox's MariaDB and a scratch
 * vhost of its RabbitMQ (never the sandbox's own databases or its "/" vhost, where the sandbox's own conductor would
 * share our topics):
 *   - nova-conductor and nova-scheduler start, pass their readiness check, and register: a real `nova-manage service
 *     list` against the scratch schemas shows both up;
 *   - nova-api (the compute API alone) answers GET / with its version document, the metadata API answers GET /, and
 *     the console proxy answers on its port (its noVNC web client is not installed here: a placeholder page);
 *   - a SIGKILLed conductor is restarted by the supervisor and is up again;
 *   - close stops every role: no process of their groups is left (ps); no secret value is in a log or a file;
 *   - the figures: each role's start-up time (ensure → rolled out) and memory (RSS of its process group).
 * Credentials reach the processes as environment only (the Secrets the templates name are a map here); the scratch
 * schemas, user and vhost are dropped in after().
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { LocalWorkloads } from '../../src/nova/workloads/local.js';
import { UPGRADE_ROLE_ORDER, type NovaRole } from '../../src/nova/workloads/port.js';
import { roleTemplate } from '../../src/controllers/nova/steps/roles.js';
import { DIGEST_ANNOTATIONS, type NovaLanePass } from '../../src/controllers/nova/pass.js';
import { digestOf } from '../../src/nova/digests.js';
import type { NovaSpec } from '../../src/resources/nova.js';

const SANDBOX = process.env.SANDBOX_HOME ?? '/var/tmp/regent-openstack';
const SOCKET = join(SANDBOX, 'data/mysql/mysqld.sock');
const NOVA_MANAGE = join(SANDBOX, 'bin/nova-manage');
const id = randomBytes(3).toString('hex');
const NAME = `nova-r${id}`;
const NS = 'default';
const API_DB = `regent_r${id}_api`;
const CELL_DB = `regent_r${id}`;
const USER = `regent_r${id}`;
const VHOST = `regent_r${id}`;
const IMAGE = 'ghcr.io/c5c3/nova:2025.1';

/** rabbitmqctl as the broker's own user (its Erlang cookie lives in the sandbox's data dir). */
const rabbitmqctl = (...args: string[]): string =>
  execFileSync('runuser', ['-u', 'rabbitmq', '--', 'env', `HOME=${SANDBOX}/data/rabbitmq`, `RABBITMQ_CONF_ENV_FILE=${SANDBOX}/etc/rabbitmq/rabbitmq-env.conf`, '/usr/lib/rabbitmq/bin/rabbitmqctl', '-n', 'rabbit@localhost', ...args], { encoding: 'utf8', cwd: '/tmp' });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The process group's resident memory, MiB (a forking API's workers included). */
const groupRssMiB = (pgid: number): number => {
  const pids = execFileSync('ps', ['-eo', 'pid=,pgid='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([, g]) => g === pgid)
    .map(([p]) => p!);
  let kb = 0;
  for (const pid of pids) {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    kb += m ? Number(m[1]) : 0;
  }
  return Math.round(kb / 1024);
};

const groupMembers = (pgid: number): number[] =>
  execFileSync('ps', ['-eo', 'pid=,pgid='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([, g]) => g === pgid)
    .map(([p]) => p!);

const filesUnder = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));

describe('issue 26 against the real Nova: the local roles on scratch schemas and a scratch vhost', function () {
  let dir: string;
  let workloads: LocalWorkloads;
  const secrets: Record<string, string> = {};
  const password = randomBytes(12).toString('base64url');
  const figures: Record<string, { startupMs: number; rssMiB: number }> = {};
  let env: Record<string, string>;

  const spec: NovaSpec = {
    image: IMAGE,
    openStackRelease: '2025.1',
    database: { api: { clusterRef: { name: 'sandbox' }, database: API_DB, secretRef: { name: 'nova-api-db' } }, cell: { clusterRef: { name: 'sandbox' }, database: CELL_DB, secretRef: { name: 'nova-db' } } },
    messaging: { secretRef: { name: 'sandbox-rabbit', key: 'url' } },
    serviceUser: { secretRef: { name: 'nova-service-user' } },
    metadata: { sharedSecretRef: { name: 'nova-metadata' } },
    consoleProxy: { enabled: true },
  };

  /** A hand-written minimal config: what the Config step renders is its own engineer's; this one is just enough. */
  const config = () => {
    const auth = 'auth_type = password\nauth_url = http://127.0.0.1:5000/v3\nusername = nova\nuser_domain_name = Default\nproject_name = service\nproject_domain_name = Default\n';
    const files: Record<string, string> = {
      'nova.conf': `[DEFAULT]\nstate_path = ${dir}/state\n\n[api]\nauth_strategy = keystone\n\n[wsgi]\napi_paste_config = api-paste.ini\n\n[oslo_concurrency]\nlock_path = ${dir}/locks\n\n[keystone_authtoken]\nwww_authenticate_uri = http://127.0.0.1:5000/\n${auth}\n[placement]\n${auth}region_name = RegionOne\n\n[service_user]\nsend_service_user_token = true\n${auth}\n[oslo_messaging_notifications]\ndriver = noop\n`,
      'nova-conductor.conf': '[conductor]\nworkers = 1\n',
      'nova-scheduler.conf': '[scheduler]\nworkers = 1\n',
      'nova-api.conf': '[DEFAULT]\nenabled_apis = osapi_compute\nosapi_compute_workers = 1\n',
      'nova-metadata.conf': '[DEFAULT]\nenabled_apis = metadata\nmetadata_workers = 1\n',
      'nova-novncproxy.conf': '',
      'api-paste.ini': readFileSync(join(SANDBOX, 'etc/nova/api-paste.ini'), 'utf8'),
    };
    return { name: `${NAME}-config-0000000000`, hash: '0000000000', files };
  };

  const pass = (): NovaLanePass =>
    ({
      nova: { apiVersion: 'regent.dev/v1alpha1', kind: 'Nova', metadata: { name: NAME, namespace: NS, uid: `uid-${id}` }, spec },
      ref: { namespace: NS, name: NAME, uid: `uid-${id}` },
      deps: { jobs: { databaseTlsDir: () => '/nonexistent' } },
      values: {
        config: config(),
        digests: {
          [DIGEST_ANNOTATIONS.apiDbConnection]: digestOf(secrets['nova-r-api'])!,
          [DIGEST_ANNOTATIONS.dbConnection]: digestOf(secrets['nova-r-cell'])!,
          [DIGEST_ANNOTATIONS.transportURL]: digestOf(secrets['nova-r-url'])!,
          [DIGEST_ANNOTATIONS.authtoken]: digestOf('sandbox')!,
          [DIGEST_ANNOTATIONS.metadataSecret]: digestOf('metadata-secret-of-the-test')!,
        },
      },
      upgrading: false,
      now: () => new Date(),
    }) as unknown as NovaLanePass;

  const ensure = async (role: NovaRole) => {
    const built = roleTemplate(pass(), role);
    if ('waiting' in built) throw new Error(built.waiting);
    return workloads.ensure(NS, { name: NAME, uid: `uid-${id}` }, role, built.template);
  };

  const untilRolledOut = async (role: NovaRole, ms = 120_000): Promise<number> => {
    const began = Date.now();
    let last = '';
    while (Date.now() - began < ms) {
      const r = await workloads.rollout(NS, NAME, role, IMAGE);
      if (r.rolledOut) return Date.now() - began;
      last = r.detail;
      await sleep(250);
    }
    throw new Error(`${role} not rolled out after ${ms} ms: ${last}\n${readFileSync(workloads.logPath(NS, NAME, role), 'utf8').split('\n').slice(-30).join('\n')}`);
  };

  /**
   * The services registered in the scratch cell schema, as `nova service-list` would read them (Zed's nova-manage has
   * no service command): `binary enabled|disabled up|down`, up while its heartbeat is younger than the 60 s
   * service_down_time.
   */
  const serviceList = async (): Promise<Array<{ binary: string; state: string; status: string }>> => {
    const db = await mysql.createConnection({ socketPath: SOCKET, user: 'root', database: CELL_DB });
    try {
      const [rows] = await db.query('SELECT `binary`, disabled, TIMESTAMPDIFF(SECOND, COALESCE(updated_at, created_at), UTC_TIMESTAMP()) AS age FROM services WHERE deleted = 0');
      return (rows as Array<{ binary: string; disabled: number; age: number }>).map((r) => ({ binary: r.binary, status: r.disabled ? 'disabled' : 'enabled', state: r.age <= 60 ? 'up' : 'down' }));
    } finally {
      await db.end();
    }
  };

  before(async function () {
    this.timeout(300_000);
    if (!existsSync(SOCKET) || !existsSync(NOVA_MANAGE)) throw new Error(`the sandbox's MariaDB (${SOCKET}) and nova-manage (${NOVA_MANAGE}) must exist for the real suite`);
    dir = mkdtempSync(join(tmpdir(), 'regent-nova-roles-'));
    const admin = await mysql.createConnection({ socketPath: SOCKET, user: 'root' });
    try {
      for (const db of [API_DB, CELL_DB, `${CELL_DB}_cell0`]) await admin.query(`CREATE DATABASE \`${db}\` CHARACTER SET utf8`);
      await admin.query(`CREATE USER '${USER}'@'%' IDENTIFIED BY ?`, [password]);
      for (const db of [API_DB, CELL_DB, `${CELL_DB}_cell0`]) await admin.query(`GRANT ALL PRIVILEGES ON \`${db}\`.* TO '${USER}'@'%'`);
    } finally {
      await admin.end();
    }
    rabbitmqctl('add_vhost', VHOST);
    rabbitmqctl('set_permissions', '-p', VHOST, 'guest', '.*', '.*', '.*');
    secrets['nova-r-api'] = `mysql+pymysql://${USER}:${password}@127.0.0.1:3306/${API_DB}?charset=utf8`;
    secrets['nova-r-cell'] = `mysql+pymysql://${USER}:${password}@127.0.0.1:3306/${CELL_DB}?charset=utf8`;
    secrets['nova-r-url'] = `rabbit://guest:guest@127.0.0.1:5672/${VHOST}`;
    env = { PATH: process.env.PATH ?? '/usr/bin:/bin', OS_API_DATABASE__CONNECTION: secrets['nova-r-api'], OS_DATABASE__CONNECTION: secrets['nova-r-cell'], OS_DEFAULT__TRANSPORT_URL: secrets['nova-r-url'] };
    // the schemas and the cells, as the db-sync Job would (its own real test is nova-manage.openstack.ts)
    for (const args of [['api_db', 'sync'], ['cell_v2', 'map_cell0'], ['cell_v2', 'create_cell', '--name', 'cell1'], ['db', 'sync']]) {
      execFileSync(NOVA_MANAGE, ['--config-file', '/dev/null', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    }
    const byRef: Record<string, string> = {
      [`${NAME}-api-db-connection/connection`]: secrets['nova-r-api'],
      [`${NAME}-db-connection/connection`]: secrets['nova-r-cell'],
      [`${NAME}-transport-url/url`]: secrets['nova-r-url'],
      'nova-service-user/password': 'sandbox',
      'nova-metadata/shared-secret': 'metadata-secret-of-the-test',
    };
    workloads = new LocalWorkloads({ dir: join(dir, 'nova'), readSecret: async (_ns, name, key) => byRef[`${name}/${key}`] });
  });

  after(async function () {
    this.timeout(120_000);
    await workloads?.close();
    console.log(`      figures (start-up = ensure → rolled out; memory = RSS of the process group): ${Object.entries(figures).map(([role, f]) => `${role} ${(f.startupMs / 1000).toFixed(1)} s ${f.rssMiB} MiB`).join(', ')}`);
    try {
      rabbitmqctl('delete_vhost', VHOST);
    } catch (error) {
      console.log(`      could not delete vhost ${VHOST}: ${(error as Error).message}`);
    }
    const admin = await mysql.createConnection({ socketPath: SOCKET, user: 'root' });
    try {
      for (const db of [API_DB, CELL_DB, `${CELL_DB}_cell0`]) await admin.query(`DROP DATABASE IF EXISTS \`${db}\``);
      await admin.query(`DROP USER IF EXISTS '${USER}'@'%'`);
    } finally {
      await admin.end();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the conductor and the scheduler start, pass readiness and register: both are up in the services table of the cell schema', async function () {
    this.timeout(300_000);
    for (const role of ['conductor', 'scheduler'] as const) expect((await ensure(role)).present).to.equal(true);
    for (const role of ['conductor', 'scheduler'] as const) figures[role] = { startupMs: await untilRolledOut(role), rssMiB: 0 };
    let services: Awaited<ReturnType<typeof serviceList>> = [];
    for (let i = 0; i < 60; i += 1) {
      services = await serviceList();
      if (['nova-conductor', 'nova-scheduler'].every((b) => services.some((s) => s.binary === b && s.state === 'up'))) break;
      await sleep(1_000);
    }
    expect(services.map((s) => `${s.binary} ${s.status} ${s.state}`).sort()).to.deep.equal(['nova-conductor enabled up', 'nova-scheduler enabled up']);
  });

  it('the API answers GET / with its version document, the metadata API answers, the console proxy answers on its port', async function () {
    this.timeout(300_000);
    for (const role of ['metadata', 'novncproxy', 'api'] as const) await ensure(role);
    for (const role of ['metadata', 'novncproxy', 'api'] as const) figures[role] = { startupMs: await untilRolledOut(role), rssMiB: 0 };
    const endpoint = (await workloads.endpoint(NS, NAME))!;
    expect(endpoint).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    const root = await fetch(endpoint);
    expect([200, 300]).to.include(root.status);
    const versions = (await root.json()) as { versions?: Array<{ id: string }> };
    expect(versions.versions?.map((v) => v.id)).to.include('v2.1');
    console.log(`      GET ${endpoint}/ answered ${root.status}`);
    const ports = JSON.parse(readFileSync(join(dir, 'nova', NS, NAME, 'ports.json'), 'utf8')) as Record<string, number>;
    const metadata = await fetch(`http://127.0.0.1:${ports.metadata}/`);
    expect(metadata.status).to.be.below(500);
    const proxy = await fetch(`http://127.0.0.1:${ports.novncproxy}/`);
    expect(proxy.status).to.be.below(500);
    for (const role of UPGRADE_ROLE_ORDER) figures[role]!.rssMiB = groupRssMiB(workloads.pid(NS, NAME, role)!);
  });

  it('a SIGKILLed conductor is restarted by the supervisor and is up again', async function () {
    this.timeout(300_000);
    const pid = workloads.pid(NS, NAME, 'conductor')!;
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100 && (workloads.pid(NS, NAME, 'conductor') ?? pid) === pid; i += 1) await sleep(100);
    expect(workloads.pid(NS, NAME, 'conductor')).to.not.equal(pid);
    await untilRolledOut('conductor');
    expect(readFileSync(workloads.logPath(NS, NAME, 'conductor'), 'utf8')).to.match(/exited \(signal SIGKILL\) after \d+ ms; restarting in 1000 ms/);
    expect((await serviceList()).find((s) => s.binary === 'nova-conductor')?.state).to.equal('up');
  });

  it('close stops every role (no process of their groups is left), and no secret value is in a log or a file', async function () {
    this.timeout(120_000);
    const groups = UPGRADE_ROLE_ORDER.map((role) => workloads.pid(NS, NAME, role)!);
    const began = Date.now();
    await workloads.close();
    console.log(`      close took ${Date.now() - began} ms`);
    expect(groups.flatMap(groupMembers)).to.deep.equal([]);
    const onDisk = filesUnder(join(dir, 'nova')).map((f) => readFileSync(f, 'utf8')).join('\n');
    expect(onDisk).to.not.contain(password);
    expect(onDisk).to.not.contain('metadata-secret-of-the-test');
  });
});
