/**
 * Issue 26's Config step against real Nova (Zed, the sandbox's python3-nova): the config Regent renders for the
 * sandbox's cloud (Keystone at http://127.0.0.1:5000/v3, RegionOne, the service user nova), published through the local
 * ConfigPort, is what Nova reads —
 *   - oslo-config-validator with Nova's option namespaces and --fatal-warnings accepts nova.conf and every overlay (an
 *     unknown option or group would fail it);
 *   - nova-manage migrates scratch schemas from it, the DSNs as env only (no credential in a file);
 *   - nova-status upgrade check reaches the real Placement and Cinder through its keystoneauth sections, the service
 *     user's password as env, and finds the service-user token configured;
 *   - a real nova-api started on nova.conf + nova-api.conf (a free loopback port by env, as the local workloads do)
 *     loads api-paste.ini beside them, answers `GET /` with its version document, refuses a request without a token
 *     (401) and validates a real Keystone token through [keystone_authtoken] (200).
 * Scratch schemas `regent_k<id>_api` / `regent_k<id>` and their user are dropped in after(); the sandbox's own Nova
 * databases are never touched.
 */
import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { LocalConfigStore } from '../../src/nova/config/local.js';
import { resolveNovaConfig } from '../../src/nova/config/resolve.js';
import { SERVICE_USER_PASSWORD_SECTIONS, optionEnv } from '../../src/nova/config/env.js';
import type { RenderedConfig } from '../../src/nova/config/render.js';
import type { NovaSpec } from '../../src/resources/nova.js';

const run = promisify(execFile);
const SANDBOX = process.env.SANDBOX_HOME ?? '/var/tmp/regent-openstack';
const SOCKET = join(SANDBOX, 'data/mysql/mysqld.sock');
const BIN = join(SANDBOX, 'bin');
const KEYSTONE = 'http://127.0.0.1:5000/v3';
const id = randomBytes(3).toString('hex');
const NAME = `nova-k${id}`;
const API_DB = `regent_k${id}_api`;
const CELL_DB = `regent_k${id}`;
const USER = `regent_k${id}`;
const NAMESPACES = ['nova.conf', 'keystonemiddleware.auth_token', 'oslo.log', 'oslo.messaging', 'oslo.policy', 'oslo.privsep', 'oslo.service.periodic_task', 'oslo.service.service', 'oslo.db', 'oslo.db.concurrency', 'oslo.middleware', 'oslo.concurrency', 'osprofiler'];

