/**
 * The plain-SQL adapter of the Nova database port (src/nova/database/sql.ts) against a REAL MariaDB, and the
 * embedded default's cluster Secret (cluster-secret.ts).
 *
 * The server is the sandbox's: admin is root over REGENT_TEST_MARIADB_SOCKET (default the sandbox socket), and
 * Nova's side logs in over TCP REGENT_TEST_MARIADB_HOST:REGENT_TEST_MARIADB_PORT (default 127.0.0.1:3306). When it
 * is not reachable the MariaDB cases skip with the reason printed: `npm test` runs before the sandbox is up. The
 * real-cloud suite (test/real-openstack/nova-database.openstack.ts) runs the same cases with `whenUnreachable:
 * 'fail'`, so there an unreachable server fails.
 *
 * Scratch names only: every schema and user is `regent_t_<random>…`, recorded as it is planned, and dropped
 * after each case; a drop of anything else is refused by the cleanup itself. The sandbox's own schemas (nova,
 * nova_api, nova_cell0, keystone, …) and users (openstack, root) are read by nothing and touched by nothing here.
 *
 * Deprovisioning (the Nova finalizer's half): absent() before and after a provision, and deprovision dropping
 * exactly the owned schemas and users of its plan — a schema of the plan that existed before Regent, an owned
 * name of no plan, an unrelated schema and user, a differently-cased schema all stay — with live observed before
 * the drops and a second call that finds nothing and writes nothing.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import type { Context } from 'mocha';
import type { SecretStore, StoredSecret } from '../../src/kube/secrets.js';
import { clusterSecretName, resolveClusterFromSecrets } from '../../src/nova/database/cluster-secret.js';
import { planDatabases } from '../../src/nova/database/plan.js';
import { ProvisioningError, ServerNotReadyError, type BlockPlan, type ProvisionedObject, type ProvisionOutcome } from '../../src/nova/database/port.js';
import { SqlDatabaseProvisioner, nativePasswordHash, type MariaDBServer } from '../../src/nova/database/sql.js';
import type { NovaSpec } from '../../src/resources/nova.js';

export const DEFAULT_MARIADB_SOCKET = '/var/tmp/regent-openstack/data/mysql/mysqld.sock';
const NAMESPACE = 'regent-test';
const SCRATCH = /^regent_t_[0-9a-f]{8}/;

/** Where the test server is: env, or the sandbox's defaults. */
export const testServer = (): MariaDBServer => ({
  admin: { socketPath: process.env.REGENT_TEST_MARIADB_SOCKET ?? DEFAULT_MARIADB_SOCKET, user: 'root' },
  host: process.env.REGENT_TEST_MARIADB_HOST ?? '127.0.0.1',
  port: Number(process.env.REGENT_TEST_MARIADB_PORT ?? 3306),
});

const rejectionOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a rejection'); }, (error: unknown) => error);

const novaSpec = (api: string, cell: string, over: Partial<NovaSpec> = {}): NovaSpec => ({
  image: 'registry.example/nova:2025.2',
  openStackRelease: '2025.2',
  database: {
    api: { clusterRef: { name: 'sandbox' }, database: api, secretRef: { name: 'api-db' } },
    cell: { clusterRef: { name: 'sandbox' }, database: cell, secretRef: { name: 'cell-db' } },
  },
  messaging: { clusterRef: { name: 'rabbit' } },
  serviceUser: { secretRef: { name: 'service-user' } },
  ...over,
});

/** A fake SecretStore: `get` only, anything else fails loudly. */
const secretStore = (secrets: Record<string, Record<string, string>>): SecretStore => ({
  get: async (namespace, name) => {
    const data = secrets[`${namespace}/${name}`];
    return data === undefined ? undefined : ({ data, version: '1', labels: {} } satisfies StoredSecret);
  },
  put: async () => { throw new Error('unexpected SecretStore.put'); },
  delete: async () => { throw new Error('unexpected SecretStore.delete'); },
  list: async () => { throw new Error('unexpected SecretStore.list'); },
});

/** One case's scratch world: names, plans, passwords, and the statements the adapter ran. */
interface Scratch {
  id: string;
  apiSchema: string;
  cellSchema: string;
  cell0Schema: string;
  apiUser: string;
  cellUser: string;
  passwords: Map<string, string>;
  statements: string[];
  plans: (over?: Partial<NovaSpec>) => readonly [BlockPlan, BlockPlan];
  password: (secret: { name: string; key: string }) => Promise<string | undefined>;
}

