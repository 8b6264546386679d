/**
 * The Kubernetes JobRunner against the fake API server (test/kube/support/fake-objects.ts): the exact Job,
 * ConfigMap and CronJob bodies on the wire, the state mapping, background propagation, the termination message
 * read off the right pod, the CronJob's runs, and errors with their HTTP status.
 */
import { expect } from 'chai';
import { KubernetesJobRunner } from '../../src/nova/jobs/kubernetes.js';
import { JobRunnerError, type CronJobSpec, type DatabaseTlsMount, type JobSpec } from '../../src/nova/jobs/port.js';
import { TEMPLATE_HASH_ANNOTATION } from '../../src/nova/jobs/template-hash.js';
import { FakeApiServer, type RecordedRequest } from '../kube/support/fake-apiserver.js';

const NS = 'openstack';
const NOVA = { kind: 'Nova' as const, name: 'nova', uid: 'nova-uid-1' };
const LABELS = { 'app.kubernetes.io/name': 'nova', 'app.kubernetes.io/instance': 'nova', 'app.kubernetes.io/component': 'db-sync' };
const line = (r: RecordedRequest): string => `${r.method} ${r.path}`;

const jobSpec = (overrides: Partial<JobSpec> = {}): JobSpec => ({
  namespace: NS,
  name: 'nova-db-sync',
  owner: NOVA,
  labels: LABELS,
  image: 'registry.example/nova:2025.1',
  script: 'nova-manage api_db sync\nnova-manage db sync',
  env: [
    { name: 'OS_DEBUG', value: 'false' },
    { name: 'DB_PASSWORD', secretKeyRef: { name: 'nova-db', key: 'password' } },
  ],
  config: { name: 'nova-config-0123abcd', files: { 'nova.conf': '[DEFAULT]\ndebug = false\n' } },
  templateHash: 'aaaaaaaaaaaaaaaa',
  ...overrides,
});

const cronSpec = (overrides: Partial<CronJobSpec> = {}): CronJobSpec => ({
  namespace: NS,
  name: 'nova-db-archive',
  owner: NOVA,
  labels: { 'app.kubernetes.io/name': 'nova', 'app.kubernetes.io/instance': 'nova', 'app.kubernetes.io/component': 'db-archive' },
  schedule: '0 2 * * *',
  suspend: false,
  image: 'registry.example/nova:2025.1',
  script: 'nova-manage db archive_deleted_rows --all-cells --max_rows "$MAX_ROWS"',
  env: [{ name: 'MAX_ROWS', value: '1000' }],
  config: { name: 'nova-config-0123abcd', files: { 'nova.conf': '[DEFAULT]\n' } },
  templateHash: 'cccccccccccccccc',
  concurrencyPolicy: 'Forbid',
  activeDeadlineSeconds: 3600,
  ...overrides,
});

const expectedPodTemplate = (spec: { labels: Record<string, string>; image: string; script: string; templateHash: string; config: { name: string } }, env: unknown[]) => ({
  metadata: { labels: spec.labels, annotations: { [TEMPLATE_HASH_ANNOTATION]: spec.templateHash } },
  spec: {
    restartPolicy: 'Never',
    // nova-operator.md, "DBArchive": the openstack GID, like the long-lived workloads (src/nova/database-tls.ts)
    securityContext: { fsGroup: 42424 },
    containers: [
      {
        name: 'nova-manage',
        image: spec.image,
        command: ['/bin/sh', '-eu', '-c', spec.script],
        env,
        volumeMounts: [{ name: 'nova-config', mountPath: '/etc/nova', readOnly: true }],
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      },
    ],
    volumes: [{ name: 'nova-config', configMap: { name: spec.config.name } }],
  },
});

const ownerRef = { apiVersion: 'regent.dev/v1alpha1', kind: 'Nova', name: 'nova', uid: 'nova-uid-1', controller: true, blockOwnerDeletion: true };

