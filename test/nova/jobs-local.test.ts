/**
 * The local JobRunner with real child processes running small scripts: states from the files, the exit code and
 * the last output in a failure, the termination log, env from Secrets, a clean environment, 409, delete killing
 * the process group, a restarted runner over the same folder, a lost process, the deadline, and the archive
 * scheduler driven by `tick(now)`. No timed assertions: scripts wait on gate files the test creates, and the test
 * polls for a state with a bounded wait.
 */
import { expect } from 'chai';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalJobRunner, type LocalJobRunnerOptions } from '../../src/nova/jobs/local.js';
import { JobRunnerError, type CronJobSpec, type DatabaseTlsMount, type JobSpec, type ObservedJob } from '../../src/nova/jobs/port.js';
import { eventually } from '../kube/support/fixtures.js';

const NS = 'openstack';
const NOVA = { kind: 'Nova' as const, name: 'nova', uid: 'nova-uid-1' };
const SECRET_VALUE = 'pa55-w0rd-never-on-disk';
const WAIT = 15_000;

const jobSpec = (script: string, overrides: Partial<JobSpec> = {}): JobSpec => ({
  namespace: NS,
  name: 'nova-db-sync',
  owner: NOVA,
  labels: { 'app.kubernetes.io/name': 'nova', 'app.kubernetes.io/component': 'db-sync' },
  image: 'registry.example/nova:2025.1',
  script,
  env: [],
  config: { name: 'nova-config-0123abcd', files: { 'nova.conf': '[DEFAULT]\ndebug = false\n' } },
  templateHash: 'aaaaaaaaaaaaaaaa',
  ...overrides,
});

const ARCHIVE_LABELS = { 'app.kubernetes.io/name': 'nova', 'app.kubernetes.io/component': 'db-archive' };
const cronSpec = (script: string, overrides: Partial<CronJobSpec> = {}): CronJobSpec => ({
  namespace: NS,
  name: 'nova-db-archive',
  owner: NOVA,
  labels: ARCHIVE_LABELS,
  schedule: '*/5 * * * *',
  suspend: false,
  image: 'registry.example/nova:2025.1',
  script,
  env: [],
  config: { name: 'nova-config-0123abcd', files: { 'nova.conf': '[DEFAULT]\n' } },
  templateHash: 'cccccccccccccccc',
  concurrencyPolicy: 'Forbid',
  activeDeadlineSeconds: 3600,
  ...overrides,
});

const rejection = async (p: Promise<unknown>): Promise<JobRunnerError> => {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call should have failed').to.be.instanceOf(JobRunnerError);
  return error as JobRunnerError;
};

const pidGone = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
};

/** Every file below `dir`, read as text. */
const allText = (dir: string): string =>
  readdirSync(dir, { withFileTypes: true })
    .map((d) => (d.isDirectory() ? allText(join(dir, d.name)) : readFileSync(join(dir, d.name), 'utf8')))
    .join('\n');