const newScratch = (): Scratch => {
  const id = `regent_t_${randomBytes(4).toString('hex')}`;
  const s: Scratch = {
    id,
    apiSchema: `${id}_api`,
    cellSchema: id,
    cell0Schema: `${id}_cell0`,
    apiUser: `${id}_a`,
    cellUser: `${id}_c`,
    passwords: new Map([['api-db', `api-${randomBytes(6).toString('hex')}`], ['cell-db', `cell-${randomBytes(6).toString('hex')}`]]),
    statements: [],
    plans: (over = {}) => {
      const plan = planDatabases({ metadata: { name: id.replace(/_/g, '-') }, spec: novaSpec(s.apiSchema, s.cellSchema, over) }, { api: { username: s.apiUser }, cell: { username: s.cellUser } });
      if (!plan.ok) throw new Error(plan.problems.join('; '));
      return plan.blocks;
    },
    password: async ({ name, key }) => (key === 'password' ? s.passwords.get(name) : undefined),
  };
  return s;
};

const admin = async (server: MariaDBServer, connectTimeout = 3_000): Promise<Connection> =>
  mysql.createConnection({ socketPath: server.admin.socketPath, user: server.admin.user, connectTimeout });

/** Drops every scratch schema and user of the case; refuses to drop anything that is not scratch. */
const dropScratch = async (root: Connection, id: string): Promise<void> => {
  if (!SCRATCH.test(id)) throw new Error(`refusing to clean up ${id}: not a scratch name`);
  const [schemas] = await root.query<RowDataPacket[]>('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?', [`${id.replace(/_/g, '\\_')}%`]);
  for (const { name } of schemas as { name: string }[]) {
    if (!SCRATCH.test(name)) throw new Error(`refusing to drop schema ${name}`);
    await root.query(`DROP DATABASE IF EXISTS ${mysql.escapeId(name)}`);
  }
  const [users] = await root.query<RowDataPacket[]>('SELECT User AS user, Host AS host FROM mysql.user WHERE User LIKE ?', [`${id.replace(/_/g, '\\_')}%`]);
  for (const { user, host } of users as { user: string; host: string }[]) {
    if (!SCRATCH.test(user)) throw new Error(`refusing to drop user ${user}`);
    await root.query(`DROP USER IF EXISTS ${mysql.escape(user)}@${mysql.escape(host)}`);
  }
};

/** What the server holds for the case, to compare passes: schemas, the users' rows, their grants. */
const snapshot = async (root: Connection, s: Scratch): Promise<unknown> => {
  const like = `${s.id.replace(/_/g, '\\_')}%`;
  const [schemas] = await root.query('SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ? ORDER BY SCHEMA_NAME', [like]);
  const [users] = await root.query('SELECT User, Host, plugin, authentication_string, max_user_connections FROM mysql.user WHERE User LIKE ? ORDER BY User', [like]);
  const [grants] = await root.query('SELECT * FROM mysql.db WHERE User LIKE ? ORDER BY User, Db', [like]);
  return { schemas, users, grants };
};

const loginOverTcp = async (server: MariaDBServer, user: string, password: string): Promise<Connection> =>
  mysql.createConnection({ host: server.host, port: server.port, user, password, connectTimeout: 3_000 });

/** True when the user may create a table in the schema (the grant covers it). */
const canWrite = async (connection: Connection, schema: string): Promise<boolean> => {
  try {
    await connection.query(`CREATE TABLE ${mysql.escapeId(schema)}.probe (id INT PRIMARY KEY)`);
    await connection.query(`DROP TABLE ${mysql.escapeId(schema)}.probe`);
    return true;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ER_TABLEACCESS_DENIED_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR') return false;
    throw error;
  }
};

const maxConnectionsOf = async (root: Connection, user: string): Promise<number | undefined> => {
  const [rows] = await root.query<RowDataPacket[]>('SELECT max_user_connections AS n FROM mysql.user WHERE User = ? AND Host = ?', [user, '%']);
  return rows[0] === undefined ? undefined : Number(rows[0].n);
};