const rejection = async (p: Promise<unknown>): Promise<JobRunnerError> => {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call should have failed').to.be.instanceOf(JobRunnerError);
  return error as JobRunnerError;
};

describe('nova jobs: the Kubernetes JobRunner', () => {
  let fake: FakeApiServer;
  let runner: KubernetesJobRunner;
  const jobPath = (name = 'nova-db-sync'): string => fake.objects.path('jobs', NS, name);

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    runner = new KubernetesJobRunner({ kubeConfig: fake.kubeConfig() });
  });
  afterEach(async () => {
    const unexpected = fake.unexpected.map(line);
    await fake.close();
    expect(unexpected, 'requests the fake does not serve (a watch included)').to.deep.equal([]);
  });

  describe('create', () => {
    it('creates the immutable ConfigMap of the config files, owned by the Nova, before the Job', async () => {
      await runner.create(jobSpec());
      expect(fake.requests.map(line)).to.deep.equal([`POST /api/v1/namespaces/${NS}/configmaps`, `POST /apis/batch/v1/namespaces/${NS}/jobs`]);
      expect(fake.requests[0]!.body).to.deep.equal({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'nova-config-0123abcd', namespace: NS, labels: LABELS, ownerReferences: [ownerRef] },
        immutable: true,
        data: { 'nova.conf': '[DEFAULT]\ndebug = false\n' },
      });
    });

    it('sends the exact Job: backoffLimit 0, hash annotations on Job and pod template, Nova owner, nova-manage under /bin/sh -eu -c, env literal and secretKeyRef, the config at /etc/nova, the termination log', async () => {
      const spec = jobSpec();
      await runner.create(spec);
      expect(fake.requests[1]!.body).to.deep.equal({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'nova-db-sync', namespace: NS, labels: LABELS, annotations: { [TEMPLATE_HASH_ANNOTATION]: 'aaaaaaaaaaaaaaaa' }, ownerReferences: [ownerRef] },
        spec: {
          backoffLimit: 0,
          template: expectedPodTemplate(spec, [
            { name: 'OS_DEBUG', value: 'false' },
            { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'nova-db', key: 'password' } } },
            { name: 'NOVA_CONFIG_DIR', value: '/etc/nova' },
          ]),
        },
      });
    });

    it('passes backoffLimit and activeDeadlineSeconds when the spec sets them', async () => {
      await runner.create(jobSpec({ backoffLimit: 2, activeDeadlineSeconds: 600 }));
      const body = fake.requests[1]!.body as { spec: { backoffLimit: number; activeDeadlineSeconds: number } };
      expect(body.spec.backoffLimit).to.equal(2);
      expect(body.spec.activeDeadlineSeconds).to.equal(600);
    });

    it('a ConfigMap of that name already there (content-addressed) is fine: the Job is still created', async () => {
      fake.objects.put(fake.objects.path('configmaps', NS, 'nova-config-0123abcd'), { immutable: true, data: { 'nova.conf': '[DEFAULT]\ndebug = false\n' } });
      await runner.create(jobSpec());
      expect(fake.objects.get(jobPath())).to.not.equal(undefined);
    });

    describe('database TLS (spec.database.<block>.tls): the client files projected at mode 0400 in a pod whose fsGroup is the openstack GID', () => {
      const TLS: DatabaseTlsMount[] = [
        { block: 'api', dir: '/etc/nova-db-tls/api', files: [{ secret: 'db-ca', key: 'ca.crt', path: 'ca.crt' }] },
        {
          block: 'cell',
          dir: '/etc/nova-db-tls/cell',
          files: [
            { secret: 'db-ca', key: 'ca.crt', path: 'ca.crt' },
            { secret: 'nova-db-client', key: 'tls.crt', path: 'tls.crt' },
            { secret: 'nova-db-client', key: 'tls.key', path: 'tls.key' },
          ],
        },
      ];
      type Pod = { securityContext: unknown; volumes: unknown[]; containers: Array<{ volumeMounts: unknown[] }> };
      const expectTlsPod = (pod: Pod): void => {
        expect(pod.securityContext).to.deep.equal({ fsGroup: 42424 });
        expect(pod.volumes.slice(1)).to.deep.equal([
          { name: 'db-tls-api', projected: { defaultMode: 0o400, sources: [{ secret: { name: 'db-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } },
          {
            name: 'db-tls-cell',
            projected: {
              defaultMode: 0o400,
              sources: [
                { secret: { name: 'db-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
                { secret: { name: 'nova-db-client', items: [{ key: 'tls.crt', path: 'tls.crt' }, { key: 'tls.key', path: 'tls.key' }] } },
              ],
            },
          },
        ]);
        expect(pod.containers[0]!.volumeMounts.slice(1)).to.deep.equal([
          { name: 'db-tls-api', mountPath: '/etc/nova-db-tls/api', readOnly: true },
          { name: 'db-tls-cell', mountPath: '/etc/nova-db-tls/cell', readOnly: true },
        ]);
      };

      it('a Job: one projected volume per block (each Secret once, its keys by name), defaultMode 0400, mounted read-only at the directory the DSNs name', async () => {
        await runner.create(jobSpec({ databaseTls: TLS }));
        expectTlsPod((fake.requests[1]!.body as { spec: { template: { spec: Pod } } }).spec.template.spec);
      });

      it('the archive CronJob: the same volumes, mode and fsGroup in its jobTemplate', async () => {
        await runner.ensureCronJob(cronSpec({ databaseTls: TLS }));
        expectTlsPod((fake.requests[1]!.body as { spec: { jobTemplate: { spec: { template: { spec: Pod } } } } }).spec.jobTemplate.spec.template.spec);
      });

      it('databaseTlsDir is the mount path /etc/nova-db-tls/<block>, the same for every Nova (one DSN Secret serves every pod)', () => {
        expect(runner.databaseTlsDir(NS, 'nova', 'api')).to.equal('/etc/nova-db-tls/api');
        expect(runner.databaseTlsDir('other', 'nova-b', 'cell')).to.equal('/etc/nova-db-tls/cell');
      });
    });

    it('a Job of that name already existing is JobRunnerError 409', async () => {
      await runner.create(jobSpec());
      const error = await rejection(runner.create(jobSpec()));
      expect(error.status).to.equal(409);
      expect(error.message).to.contain(`creating Job ${NS}/nova-db-sync`);
    });
  });

  describe('get: the state from the Job status conditions', () => {
    it('an absent Job is undefined', async () => {
      expect(await runner.get(NS, 'nova-db-sync')).to.equal(undefined);
    });

    it('a Job without a terminal condition is running, with its own UID and the hash annotation', async () => {
      await runner.create(jobSpec());
      const uid = (fake.objects.get(jobPath())!.metadata as { uid: string }).uid;
      expect(await runner.get(NS, 'nova-db-sync')).to.deep.equal({ namespace: NS, name: 'nova-db-sync', uid, templateHash: 'aaaaaaaaaaaaaaaa', state: 'running' });
    });

    it('Complete=True is succeeded, startedAt the status.startTime, finishedAt the completionTime', async () => {
      await runner.create(jobSpec());
      fake.objects.completeJob(NS, 'nova-db-sync', { at: '2025-01-02T03:04:05Z' });
      fake.objects.mutate(jobPath(), (j) => {
        (j.status as Record<string, unknown>).startTime = '2025-01-02T03:01:00Z';
      });
      const job = await runner.get(NS, 'nova-db-sync');
      expect(job?.state).to.equal('succeeded');
      expect(job?.startedAt).to.equal('2025-01-02T03:01:00.000Z');
      expect(job?.finishedAt).to.equal('2025-01-02T03:04:05.000Z');
      expect(job?.failureMessage).to.equal(undefined);
    });

    it('Failed=True is failed, with the reason and message in words', async () => {
      await runner.create(jobSpec());
      fake.objects.failJob(NS, 'nova-db-sync', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit', { at: '2025-01-02T03:04:05Z' });
      const job = await runner.get(NS, 'nova-db-sync');
      expect(job?.state).to.equal('failed');
      expect(job?.failureMessage).to.equal('BackoffLimitExceeded: Job has reached the specified backoff limit');
      expect(job?.finishedAt).to.equal('2025-01-02T03:04:05.000Z');
      // the fake starts the Job at its creationTimestamp
      const created = (fake.objects.get(jobPath())!.metadata as { creationTimestamp: string }).creationTimestamp;
      expect(job?.startedAt).to.equal(new Date(created).toISOString());
    });

    it('FailureTarget alone is still running: the pods are terminating, the Job is not terminal yet', async () => {
      await runner.create(jobSpec());
      fake.objects.setStatus(jobPath(), { conditions: [{ type: 'FailureTarget', status: 'True', reason: 'DeadlineExceeded', message: 'x' }] });
      expect((await runner.get(NS, 'nova-db-sync'))?.state).to.equal('running');
    });

    it('a Job being deleted (deletionTimestamp) still holds the name: reported running, never its old result', async () => {
      await runner.create(jobSpec());
      fake.objects.completeJob(NS, 'nova-db-sync');
      fake.objects.mutate(jobPath(), (j) => {
        (j.metadata as Record<string, unknown>).finalizers = ['foregroundDeletion'];
      });
      await runner.delete(NS, 'nova-db-sync');
      const job = await runner.get(NS, 'nova-db-sync');
      expect(job?.state).to.equal('running');
      expect(job?.templateHash).to.equal('aaaaaaaaaaaaaaaa');
    });

    it('a Job without the hash annotation (not ours, or older) has templateHash null', async () => {
      fake.objects.put(jobPath(), { metadata: { labels: LABELS }, spec: {} });
      expect((await runner.get(NS, 'nova-db-sync'))?.templateHash).to.equal(null);
    });
  });

  describe('delete', () => {
    it('deletes with propagationPolicy Background, so the pods go with the Job', async () => {
      await runner.create(jobSpec());
      fake.objects.addJobPod(NS, 'nova-db-sync', { phase: 'Succeeded', message: 'cell1=x' });
      await runner.delete(NS, 'nova-db-sync');
      expect(fake.requests.at(-1)).to.include({ method: 'DELETE', path: `/apis/batch/v1/namespaces/${NS}/jobs/nova-db-sync` });
      expect(fake.requests.at(-1)!.query).to.deep.equal({ propagationPolicy: 'Background' });
      expect(fake.objects.deletions).to.deep.equal([{ path: `/apis/batch/v1/namespaces/${NS}/jobs/nova-db-sync`, propagationPolicy: 'Background', applied: 'Background' }]);
      expect(fake.objects.list(fake.objects.path('pods', NS))).to.deep.equal([]);
    });

    it('an absent Job is success', async () => {
      await runner.delete(NS, 'nova-db-sync');
      expect(fake.requests.map(line)).to.deep.equal([`DELETE /apis/batch/v1/namespaces/${NS}/jobs/nova-db-sync`]);
    });
  });

  describe('terminationMessage: read off the right pod of this Job', () => {
    const createJob = async () => {
      await runner.create(jobSpec());
      return (await runner.get(NS, 'nova-db-sync'))!;
    };

    it('the succeeded pod, even when a failed retry is newer', async () => {
      const job = await createJob();
      fake.objects.addJobPod(NS, 'nova-db-sync', { name: 'p-ok', phase: 'Succeeded', message: 'cell1=ok', createdAt: '2025-01-01T00:00:00Z' });
      fake.objects.addJobPod(NS, 'nova-db-sync', { name: 'p-late', phase: 'Failed', message: 'partial', createdAt: '2025-01-01T00:05:00Z' });
      expect(await runner.terminationMessage(job)).to.equal('cell1=ok');
    });

    it('the newest pod when none succeeded', async () => {
      const job = await createJob();
      fake.objects.addJobPod(NS, 'nova-db-sync', { name: 'p-1', phase: 'Failed', message: 'first', createdAt: '2025-01-01T00:00:00Z' });
      fake.objects.addJobPod(NS, 'nova-db-sync', { name: 'p-3', phase: 'Failed', message: 'third', createdAt: '2025-01-01T00:10:00Z' });
      fake.objects.addJobPod(NS, 'nova-db-sync', { name: 'p-2', phase: 'Failed', message: 'second', createdAt: '2025-01-01T00:05:00Z' });
      expect(await runner.terminationMessage(job)).to.equal('third');
    });

    it('never a pod an earlier Job of the same name left behind, even a newer succeeded one', async () => {
      const job = await createJob();
      fake.objects.addJobPod(NS, 'nova-db-sync', { name: 'old', phase: 'Succeeded', message: 'cell1=stale', createdAt: '2030-01-01T00:00:00Z', jobUid: 'earlier-job-uid' });
      fake.objects.addJobPod(NS, 'nova-db-sync', { name: 'mine', phase: 'Failed', message: 'mine', createdAt: '2025-01-01T00:00:00Z' });
      expect(await runner.terminationMessage(job)).to.equal('mine');
    });

    it('lists pods directly by batch.kubernetes.io/controller-uid every time, never a watch', async () => {
      const job = await createJob();
      fake.objects.addJobPod(NS, 'nova-db-sync', { phase: 'Succeeded', message: 'cell1=ok' });
      fake.clearRequests();
      await runner.terminationMessage(job);
      await runner.terminationMessage(job);
      expect(fake.requests.map((r) => `${line(r)} ${JSON.stringify(r.query)}`)).to.deep.equal(
        Array(2).fill(`GET /api/v1/namespaces/${NS}/pods ${JSON.stringify({ labelSelector: `batch.kubernetes.io/controller-uid=${job.uid}` })}`),
      );
    });

    it('falls back to the legacy controller-uid label (clusters before 1.27)', async () => {
      const job = await createJob();
      fake.objects.addJobPod(NS, 'nova-db-sync', { phase: 'Succeeded', message: 'cell1=legacy', legacyLabelsOnly: true });
      expect(await runner.terminationMessage(job)).to.equal('cell1=legacy');
    });

    it('null when there is no pod, or the pod wrote no message', async () => {
      const job = await createJob();
      expect(await runner.terminationMessage(job)).to.equal(null);
      fake.objects.addJobPod(NS, 'nova-db-sync', { phase: 'Succeeded' });
      expect(await runner.terminationMessage(job)).to.equal(null);
    });
  });

  describe('ensureCronJob', () => {
    const cronPath = (): string => fake.objects.path('cronjobs', NS, 'nova-db-archive');

    it('creates the CronJob: Forbid, suspend, schedule, the 3600 s deadline on the jobTemplate, the hash annotations, the same pod shape', async () => {
      const spec = cronSpec();
      await runner.ensureCronJob(spec);
      expect(fake.requests.map(line)).to.deep.equal([`GET /apis/batch/v1/namespaces/${NS}/cronjobs/nova-db-archive`, `POST /apis/batch/v1/namespaces/${NS}/cronjobs`]);
      expect(fake.requests[1]!.body).to.deep.equal({
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'nova-db-archive', namespace: NS, labels: spec.labels, annotations: { [TEMPLATE_HASH_ANNOTATION]: 'cccccccccccccccc' }, ownerReferences: [ownerRef] },
        spec: {
          schedule: '0 2 * * *',
          suspend: false,
          concurrencyPolicy: 'Forbid',
          successfulJobsHistoryLimit: 3,
          failedJobsHistoryLimit: 1,
          jobTemplate: {
            metadata: { labels: spec.labels, annotations: { [TEMPLATE_HASH_ANNOTATION]: 'cccccccccccccccc' } },
            spec: {
              backoffLimit: 0,
              activeDeadlineSeconds: 3600,
              template: expectedPodTemplate(spec, [
                { name: 'MAX_ROWS', value: '1000' },
                { name: 'NOVA_CONFIG_DIR', value: '/etc/nova' },
              ]),
            },
          },
        },
      });
    });

    it('writes nothing when the stored hash, suspend and schedule match', async () => {
      await runner.ensureCronJob(cronSpec());
      fake.clearRequests();
      await runner.ensureCronJob(cronSpec());
      expect(fake.requests.map(line)).to.deep.equal([`GET /apis/batch/v1/namespaces/${NS}/cronjobs/nova-db-archive`]);
    });

    for (const [what, change] of [
      ['suspend', { suspend: true }],
      ['schedule', { schedule: '*/30 * * * *' }],
      ['the template hash', { templateHash: 'dddddddddddddddd', image: 'registry.example/nova:2025.2' }],
    ] as const) {
      it(`replaces the CronJob (PUT with the read's resourceVersion) when ${what} differs`, async () => {
        await runner.ensureCronJob(cronSpec());
        const before = fake.objects.get(cronPath())!;
        fake.clearRequests();
        await runner.ensureCronJob(cronSpec(change));
        expect(fake.requests.map(line)).to.deep.equal([`GET /apis/batch/v1/namespaces/${NS}/cronjobs/nova-db-archive`, `PUT /apis/batch/v1/namespaces/${NS}/cronjobs/nova-db-archive`]);
        expect((fake.requests[1]!.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion).to.equal((before.metadata as { resourceVersion: string }).resourceVersion);
        const after = fake.objects.get(cronPath())!;
        expect((after.metadata as { uid: string }).uid).to.equal((before.metadata as { uid: string }).uid);
        expect((after.spec as { concurrencyPolicy: string }).concurrencyPolicy).to.equal('Forbid');
        for (const [key, value] of Object.entries(change)) {
          if (key === 'suspend' || key === 'schedule') expect((after.spec as Record<string, unknown>)[key]).to.equal(value);
        }
        if ('templateHash' in change) expect((after.metadata as { annotations: Record<string, string> }).annotations[TEMPLATE_HASH_ANNOTATION]).to.equal(change.templateHash);
      });
    }

    it('a replace that lost a race (stale resourceVersion) is JobRunnerError 409', async () => {
      await runner.ensureCronJob(cronSpec());
      fake.failNext('PUT', cronPath(), 409, 'Conflict');
      expect((await rejection(runner.ensureCronJob(cronSpec({ suspend: true })))).status).to.equal(409);
    });
  });

  describe('cronJobRuns', () => {
    it('a missing CronJob: exists false, no runs', async () => {
      expect(await runner.cronJobRuns(NS, 'nova-db-archive')).to.deep.equal({ exists: false, suspended: false, runs: [] });
    });

    it('the Jobs carrying the labels and controlled by this CronJob; one with the labels but another controller does not count', async () => {
      await runner.ensureCronJob(cronSpec({ suspend: true }));
      fake.objects.addCronJobRun(NS, 'nova-db-archive', 'nova-db-archive-100', { state: 'succeeded', at: '2025-01-01T02:10:00Z' });
      fake.objects.addCronJobRun(NS, 'nova-db-archive', 'nova-db-archive-200', { state: 'failed', at: '2025-01-02T02:10:00Z' });
      fake.objects.addCronJobRun(NS, 'nova-db-archive', 'nova-db-archive-300');
      const labels = cronSpec().labels;
      // An earlier CronJob of the same name (another UID), and a Job with the labels owned but not controlled.
      fake.objects.put(jobPath('nova-db-archive-50'), { metadata: { labels, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'nova-db-archive', uid: 'earlier-cron-uid', controller: true }] }, spec: {} });
      const cronUid = (fake.objects.get(fake.objects.path('cronjobs', NS, 'nova-db-archive'))!.metadata as { uid: string }).uid;
      fake.objects.put(jobPath('nova-db-archive-60'), { metadata: { labels, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'nova-db-archive', uid: cronUid, controller: false }] }, spec: {} });
      // A run of this CronJob without the labels is not listed (the label selector is the first filter).
      fake.objects.put(jobPath('nova-db-sync'), { metadata: { labels: LABELS }, spec: {} });
      const runs = await runner.cronJobRuns(NS, 'nova-db-archive');
      expect(runs.exists).to.equal(true);
      expect(runs.suspended).to.equal(true);
      expect(runs.runs.map((r) => [r.name, r.state]).sort()).to.deep.equal([
        ['nova-db-archive-100', 'succeeded'],
        ['nova-db-archive-200', 'failed'],
        ['nova-db-archive-300', 'running'],
      ]);
      const list = fake.requests.find((r) => r.method === 'GET' && r.path === `/apis/batch/v1/namespaces/${NS}/jobs`);
      expect(list?.query.labelSelector?.split(',').sort()).to.deep.equal(Object.entries(labels).map(([k, v]) => `${k}=${v}`).sort());
    });
  });

  describe('errors: every client failure is JobRunnerError with the HTTP status', () => {
    it('a 500 on read, a 403 on create, a 500 on delete, a 422 on the pod list carry their status and the Status reason, no response dump', async () => {
      fake.failNext('GET', jobPath(), 500, 'InternalError');
      const read = await rejection(runner.get(NS, 'nova-db-sync'));
      expect(read.status).to.equal(500);
      expect(read.message).to.equal(`reading Job ${NS}/nova-db-sync: the API server answered 500 InternalError: injected 500`);

      fake.failNext('POST', `/apis/batch/v1/namespaces/${NS}/jobs`, 403, 'Forbidden', 'jobs.batch is forbidden: User "regent" cannot create resource "jobs"');
      const create = await rejection(runner.create(jobSpec()));
      expect(create.status).to.equal(403);
      expect(create.message).to.not.contain('HTTP-Code');

      fake.failNext('POST', `/api/v1/namespaces/${NS}/configmaps`, 422, 'Invalid');
      expect((await rejection(runner.create(jobSpec({ name: 'nova-db-expand' })))).status).to.equal(422);

      fake.failNext('DELETE', jobPath(), 500, 'InternalError');
      expect((await rejection(runner.delete(NS, 'nova-db-sync'))).status).to.equal(500);

      fake.failNext('GET', `/api/v1/namespaces/${NS}/pods`, 422, 'Invalid');
      expect((await rejection(runner.terminationMessage({ namespace: NS, name: 'nova-db-sync', uid: 'u', templateHash: null, state: 'running' }))).status).to.equal(422);

      fake.failNext('GET', fake.objects.path('cronjobs', NS, 'nova-db-archive'), 503, 'ServiceUnavailable');
      expect((await rejection(runner.cronJobRuns(NS, 'nova-db-archive'))).status).to.equal(503);
    });

    it('an API server that cannot be reached is JobRunnerError without a status', async () => {
      // The replacement starts before the first closes, so it cannot take over the closed port.
      const kubeConfig = fake.kubeConfig();
      const closed = fake;
      fake = await FakeApiServer.start();
      await closed.close();
      const orphan = new KubernetesJobRunner({ kubeConfig });
      const error = await rejection(orphan.get(NS, 'nova-db-sync'));
      expect(error.status).to.equal(undefined);
      expect(error.message).to.match(/^reading Job openstack\/nova-db-sync: cannot reach the Kubernetes API/);
    });
  });
});
