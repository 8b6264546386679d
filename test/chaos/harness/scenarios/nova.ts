/**
 * The Nova upgrade's chaos scenario, on the embedded default as `npm start` runs it: the SQL adapter provisions
 * scratch schemas and users in a real MariaDB (the sandbox's, root over its socket; REGENT_CHAOS_MARIADB_SOCKET),
 * the local JobRunner runs the rendered scripts as detached child processes against a scripted nova-manage and
 * nova-status whose call log is the ground truth (../../fixtures/fake-nova-bin.ts), and the roles are stand-in
 * processes (test/nova/support/fake-nova-roles.ts) the local workloads start, roll and stop. Steps: install
 * 2025.1 (db-sync), upgrade to 2025.2 (expand, migrate, the rolling update, contract, the promotion), delete (the
 * finalizer drops the schemas and users it claimed). Names carry the seed, so parallel runs share the MariaDB
 * without touching each other's schemas.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { applyManifests } from '../../../../src/kube/cli/manifests.js';
import { readNovaToolLog, writeFakeNovaBin } from '../../fixtures/fake-nova-bin.js';
import { writeFakeNovaPython } from '../../../nova/support/fake-nova-roles.js';
import { gone, objectView, type Scenario, type ScenarioContext } from './scenario.js';

export const MARIADB_SOCKET = process.env.REGENT_CHAOS_MARIADB_SOCKET ?? '/var/tmp/regent-openstack/data/mysql/mysqld.sock';
const NOVA = 'nova';

/** The scratch names of a run: schemas `regent_c<seed>_api`, `regent_c<seed>` (and its cell0), users `…_a`, `…_c`. */
export const novaNames = (seed: number) => {
  const base = `regent_c${seed}`;
  return { api: `${base}_api`, cell: base, cell0: `${base}_cell0`, users: [`${base}_a`, `${base}_c`] as const };
};

const novaManifest = (seed: number, release: string): string => {
  const names = novaNames(seed);
  return `apiVersion: regent.dev/v1alpha1
kind: Nova
metadata: { name: ${NOVA} }
spec:
  image: ghcr.io/c5c3/nova:${release}
  openStackRelease: "${release}"
  database:
    api: { clusterRef: { name: chaos }, database: ${names.api}, secretRef: { name: nova-api-db } }
    cell: { clusterRef: { name: chaos }, database: ${names.cell}, secretRef: { name: nova-db } }
  messaging: { secretRef: { name: chaos-rabbit, key: url } }
  serviceUser: { secretRef: { name: nova-service-user } }
  metadata: { sharedSecretRef: { name: nova-metadata } }
  consoleProxy: { enabled: true }
`;
};

interface NovaStatus {
  installedRelease?: string;
  observedGeneration?: number;
  conditions?: Array<{ type: string; status: string; reason?: string }>;
}

/** Ready=True at the Nova's generation with `release` installed. */
const readyOn = (release: string) => async (ctx: ScenarioContext) => {
  const view = await objectView(ctx, 'Nova', NOVA);
  const status = view?.status as NovaStatus | undefined;
  return status?.installedRelease === release && status.observedGeneration === view?.generation && status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
};

/** The Secrets a Nova reads, with passwords made up for this run (each one a secret the invariants look for). */
const putSecrets = async (ctx: ScenarioContext, seed: number): Promise<void> => {
  const names = novaNames(seed);
  const made = () => {
    const value = randomBytes(12).toString('base64url');
    ctx.secret(value);
    return value;
  };
  await ctx.source.secrets.put('default', 'mariadb-chaos', { host: '127.0.0.1', port: '3306', adminUser: 'root', adminSocket: MARIADB_SOCKET });
  await ctx.source.secrets.put('default', 'nova-api-db', { username: names.users[0], password: made() });
  await ctx.source.secrets.put('default', 'nova-db', { username: names.users[1], password: made() });
  await ctx.source.secrets.put('default', 'nova-service-user', { password: made() });
  await ctx.source.secrets.put('default', 'nova-metadata', { 'shared-secret': made() });
  await ctx.source.secrets.put('default', 'chaos-rabbit', { url: `rabbit://nova:${made()}@127.0.0.1:5672/regent_c${seed}` });
};