const schemaExists = async (root: Connection, name: string): Promise<boolean> => {
  const [rows] = await root.query<RowDataPacket[]>('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name]);
  return rows.some((r) => r.name === name);
};

const userExists = async (root: Connection, user: string): Promise<boolean> => (await maxConnectionsOf(root, user)) !== undefined;

const provisionBoth = async (adapter: SqlDatabaseProvisioner, s: Scratch, over: Partial<NovaSpec> = {}): Promise<ProvisionOutcome[]> => {
  const outcomes: ProvisionOutcome[] = [];
  for (const plan of s.plans(over)) outcomes.push(await adapter.provision(NAMESPACE, plan, s.password));
  return outcomes;
};

/**
 * The cases against a real MariaDB, registered inside the caller's describe. `whenUnreachable: 'skip'` skips
 * them (printing why) when the server does not answer; 'fail' fails the suite instead.
 */
export const sqlAdapterCases = (options: { whenUnreachable: 'skip' | 'fail' }): void => {
  const server = testServer();
  let root: Connection;
  let s: Scratch;
  let adapter: SqlDatabaseProvisioner;

  before(async function (this: Context) {
    try {
      root = await admin(server);
      await root.query('SELECT 1');
    } catch (error) {
      const why = `MariaDB is not reachable as ${server.admin.user} over ${server.admin.socketPath} (${(error as Error).message})`;
      if (options.whenUnreachable === 'fail') throw new Error(`${why}; the real suite needs the sandbox's MariaDB`, { cause: error });
      console.log(`      skipping the SQL adapter cases: ${why}; set REGENT_TEST_MARIADB_SOCKET to run them`);
      this.skip();
    }
  });

  after(async () => {
    await root?.end();
  });

  beforeEach(() => {
    s = newScratch();
    adapter = new SqlDatabaseProvisioner(async (namespace, clusterRef) => (namespace === NAMESPACE && clusterRef === 'sandbox' ? server : undefined), { onStatement: (sql) => s.statements.push(sql) });
  });

  afterEach(async () => {
    await adapter?.close();
    if (root !== undefined && s !== undefined) await dropScratch(root, s.id);
    // No statement the adapter reports may carry a password.
    for (const statement of s?.statements ?? []) for (const password of s.passwords.values()) if (password !== '') expect(statement).not.to.contain(password);
  });

  it('both blocks provisioned: ready, the three schemas exist in utf8mb3, each user with its planned max_user_connections', async () => {
    expect(await provisionBoth(adapter, s)).to.deep.equal([{ kind: 'ready' }, { kind: 'ready' }]);
    // Spelled out, not left to the server's default (which is utf8mb3 only under MariaDB's default old_mode).
    expect(s.statements.filter((sql) => sql.startsWith('CREATE DATABASE'))).to.deep.equal(
      [s.apiSchema, s.cellSchema, s.cell0Schema].map((name) => `CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci`),
    );
    const [schemas] = await root.query<RowDataPacket[]>('SELECT SCHEMA_NAME AS name, DEFAULT_CHARACTER_SET_NAME AS cs, DEFAULT_COLLATION_NAME AS co FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN (?) ORDER BY SCHEMA_NAME', [[s.apiSchema, s.cellSchema, s.cell0Schema]]);
    expect(schemas.map((r) => [r.name, r.cs, r.co])).to.deep.equal([s.cellSchema, s.apiSchema, s.cell0Schema].sort().map((name) => [name, 'utf8mb3', 'utf8mb3_general_ci']));
    const [api, cell] = s.plans();
    const planned = (plan: BlockPlan) => plan.steps.flatMap((step) => (step.kind === 'User' ? [step.maxUserConnections] : []))[0];
    expect(await maxConnectionsOf(root, s.apiUser)).to.equal(planned(api));
    expect(await maxConnectionsOf(root, s.cellUser)).to.equal(planned(cell));
    expect(planned(cell)).to.be.greaterThan(10);
  });

  it('the cell user logs in over TCP with its password and uses both cell schemas, and no other (not the api schema, not a name the `_` wildcard would match)', async () => {
    await provisionBoth(adapter, s);
    // A schema an unescaped grant on <id>_cell0 would cover (`_` matches any character): the user must not reach it.
    const lookalike = `${s.id}Xcell0`;
    await root.query(`CREATE DATABASE ${mysql.escapeId(lookalike)}`);
    const cell = await loginOverTcp(server, s.cellUser, s.passwords.get('cell-db')!);
    try {
      expect(await canWrite(cell, s.cellSchema)).to.equal(true);
      expect(await canWrite(cell, s.cell0Schema)).to.equal(true);
      expect(await canWrite(cell, s.apiSchema)).to.equal(false);
      expect(await canWrite(cell, lookalike)).to.equal(false);
      const [visible] = await cell.query<RowDataPacket[]>('SHOW DATABASES');
      expect(visible.map((r) => r.Database).filter((d) => d !== 'information_schema').sort()).to.deep.equal([s.cellSchema, s.cell0Schema].sort());
    } finally {
      await cell.end();
    }
    const api = await loginOverTcp(server, s.apiUser, s.passwords.get('api-db')!);
    try {
      expect(await canWrite(api, s.apiSchema)).to.equal(true);
      expect(await canWrite(api, s.cellSchema)).to.equal(false);
      expect(await canWrite(api, s.cell0Schema)).to.equal(false);
    } finally {
      await api.end();
    }
  });

  it('a second pass changes nothing and succeeds: ready, no statement that writes, the same schemas, users and grants', async () => {
    await provisionBoth(adapter, s);
    const first = s.statements.length;
    expect(first).to.equal(3 + 2 + 3, 'the first pass: 3 CREATE DATABASE, 2 CREATE USER, 3 GRANT');
    const before = await snapshot(root, s);
    expect(await provisionBoth(adapter, s)).to.deep.equal([{ kind: 'ready' }, { kind: 'ready' }]);
    expect(s.statements.slice(first)).to.deep.equal([]);
    expect(await snapshot(root, s)).to.deep.equal(before);
  });

  it('a changed password converges: one ALTER USER, the new password logs in, the old one no longer does', async () => {
    await provisionBoth(adapter, s);
    const old = s.passwords.get('cell-db')!;
    const rotated = `rotated-${randomBytes(6).toString('hex')}`;
    s.passwords.set('cell-db', rotated);
    const first = s.statements.length;
    expect(await provisionBoth(adapter, s)).to.deep.equal([{ kind: 'ready' }, { kind: 'ready' }]);
    expect(s.statements.slice(first)).to.have.length(1);
    expect(s.statements[first]).to.match(new RegExp(`^ALTER USER '${s.cellUser}'@'%' IDENTIFIED BY '<redacted>' WITH MAX_USER_CONNECTIONS \\d+$`));
    const [rows] = await root.query<RowDataPacket[]>('SELECT authentication_string AS h FROM mysql.user WHERE User = ?', [s.cellUser]);
    expect(rows[0]?.h).to.equal(nativePasswordHash(rotated));
    await (await loginOverTcp(server, s.cellUser, rotated)).end();
    const refused = await rejectionOf(loginOverTcp(server, s.cellUser, old));
    expect((refused as { code?: string }).code).to.equal('ER_ACCESS_DENIED_ERROR');
  });

  it('a resized topology converges: max_user_connections follows spec.replicas with one ALTER USER per block', async () => {
    await provisionBoth(adapter, s);
    const first = s.statements.length;
    await provisionBoth(adapter, s, { replicas: 3 });
    expect(s.statements.slice(first).map((sql) => sql.split(' ').slice(0, 2).join(' '))).to.deep.equal(['ALTER USER', 'ALTER USER']);
    const [api, cell] = s.plans({ replicas: 3 });
    const planned = (plan: BlockPlan) => plan.steps.flatMap((step) => (step.kind === 'User' ? [step.maxUserConnections] : []))[0];
    expect(await maxConnectionsOf(root, s.apiUser)).to.equal(planned(api));
    expect(await maxConnectionsOf(root, s.cellUser)).to.equal(planned(cell));
  });

  it('a password with quotes, backslashes and a semicolon is stored as given (escaped, never concatenated)', async () => {
    const nasty = `it's a \\ "test"; DROP DATABASE x; -- ${randomBytes(3).toString('hex')}`;
    s.passwords.set('api-db', nasty);
    const [api] = s.plans();
    expect(await adapter.provision(NAMESPACE, api, s.password)).to.deep.equal({ kind: 'ready' });
    await (await loginOverTcp(server, s.apiUser, nasty)).end();
  });

  it('a missing password → waiting, naming the Secret and the key (never a value); the schemas before the User are applied, the user is not', async () => {
    s.passwords.delete('cell-db');
    const [, cell] = s.plans();
    const outcome = await adapter.provision(NAMESPACE, cell, s.password);
    expect(outcome.kind).to.equal('waiting');
    expect(outcome.kind === 'waiting' && outcome.message).to.contain(`"${NAMESPACE}/cell-db"`).and.contain('"password"');
    expect(await maxConnectionsOf(root, s.cellUser)).to.equal(undefined);
    const [schemas] = await root.query<RowDataPacket[]>('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN (?)', [[s.cellSchema, s.cell0Schema]]);
    expect(schemas).to.have.length(2);
    s.passwords.set('cell-db', '');
    const empty = await adapter.provision(NAMESPACE, cell, s.password);
    expect(empty.kind === 'waiting' && empty.message).to.contain('is empty');
  });

  it('an unreachable server (a socket path that does not exist) → clusterNotReady in words', async () => {
    const gone = new SqlDatabaseProvisioner(async () => ({ ...server, admin: { socketPath: `/tmp/${s.id}/no-such.sock`, user: 'root' } }), { connectTimeoutMs: 2_000 });
    try {
      const outcome = await gone.provision(NAMESPACE, s.plans()[0], s.password);
      expect(outcome.kind).to.equal('clusterNotReady');
      expect(outcome.kind === 'clusterNotReady' && outcome.message).to.contain('no-such.sock').and.contain('ENOENT');
    } finally {
      await gone.close();
    }
  });

  it('an admin login the server refuses → clusterNotReady naming the user, never the password', async () => {
    const secret = `wrong-${randomBytes(6).toString('hex')}`;
    const refused = new SqlDatabaseProvisioner(async () => ({ ...server, admin: { host: server.host, port: server.port, user: `${s.id}_nobody`, password: secret } }), { connectTimeoutMs: 2_000 });
    try {
      const outcome = await refused.provision(NAMESPACE, s.plans()[0], s.password);
      expect(outcome.kind).to.equal('clusterNotReady');
      const message = outcome.kind === 'clusterNotReady' ? outcome.message : '';
      expect(message).to.contain(`${s.id}_nobody`).and.contain('Access denied');
      expect(message).not.to.contain(secret);
    } finally {
      await refused.close();
    }
  });

  it('a cluster the resolver does not know → clusterNotReady naming it', async () => {
    const plan = { ...s.plans()[0], clusterRef: 'elsewhere' };
    const outcome = await adapter.provision(NAMESPACE, plan, s.password);
    expect(outcome).to.deep.include({ kind: 'clusterNotReady' });
    expect(outcome.kind === 'clusterNotReady' && outcome.message).to.contain('"elsewhere"');
  });

  describe('deprovisioning: only what Regent created', () => {
    const database = (name: string): ProvisionedObject => ({ kind: 'database', name });
    const user = (name: string): ProvisionedObject => ({ kind: 'user', name });

    it('absent() before provisioning names every schema and user of each plan, in plan order; after it, none; it writes nothing', async () => {
      const [api, cell] = s.plans();
      expect(await adapter.absent(NAMESPACE, api, s.password)).to.deep.equal([database(s.apiSchema), user(s.apiUser)]);
      expect(await adapter.absent(NAMESPACE, cell, s.password)).to.deep.equal([database(s.cellSchema), database(s.cell0Schema), user(s.cellUser)]);
      expect(s.statements).to.deep.equal([]);
      await provisionBoth(adapter, s);
      const written = s.statements.length;
      expect(await adapter.absent(NAMESPACE, api, s.password)).to.deep.equal([]);
      expect(await adapter.absent(NAMESPACE, cell, s.password)).to.deep.equal([]);
      expect(s.statements.slice(written)).to.deep.equal([]);
    });

    it('absent() leaves out a schema of the plan that existed before Regent: it is never claimed', async () => {
      await root.query(`CREATE DATABASE ${mysql.escapeId(s.cellSchema)}`);
      expect(await adapter.absent(NAMESPACE, s.plans()[1], s.password)).to.deep.equal([database(s.cell0Schema), user(s.cellUser)]);
    });

    it('deprovision drops exactly the owned schemas and users of its plan (users first), observing live before the drops; a pre-existing schema of the plan, an owned name of no plan, an unrelated schema and user stay; the second call is not live and writes nothing', async () => {
      const [api, cell] = s.plans();
      // Someone else's, on the same server: a schema of the cell plan made before Regent, and an unrelated schema and user.
      const other = `${s.id}_other`;
      await root.query(`CREATE DATABASE ${mysql.escapeId(s.cellSchema)}`);
      await root.query(`CREATE DATABASE ${mysql.escapeId(other)}`);
      await root.query(`CREATE USER ${mysql.escape(other)}@'%' IDENTIFIED BY 'x'`);
      // The ledger: the write-ahead claims of both blocks, and (as a corrupt ledger might) a name no plan has.
      const claims = [...(await adapter.absent(NAMESPACE, api, s.password)), ...(await adapter.absent(NAMESPACE, cell, s.password)), database(other), user(other)];
      expect(claims).to.not.deep.include(database(s.cellSchema));
      expect(await provisionBoth(adapter, s)).to.deep.equal([{ kind: 'ready' }, { kind: 'ready' }]);
      const written = s.statements.length;

      expect(await adapter.deprovision(NAMESPACE, api, claims, s.password)).to.deep.equal({ live: true, message: `dropped schema "${s.apiSchema}" and user "${s.apiUser}"` });
      expect(await adapter.deprovision(NAMESPACE, cell, claims, s.password)).to.deep.equal({
        live: true,
        message: `dropped schema "${s.cell0Schema}" and user "${s.cellUser}"; left schema "${s.cellSchema}": Regent did not create it`,
      });
      expect(s.statements.slice(written)).to.deep.equal([
        `DROP USER IF EXISTS '${s.apiUser}'@'%'`,
        `DROP DATABASE IF EXISTS \`${s.apiSchema}\``,
        `DROP USER IF EXISTS '${s.cellUser}'@'%'`,
        `DROP DATABASE IF EXISTS \`${s.cell0Schema}\``,
      ]);
      for (const name of [s.apiSchema, s.cell0Schema]) expect(await schemaExists(root, name), name).to.equal(false);
      for (const name of [s.apiUser, s.cellUser]) expect(await userExists(root, name), name).to.equal(false);
      expect(await schemaExists(root, s.cellSchema), 'the schema Regent did not create').to.equal(true);
      expect(await schemaExists(root, other), 'the unrelated schema').to.equal(true);
      expect(await userExists(root, other), 'the unrelated user').to.equal(true);

      const dropped = s.statements.length;
      expect(await adapter.deprovision(NAMESPACE, api, claims, s.password)).to.deep.equal({ live: false, message: `no schema or user Regent created for "${api.instance}" is left` });
      expect(await adapter.deprovision(NAMESPACE, cell, claims, s.password)).to.deep.equal({
        live: false,
        message: `no schema or user Regent created for "${cell.instance}" is left; left schema "${s.cellSchema}": Regent did not create it`,
      });
      expect(s.statements.slice(dropped)).to.deep.equal([]);
      expect(await schemaExists(root, s.cellSchema)).to.equal(true);
    });

    it('owned schemas that are gone while a differently-cased one stands (lower_case_table_names 0): not live, never dropped', async function (this: Context) {
      const [rows] = await root.query<RowDataPacket[]>('SELECT @@lower_case_table_names AS folds');
      if (Number(rows[0]?.folds) !== 0) this.skip();
      const [, cell] = s.plans();
      const upper = `${s.id}_CELL0`;
      await root.query(`CREATE DATABASE ${mysql.escapeId(upper)}`);
      // Two names: MariaDB answers `IN (a, b)` on SCHEMATA case-insensitively (one name is looked up as `=`, exactly).
      expect(await adapter.deprovision(NAMESPACE, cell, [database(s.cellSchema), database(s.cell0Schema)], s.password)).to.deep.equal({
        live: false,
        message: `no schema or user Regent created for "${cell.instance}" is left; left user "${s.cellUser}": Regent did not create it`,
      });
      expect(s.statements).to.deep.equal([]);
      expect(await schemaExists(root, upper)).to.equal(true);
    });

    it('an unreachable server or an unknown cluster: absent() and deprovision() throw ServerNotReadyError carrying the clusterNotReady provision answers', async () => {
      const gone = new SqlDatabaseProvisioner(async () => ({ ...server, admin: { socketPath: `/tmp/${s.id}/no-such.sock`, user: 'root' } }), { connectTimeoutMs: 2_000 });
      try {
        const [api] = s.plans();
        for (const run of [() => gone.absent(NAMESPACE, api, s.password), () => gone.deprovision(NAMESPACE, api, [database(s.apiSchema)], s.password)]) {
          const error = await rejectionOf(run());
          expect(error).to.be.instanceOf(ServerNotReadyError);
          expect((error as ServerNotReadyError).outcome.kind).to.equal('clusterNotReady');
          expect((error as Error).message).to.contain('no-such.sock').and.contain('ENOENT');
        }
      } finally {
        await gone.close();
      }
      const elsewhere = { ...s.plans()[0], clusterRef: 'elsewhere' };
      const error = await rejectionOf(adapter.absent(NAMESPACE, elsewhere, s.password));
      expect(error).to.be.instanceOf(ServerNotReadyError);
      expect((error as Error).message).to.contain('"elsewhere"');
    });
  });

  it('through the cluster Secret: mariadb-<clusterRef> with adminSocket provisions over the socket', async () => {
    const store = secretStore({ [`${NAMESPACE}/${clusterSecretName('sandbox')}`]: { host: server.host, port: String(server.port), adminUser: 'root', adminSocket: server.admin.socketPath! } });
    const viaSecret = new SqlDatabaseProvisioner(resolveClusterFromSecrets(store));
    try {
      expect(await viaSecret.provision(NAMESPACE, s.plans()[0], s.password)).to.deep.equal({ kind: 'ready' });
      expect(await maxConnectionsOf(root, s.apiUser)).to.be.a('number');
    } finally {
      await viaSecret.close();
    }
  });
};

/**
 * This file's own suites register only when mocha loads this file itself: the real suite imports
 * sqlAdapterCases and runs them under its own describe, and mocha then names the importer as the loading file.
 */
const loadedByMocha = (file: string | undefined): boolean => file === undefined || file.endsWith('database-sql.test.ts');

describe('nova database: the plain-SQL adapter against a real MariaDB', function () {
  if (!loadedByMocha(this.file)) return;
  sqlAdapterCases({ whenUnreachable: 'skip' });
});

describe('nova database: what the SQL adapter refuses or reports without a server', function () {
  if (!loadedByMocha(this.file)) return;
  const unused = new SqlDatabaseProvisioner(async () => {
    throw new Error('the resolver must not be called');
  });
  const plan = (): BlockPlan => {
    const planned = planDatabases({ metadata: { name: 'nova' }, spec: novaSpec('nova_api', 'nova') }, { api: { username: 'nova_api' }, cell: { username: 'nova' } });
    if (!planned.ok) throw new Error(planned.problems.join('; '));
    return planned.blocks[1];
  };
  const password = async () => 'pw';

  it('a plan with a schema name outside ^[A-Za-z0-9_]{1,64}$ is a ProvisioningError before anything (the resolver is not called)', async () => {
    const bad = plan();
    const steps = bad.steps.map((step) => (step.kind === 'Database' && step.database === 'nova_cell0' ? { ...step, database: 'nova`; DROP DATABASE nova; --' } : step));
    const error = await rejectionOf(unused.provision(NAMESPACE, { ...bad, steps }, password));
    expect(error).to.be.instanceOf(ProvisioningError);
    expect((error as Error).message).to.contain('is not ^[A-Za-z0-9_]{1,64}$');
  });

  it('a plan with a user name outside ^[A-Za-z0-9_]{1,80}$ is a ProvisioningError', async () => {
    const steps = plan().steps.map((step) => (step.kind === 'User' ? { ...step, username: "nova'@'%" } : step));
    expect(await rejectionOf(unused.provision(NAMESPACE, { ...plan(), steps }, password))).to.be.instanceOf(ProvisioningError);
  });

  it('a plan with a grant before its schema or its user is a ProvisioningError', async () => {
    const [db, db0, user, grant, grant0] = plan().steps;
    for (const steps of [[db!, db0!, grant!, user!, grant0!], [db!, user!, grant!, grant0!, db0!]]) {
      const error = await rejectionOf(unused.provision(NAMESPACE, { ...plan(), steps }, password));
      expect((error as Error).message).to.contain('a grant must come after');
    }
  });

  it('a plan with a max_user_connections that is not a positive integer is a ProvisioningError', async () => {
    for (const n of [0, 1.5, -1, Number.NaN]) {
      const steps = plan().steps.map((step) => (step.kind === 'User' ? { ...step, maxUserConnections: n } : step));
      expect(await rejectionOf(unused.provision(NAMESPACE, { ...plan(), steps }, password))).to.be.instanceOf(ProvisioningError);
    }
  });

  it('deprovision with nothing of the plan owned connects to nothing (the resolver is not called) and drops nothing: not live, everything left as not Regent\'s', async () => {
    const owned = [{ kind: 'database', name: 'nova_api' }, { kind: 'user', name: 'nova_api' }] as const;
    expect(await unused.deprovision(NAMESPACE, plan(), owned, password)).to.deep.equal({
      live: false,
      message: 'Regent created nothing of "nova"; it drops nothing; left schemas "nova", "nova_cell0" and user "nova": Regent did not create them',
    });
  });

  it('deprovision and absent refuse a plan the adapter would not provision (a ProvisioningError before anything)', async () => {
    const steps = plan().steps.map((step) => (step.kind === 'Database' && step.database === 'nova_cell0' ? { ...step, database: 'x`; DROP DATABASE nova; --' } : step));
    expect(await rejectionOf(unused.deprovision(NAMESPACE, { ...plan(), steps }, [{ kind: 'database', name: 'x`; DROP DATABASE nova; --' }], password))).to.be.instanceOf(ProvisioningError);
    expect(await rejectionOf(unused.absent(NAMESPACE, { ...plan(), steps }, password))).to.be.instanceOf(ProvisioningError);
  });

  it('nativePasswordHash is what MariaDB stores for mysql_native_password (PASSWORD("pw"))', () => {
    expect(nativePasswordHash('pw')).to.equal('*D821809F681A40A6E379B50D0463EFAE20BDD122');
  });

  describe('the cluster Secret mariadb-<clusterRef>', () => {
    const secretName = `${NAMESPACE}/mariadb-galera`;
    const full = { host: 'db.example', port: '3306', adminUser: 'root', adminPassword: 'hunter2' };
    const outcome = async (data: Record<string, string> | undefined): Promise<ProvisionOutcome> => {
      const adapter = new SqlDatabaseProvisioner(resolveClusterFromSecrets(secretStore(data === undefined ? {} : { [secretName]: data })));
      try {
        return await adapter.provision(NAMESPACE, { ...plan(), clusterRef: 'galera' }, password);
      } finally {
        await adapter.close();
      }
    };

    it('resolves host and port for Nova and the admin over host:port, or over adminSocket when set', async () => {
      const resolve = resolveClusterFromSecrets(secretStore({ [secretName]: full }));
      expect(await resolve(NAMESPACE, 'galera')).to.deep.equal({ admin: { host: 'db.example', port: 3306, user: 'root', password: 'hunter2' }, host: 'db.example', port: 3306 });
      const socketed = resolveClusterFromSecrets(secretStore({ [secretName]: { host: 'db.example', port: '3307', adminUser: 'root', adminSocket: '/run/mysqld/mysqld.sock' } }));
      expect(await socketed(NAMESPACE, 'galera')).to.deep.equal({ admin: { socketPath: '/run/mysqld/mysqld.sock', user: 'root' }, host: 'db.example', port: 3307 });
    });

    it('no such Secret → clusterNotReady naming the Secret', async () => {
      const o = await outcome(undefined);
      expect(o.kind).to.equal('clusterNotReady');
      expect(o.kind === 'clusterNotReady' && o.message).to.contain(`"${secretName}"`);
    });

    const broken: [string, Record<string, string>, string][] = [
      ['a port that is not a number', { ...full, port: '33o6' }, 'port'],
      ['a port out of range', { ...full, port: '70000' }, 'port'],
      ['no port', { host: 'db.example', adminUser: 'root' }, 'port'],
      ['no host', { port: '3306', adminUser: 'root' }, 'host'],
      ['a host that is a URL', { ...full, host: 'mysql://db.example' }, 'host'],
      ['no adminUser', { host: 'db.example', port: '3306' }, 'adminUser'],
      ['a relative adminSocket', { ...full, adminSocket: 'mysqld.sock' }, 'adminSocket'],
    ];
    for (const [what, data, key] of broken) {
      it(`${what} → clusterNotReady naming the Secret and the key ${key}, never a value`, async () => {
        const o = await outcome(data);
        expect(o.kind).to.equal('clusterNotReady');
        const message = o.kind === 'clusterNotReady' ? o.message : '';
        expect(message).to.contain(`"${secretName}"`).and.contain(`"${key}"`);
        expect(message).not.to.contain('hunter2');
      });
    }
  });
});