describe('nova jobs: the local JobRunner', () => {
  let dir: string;
  let work: string;
  let secrets: Map<string, string>;
  let runners: LocalJobRunner[];
  const open = (options: Partial<LocalJobRunnerOptions> = {}): LocalJobRunner => {
    const runner = new LocalJobRunner({ dir, readSecret: async (ns, name, key) => secrets.get(`${ns}/${name}/${key}`), ...options });
    runners.push(runner);
    return runner;
  };
  const jobJson = (name = 'nova-db-sync'): { uid: string; pid: number; createdAt: string; activeDeadlineSeconds: number | null } => JSON.parse(readFileSync(join(dir, 'jobs', NS, name, 'job.json'), 'utf8'));
  const gate = (name: string): string => join(work, name);
  const release = (name: string): void => writeFileSync(gate(name), '');
  /** A script that runs until the test creates the gate file. */
  const held = (name: string, then = 'true'): string => `while [ ! -f '${gate(name)}' ]; do sleep 0.05; done\n${then}`;
  const until = (runner: LocalJobRunner, state: ObservedJob['state'], name = 'nova-db-sync'): Promise<ObservedJob> =>
    eventually(
      async () => {
        const job = await runner.get(NS, name);
        return job?.state === state ? job : undefined;
      },
      WAIT,
      `${name} ${state}`,
    );

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-local-jobs-'));
    work = mkdtempSync(join(tmpdir(), 'regent-local-work-'));
    secrets = new Map([[`${NS}/nova-db/password`, SECRET_VALUE]]);
    runners = [];
  });
  afterEach(async () => {
    for (const runner of runners) await runner.close();
    const jobs = join(dir, 'jobs', NS);
    for (const name of existsSync(jobs) ? readdirSync(jobs) : []) {
      try {
        const { pid } = JSON.parse(readFileSync(join(jobs, name, 'job.json'), 'utf8')) as { pid: number | null };
        if (pid) process.kill(-pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    rmSync(dir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  describe('states from the files', () => {
    it('a script that exits 0 is succeeded, with finishedAt, and its termination log is the message', async () => {
      const runner = open();
      await runner.create(jobSpec(`echo migrating\nprintf 'cell0=00000000-0000-0000-0000-000000000000\\ncell1=11111111-1111-1111-1111-111111111111\\n' > /dev/termination-log`));
      const job = await until(runner, 'succeeded');
      expect(job.uid).to.equal(jobJson().uid);
      expect(job.templateHash).to.equal('aaaaaaaaaaaaaaaa');
      expect(job.finishedAt).to.be.a('string');
      // startedAt: when the runner spawned the child (the mtime of `started`), never after it finished
      expect(job.startedAt).to.equal(statSync(join(dir, 'jobs', NS, 'nova-db-sync', 'started')).mtime.toISOString());
      expect(Date.parse(job.startedAt!)).to.be.at.most(Date.parse(job.finishedAt!));
      expect(await runner.terminationMessage(job)).to.equal('cell0=00000000-0000-0000-0000-000000000000\ncell1=11111111-1111-1111-1111-111111111111\n');
      expect(readFileSync(runner.outputPath(NS, 'nova-db-sync'), 'utf8')).to.equal('migrating\n');
    });

    it('a script that exits non-zero is failed: the message names the exit code and the last lines of output', async () => {
      const runner = open();
      await runner.create(jobSpec('echo first\necho second >&2\nexit 3'));
      const job = await until(runner, 'failed');
      expect(job.failureMessage).to.equal('exit code 3; last output: first | second');
    });

    it('the script runs under sh -eu: an unset variable or a failing command stops it', async () => {
      const runner = open();
      await runner.create(jobSpec('echo "$NOT_SET"\necho unreachable > /dev/termination-log'));
      const job = await until(runner, 'failed');
      expect(job.failureMessage).to.match(/^exit code 2; /);
      expect(await runner.terminationMessage(job)).to.equal(null);
      await runner.delete(NS, 'nova-db-sync');
      await runner.create(jobSpec('false\necho unreachable > /dev/termination-log'));
      expect((await until(runner, 'failed')).failureMessage).to.match(/^exit code 1; no output$/);
    });

    it('credentials in URLs are masked in the failure message', async () => {
      const runner = open();
      await runner.create(jobSpec('echo "cannot connect to mysql+pymysql://nova:s3cr3t@db.example:3306/nova"\nexit 1'));
      const job = await until(runner, 'failed');
      expect(job.failureMessage).to.contain('mysql+pymysql://nova:***@db.example:3306/nova');
      expect(job.failureMessage).to.not.contain('s3cr3t');
    });

    it('a script still running is running', async () => {
      const runner = open();
      await runner.create(jobSpec(held('go')));
      expect((await runner.get(NS, 'nova-db-sync'))?.state).to.equal('running');
      release('go');
      await until(runner, 'succeeded');
    });

    it('an absent Job is undefined', async () => {
      expect(await open().get(NS, 'nova-db-sync')).to.equal(undefined);
    });

    it('output is capped, and a chatty script is not killed by the cap', async () => {
      const runner = open({ outputLimitBytes: 100 });
      await runner.create(jobSpec('i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done\nexit 4'));
      const job = await until(runner, 'failed');
      expect(job.failureMessage).to.equal('exit code 4; last output: line 1995 | line 1996 | line 1997 | line 1998 | line 1999');
      const log = readFileSync(runner.outputPath(NS, 'nova-db-sync'), 'utf8');
      expect(log.length).to.be.lessThan(200);
      expect(log).to.contain('[regent: output capped at 100 bytes]');
    });

    it('backoffLimit retries the script; the attempts share the Job', async () => {
      const counter = join(work, 'attempts');
      const flaky = `n=$(cat '${counter}' 2>/dev/null || echo 0); echo $((n+1)) > '${counter}'; [ "$n" -ge 1 ]; echo ok > /dev/termination-log`;
      const runner = open();
      await runner.create(jobSpec(flaky, { backoffLimit: 1 }));
      const job = await until(runner, 'succeeded');
      expect(readFileSync(counter, 'utf8').trim()).to.equal('2');
      expect(await runner.terminationMessage(job)).to.equal('ok\n');
      rmSync(counter);
      await runner.delete(NS, 'nova-db-sync');
      await runner.create(jobSpec(flaky));
      await until(runner, 'failed');
      expect(readFileSync(counter, 'utf8').trim()).to.equal('1');
    });
  });

  describe('the child environment', () => {
    it('the config files are in a directory of the Job own, as $NOVA_CONFIG_DIR; $TERMINATION_LOG is the rewritten path', async () => {
      const runner = open();
      await runner.create(jobSpec('cat "$NOVA_CONFIG_DIR/nova.conf" > /dev/termination-log\n[ "$TERMINATION_LOG" = "$NOVA_CONFIG_DIR/../termination-log" ] || [ "$(cd "$NOVA_CONFIG_DIR/.." && pwd)/termination-log" = "$TERMINATION_LOG" ]'));
      const job = await until(runner, 'succeeded');
      expect(await runner.terminationMessage(job)).to.equal('[DEFAULT]\ndebug = false\n');
      expect(runner.terminationLogPath(NS, 'nova-db-sync')).to.equal(join(dir, 'jobs', NS, 'nova-db-sync', 'termination-log'));
    });

    it('env: literal values and secretKeyRef values, the Secret value never written to disk by the runner', async () => {
      const seen = join(work, 'seen');
      const runner = open();
      await runner.create(
        jobSpec(`printf '%s %s' "$OS_DEBUG" "$DB_PASSWORD" > '${seen}'`, {
          env: [
            { name: 'OS_DEBUG', value: 'false' },
            { name: 'DB_PASSWORD', secretKeyRef: { name: 'nova-db', key: 'password' } },
          ],
        }),
      );
      await until(runner, 'succeeded');
      expect(readFileSync(seen, 'utf8')).to.equal(`false ${SECRET_VALUE}`);
      expect(allText(dir)).to.not.contain(SECRET_VALUE);
    });

    it('a missing Secret key refuses create, naming the Secret and the key, and leaves no Job', async () => {
      secrets.clear();
      const runner = open();
      const error = await rejection(runner.create(jobSpec('true', { env: [{ name: 'DB_PASSWORD', secretKeyRef: { name: 'nova-db', key: 'password' } }] })));
      expect(error.message).to.contain(`Secret ${NS}/nova-db`);
      expect(error.message).to.contain('"password"');
      expect(await runner.get(NS, 'nova-db-sync')).to.equal(undefined);
    });

    it('Regent environment is not inherited (it may hold credentials); binDir comes first on PATH', async () => {
      const bin = join(work, 'bin');
      mkdirSync(bin);
      writeFileSync(join(bin, 'nova-manage'), '#!/bin/sh\necho "fake nova-manage $*"\n');
      chmodSync(join(bin, 'nova-manage'), 0o755);
      process.env.REGENT_TEST_CREDENTIAL = 'do-not-leak';
      try {
        const runner = open({ binDir: bin });
        await runner.create(jobSpec('{ nova-manage api_db sync; echo "cred=${REGENT_TEST_CREDENTIAL:-unset}"; } > /dev/termination-log'));
        const job = await until(runner, 'succeeded');
        expect(await runner.terminationMessage(job)).to.equal('fake nova-manage api_db sync\ncred=unset\n');
      } finally {
        delete process.env.REGENT_TEST_CREDENTIAL;
      }
    });

    it('the child leads a process group of its own (it survives a Regent restart)', async () => {
      const runner = open();
      await runner.create(jobSpec(held('go')));
      const { pid } = jobJson();
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      expect(pgrp).to.equal(pid);
    });
  });

  describe('database TLS files (spec.database.<block>.tls): written at 0400 into a private directory the DSNs name', () => {
    const CA = '-----BEGIN CERTIFICATE-----\nca-v1\n-----END CERTIFICATE-----\n';
    const KEY = '-----BEGIN PRIVATE KEY-----\nkey-v1\n-----END PRIVATE KEY-----\n';
    const mount = (runner: LocalJobRunner, over: Partial<DatabaseTlsMount> = {}): DatabaseTlsMount => ({
      block: 'cell',
      dir: runner.databaseTlsDir(NS, 'nova', 'cell'),
      files: [
        { secret: 'db-ca', key: 'ca.crt', path: 'ca.crt' },
        { secret: 'nova-db-client', key: 'tls.crt', path: 'tls.crt' },
        { secret: 'nova-db-client', key: 'tls.key', path: 'tls.key' },
      ],
      ...over,
    });
    const mode = (path: string): number => statSync(path).mode & 0o777;
    beforeEach(() => {
      secrets.set(`${NS}/db-ca/ca.crt`, CA);
      secrets.set(`${NS}/nova-db-client/tls.crt`, 'client-cert-v1');
      secrets.set(`${NS}/nova-db-client/tls.key`, KEY);
    });

    it('databaseTlsDir is <dir>/tls/<namespace>/<nova>/<block>: one per Nova and block, shared by its Jobs', () => {
      const runner = open();
      expect(runner.databaseTlsDir(NS, 'nova', 'api')).to.equal(join(dir, 'tls', NS, 'nova', 'api'));
      expect(runner.databaseTlsDir(NS, 'nova', 'cell')).to.equal(join(dir, 'tls', NS, 'nova', 'cell'));
      expect(() => runner.databaseTlsDir(NS, '../x', 'cell')).to.throw(JobRunnerError);
    });

    it('the files are written before the child starts, mode 0400 in directories of mode 0700, and the child reads them where the DSN points', async () => {
      const runner = open();
      const tls = mount(runner);
      await runner.create(jobSpec(`cat '${tls.dir}/ca.crt' '${tls.dir}/tls.key' > /dev/termination-log`, { databaseTls: [tls] }));
      const job = await until(runner, 'succeeded');
      expect(await runner.terminationMessage(job)).to.equal(`${CA}${KEY}`);
      for (const file of ['ca.crt', 'tls.crt', 'tls.key']) expect(mode(join(tls.dir, file)), file).to.equal(0o400);
      for (const d of [tls.dir, join(dir, 'tls', NS, 'nova'), join(dir, 'tls', NS), join(dir, 'tls')]) expect(mode(d), d).to.equal(0o700);
      expect(readFileSync(join(tls.dir, 'tls.crt'), 'utf8')).to.equal('client-cert-v1');
      expect(readdirSync(tls.dir).sort(), 'no temporary file left behind').to.deep.equal(['ca.crt', 'tls.crt', 'tls.key']);
      expect(JSON.stringify(jobJson()), 'job.json records no TLS value').to.not.contain('key-v1');
    });

    it("a later create writes the Secrets' current values over the files (a rotated CA reaches the next Job), still 0400", async () => {
      const runner = open();
      await runner.create(jobSpec('true', { databaseTls: [mount(runner)] }));
      await until(runner, 'succeeded');
      secrets.set(`${NS}/db-ca/ca.crt`, 'ca-v2');
      await runner.create(jobSpec('true', { name: 'nova-db-expand', databaseTls: [mount(runner)] }));
      await until(runner, 'succeeded', 'nova-db-expand');
      const ca = join(runner.databaseTlsDir(NS, 'nova', 'cell'), 'ca.crt');
      expect(readFileSync(ca, 'utf8')).to.equal('ca-v2');
      expect(mode(ca)).to.equal(0o400);
    });

    it('a mount naming any other directory is refused (422): nothing is written there, no Job', async () => {
      const runner = open();
      const elsewhere = join(work, 'elsewhere');
      const error = await rejection(runner.create(jobSpec('true', { databaseTls: [mount(runner, { dir: elsewhere })] })));
      expect(error.status).to.equal(422);
      expect(existsSync(elsewhere)).to.equal(false);
      expect(await runner.get(NS, 'nova-db-sync')).to.equal(undefined);
    });

    it('a missing TLS Secret key refuses the create, naming the Secret and the key: no file is written, no Job', async () => {
      secrets.delete(`${NS}/nova-db-client/tls.key`);
      const runner = open();
      const error = await rejection(runner.create(jobSpec('true', { databaseTls: [mount(runner)] })));
      expect(error.message).to.contain(`Secret ${NS}/nova-db-client`).and.contain('"tls.key"').and.not.contain('client-cert-v1');
      expect(existsSync(runner.databaseTlsDir(NS, 'nova', 'cell'))).to.equal(false);
      expect(await runner.get(NS, 'nova-db-sync')).to.equal(undefined);
    });

    it('an archive run gets the files too: written when the scheduler starts it', async () => {
      const runner = open({ now: () => new Date('2025-01-01T00:00:30Z') });
      const tls = mount(runner);
      await runner.ensureCronJob(cronSpec(`cat '${tls.dir}/ca.crt' > /dev/termination-log`, { databaseTls: [tls] }));
      const { started } = await runner.tick(new Date('2025-01-01T00:05:10Z'));
      const name = started[0]!.split('/')[1]!;
      const run = await until(runner, 'succeeded', name);
      expect(await runner.terminationMessage(run)).to.equal(CA);
      expect(mode(join(tls.dir, 'tls.key'))).to.equal(0o400);
    });
  });

  describe('create and delete', () => {
    it('onJobEnded: a Job this process started tells its listeners once when it ends (the Nova is woken at once); an unsubscribed listener hears nothing', async () => {
      const runner = open();
      const heard: string[] = [];
      const gone: string[] = [];
      runner.onJobEnded((e) => heard.push(`${e.namespace}/${e.name} ${e.owner.name} ${e.controllerKind}`));
      const off = runner.onJobEnded((e) => gone.push(e.name));
      off();
      await runner.create(jobSpec(held('ended')));
      await until(runner, 'running');
      expect(heard, 'nothing while it runs').to.deep.equal([]);
      release('ended');
      await eventually(async () => (heard.length > 0 ? heard : undefined), WAIT, 'the end announced');
      expect(heard).to.deep.equal([`${NS}/nova-db-sync nova Nova`]);
      expect((await runner.get(NS, 'nova-db-sync'))?.state, 'the exit is written before the announcement').to.equal('succeeded');
      expect(gone).to.deep.equal([]);
    });

    it("removeOwnedBy (the finalizer's release on the embedded default): the Nova's Jobs (a running one killed), its CronJob and that CronJob's runs, its TLS files; another Nova's stay", async () => {
      const runner = open({ now: () => new Date('2025-01-01T00:00:30Z') });
      const other = { kind: 'Nova' as const, name: 'nova-b', uid: 'nova-uid-2' };
      await runner.create(jobSpec(held('sync')));
      const running = await until(runner, 'running');
      const pid = jobJson().pid;
      await runner.create(jobSpec('true', { name: 'nova-db-expand' }));
      await runner.create(jobSpec('true', { name: 'nova-b-db-sync', owner: other }));
      await runner.ensureCronJob(cronSpec('true'));
      await runner.ensureCronJob(cronSpec('true', { name: 'nova-b-db-archive', owner: other }));
      const { started } = await runner.tick(new Date('2025-01-01T00:05:10Z'));
      expect(started).to.have.length(2);
      mkdirSync(join(dir, 'tls', NS, 'nova', 'cell'), { recursive: true });
      mkdirSync(join(dir, 'tls', NS, 'nova-b', 'cell'), { recursive: true });
      expect(running.state).to.equal('running');

      const removed = await runner.removeOwnedBy(NS, 'nova');
      const run = started.map((n) => n.split('/')[1]!).find((n) => n.startsWith('nova-db-archive-'))!;
      expect(removed.filter((r) => r.startsWith('Job ')).sort()).to.deep.equal([`Job ${run}`, 'Job nova-db-expand', 'Job nova-db-sync']);
      expect(removed).to.include('CronJob nova-db-archive');
      expect(pidGone(pid), 'the running Job was killed').to.equal(true);
      expect(await runner.get(NS, 'nova-db-sync')).to.equal(undefined);
      expect((await runner.cronJobRuns(NS, 'nova-db-archive')).exists).to.equal(false);
      expect(existsSync(join(dir, 'tls', NS, 'nova'))).to.equal(false);
      expect((await runner.tick(new Date('2025-01-01T00:10:10Z'))).started.every((name) => name.includes('nova-b-db-archive')), 'no archive run of the removed CronJob').to.equal(true);
      expect(await runner.get(NS, 'nova-b-db-sync')).to.not.equal(undefined);
      expect((await runner.cronJobRuns(NS, 'nova-b-db-archive')).exists).to.equal(true);
      expect(existsSync(join(dir, 'tls', NS, 'nova-b', 'cell'))).to.equal(true);
      expect(await runner.removeOwnedBy(NS, 'nova'), 'a second call finds nothing').to.deep.equal([]);
    });

    it('a second create of the same name is JobRunnerError 409', async () => {
      const runner = open();
      await runner.create(jobSpec(held('go')));
      expect((await rejection(runner.create(jobSpec('true')))).status).to.equal(409);
    });

    it('delete kills a running child (its whole process group) and removes the Job', async () => {
      const runner = open();
      await runner.create(jobSpec(`sleep 300 &\necho $! > '${join(work, 'grandchild')}'\n${held('never')}`));
      const { pid } = jobJson();
      const grandchild = Number(await eventually(() => (existsSync(join(work, 'grandchild')) ? readFileSync(join(work, 'grandchild'), 'utf8').trim() || undefined : undefined), WAIT, 'the grandchild pid'));
      await runner.delete(NS, 'nova-db-sync');
      await eventually(() => (pidGone(pid) && pidGone(grandchild) ? true : undefined), WAIT, 'the process group to be gone');
      expect(await runner.get(NS, 'nova-db-sync')).to.equal(undefined);
      expect(existsSync(join(dir, 'jobs', NS, 'nova-db-sync'))).to.equal(false);
    });

    it('delete of an absent Job is success', async () => {
      await open().delete(NS, 'nova-db-sync');
    });

    it('a re-created Job has a new uid, and the earlier Job never reads its termination log', async () => {
      const runner = open();
      await runner.create(jobSpec('echo old > /dev/termination-log'));
      const earlier = await until(runner, 'succeeded');
      await runner.delete(NS, 'nova-db-sync');
      await runner.create(jobSpec('echo new > /dev/termination-log'));
      const later = await until(runner, 'succeeded');
      expect(later.uid).to.not.equal(earlier.uid);
      expect(await runner.terminationMessage(earlier)).to.equal(null);
      expect(await runner.terminationMessage(later)).to.equal('new\n');
    });

    it('names that are not DNS-1123 (a path) are refused', async () => {
      expect((await rejection(open().create(jobSpec('true', { name: '../escape' })))).status).to.equal(422);
    });
  });

  describe('a restarted Regent', () => {
    it('a new runner over the same dir sees the same running Job, then its result and message', async () => {
      const first = open();
      await first.create(jobSpec(held('go', 'echo done > /dev/termination-log')));
      const before = await first.get(NS, 'nova-db-sync');
      await first.close();
      const second = open();
      expect(await second.get(NS, 'nova-db-sync')).to.deep.equal(before);
      release('go');
      const job = await until(second, 'succeeded');
      expect(job.uid).to.equal(before?.uid);
      expect(await second.terminationMessage(job)).to.equal('done\n');
    });

    it('no exit code and the pid gone: failed, "the runner lost the process", and it stays failed', async () => {
      const runner = open();
      await runner.create(jobSpec(held('never')));
      const { pid } = jobJson();
      process.kill(-pid, 'SIGKILL');
      const job = await until(runner, 'failed');
      expect(job.failureMessage).to.equal(`the runner lost the process (pid ${pid} is gone without an exit code)`);
      expect((await open().get(NS, 'nova-db-sync'))?.failureMessage).to.equal(job.failureMessage);
    });

    it('a restarted runner enforces activeDeadlineSeconds from createdAt: the group is killed, DeadlineExceeded', async () => {
      const first = open();
      await first.create(jobSpec(held('never'), { activeDeadlineSeconds: 3600 }));
      const { pid, createdAt } = jobJson();
      await first.close();
      expect((await open({ now: () => new Date(new Date(createdAt).getTime() + 3599_000) }).get(NS, 'nova-db-sync'))?.state).to.equal('running');
      const later = open({ now: () => new Date(new Date(createdAt).getTime() + 3600_000) });
      const job = await later.get(NS, 'nova-db-sync');
      expect(job?.state).to.equal('failed');
      expect(job?.failureMessage).to.equal('DeadlineExceeded: the Job ran longer than its activeDeadlineSeconds (3600 s); the runner killed its process group');
      await eventually(() => (pidGone(pid) ? true : undefined), WAIT, 'the killed group');
    });
  });

  describe('activeDeadlineSeconds', () => {
    it('the runner kills the process group after the deadline: failed, deadline exceeded', async () => {
      const runner = open();
      await runner.create(jobSpec(held('never'), { activeDeadlineSeconds: 1 }));
      const { pid } = jobJson();
      // Nobody reads the Job meanwhile: the runner's own timer enforces the deadline.
      await eventually(() => (pidGone(pid) ? true : undefined), WAIT, 'the killed group');
      const job = await runner.get(NS, 'nova-db-sync');
      expect(job?.state).to.equal('failed');
      expect(job?.failureMessage).to.match(/^DeadlineExceeded: /);
    });

    it('without a deadline a long run stays running', async () => {
      const runner = open({ now: () => new Date(Date.now() + 365 * 24 * 3600_000) });
      await runner.create(jobSpec(held('go')));
      expect((await runner.get(NS, 'nova-db-sync'))?.state).to.equal('running');
    });
  });

  describe('the archive CronJob, scheduled by tick(now)', () => {
    const T0 = new Date('2025-01-01T00:00:30Z');
    const minutes = (iso: string): number => Math.floor(new Date(iso).getTime() / 60_000);
    const cronJson = (): Record<string, unknown> => JSON.parse(readFileSync(join(dir, 'cronjobs', NS, 'nova-db-archive', 'cronjob.json'), 'utf8'));
    let clock: Date;
    const scheduler = (): LocalJobRunner => open({ now: () => clock });
    beforeEach(() => {
      clock = T0;
    });

    it('an invalid schedule is refused with 422', async () => {
      const error = await rejection(scheduler().ensureCronJob(cronSpec('true', { schedule: '61 * * * *' })));
      expect(error.status).to.equal(422);
    });

    it('ensureCronJob writes only when the hash, suspend or schedule differ, and keeps the uid', async () => {
      const runner = scheduler();
      await runner.ensureCronJob(cronSpec('true'));
      const path = join(dir, 'cronjobs', NS, 'nova-db-archive', 'cronjob.json');
      writeFileSync(path, JSON.stringify({ ...cronJson(), marker: 'untouched' }));
      await runner.ensureCronJob(cronSpec('true'));
      expect(cronJson().marker).to.equal('untouched');
      const uid = cronJson().uid;
      for (const change of [{ suspend: true }, { schedule: '0 2 * * *' }, { templateHash: 'dddddddddddddddd' }]) {
        writeFileSync(path, JSON.stringify({ ...cronJson(), marker: 'untouched' }));
        await runner.ensureCronJob(cronSpec('true', { suspend: false, schedule: '*/5 * * * *', templateHash: 'cccccccccccccccc', ...change }));
        expect(cronJson().marker, JSON.stringify(change)).to.equal(undefined);
        expect(cronJson().uid).to.equal(uid);
      }
    });

    it('fires <name>-<unix minutes> at the schedule, with the 3600 s deadline, and not before', async () => {
      const runner = scheduler();
      await runner.ensureCronJob(cronSpec(held('run-1')));
      expect((await runner.tick(new Date('2025-01-01T00:04:59Z'))).started).to.deep.equal([]);
      const result = await runner.tick(new Date('2025-01-01T00:05:10Z'));
      const name = `nova-db-archive-${minutes('2025-01-01T00:05:00Z')}`;
      expect(result.started).to.deep.equal([`${NS}/${name}`]);
      expect(jobJson(name).activeDeadlineSeconds).to.equal(3600);
      expect((await runner.tick(new Date('2025-01-01T00:05:50Z'))).started, 'the same firing is not made twice').to.deep.equal([]);
      const runs = await runner.cronJobRuns(NS, 'nova-db-archive');
      expect(runs).to.deep.include({ exists: true, suspended: false });
      expect(runs.runs.map((r) => [r.name, r.state])).to.deep.equal([[name, 'running']]);
    });

    it('Forbid: no new run while one runs; once it ends, the latest missed firing starts', async () => {
      const runner = scheduler();
      await runner.ensureCronJob(cronSpec(held('run-1')));
      await runner.tick(new Date('2025-01-01T00:05:00Z'));
      const deferred = await runner.tick(new Date('2025-01-01T00:15:20Z'));
      expect(deferred.started).to.deep.equal([]);
      expect(deferred.deferred).to.deep.equal([{ cronJob: `${NS}/nova-db-archive`, reason: `Forbid: nova-db-archive-${minutes('2025-01-01T00:05:00Z')} still running` }]);
      release('run-1');
      await until(runner, 'succeeded', `nova-db-archive-${minutes('2025-01-01T00:05:00Z')}`);
      expect((await runner.tick(new Date('2025-01-01T00:16:00Z'))).started).to.deep.equal([`${NS}/nova-db-archive-${minutes('2025-01-01T00:15:00Z')}`]);
    });

    it('suspend: nothing fires while suspended; cronJobRuns reports it; unsuspended, the latest firing starts', async () => {
      const runner = scheduler();
      await runner.ensureCronJob(cronSpec('true', { suspend: true }));
      expect((await runner.tick(new Date('2025-01-01T00:20:00Z'))).started).to.deep.equal([]);
      expect(await runner.cronJobRuns(NS, 'nova-db-archive')).to.deep.equal({ exists: true, suspended: true, runs: [] });
      await runner.ensureCronJob(cronSpec('true', { suspend: false }));
      expect((await runner.tick(new Date('2025-01-01T00:21:00Z'))).started).to.deep.equal([`${NS}/nova-db-archive-${minutes('2025-01-01T00:20:00Z')}`]);
    });

    it('history limits: the newest 3 succeeded and the newest 1 failed runs stay', async () => {
      const control = join(work, 'fail');
      const runner = scheduler();
      await runner.ensureCronJob(cronSpec(`[ ! -f '${control}' ]`));
      const deleted: string[] = [];
      const fireAndFinish = async (at: string, state: 'succeeded' | 'failed'): Promise<string> => {
        const result = await runner.tick(new Date(at));
        deleted.push(...result.deleted);
        const [started] = result.started;
        const name = started!.split('/')[1]!;
        await until(runner, state, name);
        return name;
      };
      const ok = [];
      for (const at of ['00:05', '00:10', '00:15', '00:20']) ok.push(await fireAndFinish(`2025-01-01T${at}:00Z`, 'succeeded'));
      writeFileSync(control, '');
      const bad = [await fireAndFinish('2025-01-01T00:25:00Z', 'failed'), await fireAndFinish('2025-01-01T00:30:00Z', 'failed')];
      deleted.push(...(await runner.tick(new Date('2025-01-01T00:30:30Z'))).deleted);
      expect(deleted, 'each run deleted once, the oldest of each kind').to.deep.equal([`${NS}/${ok[0]!}`, `${NS}/${bad[0]!}`]);
      const kept = (await runner.cronJobRuns(NS, 'nova-db-archive')).runs.map((r) => r.name).sort();
      expect(kept).to.deep.equal([...ok.slice(1), bad[1]!].sort());
    });

    it('cronJobRuns counts only the runs this CronJob controls: a Job with the same labels created by the Nova does not count', async () => {
      const runner = scheduler();
      await runner.ensureCronJob(cronSpec(held('run-1')));
      await runner.create(jobSpec('true', { name: 'nova-db-archive-manual', labels: ARCHIVE_LABELS }));
      await runner.tick(new Date('2025-01-01T00:05:00Z'));
      expect((await runner.cronJobRuns(NS, 'nova-db-archive')).runs.map((r) => r.name)).to.deep.equal([`nova-db-archive-${minutes('2025-01-01T00:05:00Z')}`]);
      expect(await runner.cronJobRuns(NS, 'other')).to.deep.equal({ exists: false, suspended: false, runs: [] });
    });

    it('runs of an earlier CronJob of the same name (another uid) are not runs of this one', async () => {
      const runner = scheduler();
      await runner.ensureCronJob(cronSpec('true'));
      await runner.tick(new Date('2025-01-01T00:05:00Z'));
      await until(runner, 'succeeded', `nova-db-archive-${minutes('2025-01-01T00:05:00Z')}`);
      rmSync(join(dir, 'cronjobs', NS, 'nova-db-archive'), { recursive: true });
      await runner.ensureCronJob(cronSpec('true'));
      expect((await runner.cronJobRuns(NS, 'nova-db-archive')).runs).to.deep.equal([]);
    });

    it('a run that cannot start (missing Secret) is recorded as a failed run, naming the Secret, never a value', async () => {
      secrets.clear();
      const runner = scheduler();
      await runner.ensureCronJob(cronSpec('true', { env: [{ name: 'DB_PASSWORD', secretKeyRef: { name: 'nova-db', key: 'password' } }] }));
      const result = await runner.tick(new Date('2025-01-01T00:05:00Z'));
      expect(result.started).to.deep.equal([]);
      const [run] = (await runner.cronJobRuns(NS, 'nova-db-archive')).runs;
      expect(run?.state).to.equal('failed');
      expect(run?.failureMessage).to.match(/^CreateFailed: .*Secret openstack\/nova-db, which does not exist/);
    });

    it('a run outliving its 3600 s deadline fails DeadlineExceeded', async () => {
      const runner = scheduler();
      await runner.ensureCronJob(cronSpec(held('never')));
      await runner.tick(new Date('2025-01-01T00:05:00Z'));
      const name = `nova-db-archive-${minutes('2025-01-01T00:05:00Z')}`;
      expect((await runner.get(NS, name))?.state).to.equal('running');
      clock = new Date(T0.getTime() + 3600_000);
      const [run] = (await runner.cronJobRuns(NS, 'nova-db-archive')).runs;
      expect(run?.state).to.equal('failed');
      expect(run?.failureMessage).to.match(/^DeadlineExceeded: .*\(3600 s\)/);
      expect(statSync(join(dir, 'jobs', NS, name, 'failure')).isFile()).to.equal(true);
    });
  });
});