/** The run's schemas and users still in MariaDB. */
const leftInMariaDb = async (seed: number): Promise<string[]> => {
  const names = novaNames(seed);
  const admin = await mysql.createConnection({ socketPath: MARIADB_SOCKET, user: 'root' });
  try {
    const [schemas] = await admin.query('SELECT schema_name AS n FROM information_schema.schemata WHERE schema_name IN (?, ?, ?)', [names.api, names.cell, names.cell0]);
    const [users] = await admin.query('SELECT user AS n FROM mysql.user WHERE user IN (?, ?)', [...names.users]);
    return [...(schemas as Array<{ n: string }>).map((r) => `schema ${r.n}`), ...(users as Array<{ n: string }>).map((r) => `user ${r.n}`)];
  } finally {
    await admin.end();
  }
};

/** Stops every process whose command line names the run's directory (stand-in roles, Job scripts) a stuck run left. */
const killProcessesUnder = (dir: string): void => {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (Number(pid) === process.pid) continue;
      const cmdline = readFileSync(join('/proc', pid, 'cmdline'), 'utf8');
      if (cmdline.includes(dir)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone already, or not ours
    }
  }
};

export const novaScenario: Scenario = {
  machine: 'nova',
  streams: ['nova-database-', 'nova-pipeline-', 'nova-finalizer-'],
  watched: [{ kind: 'Nova', name: NOVA }],
  // the upgrade's pace is the spec's: 10 s between rollout checks of five roles, 30 s requeues where nothing wakes the Nova
  stepTimeoutMs: 400_000,
  steps: [
    { name: 'install nova 2025.1', act: async (ctx) => { await putSecrets(ctx, ctx.seed); await applyManifests(ctx.source, novaManifest(ctx.seed, '2025.1')); }, settled: readyOn('2025.1') },
    { name: 'upgrade nova to 2025.2', act: async (ctx) => void (await applyManifests(ctx.source, novaManifest(ctx.seed, '2025.2'))), settled: readyOn('2025.2') },
    { name: 'delete nova', act: async (ctx) => void (await ctx.source.delete('Nova', 'default', NOVA)), settled: gone('Nova', NOVA) },
  ],
  own: {
    prepare: (dir, seed) => {
      const { binDir } = writeFakeNovaBin(dir);
      const python = writeFakeNovaPython(dir);
      // parallel runs are two Regents on one host with a Nova of one name: each gets its own loopback ports
      const low = 30_000 + (seed % 50) * 400;
      return { REGENT_NOVA_BIN_DIR: binDir, REGENT_NOVA_PYTHON: python, REGENT_NOVA_KEYSTONE_URL: 'http://127.0.0.1:5000/v3', REGENT_NOVA_REGION: 'RegionOne', REGENT_NOVA_PORT_RANGE: `${low}-${low + 399}` };
    },
    evidence: async (ctx) => ({
      nova: {
        name: NOVA,
        calls: readNovaToolLog(join(ctx.dir, 'nova-state', 'calls.log')),
        left: await leftInMariaDb(ctx.seed),
        jobsLeft: (['Job', 'CronJob'] as const).flatMap((what) => {
          const base = join(ctx.dir, 'nova-jobs', what === 'Job' ? 'jobs' : 'cronjobs', 'default');
          return existsSync(base) ? readdirSync(base).map((name) => `${what} ${name}`) : [];
        }),
        deleted: (await ctx.source.get('Nova', 'default', NOVA)) === undefined,
      },
    }),
    cleanup: async (ctx) => {
      killProcessesUnder(ctx.dir);
      const names = novaNames(ctx.seed);
      const admin = await mysql.createConnection({ socketPath: MARIADB_SOCKET, user: 'root' });
      try {
        for (const db of [names.api, names.cell, names.cell0]) await admin.query(`DROP DATABASE IF EXISTS \`${db}\``);
        for (const user of names.users) await admin.query(`DROP USER IF EXISTS '${user}'@'%'`);
      } finally {
        await admin.end();
      }
    },
  },
};
