/**
 * spec.database.<block>.tls acted on (issue 24; src/nova/database-tls.ts): every DSN Regent derives for a block with
 * tls carries ssl_ca (and ssl_cert, ssl_key) naming the files where the Jobs' pods find them; cell0's DSN is the cell
 * block's with cell0's schema, its query kept; every Job and the archive CronJob carry the files, and on Kubernetes
 * mount them from a projected volume at defaultMode 0400 in a pod whose fsGroup is the openstack GID; the TLS
 * Secrets are read and checked before anything uses them, and a message names the field, never a value.
 *
 * SQLAlchemy itself (the system python's, as nova-manage imports it) reads the rendered DSNs back, so the query is
 * proven to mean to pymysql what Regent means by it; that case skips, saying so, where no python has SQLAlchemy.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import type { SecretStore, StoredSecret } from '../../src/kube/secrets.js';
import { connectionQuery, materializeConnectionSecrets, pymysqlDSN, withSchema } from '../../src/nova/connection-secrets.js';
import { DATABASE_TLS_KEYS, OPENSTACK_GID, readDatabaseTls } from '../../src/nova/database-tls.js';
import { planDatabases } from '../../src/nova/database/plan.js';
import { cronJobBody, jobBody } from '../../src/nova/jobs/kubernetes.js';
import { connectionSecretNames, renderArchiveCronJob, renderDatabaseTls, renderNovaJob, type NovaRef, type RenderOptions } from '../../src/nova/jobs/render.js';
import { templateHash } from '../../src/nova/jobs/template-hash.js';
import { NOVA_JOBS } from '../../machines/nova-upgrade.js';
import type { NovaSpec } from '../../src/resources/nova.js';
import { makeTlsFixtures, opensslAvailable, type TlsFixtures } from './support/tls-fixtures.js';

const REF: NovaRef = { namespace: 'openstack', name: 'nova', uid: 'nova-uid' };
const ENDPOINT = { host: 'maria.openstack.svc', port: 3306 };
const CREDENTIALS = { username: 'nova', password: 'p@ss/w?rd#' };

type Tls = NonNullable<NovaSpec['database']['api']['tls']>;
const spec = (tls: { api?: Tls; cell?: Tls } = {}): NovaSpec => ({
  image: 'ghcr.io/c5c3/nova:2025.2',
  openStackRelease: '2025.2',
  database: {
    api: { clusterRef: { name: 'maria' }, database: 'nova_api', secretRef: { name: 'nova-api-db' }, ...(tls.api ? { tls: tls.api } : {}) },
    cell: { clusterRef: { name: 'maria' }, database: 'nova', secretRef: { name: 'nova-db' }, ...(tls.cell ? { tls: tls.cell } : {}) },
  },
  messaging: { clusterRef: { name: 'rabbitmq' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
});
const MUTUAL: Tls = { enabled: true, caSecretRef: { name: 'db-ca' }, clientCertSecretRef: { name: 'nova-db-client' } };
const CA_ONLY: Tls = { enabled: true, caSecretRef: { name: 'db-ca' } };

/** A SecretStore over a record; `put` records what the materializer wrote. */
const store = (secrets: Record<string, Record<string, string>> = {}): SecretStore & { written: Record<string, Record<string, string>> } => {
  const written: Record<string, Record<string, string>> = {};
  return {
    written,
    get: async (namespace, name) => {
      const data = written[`${namespace}/${name}`] ?? secrets[`${namespace}/${name}`];
      return data === undefined ? undefined : ({ data, version: '1', labels: {} } satisfies StoredSecret);
    },
    put: async (namespace, name, data) => {
      written[`${namespace}/${name}`] = { ...data };
      return { version: '2', created: true };
    },
    delete: async () => { throw new Error('unexpected SecretStore.delete'); },
    list: async () => { throw new Error('unexpected SecretStore.list'); },
  };
};

/** The directory a runner would name: not the Kubernetes default, so a test sees that it is the one used. */
const RUNNER_DIR = (block: 'api' | 'cell') => `/var/lib/regent/nova-jobs/tls/openstack/nova/${block}`;
const OPTIONS: RenderOptions = { databaseTlsDir: RUNNER_DIR };

