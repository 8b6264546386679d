/**
 * Issue 14 against real nova-manage: the Nova controller's Database step on the sandbox's genuine Zed
 * nova-manage and nova-status, its MariaDB and its RabbitMQ — never the sandbox's own Nova databases. A scratch
 * Nova (`regent_t<id>_api`, `regent_t<id>`, cell0 `regent_t<id>_cell0`, its own users) is provisioned through the
 * SQL adapter, and the rendered scripts run as child processes through the local JobRunner:
 *   - the db-sync Job migrates both schemas and maps cell0 and cell1; status.cells carries the UUIDs that a real
 *     `nova-manage cell_v2 list_cells` shows;
 *   - a second db-sync (a changed spec, so a new Job) leaves exactly one cell1;
 *   - a release bump runs the expand Job (nova-status upgrade check, then both syncs), the migrate Job, waits in
 *     RollingUpdate for the roles (the rig's stand-in role processes: the roles' own real test is
 *     nova-pipeline.openstack.ts) and runs the contract Job (online_data_migrations for the cell schema and cell0),
 *     then promotes installedRelease;
 *   - the archive script runs for real (nothing to archive: exit 0), with and without a retention window.
 * Everything scratch is dropped in after().
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { SqlDatabaseProvisioner } from '../../src/nova/database/sql.js';
import { resolveClusterFromSecrets } from '../../src/nova/database/cluster-secret.js';
import type { NovaSpec } from '../../src/resources/nova.js';
import { openNovaRig, type NovaRig } from '../nova/support/nova-rig.js';

const SANDBOX = process.env.SANDBOX_HOME ?? '/var/tmp/regent-openstack';
const SOCKET = join(SANDBOX, 'data/mysql/mysqld.sock');
const NOVA_MANAGE = join(SANDBOX, 'bin/nova-manage');
const id = randomBytes(3).toString('hex');
const NAME = `nova-t${id}`;
const API_DB = `regent_t${id}_api`;
const CELL_DB = `regent_t${id}`;
const USERS = [`regent_t${id}_a`, `regent_t${id}_c`];

const spec = (release: string, extra: Partial<NovaSpec> = {}): NovaSpec => ({
  image: `ghcr.io/c5c3/nova:${release}`,
  openStackRelease: release,
  database: {
    api: { clusterRef: { name: 'sandbox' }, database: API_DB, secretRef: { name: 'nova-api-db' } },
    cell: { clusterRef: { name: 'sandbox' }, database: CELL_DB, secretRef: { name: 'nova-db' } },
  },
  messaging: { secretRef: { name: 'sandbox-rabbit', key: 'url' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
  // the [placement] and [service_user] sections nova-status checks (the Config step that renders them is not built);
  // their password comes from the service-user Secret as env
  extraConfig: {
    placement: { auth_url: 'http://127.0.0.1:5000/', auth_type: 'password', project_domain_name: 'Default', user_domain_name: 'Default', project_name: 'service', region_name: 'RegionOne', username: 'nova' },
    service_user: { auth_url: 'http://127.0.0.1:5000/', auth_type: 'password', project_domain_name: 'Default', user_domain_name: 'Default', project_name: 'service', username: 'nova', send_service_user_token: 'true' },
  },
  ...extra,
});

describe('issue 14 against real nova-manage: the Database step on scratch schemas', function () {
  let rig: NovaRig;
  let binDir: string;
  const secrets: Record<string, string> = {};

  /** `nova-manage cell_v2 list_cells` against the scratch schemas, as the Jobs run it (credentials as env). */
  const listCells = async (): Promise<Array<{ name: string; uuid: string; db: string }>> => {
    const api = (await rig.source.secrets.get('default', `${NAME}-api-db-connection`))!.data.connection!;
    const cell = (await rig.source.secrets.get('default', `${NAME}-db-connection`))!.data.connection!;
    const out = execFileSync(NOVA_MANAGE, ['--config-file', '/dev/null', 'cell_v2', 'list_cells', '--verbose'], {
      env: { PATH: process.env.PATH ?? '', OS_API_DATABASE__CONNECTION: api, OS_DATABASE__CONNECTION: cell },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out
      .split('\n')
      .map((l) => l.split('|').map((f) => f.trim()))
      .filter((f) => f.length >= 6 && /^[0-9a-f-]{36}$/.test(f[2] ?? ''))
      .map((f) => ({ name: f[1]!, uuid: f[2]!, db: f[4]! }));
  };

  before(async function () {
    this.timeout(60_000);
    if (!existsSync(SOCKET) || !existsSync(NOVA_MANAGE)) throw new Error(`the sandbox's MariaDB (${SOCKET}) and nova-manage (${NOVA_MANAGE}) must exist for the real suite`);
    // nova-manage from the sandbox; nova-status has no console script there, so a two-line wrapper runs its module
    binDir = mkdtempSync(join(tmpdir(), 'regent-nova-bin-'));
    symlinkSync(NOVA_MANAGE, join(binDir, 'nova-manage'));
    writeFileSync(join(binDir, 'nova-status'), "#!/bin/sh\nexec /usr/bin/python3 -c 'import sys; from nova.cmd.status import main; sys.exit(main())' \"$@\"\n");
    chmodSync(join(binDir, 'nova-status'), 0o755);
    rig = await openNovaRig({
      name: NAME,
      provisioner: new SqlDatabaseProvisioner(resolveClusterFromSecrets({ get: (ns: string, n: string) => rig.source.secrets.get(ns, n) } as never)),
      databaseEndpoint: async () => ({ host: '127.0.0.1', port: 3306 }),
      binDir,
    });
    secrets.api = randomBytes(12).toString('base64url');
    secrets.cell = randomBytes(12).toString('base64url');
    await rig.source.secrets.put('default', 'mariadb-sandbox', { host: '127.0.0.1', port: '3306', adminUser: 'root', adminSocket: SOCKET });
    await rig.source.secrets.put('default', 'nova-api-db', { username: USERS[0]!, password: secrets.api });
    await rig.source.secrets.put('default', 'nova-db', { username: USERS[1]!, password: secrets.cell });
    await rig.source.secrets.put('default', 'nova-service-user', { password: 'sandbox' });
    await rig.source.secrets.put('default', 'sandbox-rabbit', { url: 'rabbit://guest:guest@127.0.0.1:5672/' });
  });

  after(async function () {
    this.timeout(60_000);
    await rig?.close();
    if (binDir) rmSync(binDir, { recursive: true, force: true });
    const admin = await mysql.createConnection({ socketPath: SOCKET, user: 'root' });
    try {
      for (const db of [API_DB, CELL_DB, `${CELL_DB}_cell0`]) await admin.query(`DROP DATABASE IF EXISTS \`${db}\``);
      for (const user of USERS) await admin.query(`DROP USER IF EXISTS '${user}'@'%'`);
    } finally {
      await admin.end();
    }
  });

  it('db-sync: both schemas migrated, cell0 and cell1 mapped, the report parsed into status.cells with the real UUIDs', async function () {
    this.timeout(240_000);
    await rig.apply(spec('2025.1'));
    const status = await rig.until((s) => ['DatabaseSynced', 'DBSyncFailed'].includes(s.conditions?.find((c) => c.type === 'DatabaseReady')?.reason ?? ''), { pollMs: 1000 });
    const ready = status.conditions?.find((c) => c.type === 'DatabaseReady');
    expect(ready, JSON.stringify(ready)).to.include({ status: 'True', reason: 'DatabaseSynced' });
    expect(status.installedRelease).to.equal('2025.1');
    const listed = await listCells();
    expect(listed.map((c) => c.name).sort()).to.deep.equal(['cell0', 'cell1']);
    expect(status.cells?.map((c) => `${c.name}=${c.uuid}`).sort()).to.deep.equal(listed.map((c) => `${c.name}=${c.uuid}`).sort());
    expect(listed.find((c) => c.name === 'cell0')?.db).to.contain(`/${CELL_DB}_cell0`);
    expect(listed.find((c) => c.name === 'cell1')?.db).to.contain(`/${CELL_DB}?`);
    // DBArchive was reached once the database synced: the CronJob is projected, nothing has run yet
    expect(status.conditions?.find((c) => c.type === 'DBArchiveReady')).to.include({ status: 'True', reason: 'DBArchiveScheduled' });
  });

  it('a second db-sync (a changed spec makes a new Job) leaves exactly one cell1, read back with a real list_cells', async function () {
    this.timeout(240_000);
    const before = await listCells();
    await rig.apply(spec('2025.1', { image: 'ghcr.io/c5c3/nova:2025.1-p1' }));
    const job = () => rig.jobs.get('default', `${NAME}-db-sync`);
    const firstUid = (await job())?.uid;
    const status = await rig.until((s) => s.conditions?.find((c) => c.type === 'DatabaseReady')?.reason === 'DatabaseSynced', { pollMs: 1000 });
    expect((await job())?.uid, 'the db-sync Job was re-created').to.not.equal(firstUid);
    const after = await listCells();
    expect(after.filter((c) => c.name === 'cell1')).to.have.length(1);
    expect(after).to.deep.equal(before);
    expect(status.cells?.find((c) => c.name === 'cell1')?.uuid).to.equal(before.find((c) => c.name === 'cell1')?.uuid);
  });

  it('a release bump runs expand (nova-status + both syncs), migrate, waits for the roles, contracts (cell schema, then cell0) and promotes', async function () {
    this.timeout(400_000);
    await rig.apply(spec('2025.2'));
    const reasons: string[] = [];
    const status = await rig.until(
      (s) => {
        const r = s.conditions?.find((c) => c.type === 'DatabaseReady');
        if (r && reasons.at(-1) !== r.reason) reasons.push(r.reason);
        return (r?.reason === 'DatabaseSynced' && s.installedRelease === '2025.2') || /Failed$/.test(r?.reason ?? '');
      },
      { pollMs: 1000, maxPasses: 300 },
    );
    const ready = status.conditions?.find((c) => c.type === 'DatabaseReady');
    expect(ready, `${JSON.stringify(ready)}; reasons: ${reasons.join(' → ')}`).to.include({ status: 'True', reason: 'DatabaseSynced' });
    expect(status.installedRelease).to.equal('2025.2');
    expect(status.upgradePhase).to.equal(undefined);
    for (const phase of ['ExpandInProgress', 'MigrateInProgress', 'ContractInProgress']) expect(reasons, reasons.join(' → ')).to.include(phase);
    for (const job of ['db-expand', 'db-migrate', 'db-contract']) expect((await rig.jobs.get('default', `${NAME}-${job}`))?.state, job).to.equal('succeeded');
    // the history says so, step by step
    const events = (await rig.store.readStream(`nova-database-${(await rig.source.get('Nova', 'default', NAME))!.metadata.uid}`)).map((e) => e.type);
    for (const type of ['novaUpgrade.upgradeStarted', 'novaUpgrade.expandJobCreated', 'novaUpgrade.expanded', 'novaUpgrade.migrateJobCreated', 'novaUpgrade.migrated', 'novaUpgrade.rolledOut', 'novaUpgrade.contractJobCreated', 'novaUpgrade.contracted', 'novaUpgrade.rolesStamped']) {
      expect(events, type).to.include(type);
    }
    expect((await listCells()).filter((c) => c.name === 'cell1')).to.have.length(1);
  });

  it('the archive CronJob runs the archive loop for real (nothing archived is exit 0), with and without a retention window, and DBArchiveReady reports the run', async function () {
    this.timeout(180_000);
    const base = spec('2025.2');
    let firing = 0;
    for (const dbArchive of [{ schedule: '*/5 * * * *', maxRows: 100 }, { schedule: '*/5 * * * *', maxRows: 100, retentionDays: 90 }]) {
      firing++;
      await rig.apply({ ...base, dbArchive });
      await rig.pass(); // the CronJob is projected again (its template changed)
      const started = await rig.jobs.tick(new Date(Date.now() + firing * 5 * 60_000)); // the next firing, as the scheduler would see it
      expect(started.started, JSON.stringify(started)).to.have.length(1);
      const [ns, run] = started.started[0]!.split('/') as [string, string];
      let job = await rig.jobs.get(ns, run);
      for (let i = 0; i < 240 && job?.state === 'running'; i++) {
        await new Promise((r) => setTimeout(r, 500));
        job = await rig.jobs.get(ns, run);
      }
      expect(job?.state, `${run}: ${job?.failureMessage}`).to.equal('succeeded');
      await rig.pass();
      const archive = await rig.condition('DBArchiveReady');
      expect(archive, JSON.stringify(archive)).to.include({ status: 'True', reason: 'DBArchiveScheduled' });
      expect(archive?.message).to.contain(run).and.contain('succeeded');
    }
  });

  it("real exit codes: nova-status without its [placement] settings answers 2, so the expand Job fails (ExpandFailed, the phase kept); abort deletes it", async function () {
    this.timeout(240_000);
    const { extraConfig: _dropped, ...bare } = spec('2026.1');
    await rig.apply(bare);
    const failed = await rig.until((s) => /Failed$/.test(s.conditions?.find((c) => c.type === 'DatabaseReady')?.reason ?? '') || s.installedRelease === '2026.1', { pollMs: 1000 });
    const ready = failed.conditions?.find((c) => c.type === 'DatabaseReady');
    expect(ready, JSON.stringify(ready)).to.include({ status: 'False', reason: 'ExpandFailed' });
    expect(ready?.message).to.contain('exit code 2');
    expect(failed.upgradePhase).to.equal('Expanding');
    expect(failed.installedRelease).to.equal('2025.2');
    // abort: the spec back at the installed release
    await rig.apply(spec('2025.2'));
    const aborted = await rig.until((s) => s.upgradePhase === undefined && s.conditions?.find((c) => c.type === 'DatabaseReady')?.status === 'True', { pollMs: 500 });
    expect(aborted.installedRelease).to.equal('2025.2');
    expect(await rig.jobs.get('default', `${NAME}-db-expand`), 'the failed expand Job was deleted').to.equal(undefined);
  });
});