/** The sandbox's service-user password, read from its own nova.conf: no credential is written into this file. */
const sandboxServicePassword = (): string => {
  const conf = readFileSync(join(SANDBOX, 'etc/nova/nova.conf'), 'utf8');
  const section = /\[service_user\]([^[]*)/.exec(conf)?.[1] ?? '';
  const password = /^password\s*=\s*(.+)$/m.exec(section)?.[1]?.trim();
  if (!password) throw new Error('the sandbox nova.conf names no [service_user] password');
  return password;
};

const freePort = async (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

const spec: NovaSpec = {
  image: 'ghcr.io/c5c3/nova:2025.1',
  openStackRelease: '2025.1',
  database: {
    api: { clusterRef: { name: 'sandbox' }, database: API_DB, secretRef: { name: 'nova-api-db' } },
    cell: { clusterRef: { name: 'sandbox' }, database: CELL_DB, secretRef: { name: 'nova-db' } },
  },
  messaging: { secretRef: { name: 'sandbox-rabbit', key: 'url' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
};

describe('issue 26 against real Nova: the rendered config', function () {
  let dir: string;
  let config: RenderedConfig;
  let configDir: string;
  let env: Record<string, string>;
  let api: ChildProcess | undefined;

  before(async function () {
    this.timeout(120_000);
    if (!existsSync(SOCKET) || !existsSync(join(BIN, 'nova-manage'))) throw new Error(`the sandbox's MariaDB (${SOCKET}) and nova-manage (${BIN}) must exist for the real suite`);
    dir = mkdtempSync(join(tmpdir(), 'regent-nova-config-'));
    const store = new LocalConfigStore({ dir: join(dir, 'nova'), settings: { keystoneURL: KEYSTONE, regionName: 'RegionOne' } });
    const resolution = await resolveNovaConfig(store, { namespace: 'default', name: NAME, uid: `uid-${id}` }, spec);
    if (resolution.kind !== 'rendered') throw new Error(`not rendered: ${resolution.problems.join('; ')}`);
    await store.publish({ namespace: 'default', name: NAME, uid: `uid-${id}` }, resolution.config);
    config = resolution.config;
    configDir = store.configDir('default', NAME, config.name);

    const dbPassword = randomBytes(12).toString('base64url');
    const admin = await mysql.createConnection({ socketPath: SOCKET, user: 'root' });
    try {
      for (const db of [API_DB, CELL_DB]) await admin.query(`CREATE DATABASE \`${db}\``);
      await admin.query(`CREATE USER '${USER}'@'%' IDENTIFIED BY '${dbPassword}'`);
      for (const db of [API_DB, CELL_DB]) await admin.query(`GRANT ALL ON \`${db}\`.* TO '${USER}'@'%'`);
    } finally {
      await admin.end();
    }
    const service = sandboxServicePassword();
    // every credential as oslo.config env, as the roles and the Jobs get them
    env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      OS_API_DATABASE__CONNECTION: `mysql+pymysql://${USER}:${dbPassword}@127.0.0.1:3306/${API_DB}?charset=utf8`,
      OS_DATABASE__CONNECTION: `mysql+pymysql://${USER}:${dbPassword}@127.0.0.1:3306/${CELL_DB}?charset=utf8`,
      OS_DEFAULT__TRANSPORT_URL: 'rabbit://guest:guest@127.0.0.1:5672/',
      ...Object.fromEntries(SERVICE_USER_PASSWORD_SECTIONS.map((section) => [optionEnv(section, 'password'), service])),
    };
    // no credential of the run is in a published byte
    for (const text of Object.values(config.files)) for (const secret of [dbPassword, service, 'guest:guest']) expect(text).to.not.include(secret);
  });

  after(async function () {
    this.timeout(60_000);
    if (api?.pid !== undefined && api.exitCode === null) {
      process.kill(-api.pid, 'SIGKILL');
      await new Promise((resolve) => api!.once('exit', resolve));
    }
    const admin = await mysql.createConnection({ socketPath: SOCKET, user: 'root' });
    try {
      for (const db of [API_DB, CELL_DB]) await admin.query(`DROP DATABASE IF EXISTS \`${db}\``);
      await admin.query(`DROP USER IF EXISTS '${USER}'@'%'`);
    } finally {
      await admin.end();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('oslo-config-validator with Nova\'s namespaces accepts nova.conf and every role overlay (an unknown option would fail it)', async function () {
    this.timeout(120_000);
    const files = Object.keys(config.files).filter((f) => f.endsWith('.conf'));
    expect(files).to.have.length(6);
    for (const file of files) {
      const args = [...NAMESPACES.flatMap((n) => ['--namespace', n]), '--input-file', join(configDir, file), '--fatal-warnings'];
      await run('/usr/bin/oslo-config-validator', args).catch((error: { stderr?: string }) => expect.fail(`${file}: ${error.stderr ?? String(error)}`));
    }
  });

  it('nova-manage migrates both scratch schemas from nova.conf, the DSNs as env only', async function () {
    this.timeout(240_000);
    await run(join(BIN, 'nova-manage'), ['--config-file', join(configDir, 'nova.conf'), 'api_db', 'sync'], { env });
    await run(join(BIN, 'nova-manage'), ['--config-file', join(configDir, 'nova.conf'), 'db', 'sync', '--local_cell'], { env });
    const { stdout } = await run(join(BIN, 'nova-manage'), ['--config-file', join(configDir, 'nova.conf'), 'api_db', 'version'], { env });
    // alembic's log shares stdout: the revision is the last line
    expect(stdout.trim().split('\n').at(-1)).to.match(/^[0-9a-f]{12}$/);
  });

  it('nova-status reaches the real Placement and Cinder through the rendered keystoneauth sections, and finds the service-user token configured', async function () {
    this.timeout(120_000);
    const script = 'import sys; from nova.cmd.status import main; sys.argv[0] = "nova-status"; sys.exit(main())';
    // exit 2 is expected: the scratch schemas map no cell (Cells v2: Failure); each other check is read off the table
    const { stdout } = await run('/usr/bin/python3', ['-c', script, '--config-file', join(configDir, 'nova.conf'), 'upgrade', 'check'], { env }).catch((error: { stdout: string; code: number }) => {
      expect(error.code).to.equal(2);
      return { stdout: error.stdout };
    });
    const result = (check: string): string | undefined => new RegExp(`Check: ${check}\\s*\\|\\s*\\n\\|\\s*Result: (\\w+)`).exec(stdout)?.[1];
    expect(result('Placement API'), stdout).to.equal('Success');
    expect(result('Cinder API'), stdout).to.equal('Success');
    expect(result('Service User Token Configuration'), stdout).to.equal('Success');
  });

  it('a real nova-api boots on nova.conf + nova-api.conf: its version document at /, 401 without a token, 200 with a real Keystone token', async function () {
    this.timeout(120_000);
    const port = await freePort();
    api = spawn(join(BIN, 'nova-api'), ['--config-file', join(configDir, 'nova.conf'), '--config-file', join(configDir, 'nova-api.conf')], {
      env: { ...env, OS_DEFAULT__OSAPI_COMPUTE_LISTEN_PORT: String(port) },
      detached: true,
      stdio: 'ignore',
    });
    const base = `http://127.0.0.1:${port}`;
    let versions: { versions?: Array<{ id: string }> } | undefined;
    for (let i = 0; i < 60 && versions === undefined; i++) {
      versions = await fetch(`${base}/`).then((r) => r.json() as Promise<{ versions: Array<{ id: string }> }>, () => undefined);
      if (versions === undefined) await new Promise((r) => setTimeout(r, 500));
    }
    expect(versions?.versions?.map((v) => v.id)).to.include('v2.1');
    expect((await fetch(`${base}/v2.1/flavors`)).status).to.equal(401);
    const auth = await fetch(`${KEYSTONE}/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ auth: { identity: { methods: ['password'], password: { user: { name: 'nova', domain: { name: 'Default' }, password: sandboxServicePassword() } } }, scope: { project: { name: 'service', domain: { name: 'Default' } } } } }),
    });
    const token = auth.headers.get('x-subject-token');
    expect(token, 'a Keystone token').to.be.a('string');
    expect((await fetch(`${base}/v2.1/flavors`, { headers: { 'x-auth-token': token! } })).status).to.equal(200);
  });
});
