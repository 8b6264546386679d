/**
 * Issue 14 end to end without a MariaDB or a real nova-manage (npm test): the Nova controller's pass, the engine,
 * the local JobRunner running the rendered scripts as real child processes against a scripted nova-manage and
 * nova-status, the status runner, Kubernetes Events. The provisioner is a recording fake here (the SQL adapter is
 * proven against a real MariaDB in test/nova/database-sql.test.ts and the real suite); everything else is real.
 * test/real-openstack/nova-manage.openstack.ts runs the same flow on the sandbox's genuine Zed nova-manage.
 */
import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlockPlan, ProvisionOutcome } from '../../src/nova/database/port.js';
import { RecordingProvisionerBase } from '../nova/support/recording-provisioner.js';
import { listCellsTableShell, SCRIPTED_CELL1 } from '../nova/support/list-cells-table.js';
import type { NovaSpec } from '../../src/resources/nova.js';
import { openNovaRig, type NovaRig, type NovaStatusView } from '../nova/support/nova-rig.js';
import { Registry } from 'prom-client';
import { NovaMetrics } from '../../src/observability/nova-metrics.js';
import { WorkloadError, type NovaRole } from '../../src/nova/workloads/port.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const NAME = 'nova';
const CELL1 = SCRIPTED_CELL1;

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
${listCellsTableShell(state)}
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
class RecordingProvisioner extends RecordingProvisionerBase {
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
    rig = await openNovaRig({ name: NAME, provisioner, databaseEndpoint: async () => ({ host: '10.0.0.4', port: 3306 }), binDir: bin, jobsUnavailable: () => unavailable, settings: { keystoneURL: 'http://127.0.0.1:5000/v3', regionName: 'RegionOne' } });
  });
  afterEach(async () => {
    await rig.close();
    rmSync(bin, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  });

  it('without its Secrets the Nova waits on SecretsReady=WaitingForDBCredentials, provisions nothing, runs no Job and starts no role; the steps behind the gate say NotReached and Ready is False', async () => {
    await rig.apply(spec('2025.1'));
    await rig.pass();
    const s = await rig.status();
    expect(cond(s, 'SecretsReady')).to.include({ status: 'False', reason: 'WaitingForDBCredentials' });
    expect(cond(s, 'SecretsReady')?.message).to.contain('nova-api-db');
    expect(cond(s, 'DatabaseReady')).to.include({ status: 'False', reason: 'WaitingForDatabase' });
    expect(cond(s, 'Ready')).to.include({ status: 'False', reason: 'NotAllReady' });
    expect(cond(s, 'DatabaseReady')?.message).to.contain('the pipeline ends at the Secrets step');
    for (const type of ['ConductorReady', 'DeploymentReady', 'NovaAPIReady', 'HTTPRouteReady', 'ExtraConfigHealthy']) expect(cond(s, type), type).to.include({ status: 'Unknown', reason: 'NotReached' });
    expect(rig.roleStarts(), 'no role started').to.deep.equal([]);
    expect(cond(s, 'DBArchiveReady')).to.include({ status: 'Unknown', reason: 'NotReached' });
    expect(s.installedRelease).to.equal(undefined);
    expect(provisioner.plans).to.deep.equal([]);
    expect(await rig.jobs.get('default', `${NAME}-db-sync`)).to.equal(undefined);
  });

  it('the gates in order: the service-user password, then the transport URL, then the MariaDB cluster, then a runner that can run nova-manage', async () => {
    await rig.apply(spec('2025.1'));
    await putSecrets(['api', 'cell']);
    await rig.pass();
    expect(cond(await rig.status(), 'SecretsReady')).to.include({ status: 'False', reason: 'WaitingForServiceUserCredentials' });
    await putSecrets(['service']);
    await rig.pass();
    const messaging = cond(await rig.status(), 'SecretsReady');
    expect(messaging).to.include({ status: 'False', reason: 'WaitingForMessagingCredentials' });
    expect(messaging?.message).to.contain('rabbitmq-rabbitmq');
    await putSecrets(['rabbit']);
    provisioner.answer = { kind: 'clusterNotReady', message: 'no Secret "default/mariadb-mariadb" describes it' };
    await rig.pass();
    expect(cond(await rig.status(), 'SecretsReady')).to.include({ status: 'True', reason: 'SecretsAvailable' });
    expect(cond(await rig.status(), 'DatabaseReady')).to.deep.include({ status: 'False', reason: 'ClusterNotReady', message: 'no Secret "default/mariadb-mariadb" describes it' });
    provisioner.answer = { kind: 'waiting', message: 'Database nova-cell0 is not Ready: creating' };
    await rig.pass();
    expect(reasonOf(await rig.status())).to.equal('WaitingForDatabase');
    provisioner.answer = { kind: 'ready' };
    unavailable = 'found no nova-manage on PATH';
    await rig.pass();
    expect(cond(await rig.status(), 'DatabaseReady')).to.include({ reason: 'WaitingForConfig', message: 'found no nova-manage on PATH' });
    expect(await rig.jobs.get('default', `${NAME}-db-sync`), 'no Job while any gate is closed').to.equal(undefined);
    expect(rig.roleStarts(), 'no role starts before the database is synced').to.deep.equal([]);
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

  for (const watched of [false, true]) {
    it(`outside an upgrade a role still starting does not end the lane: the API step runs in the same pass, and the pass comes back ${watched ? 'on the watches (a 10 min resync), never a poll, where the children are watched (Kubernetes)' : 'in 10 s (not the 60 s synced poll) while it starts'}`, async () => {
      // a workload port whose conductor never finishes starting, every other role rolled out, and a healthy API
      const api = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"versions":[]}'));
      await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
      const endpoint = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      let conductorReady = false;
      const rolled = (role: NovaRole, nova: string) => ({ role, deployment: `${nova}-${role}`, present: true, rolledOut: role !== 'conductor' || conductorReady, detail: role === 'conductor' && !conductorReady ? 'the conductor is still starting' : 'rolled out' });
      const port = {
        rollout: async (_ns: string, nova: string, role: NovaRole) => rolled(role, nova),
        stampInstalledRelease: async () => 'stamped' as const,
        ensure: async (_ns: string, nova: { name: string }, role: NovaRole) => rolled(role, nova.name),
        remove: async () => 'absent' as const,
        endpoint: async () => endpoint,
      };
      try {
        await rig.close();
        rig = await openNovaRig({ name: NAME, provisioner, databaseEndpoint: async () => ({ host: '10.0.0.4', port: 3306 }), binDir: bin, workloads: port, settings: { keystoneURL: 'http://127.0.0.1:5000/v3', regionName: 'RegionOne' }, childrenWatched: watched });
        await rig.apply(spec('2025.1'));
        await putSecrets();
        const waiting = await rig.until((v) => cond(v, 'NovaAPIReady')?.status === 'True');
        expect(cond(waiting, 'ConductorReady')).to.include({ status: 'False', reason: 'WaitingForConductor', message: 'the conductor is still starting' });
        expect(cond(waiting, 'DeploymentReady'), 'the API step ran behind the starting conductor').to.include({ status: 'True' });
        const disposition = await rig.pass();
        expect(disposition).to.deep.include({ kind: 'yield', afterMs: watched ? 600_000 : 10_000 });
        expect((disposition as { why: string }).why).to.contain('ConductorReady');
        conductorReady = true;
        await rig.pass();
        expect(cond(await rig.status(), 'Ready')).to.include({ status: 'True', reason: 'AllReady' });
        expect(await rig.pass(), 'every role ready: the synced poll, or the resync behind the watches').to.deep.include({ kind: 'yield', afterMs: watched ? 600_000 : 60_000 });
      } finally {
        api.close();
      }
    });
  }

  it('a deleted Nova leaves no role process running: the pass that releases its finalizer stops every role, and the next finds it gone', async () => {
    await rig.apply(spec('2025.1'));
    await putSecrets();
    await rig.until((v) => cond(v, 'Ready')?.status === 'True');
    const pids = (['conductor', 'scheduler', 'metadata', 'novncproxy', 'api'] as const).map((role) => rig.roles!.pid('default', NAME, role));
    expect(pids.every((p) => typeof p === 'number'), 'five roles run').to.equal(true);
    await rig.source.delete('Nova', 'default', NAME);
    expect(await rig.pass()).to.deep.include({ kind: 'done', why: 'DatabaseFinalized: the finalizer is released' });
    expect(await rig.source.get('Nova', 'default', NAME), 'the finalizer released, the Nova is gone').to.equal(undefined);
    expect(await rig.pass()).to.deep.include({ kind: 'done', why: 'gone' });
    for (const role of ['conductor', 'scheduler', 'metadata', 'novncproxy', 'api'] as const) expect(rig.roles!.pid('default', NAME, role), role).to.equal(undefined);
    const alive = pids.filter((pid) => {
      try {
        process.kill(pid!, 0);
        return true;
      } catch {
        return false;
      }
    });
    expect(alive, 'no process of a role is left').to.deep.equal([]);
  });

  it('a step that fails ends the pass with its error, and what the lane said is recorded first: ConductorReady False with the port\'s message, nothing behind it touched', async () => {
    await rig.close();
    const failing = {
      rollout: async (_ns: string, nova: string, role: NovaRole) => ({ role, deployment: `${nova}-${role}`, present: false, rolledOut: false, detail: 'absent' }),
      stampInstalledRelease: async () => 'absent' as const,
      ensure: async () => {
        throw new WorkloadError('the workload port refused the conductor: quota exceeded', 403);
      },
      remove: async () => 'absent' as const,
      endpoint: async () => undefined,
    };
    rig = await openNovaRig({ name: NAME, provisioner, databaseEndpoint: async () => ({ host: '10.0.0.4', port: 3306 }), binDir: bin, workloads: failing, settings: { keystoneURL: 'http://127.0.0.1:5000/v3', regionName: 'RegionOne' } });
    await rig.apply(spec('2025.1'));
    await putSecrets();
    let error: unknown;
    let s: NovaStatusView = {};
    for (let i = 0; i < 100 && !(error instanceof WorkloadError); i++) {
      error = undefined;
      await rig.pass().catch((e: unknown) => (error = e));
      s = await rig.status();
      if (!(error instanceof WorkloadError)) await new Promise((r) => setTimeout(r, 100));
    }
    expect(error, 'the pass rethrows the step\'s error').to.be.instanceOf(WorkloadError);
    expect(cond(s, 'ConductorReady')).to.include({ status: 'False', reason: 'WaitingForConductor', message: 'the workload port refused the conductor: quota exceeded' });
    expect(cond(s, 'DatabaseReady')).to.include({ status: 'True', reason: 'DatabaseSynced' });
    expect(cond(s, 'SecretsReady')).to.include({ status: 'True', reason: 'SecretsAvailable' });
    for (const type of ['SchedulerReady', 'DeploymentReady', 'NovaAPIReady']) expect(cond(s, type), type).to.include({ status: 'Unknown', reason: 'NotReached' });
    expect(cond(s, 'SchedulerReady')?.message).to.contain('the pipeline ends at the Conductor step');
  });

  describe('a release upgrade on the embedded default', () => {
    beforeEach(async () => {
      await rig.apply(spec('2025.1'));
      await putSecrets();
      await rig.until(synced);
    });

    it('expand and migrate run with the roles untouched; RollingUpdate rolls conductor, scheduler, metadata, console proxy, then the API onto the new image; contract runs only after; installedRelease promoted', async () => {
      await rig.until((v) => cond(v, 'Ready')?.status === 'True');
      const before = rig.roleStarts().length;
      expect(before, 'the synced Nova runs its five roles').to.equal(5);
      await rig.apply(spec('2025.2'));
      const rolling = await rig.until((v) => v.upgradePhase === 'RollingUpdate');
      expect(rolling.installedRelease).to.equal('2025.1');
      expect(calls()).to.include.members(['nova-status upgrade check', 'cell_v2 list_cells']);
      expect(await events()).to.include('Normal UpgradeStarted');
      expect(rig.roleStarts().length, 'expand and migrate restart no role').to.equal(before);
      const done = await rig.until((v) => v.installedRelease === '2025.2' && v.upgradePhase === undefined && cond(v, 'Ready')?.status === 'True');
      expect(cond(done, 'DatabaseReady')).to.include({ status: 'True', reason: 'DatabaseSynced' });
      // each role restarted onto the new image in the upgrade order, the API last, then the installed-release stamp
      // rolls the four non-API roles once more after the contract
      const restarts = rig.roleStarts().slice(before).map((l) => l.split(' ')[0]);
      expect(restarts.slice(0, 5)).to.deep.equal(['nova-conductor', 'nova-scheduler', 'nova-api-metadata', 'nova-novncproxy', 'nova-api-os-compute']);
      expect(restarts.slice(5)).to.have.members(['nova-conductor', 'nova-scheduler', 'nova-api-metadata', 'nova-novncproxy']);
      // the contract Job was decided only after the pass that saw every role rolled out
      const history = await rig.store.readStream(`nova-database-${(await rig.source.get('Nova', 'default', NAME))!.metadata.uid}`);
      const flip = history.findIndex((e) => e.metadata.from === 'rollingUpdate' && e.metadata.to === 'contracting');
      const contractJob = history.findIndex((e) => e.metadata.effects.some((f) => f.type === 'nova.createJob' && (f as { job?: string }).job === 'contract'));
      expect(flip, 'the RollingUpdate → Contracting flip is recorded').to.be.greaterThan(-1);
      expect(contractJob, 'the contract Job is decided after the flip').to.be.greaterThan(flip);
    });

    it('abort in RollingUpdate: the spec back at the installed release deletes the phase Jobs, clears the phase, and the roles go back to the installed image', async () => {
      await rig.apply(spec('2025.2'));
      await rig.until((v) => v.upgradePhase === 'RollingUpdate');
      await rig.apply(spec('2025.1'));
      const aborted = await rig.until((v) => v.upgradePhase === undefined);
      expect(aborted.installedRelease).to.equal('2025.1');
      for (const job of ['db-expand', 'db-migrate']) expect(await rig.jobs.get('default', `${NAME}-${job}`), job).to.equal(undefined);
      expect(await events()).to.include('Normal UpgradeAborted');
      const back = await rig.until((v) => cond(v, 'Ready')?.status === 'True');
      expect(cond(back, 'DatabaseReady')).to.include({ status: 'True', reason: 'DatabaseSynced' });
      for (const role of ['conductor', 'scheduler', 'metadata', 'novncproxy', 'api'] as const) {
        expect((await rig.roles!.rollout('default', NAME, role, 'ghcr.io/c5c3/nova:2025.1')).rolledOut, role).to.equal(true);
      }
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

  it('issue 27: a db-sync Job that succeeded is counted once on nova_operator_db_sync_total{nova,namespace,job="db-sync",result="succeeded"} with its duration; the pass that releases the finalizer of the deleted Nova drops every series labelled with it', async () => {
    await rig.close();
    const registry = new Registry();
    rig = await openNovaRig({ name: NAME, provisioner, databaseEndpoint: async () => ({ host: '10.0.0.4', port: 3306 }), binDir: bin, settings: { keystoneURL: 'http://127.0.0.1:5000/v3', regionName: 'RegionOne' }, metrics: new NovaMetrics(registry) });
    const perCr = async () => (await registry.metrics()).split('\n').filter((line) => !line.startsWith('#') && line.includes(`nova="${NAME}"`));
    const value = async (series: string) => {
      const line = (await perCr()).find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.split(' ').at(-1));
    };
    const labels = `nova="${NAME}",namespace="default"`;
    await rig.apply(spec('2025.1'));
    await putSecrets();
    await rig.until(synced);
    await rig.pass();
    await rig.pass();
    expect(await value(`nova_operator_db_sync_total{${labels},job="db-sync",result="succeeded"}`), 'one succeeded db-sync, counted once over three passes').to.equal(1);
    expect(await value(`nova_operator_db_sync_total{${labels},job="db-sync",result="failed"}`), 'the failed series exists at 0').to.equal(0);
    expect(await value(`nova_operator_db_sync_duration_seconds_count{${labels},job="db-sync"}`), 'its duration observed').to.equal(1);
    expect(await value(`nova_operator_db_sync_duration_seconds_sum{${labels},job="db-sync"}`)).to.be.at.least(0);
    await rig.source.delete('Nova', 'default', NAME);
    expect(await rig.pass()).to.deep.include({ kind: 'done', why: 'DatabaseFinalized: the finalizer is released' });
    expect(await rig.source.get('Nova', 'default', NAME), 'the finalizer released, the Nova is gone').to.equal(undefined);
    expect(await perCr(), 'no series of the deleted Nova').to.deep.equal([]);
    // the pipeline series are not per CR: they stay
    expect(await registry.metrics()).to.match(/^nova_operator_reconcile_duration_seconds_count\{sub_reconciler="Database"\} [1-9]/m);
  });

  describe('spec.targetClusterRef (issue 27): TargetClusterUnavailable ahead of every step', () => {
    it('a name that is not registered: SecretsReady False TargetClusterUnavailable, 15 s, no finalizer, nothing provisioned, written or started; deleting it needs no cleanup', async () => {
      await putSecrets();
      await rig.apply(spec('2025.1', { targetClusterRef: { name: 'edge' } }));
      const secretsBefore = (await rig.source.secrets.list('default')).map((s) => s.name).sort();
      const disposition = await rig.pass();
      expect(disposition).to.deep.include({ kind: 'yield', afterMs: 15_000 });
      expect((disposition as { why: string }).why).to.contain('TargetClusterUnavailable');
      const s = await rig.status();
      expect(cond(s, 'SecretsReady')).to.include({ status: 'False', reason: 'TargetClusterUnavailable' });
      expect(cond(s, 'SecretsReady')?.message).to.contain('edge');
      expect(cond(s, 'Ready')).to.include({ status: 'False' });
      const object = await rig.source.get('Nova', 'default', NAME);
      expect(object?.metadata.finalizers ?? [], 'no finalizer').to.deep.equal([]);
      expect(provisioner.plans, 'nothing provisioned').to.deep.equal([]);
      expect((await rig.source.secrets.list('default')).map((x) => x.name).sort(), 'no derived Secret').to.deep.equal(secretsBefore);
      expect(calls(), 'no Job').to.deep.equal([]);
      expect(rig.roleStarts(), 'no role').to.deep.equal([]);
      await rig.source.delete('Nova', 'default', NAME);
      expect(await rig.source.get('Nova', 'default', NAME), 'gone at once: no finalizer held it').to.equal(undefined);
      expect(provisioner.deprovisioned).to.deep.equal([]);
    });

    it('a registered name that resolves is not acted on yet: TargetClusterNotSupported, nothing created on either cluster', async () => {
      await rig.close();
      rig = await openNovaRig({ name: NAME, provisioner, databaseEndpoint: async () => ({ host: '10.0.0.4', port: 3306 }), binDir: bin, jobsUnavailable: () => unavailable, targetClusters: { resolve: async (_ns, name) => ({ kind: 'resolved', cluster: { name, server: 'https://127.0.0.1:6443', kubeConfig: new KubeConfig() } }) } });
      await putSecrets();
      await rig.apply(spec('2025.1', { targetClusterRef: { name: 'edge' } }));
      expect(await rig.pass()).to.deep.include({ kind: 'yield', afterMs: 15_000 });
      expect(cond(await rig.status(), 'SecretsReady')).to.include({ status: 'False', reason: 'TargetClusterNotSupported' });
      expect((await rig.source.get('Nova', 'default', NAME))?.metadata.finalizers ?? []).to.deep.equal([]);
      expect(provisioner.plans).to.deep.equal([]);
      expect(calls()).to.deep.equal([]);
    });
  });
});