/** The three derived DSNs of a spec, as the controller materializes them (TLS directories from RUNNER_DIR). */
const dsns = async (s: NovaSpec) => {
  const secrets = store();
  const mounts = renderDatabaseTls(s, OPTIONS);
  const tlsOf = (block: 'api' | 'cell') => {
    const m = mounts.find((x) => x.block === block);
    return m ? { tls: m } : {};
  };
  await materializeConnectionSecrets(secrets, REF, s, { api: { endpoint: ENDPOINT, credentials: CREDENTIALS, ...tlsOf('api') }, cell: { endpoint: ENDPOINT, credentials: CREDENTIALS, ...tlsOf('cell') }, transportURL: 'rabbit://u:p@mq:5672/' });
  const names = connectionSecretNames(REF.name);
  const at = (name: string) => secrets.written[`${REF.namespace}/${name}`]!;
  return { api: at(names.api).connection!, cell: at(names.cell).connection!, cell0: at(names.cell).cell0Connection! };
};

const query = (dsn: string): Record<string, string> => Object.fromEntries(new URL(dsn).searchParams);
const rawQuery = (dsn: string): string => dsn.slice(dsn.indexOf('?') + 1);
const pathOf = (dsn: string): string => new URL(dsn).pathname;

/** A python that can import SQLAlchemy's pymysql dialect (the system one nova-manage runs under, else PATH's). */
const pythonWithSqlAlchemy = (): string | undefined => {
  for (const python of ['/usr/bin/python3', 'python3']) {
    try {
      execFileSync(python, ['-c', 'import sqlalchemy.dialects.mysql.pymysql'], { stdio: 'ignore', cwd: '/' });
      return python;
    } catch {
      // next
    }
  }
  return undefined;
};

