/**
 * Issue 14 end to end without a MariaDB or a real nova-manage (npm test): the Nova controller's pass, the engine,
 * the local JobRunner running the rendered scripts as real child processes against a scripted nova-manage and
 * nova-status, the status runner, Kubernetes Events. The provisioner is a recording fake here (the SQL adapter is
 * proven against a real MariaDB in test/nova/database-sql.test.ts and the real suite); everything else is real.
 * test/real-openstack/nova-manage.openstack.ts runs the same flow on the sandbox's genuine Zed nova-manage.
 */
import { expect } from 'chai';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlockPlan, DatabaseProvisioner, ProvisionOutcome } from '../../src/nova/database/port.js';
import type { NovaSpec } from '../../src/resources/nova.js';
import { openNovaRig, type NovaRig, type NovaStatusView } from '../nova/support/nova-rig.js';

const NAME = 'nova';
const CELL1 = '5d3b0a52-3a6e-4c55-9d0e-2f1b6c7a8e91';

/** A scripted nova-manage: records its calls, keeps the cell map in files, answers list_cells with a real-looking table. */
const writeFakeNova = (bin: string, state: string): void => {
  writeFileSync(
    join(bin, 'nova-manage'),
    `#!/bin/sh
while [ "$1" = "--config-file" ]; do shift 2; done
echo "$*" >> ${state}/calls
case "$1 $2" in
  "api_db sync"|"db sync") exit 0 ;;
  "cell_v2 map_cell0") touch ${state}/cell0; exit 0 ;;
  "cell_v2 create_cell") touch ${state}/cell1; exit 0 ;;
  "cell_v2 list_cells")
    echo '+-------+--------------------------------------+---------------+------------------------------------------+----------+'
    echo '|  Name |                 UUID                 | Transport URL |           Database Connection            | Disabled |'
    echo '+-------+--------------------------------------+---------------+------------------------------------------+----------+'
    [ -f ${state}/cell0 ] && echo '| cell0 | 00000000-0000-0000-0000-000000000000 |     none:/    | mysql+pymysql://u:****@db:3306/nova_cell0 |  False   |'
    [ -f ${state}/cell1 ] && echo '| cell1 | ${CELL1} | rabbit://g:****@mq:5672/ | mysql+pymysql://u:****@db:3306/nova?charset=utf8 |  False   |'
    echo '+-------+--------------------------------------+---------------+------------------------------------------+----------+'
    exit 0 ;;
  "db online_data_migrations"|"db archive_deleted_rows") exit 0 ;;
esac
exit 99
`,
  );
  writeFileSync(join(bin, 'nova-status'), `#!/bin/sh\nwhile [ "$1" = "--config-file" ]; do shift 2; done\necho "nova-status $*" >> ${state}/calls\nexit $(cat ${state}/status-exit 2>/dev/null || echo 0)\n`);
  chmodSync(join(bin, 'nova-manage'), 0o755);
  chmodSync(join(bin, 'nova-status'), 0o755);
};

/** A provisioner that records the plans it was handed and answers what the test says. */
class RecordingProvisioner implements DatabaseProvisioner {
  plans: BlockPlan[] = [];
  answer: ProvisionOutcome = { kind: 'ready' };
  passwordsSeen: string[] = [];
  async provision(_namespace: string, plan: BlockPlan, password: (s: { name: string; key: string }) => Promise<string | undefined>): Promise<ProvisionOutcome> {
    this.plans.push(plan);
    for (const step of plan.steps) if (step.kind === 'User') this.passwordsSeen.push((await password(step.passwordSecret)) ?? '<missing>');
    return this.answer;
  }
}