describe('nova database TLS (issue 24): spec.database.<block>.tls acted on', () => {
  describe('the derived DSNs', () => {
    it('every DSN of a block with tls carries ssl_ca, ssl_cert and ssl_key naming the files in the directory the runner names: api, cell and cell0', async () => {
      const { api, cell, cell0 } = await dsns(spec({ api: MUTUAL, cell: MUTUAL }));
      for (const [dsn, block] of [[api, 'api'], [cell, 'cell'], [cell0, 'cell']] as const) {
        expect(query(dsn), dsn).to.deep.equal({
          charset: 'utf8',
          ssl_ca: `${RUNNER_DIR(block)}/ca.crt`,
          ssl_cert: `${RUNNER_DIR(block)}/tls.crt`,
          ssl_key: `${RUNNER_DIR(block)}/tls.key`,
        });
      }
    });

    it('a CA without a client certificate: ssl_ca only (the server is verified, no client certificate is presented)', async () => {
      const { api, cell0 } = await dsns(spec({ api: CA_ONLY, cell: CA_ONLY }));
      expect(query(api)).to.deep.equal({ charset: 'utf8', ssl_ca: `${RUNNER_DIR('api')}/ca.crt` });
      expect(query(cell0)).to.deep.equal({ charset: 'utf8', ssl_ca: `${RUNNER_DIR('cell')}/ca.crt` });
    });

    it("cell0's DSN is the cell block's DSN with cell0's schema: the same query (the TLS files, charset=utf8 kept), never a fixed ?charset=utf8", async () => {
      const { api, cell, cell0 } = await dsns(spec({ cell: MUTUAL }));
      expect(rawQuery(cell0)).to.equal(rawQuery(cell));
      expect(query(cell0)).to.include({ charset: 'utf8', ssl_ca: `${RUNNER_DIR('cell')}/ca.crt` });
      expect(pathOf(cell)).to.equal('/nova');
      expect(pathOf(cell0)).to.equal('/nova_cell0');
      expect(cell0.replace('/nova_cell0?', '/nova?')).to.equal(cell);
      // the api block has no tls: its DSN names no file
      expect(query(api)).to.deep.equal({ charset: 'utf8' });
    });

    it('a block without tls, or with tls.enabled false, renders ?charset=utf8 and nothing else', async () => {
      for (const s of [spec(), spec({ api: { ...MUTUAL, enabled: false }, cell: { ...MUTUAL, enabled: false } })]) {
        const { api, cell, cell0 } = await dsns(s);
        for (const dsn of [api, cell, cell0]) expect(rawQuery(dsn), dsn).to.equal('charset=utf8');
      }
    });

    it('withSchema changes only the path: credentials with reserved characters, host, port and the whole query are kept', () => {
      const tls = { block: 'cell' as const, dir: '/d', files: [{ secret: 'ca', key: 'ca.crt', path: 'ca.crt' }] };
      const dsn = pymysqlDSN({ host: 'fd00::1', port: 3307 }, CREDENTIALS, 'nova', tls);
      const other = withSchema(dsn, 'nova_cell0');
      expect(other).to.equal(dsn.replace('/nova?', '/nova_cell0?'));
      expect(new URL(other).password).to.equal(encodeURIComponent(CREDENTIALS.password));
    });

    it('SQLAlchemy (as nova-manage imports it) reads the query back as the pymysql ssl argument: every path intact, a + and a space too', function () {
      const python = pythonWithSqlAlchemy();
      if (!python) this.skip();
      const dir = '/tmp/odd dir+1/tls';
      const dsn = pymysqlDSN({ host: '127.0.0.1', port: 3306 }, CREDENTIALS, 'nova', {
        block: 'cell',
        dir,
        files: [
          { secret: 'ca', key: 'ca.crt', path: 'ca.crt' },
          { secret: 'c', key: 'tls.crt', path: 'tls.crt' },
          { secret: 'c', key: 'tls.key', path: 'tls.key' },
        ],
      });
      const program = [
        'import json, sys',
        'from sqlalchemy.engine import make_url',
        'from sqlalchemy.dialects.mysql.pymysql import MySQLDialect_pymysql',
        'args, kw = MySQLDialect_pymysql().create_connect_args(make_url(sys.argv[1]))',
        'print(json.dumps({"ssl": kw.get("ssl"), "charset": kw.get("charset"), "db": kw.get("database") or kw.get("db"), "password": kw.get("password") or kw.get("passwd")}))',
      ].join('\n');
      const read = JSON.parse(execFileSync(python!, ['-c', program, dsn], { encoding: 'utf8', cwd: '/' })) as Record<string, unknown>;
      expect(read).to.deep.equal({ ssl: { ca: `${dir}/ca.crt`, cert: `${dir}/tls.crt`, key: `${dir}/tls.key` }, charset: 'utf8', db: 'nova', password: CREDENTIALS.password });
    });

    it('connectionQuery: charset=utf8 first, then ssl_ca, ssl_cert, ssl_key', () => {
      const tls = { block: 'api' as const, dir: '/x', files: [{ secret: 'a', key: 'ca.crt', path: 'ca.crt' }, { secret: 'b', key: 'tls.crt', path: 'tls.crt' }, { secret: 'b', key: 'tls.key', path: 'tls.key' }] };
      expect(connectionQuery()).to.equal('charset=utf8');
      expect(connectionQuery(tls)).to.equal('charset=utf8&ssl_ca=/x/ca.crt&ssl_cert=/x/tls.crt&ssl_key=/x/tls.key');
    });
  });

  describe('the rendered Jobs and the archive CronJob', () => {
    const both = spec({ api: CA_ONLY, cell: MUTUAL });

    it('every Job (db-sync, expand, migrate, contract) and the archive carry the TLS files of each block with tls, in the directory its DSN names', async () => {
      const { api, cell } = await dsns(both);
      const expected = [
        { block: 'api', dir: RUNNER_DIR('api'), files: [{ secret: 'db-ca', key: 'ca.crt', path: 'ca.crt' }] },
        {
          block: 'cell',
          dir: RUNNER_DIR('cell'),
          files: [
            { secret: 'db-ca', key: 'ca.crt', path: 'ca.crt' },
            { secret: 'nova-db-client', key: 'tls.crt', path: 'tls.crt' },
            { secret: 'nova-db-client', key: 'tls.key', path: 'tls.key' },
          ],
        },
      ];
      const rendered = [...NOVA_JOBS.map((job) => renderNovaJob(REF, both, job, OPTIONS)), renderArchiveCronJob(REF, both, OPTIONS)];
      for (const r of rendered) expect(r.databaseTls, r.name).to.deep.equal(expected);
      expect(query(api).ssl_ca).to.equal(`${expected[0]!.dir}/ca.crt`);
      expect(query(cell).ssl_key).to.equal(`${expected[1]!.dir}/tls.key`);
    });

    it("on Kubernetes every pod mounts them read-only from a projected volume at defaultMode 0400, fsGroup the openstack GID (42424), where the DSNs' ssl_* point", async () => {
      const defaults = spec({ api: MUTUAL, cell: MUTUAL });
      // no databaseTlsDir: the Kubernetes mount path, which is what KubernetesJobRunner.databaseTlsDir answers
      const pods = [
        ...NOVA_JOBS.map((job) => jobBody(renderNovaJob(REF, defaults, job)).spec!.template.spec!),
        cronJobBody(renderArchiveCronJob(REF, defaults)).spec!.jobTemplate.spec!.template.spec!,
      ];
      for (const pod of pods) {
        expect(pod.securityContext).to.deep.equal({ fsGroup: OPENSTACK_GID });
        expect(OPENSTACK_GID).to.equal(42424);
        for (const block of ['api', 'cell'] as const) {
          const volume = pod.volumes!.find((v) => v.name === `db-tls-${block}`);
          expect(volume?.projected?.defaultMode, block).to.equal(0o400);
          const items = volume!.projected!.sources!.flatMap((s) => (s.secret?.items ?? []).map((i) => `${s.secret!.name}/${i.key}→${i.path}`));
          expect(items).to.deep.equal(['db-ca/ca.crt→ca.crt', 'nova-db-client/tls.crt→tls.crt', 'nova-db-client/tls.key→tls.key']);
          const mount = pod.containers[0]!.volumeMounts!.find((m) => m.name === `db-tls-${block}`);
          expect(mount).to.deep.equal({ name: `db-tls-${block}`, mountPath: `/etc/nova-db-tls/${block}`, readOnly: true });
          // the DSN rendered for the same directory names the files under this mount
          const dsn = pymysqlDSN(ENDPOINT, CREDENTIALS, 'nova', renderDatabaseTls(defaults).find((m) => m.block === block));
          expect(query(dsn)).to.include({ ssl_ca: `${mount!.mountPath}/ca.crt`, ssl_cert: `${mount!.mountPath}/tls.crt`, ssl_key: `${mount!.mountPath}/tls.key` });
        }
      }
    });

    it('a Nova without TLS (or with it disabled) mounts nothing, and its Jobs hash exactly as image, script, env and config alone (no Job re-runs for the feature)', () => {
      for (const s of [spec(), spec({ api: { ...MUTUAL, enabled: false } })]) {
        for (const job of NOVA_JOBS) {
          const r = renderNovaJob(REF, s, job, OPTIONS);
          expect(r.databaseTls, job).to.equal(undefined);
          expect(r.templateHash).to.equal(templateHash({ image: r.image, script: r.script, env: r.env, config: r.config }));
          expect(jobBody(r).spec!.template.spec!.volumes!.map((v) => v.name)).to.deep.equal(['nova-config']);
        }
      }
    });

    it('the template hash covers the TLS Secret names and directory (enabling TLS, or naming another CA Secret, re-runs db-sync), never a value', () => {
      const plain = renderNovaJob(REF, spec(), 'sync', OPTIONS).templateHash;
      const withTls = renderNovaJob(REF, spec({ cell: MUTUAL }), 'sync', OPTIONS).templateHash;
      const otherCa = renderNovaJob(REF, spec({ cell: { ...MUTUAL, caSecretRef: { name: 'db-ca-2' } } }), 'sync', OPTIONS).templateHash;
      const otherDir = renderNovaJob(REF, spec({ cell: MUTUAL }), 'sync', { databaseTlsDir: (b) => `/elsewhere/${b}` }).templateHash;
      expect(new Set([plain, withTls, otherCa, otherDir]).size).to.equal(4);
      expect(renderArchiveCronJob(REF, spec({ cell: MUTUAL }), OPTIONS).templateHash).to.not.equal(renderArchiveCronJob(REF, spec(), OPTIONS).templateHash);
    });
  });

  describe("Regent's provisioning connection", () => {
    it('the plan of a block with tls names its CA and client Secret keys for the SQL adapter; a block without names none', () => {
      const plan = planDatabases({ metadata: { name: 'nova' }, spec: spec({ cell: MUTUAL }) }, { api: { username: 'nova_api' }, cell: { username: 'nova' } });
      if (!plan.ok) throw new Error(plan.problems.join('; '));
      expect(plan.blocks[0].tls).to.equal(undefined);
      expect(plan.blocks[1].tls).to.deep.equal({ ca: { name: 'db-ca', key: 'ca.crt' }, cert: { name: 'nova-db-client', key: 'tls.crt' }, key: { name: 'nova-db-client', key: 'tls.key' } });
    });
  });

  describe('readDatabaseTls: the TLS Secrets read and checked before anything uses them', function () {
    let tls: TlsFixtures;
    before(function () {
      if (!opensslAvailable()) this.skip();
      tls = makeTlsFixtures();
    });
    after(() => tls?.remove());

    const good = () => ({ 'openstack/db-ca': { [DATABASE_TLS_KEYS.ca]: tls.ca }, 'openstack/nova-db-client': { [DATABASE_TLS_KEYS.cert]: tls.clientCert, [DATABASE_TLS_KEYS.key]: tls.clientKey } });

    it('a block without tls, or with it disabled, reads nothing (a disabled block contributes nothing)', async () => {
      const nothing = store();
      nothing.get = async () => { throw new Error('no Secret may be read'); };
      expect(await readDatabaseTls(nothing, 'openstack', spec(), 'cell')).to.equal(undefined);
      expect(await readDatabaseTls(nothing, 'openstack', spec({ cell: { ...MUTUAL, enabled: false } }), 'cell')).to.equal(undefined);
    });

    it('the CA, and the client certificate with its key, when all are there and match', async () => {
      expect(await readDatabaseTls(store(good()), 'openstack', spec({ cell: MUTUAL }), 'cell')).to.deep.equal({ ca: tls.ca, cert: tls.clientCert, key: tls.clientKey });
      expect(await readDatabaseTls(store(good()), 'openstack', spec({ api: CA_ONLY }), 'api')).to.deep.equal({ ca: tls.ca });
    });

    const cases: Array<[string, (s: ReturnType<typeof good>) => void, RegExp]> = [
      ['no CA Secret', (s) => void delete (s as Record<string, unknown>)['openstack/db-ca'], /spec\.database\.cell\.tls\.caSecretRef: no Secret "db-ca"/],
      ['no ca.crt key', (s) => void (s['openstack/db-ca'] = {} as never), /spec\.database\.cell\.tls\.caSecretRef: Secret "db-ca" has no key "ca\.crt"/],
      ['a CA that is not PEM', (s) => void (s['openstack/db-ca'] = { 'ca.crt': 'not a certificate' }), /spec\.database\.cell\.tls\.caSecretRef: key "ca\.crt" of Secret "db-ca" is not a PEM certificate/],
      ['no client Secret', (s) => void delete (s as Record<string, unknown>)['openstack/nova-db-client'], /spec\.database\.cell\.tls\.clientCertSecretRef: no Secret "nova-db-client"/],
      ['no tls.key key', (s) => void (s['openstack/nova-db-client'] = { 'tls.crt': tls.clientCert } as never), /clientCertSecretRef: Secret "nova-db-client" has no key "tls\.key"/],
      ['a key that is not the certificate\'s', (s) => void (s['openstack/nova-db-client'] = { 'tls.crt': tls.clientCert, 'tls.key': tls.serverKey }), /clientCertSecretRef: Secret "nova-db-client": key "tls\.key" is not the private key of "tls\.crt"/],
      ['a key that is not PEM', (s) => void (s['openstack/nova-db-client'] = { 'tls.crt': tls.clientCert, 'tls.key': 'garbage' }), /key "tls\.key" is not a PEM private key/],
    ];
    for (const [what, breakIt, message] of cases) {
      it(`${what} → missing, naming the field, the Secret and the key, never a value`, async () => {
        const secrets = good();
        breakIt(secrets);
        const read = await readDatabaseTls(store(secrets), 'openstack', spec({ cell: MUTUAL }), 'cell');
        expect(read).to.have.property('missing').that.matches(message);
        const text = (read as { missing: string }).missing;
        for (const value of [tls.ca, tls.clientCert, tls.clientKey, tls.serverKey, 'garbage', 'not a certificate']) expect(text).to.not.contain(value.trim().split('\n')[1] ?? value);
      });
    }
  });
});