const spec = (release: string, extra: Partial<NovaSpec> = {}): NovaSpec => ({
  image: `ghcr.io/c5c3/nova:${release}`,
  openStackRelease: release,
  database: {
    api: { clusterRef: { name: 'mariadb' }, database: 'nova_api', secretRef: { name: 'nova-api-db' } },
    cell: { clusterRef: { name: 'mariadb' }, database: 'nova', secretRef: { name: 'nova-db' } },
  },
  messaging: { clusterRef: { name: 'rabbitmq' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
  consoleProxy: { enabled: true },
  ...extra,
});

const cond = (s: NovaStatusView, type: string) => s.conditions?.find((c) => c.type === type);
const reasonOf = (s: NovaStatusView) => cond(s, 'DatabaseReady')?.reason ?? '';

describe('issue 14 end to end: the Nova Database step on the embedded default (scripted nova-manage)', function () {
  this.timeout(60_000);
  let rig: NovaRig;
  let bin: string;
  let state: string;
  let provisioner: RecordingProvisioner;
  let unavailable: string | null;

  const putSecrets = async (which: Array<'api' | 'cell' | 'service' | 'rabbit'> = ['api', 'cell', 'service', 'rabbit']) => {
    if (which.includes('api')) await rig.source.secrets.put('default', 'nova-api-db', { username: 'nova_api', password: 'api-s3cret-value' });
    if (which.includes('cell')) await rig.source.secrets.put('default', 'nova-db', { username: 'nova', password: 'cell-s3cret-value' });
    if (which.includes('service')) await rig.source.secrets.put('default', 'nova-service-user', { password: 'svc-s3cret-value' });
    if (which.includes('rabbit')) await rig.source.secrets.put('default', 'rabbitmq-rabbitmq', { url: 'rabbit://nova:mq-s3cret-value@10.0.0.5:5672/' });
  };
  const calls = () => (existsSync(join(state, 'calls')) ? readFileSync(join(state, 'calls'), 'utf8').trim().split('\n') : []);
  const synced = (s: NovaStatusView) => cond(s, 'DatabaseReady')?.status === 'True';
  const events = async () => (await rig.source.listEvents()).map((e) => `${e.type} ${e.reason}`);

  beforeEach(async () => {
    bin = mkdtempSync(join(tmpdir(), 'regent-fake-nova-bin-'));
    state = mkdtempSync(join(tmpdir(), 'regent-fake-nova-state-'));
    writeFakeNova(bin, state);
    provisioner = new RecordingProvisioner();
    unavailable = null;
    rig = await openNovaRig({ name: NAME, provisioner, databaseEndpoint: async () => ({ host: '10.0.0.4', port: 3306 }), binDir: bin, jobsUnavailable: () => unavailable });
  });
  afterEach(async () => {
    await rig.close();
    rmSync(bin, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  });

  it('without its Secrets the Nova waits on SecretsReady=WaitingForDBCredentials, provisions nothing and runs no Job; the steps not built say NotImplemented and Ready is False', async () => {
    await rig.apply(spec('2025.1'));
    await rig.pass();
    const s = await rig.status();
    expect(cond(s, 'SecretsReady')).to.include({ status: 'False', reason: 'WaitingForDBCredentials' });
    expect(cond(s, 'SecretsReady')?.message).to.contain('nova-api-db');
    expect(cond(s, 'DatabaseReady')).to.include({ status: 'False', reason: 'WaitingForDatabase' });
    expect(cond(s, 'Ready')).to.include({ status: 'False', reason: 'NotAllReady' });
    for (const type of ['ConductorReady', 'DeploymentReady', 'NovaAPIReady', 'HTTPRouteReady', 'ExtraConfigHealthy']) expect(cond(s, type), type).to.include({ status: 'Unknown', reason: 'NotImplemented' });
    expect(cond(s, 'DBArchiveReady')).to.include({ status: 'Unknown', reason: 'NotReached' });
    expect(s.installedRelease).to.equal(undefined);
    expect(provisioner.plans).to.deep.equal([]);
    expect(await rig.jobs.get('default', `${NAME}-db-sync`)).to.equal(undefined);
  });

  it('the gates in order: the service-user password, then the MariaDB cluster, then the transport URL, then a runner that can run nova-manage', async () => {
    await rig.apply(spec('2025.1'));
    await putSecrets(['api', 'cell']);
    await rig.pass();
    expect(cond(await rig.status(), 'SecretsReady')).to.include({ status: 'False', reason: 'WaitingForServiceUserCredentials' });
    await putSecrets(['service']);
    provisioner.answer = { kind: 'clusterNotReady', message: 'no Secret "default/mariadb-mariadb" describes it' };
    await rig.pass();
    expect(cond(await rig.status(), 'DatabaseReady')).to.deep.include({ status: 'False', reason: 'ClusterNotReady', message: 'no Secret "default/mariadb-mariadb" describes it' });
    provisioner.answer = { kind: 'waiting', message: 'Database nova-cell0 is not Ready: creating' };
    await rig.pass();
    expect(reasonOf(await rig.status())).to.equal('WaitingForDatabase');
    provisioner.answer = { kind: 'ready' };
    await rig.pass();
    const waiting = cond(await rig.status(), 'DatabaseReady');
    expect(waiting).to.include({ reason: 'WaitingForConfig' });
    expect(waiting?.message).to.contain('rabbitmq-rabbitmq');
    await putSecrets(['rabbit']);
    unavailable = 'found no nova-manage on PATH';
    await rig.pass();
    expect(cond(await rig.status(), 'DatabaseReady')).to.include({ reason: 'WaitingForConfig', message: 'found no nova-manage on PATH' });
    expect(await rig.jobs.get('default', `${NAME}-db-sync`), 'no Job while any gate is closed').to.equal(undefined);
    // the plan the provisioner was handed: nova_api under nova-api, the cell block with cell0 under nova
    expect(provisioner.plans.map((p) => `${p.instance}:${p.steps.map((s) => s.kind).join(',')}`)).to.include.members(['nova-api:Database,User,Grant', 'nova:Database,Database,User,Grant,Grant']);
  });

  it('db-sync: the eight-command script runs, cells are published from its report, installedRelease promoted; credentials reach the Job only through the derived Secrets', async () => {
    await rig.apply(spec('2025.1'));
    await putSecrets();
    const s = await rig.until(synced);
    expect(cond(s, 'DatabaseReady')).to.include({ status: 'True', reason: 'DatabaseSynced' });
    expect(s.installedRelease).to.equal('2025.1');
    expect(s.cells).to.deep.equal([
      { name: 'cell0', uuid: '00000000-0000-0000-0000-000000000000' },
      { name: 'cell1', uuid: CELL1 },
    ]);
    expect(calls()).to.deep.equal([
      'api_db sync',
      "cell_v2 map_cell0 --database_connection {scheme}://{username}:{password}@{hostname}:{port}/nova_cell0?{query}",
      'cell_v2 list_cells',
      'cell_v2 create_cell --name cell1 --transport-url {scheme}://{username}:{password}@{hostname}:{port}/{path} --database_connection {scheme}://{username}:{password}@{hostname}:{port}/nova?{query}',
      'db sync',
      'cell_v2 list_cells',
    ]);
    const dsn = await rig.source.secrets.get('default', `${NAME}-db-connection`);
    expect(dsn?.data).to.deep.equal({ connection: 'mysql+pymysql://nova:cell-s3cret-value@10.0.0.4:3306/nova?charset=utf8', cell0Connection: 'mysql+pymysql://nova:cell-s3cret-value@10.0.0.4:3306/nova_cell0?charset=utf8' });
    expect((await rig.source.secrets.get('default', `${NAME}-transport-url`))?.data.url).to.equal('rabbit://nova:mq-s3cret-value@10.0.0.5:5672/');
    // no secret value in any stored event
    const all = JSON.stringify(await rig.store.readAll({ after: 0, maxCount: 10_000 }));
    for (const secret of ['api-s3cret-value', 'cell-s3cret-value', 'svc-s3cret-value', 'mq-s3cret-value']) expect(all).to.not.contain(secret);
    // the archive step is reached once synced
    await rig.pass();
    expect(cond(await rig.status(), 'DBArchiveReady')).to.include({ status: 'True', reason: 'DBArchiveScheduled' });
  });

  it('a db-sync that fails is DBSyncFailed with a Warning, not retried until the spec changes', async () => {
    writeFileSync(join(bin, 'nova-manage'), '#!/bin/sh\necho "nova-manage: cannot reach the database" >&2\nexit 1\n');
    await rig.apply(spec('2025.1'));
    await putSecrets();
    const s = await rig.until((v) => reasonOf(v) === 'DBSyncFailed');
    expect(cond(s, 'DatabaseReady')?.message).to.contain('exit code 1');
    const uid = (await rig.jobs.get('default', `${NAME}-db-sync`))?.uid;
    await rig.pass();
    await rig.pass();
    expect((await rig.jobs.get('default', `${NAME}-db-sync`))?.uid, 'the same failed Job: no re-create').to.equal(uid);
    expect((await events()).filter((e) => e === 'Warning DBSyncFailed'), 'one Warning, polling emits no more').to.have.length(1);
  });

  describe('a release upgrade on the embedded default', () => {
    beforeEach(async () => {
      await rig.apply(spec('2025.1'));
      await putSecrets();
      await rig.until(synced);
    });

    it('expand and migrate run; RollingUpdate then waits, saying the embedded default runs no role Deployments; abort deletes the phase Jobs and clears the phase', async () => {
      await rig.apply(spec('2025.2'));
      const rolling = await rig.until((v) => reasonOf(v) === 'UpgradeRollingUpdate' && (cond(v, 'DatabaseReady')?.message ?? '').includes('waiting for'));
      expect(rolling.upgradePhase).to.equal('RollingUpdate');
      expect(rolling.installedRelease).to.equal('2025.1');
      expect(cond(rolling, 'DatabaseReady')?.message).to.contain('no Deployment nova-conductor');
      expect(calls()).to.include.members(['nova-status upgrade check', 'cell_v2 list_cells']);
      expect(await events()).to.include('Normal UpgradeStarted');
      expect((await rig.jobs.get('default', `${NAME}-db-contract`)), 'no contract before every role rolled out').to.equal(undefined);
      // abort: the spec back at the installed release
      await rig.apply(spec('2025.1'));
      const aborted = await rig.until((v) => v.upgradePhase === undefined);
      expect(aborted.installedRelease).to.equal('2025.1');
      for (const job of ['db-expand', 'db-migrate']) expect(await rig.jobs.get('default', `${NAME}-${job}`), job).to.equal(undefined);
      expect(await events()).to.include('Normal UpgradeAborted');
      expect(cond(await rig.until(synced), 'DatabaseReady')).to.include({ status: 'True', reason: 'DatabaseSynced' });
    });

    it('a failed upgrade check (nova-status exit 2) keeps Expanding as ExpandFailed with one Warning; a warning (exit 1) goes on', async () => {
      writeFileSync(join(state, 'status-exit'), '2');
      await rig.apply(spec('2025.2'));
      const failed = await rig.until((v) => reasonOf(v) === 'ExpandFailed');
      expect(failed.upgradePhase).to.equal('Expanding');
      await rig.pass();
      expect((await events()).filter((e) => e === 'Warning ExpandFailed')).to.have.length(1);
      expect(calls().filter((c) => c === 'api_db sync'), 'no sync after a failed check: only the db-sync of the install').to.have.length(1);
    });

    it('exit 1 from the upgrade check is a warning: the expand goes on to both syncs', async () => {
      writeFileSync(join(state, 'status-exit'), '1');
      await rig.apply(spec('2025.2'));
      await rig.until((v) => reasonOf(v) === 'UpgradeRollingUpdate');
      expect(calls().filter((c) => c === 'api_db sync')).to.have.length(2);
    });

    it('lockstep: a release bump whose image tag names the old release runs no Job (ImageReleaseMismatch, a Warning)', async () => {
      await rig.apply(spec('2025.2', { image: 'ghcr.io/c5c3/nova:2025.1' }));
      await rig.pass();
      const s = await rig.status();
      expect(cond(s, 'DatabaseReady')).to.include({ status: 'False', reason: 'ImageReleaseMismatch' });
      expect(s.upgradePhase).to.equal(undefined);
      expect(await rig.jobs.get('default', `${NAME}-db-expand`)).to.equal(undefined);
      expect(await events()).to.include('Warning ImageReleaseMismatch');
    });

    it('a non-sequential jump is UpgradePathInvalid and a downgrade DowngradeNotSupported; nothing runs', async () => {
      await rig.apply(spec('2026.2'));
      await rig.pass();
      expect(reasonOf(await rig.status())).to.equal('UpgradePathInvalid');
      await rig.apply(spec('2024.2'));
      await rig.pass();
      expect(reasonOf(await rig.status())).to.equal('DowngradeNotSupported');
      expect(await rig.jobs.get('default', `${NAME}-db-expand`)).to.equal(undefined);
    });
  });
});
