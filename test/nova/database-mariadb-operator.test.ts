/**
 * The mariadb-operator DatabaseProvisioner on the wire, against the fake API server's generic object store:
 * the exact CR bodies, the order (nothing is applied before the step ahead of it is Ready), the cluster gate,
 * the waiting/ready outcomes, updates of a drifted spec, a settled pass that only reads, and errors.
 * The fake plays the mariadb-operator: a test marks a CR Ready by setting its status.
 */
import { expect } from 'chai';
import { FakeApiServer, type RecordedRequest } from '../kube/support/fake-apiserver.js';
import { MariaDbOperatorProvisioner } from '../../src/nova/database/mariadb-operator.js';
import { ProvisioningError, type BlockPlan, type ProvisionOutcome } from '../../src/nova/database/port.js';

const NS = 'openstack';
const API = `/apis/k8s.mariadb.com/v1alpha1/namespaces/${NS}`;
const LABELS = { 'app.kubernetes.io/managed-by': 'regent', 'regent.dev/nova': 'nova' };
const line = (r: RecordedRequest): string => `${r.method} ${r.path}`;
const writes = (fake: FakeApiServer): string[] => fake.requests.filter((r) => r.method !== 'GET').map(line);

/** The cell block of Nova `nova`: primary Database, cell0 Database, User with primary Grant, cell0 Grant. */
const cellPlan = (maxUserConnections = 60): BlockPlan => ({
  nova: 'nova',
  instance: 'nova',
  clusterRef: 'mariadb',
  steps: [
    { kind: 'Database', name: 'nova', database: 'nova' },
    { kind: 'Database', name: 'nova-cell0', database: 'nova_cell0' },
    { kind: 'User', name: 'nova', username: 'nova', passwordSecret: { name: 'nova-db-cell', key: 'password' }, maxUserConnections },
    { kind: 'Grant', name: 'nova', username: 'nova', database: 'nova' },
    { kind: 'Grant', name: 'nova-cell0', username: 'nova', database: 'nova_cell0' },
  ],
});

const READY = { conditions: [{ type: 'Ready', status: 'True', reason: 'Created', message: 'Created' }] };
const notReady = (message: string) => ({ conditions: [{ type: 'Ready', status: 'False', reason: 'Failed', message }] });

describe('nova database provisioning: mariadb-operator CRs', () => {
  let fake: FakeApiServer;
  let provisioner: MariaDbOperatorProvisioner;
  let passwordReads: number;
  const password = async (): Promise<string> => {
    passwordReads += 1;
    return 'never-read';
  };
  const pass = (plan: BlockPlan = cellPlan()): Promise<ProvisionOutcome> => provisioner.provision(NS, plan, password);
  const path = (plural: 'mariadbs' | 'databases' | 'users' | 'grants', name: string): string => fake.objects.path(plural, NS, name);
  const markReady = (plural: 'mariadbs' | 'databases' | 'users' | 'grants', name: string): void => void fake.objects.setStatus(path(plural, name), READY);
  const seedCluster = (status: Record<string, unknown> = READY): void => void fake.objects.put(path('mariadbs', 'mariadb'), { metadata: { name: 'mariadb' }, spec: { replicas: 3 }, status });
  /** Runs passes, playing the mariadb-operator (every CR it created becomes Ready), until `ready`. */
  const settle = async (plan: BlockPlan = cellPlan()): Promise<void> => {
    for (let i = 0; i < 10; i++) {
      const before = fake.requests.length;
      const outcome = await pass(plan);
      if (outcome.kind === 'ready') return;
      for (const r of fake.requests.slice(before).filter((q) => q.method === 'POST' || q.method === 'PATCH')) {
        const [plural, name] = r.method === 'POST' ? [r.path.split('/').at(-1), (r.body as { metadata: { name: string } }).metadata.name] : r.path.split('/').slice(-2);
        markReady(plural as 'databases', name!);
      }
    }
    throw new Error('the block did not settle in 10 passes');
  };

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    provisioner = new MariaDbOperatorProvisioner({ kubeConfig: fake.kubeConfig() });
    passwordReads = 0;
  });
  afterEach(async () => {
    const unexpected = fake.unexpected.map(line);
    await fake.close();
    expect(unexpected, 'requests the fake does not serve').to.deep.equal([]);
    expect(passwordReads, 'the CR adapter never reads the password').to.equal(0);
  });

  describe('the cluster gate', () => {
    it('no MariaDB CR of the clusterRef: clusterNotReady naming it and the namespace, nothing applied', async () => {
      expect(await pass()).to.deep.equal({ kind: 'clusterNotReady', message: `no MariaDB mariadb in ${NS}` });
      expect(fake.requests.map(line)).to.deep.equal([`GET ${API}/mariadbs/mariadb`]);
    });

    it('a MariaDB that is not Ready: clusterNotReady with its Ready condition message, nothing applied', async () => {
      seedCluster(notReady('Waiting for Galera cluster to be bootstrapped'));
      expect(await pass()).to.deep.equal({ kind: 'clusterNotReady', message: 'MariaDB mariadb is not Ready: Waiting for Galera cluster to be bootstrapped' });
      expect(writes(fake)).to.deep.equal([]);
    });

    it('a MariaDB with no conditions yet is not Ready', async () => {
      seedCluster({});
      expect(await pass()).to.deep.equal({ kind: 'clusterNotReady', message: 'MariaDB mariadb is not Ready: no Ready condition yet' });
      expect(writes(fake)).to.deep.equal([]);
    });
  });

  describe('the CR bodies', () => {
    it('a first pass over a Ready cluster creates only the primary Database, labelled, and waits on it', async () => {
      seedCluster();
      expect(await pass()).to.deep.equal({ kind: 'waiting', message: 'Database nova is not Ready: created, the mariadb-operator has not reconciled it yet' });
      expect(fake.requests.map(line)).to.deep.equal([`GET ${API}/mariadbs/mariadb`, `GET ${API}/databases/nova`, `POST ${API}/databases`]);
      expect(fake.requests[2]!.body).to.deep.equal({
        apiVersion: 'k8s.mariadb.com/v1alpha1',
        kind: 'Database',
        metadata: { name: 'nova', namespace: NS, labels: LABELS },
        spec: { mariaDbRef: { name: 'mariadb' }, name: 'nova', characterSet: 'utf8', collate: 'utf8_general_ci' },
      });
    });

    it('settling a block creates exactly five CRs, in plan order, with these bodies (no owner reference, the Secret named, not read)', async () => {
      seedCluster();
      await settle();
      const posts = fake.requests.filter((r) => r.method === 'POST');
      expect(posts.map(line)).to.deep.equal([`POST ${API}/databases`, `POST ${API}/databases`, `POST ${API}/users`, `POST ${API}/grants`, `POST ${API}/grants`]);
      const mariaDbRef = { name: 'mariadb' };
      const head = (kind: string, name: string) => ({ apiVersion: 'k8s.mariadb.com/v1alpha1', kind, metadata: { name, namespace: NS, labels: LABELS } });
      expect(posts.map((r) => r.body)).to.deep.equal([
        { ...head('Database', 'nova'), spec: { mariaDbRef, name: 'nova', characterSet: 'utf8', collate: 'utf8_general_ci' } },
        { ...head('Database', 'nova-cell0'), spec: { mariaDbRef, name: 'nova_cell0', characterSet: 'utf8', collate: 'utf8_general_ci' } },
        { ...head('User', 'nova'), spec: { mariaDbRef, name: 'nova', passwordSecretKeyRef: { name: 'nova-db-cell', key: 'password' }, maxUserConnections: 60, host: '%' } },
        { ...head('Grant', 'nova'), spec: { mariaDbRef, privileges: ['ALL PRIVILEGES'], database: 'nova', table: '*', username: 'nova', host: '%' } },
        { ...head('Grant', 'nova-cell0'), spec: { mariaDbRef, privileges: ['ALL PRIVILEGES'], database: 'nova_cell0', table: '*', username: 'nova', host: '%' } },
      ]);
      expect(fake.requests.filter((r) => r.method === 'PATCH' || r.method === 'PUT' || r.method === 'DELETE')).to.deep.equal([]);
    });

    it('the labels name the plan\'s Nova, not a name derived from the instance (the api block of Nova "nova" is instance nova-api)', async () => {
      seedCluster();
      await pass({ nova: 'nova', instance: 'nova-api', clusterRef: 'mariadb', steps: [{ kind: 'Database', name: 'nova-api', database: 'nova_api' }] });
      expect((fake.requests.find((r) => r.method === 'POST')!.body as { metadata: { labels: unknown } }).metadata.labels).to.deep.equal(LABELS);
    });
  });

  describe('the order: a step is applied only once every step before it is Ready', () => {
    it('the cell0 Database is not created while the primary Database is not Ready; the wait carries its message', async () => {
      seedCluster();
      await pass();
      fake.objects.setStatus(path('databases', 'nova'), notReady('Error creating database: connection refused'));
      fake.clearRequests();
      expect(await pass()).to.deep.equal({ kind: 'waiting', message: 'Database nova is not Ready: Error creating database: connection refused' });
      expect(writes(fake)).to.deep.equal([]);
    });

    it('the User is not created before both Databases are Ready', async () => {
      seedCluster();
      await pass();
      markReady('databases', 'nova');
      await pass();
      expect(fake.objects.get(path('databases', 'nova-cell0'))).to.not.equal(undefined);
      fake.clearRequests();
      expect(await pass()).to.deep.equal({ kind: 'waiting', message: 'Database nova-cell0 is not Ready: no Ready condition yet' });
      expect(writes(fake)).to.deep.equal([]);
      expect(fake.objects.get(path('users', 'nova'))).to.equal(undefined);
      markReady('databases', 'nova-cell0');
      fake.clearRequests();
      expect(await pass()).to.deep.equal({ kind: 'waiting', message: 'User nova is not Ready: created, the mariadb-operator has not reconciled it yet' });
      expect(writes(fake)).to.deep.equal([`POST ${API}/users`]);
    });

    it('the primary Grant is not created before the User is Ready', async () => {
      seedCluster();
      for (const name of ['nova', 'nova-cell0']) fake.objects.put(path('databases', name), { metadata: { name, labels: LABELS }, spec: { mariaDbRef: { name: 'mariadb' }, name: name.replace('-', '_'), characterSet: 'utf8', collate: 'utf8_general_ci' }, status: READY });
      await pass();
      fake.clearRequests();
      expect(await pass()).to.deep.equal({ kind: 'waiting', message: 'User nova is not Ready: no Ready condition yet' });
      expect(writes(fake)).to.deep.equal([]);
    });

    it('the cell0 Grant is not created before the primary Grant is Ready', async () => {
      seedCluster();
      await settle({ ...cellPlan(), steps: cellPlan().steps.slice(0, 3) });
      await pass();
      expect(fake.objects.get(path('grants', 'nova'))).to.not.equal(undefined);
      fake.objects.setStatus(path('grants', 'nova'), notReady('Error granting privileges: user not found'));
      fake.clearRequests();
      expect(await pass()).to.deep.equal({ kind: 'waiting', message: 'Grant nova is not Ready: Error granting privileges: user not found' });
      expect(writes(fake)).to.deep.equal([]);
      expect(fake.objects.get(path('grants', 'nova-cell0'))).to.equal(undefined);
    });
  });

  describe('ready, and a settled pass that only reads', () => {
    it('every step Ready: ready; a second pass reads the cluster and the five CRs and writes nothing', async () => {
      seedCluster();
      await settle();
      fake.clearRequests();
      expect(await pass()).to.deep.equal({ kind: 'ready' });
      expect(fake.requests.map(line)).to.deep.equal([
        `GET ${API}/mariadbs/mariadb`,
        `GET ${API}/databases/nova`,
        `GET ${API}/databases/nova-cell0`,
        `GET ${API}/users/nova`,
        `GET ${API}/grants/nova`,
        `GET ${API}/grants/nova-cell0`,
      ]);
    });

    it('fields the mariadb-operator defaults (grantOption, cleanupPolicy, requeueInterval) and labels others add are not drift', async () => {
      seedCluster();
      await settle();
      for (const [plural, name] of [['databases', 'nova'], ['users', 'nova'], ['grants', 'nova-cell0']] as const) {
        fake.objects.mutate(path(plural, name), (o) => {
          const spec = o.spec as Record<string, unknown>;
          o.spec = { ...spec, cleanupPolicy: 'Skip', requeueInterval: '30s', ...(plural === 'grants' ? { grantOption: false } : {}) };
          (o.metadata as { labels: Record<string, string> }).labels['example.com/team'] = 'db';
        });
      }
      fake.clearRequests();
      expect(await pass()).to.deep.equal({ kind: 'ready' });
      expect(writes(fake)).to.deep.equal([]);
    });

    it('a Ready condition older than the CR\'s generation is not Ready (it describes a spec not applied yet)', async () => {
      seedCluster();
      await settle();
      fake.objects.mutate(path('users', 'nova'), (o) => {
        (o.metadata as { generation: number }).generation = 3;
        o.status = { conditions: [{ type: 'Ready', status: 'True', reason: 'Created', message: 'Created', observedGeneration: 2 }] };
      });
      expect(await pass()).to.deep.equal({ kind: 'waiting', message: 'User nova is not Ready: the mariadb-operator has not observed generation 3' });
    });
  });

  describe('updates', () => {
    it('a resized maxUserConnections merge-patches the User\'s spec, then waits on it; the next settled pass is ready', async () => {
      seedCluster();
      await settle(cellPlan(60));
      fake.clearRequests();
      expect(await pass(cellPlan(90))).to.deep.equal({ kind: 'waiting', message: 'User nova is not Ready: updated maxUserConnections, the mariadb-operator has not reconciled it yet' });
      expect(writes(fake)).to.deep.equal([`PATCH ${API}/users/nova`]);
      const patch = fake.requests.find((r) => r.method === 'PATCH')!;
      expect(patch.contentType).to.equal('application/merge-patch+json');
      expect(patch.body).to.deep.equal({ spec: { mariaDbRef: { name: 'mariadb' }, name: 'nova', passwordSecretKeyRef: { name: 'nova-db-cell', key: 'password' }, maxUserConnections: 90, host: '%' } });
      const stored = fake.objects.get(path('users', 'nova'))! as { spec: { maxUserConnections: number }; metadata: { generation: number } };
      expect(stored.spec.maxUserConnections).to.equal(90);
      expect(stored.metadata.generation).to.equal(2);
      markReady('users', 'nova');
      fake.clearRequests();
      expect(await pass(cellPlan(90))).to.deep.equal({ kind: 'ready' });
      expect(writes(fake)).to.deep.equal([]);
    });

    it('a CR whose Regent labels were removed gets them back in the same merge patch', async () => {
      seedCluster();
      await settle();
      fake.objects.mutate(path('databases', 'nova-cell0'), (o) => {
        (o.metadata as { labels?: unknown }).labels = { 'example.com/team': 'db' };
      });
      fake.clearRequests();
      expect(await pass()).to.deep.equal({ kind: 'waiting', message: 'Database nova-cell0 is not Ready: updated labels, the mariadb-operator has not reconciled it yet' });
      const patch = fake.requests.find((r) => r.method === 'PATCH')!;
      expect(patch.body).to.deep.equal({ metadata: { labels: LABELS }, spec: { mariaDbRef: { name: 'mariadb' }, name: 'nova_cell0', characterSet: 'utf8', collate: 'utf8_general_ci' } });
      expect((fake.objects.get(path('databases', 'nova-cell0'))!.metadata as { labels: unknown }).labels).to.deep.equal({ 'example.com/team': 'db', ...LABELS });
    });

    it('a CR being deleted is waited on, never patched or re-created while it is still there', async () => {
      seedCluster();
      await settle(cellPlan(60));
      fake.objects.mutate(path('users', 'nova'), (o) => {
        (o.metadata as Record<string, unknown>).deletionTimestamp = '2026-12-01T00:00:00Z';
        (o.metadata as Record<string, unknown>).finalizers = ['user.k8s.mariadb.com/finalizer'];
      });
      fake.clearRequests();
      expect(await pass(cellPlan(90))).to.deep.equal({ kind: 'waiting', message: 'User nova is not Ready: it is being deleted' });
      expect(writes(fake)).to.deep.equal([]);
    });

    it('a CR created by someone else between the read and the create (409) is a wait, not an error', async () => {
      seedCluster();
      fake.failNext('POST', `${API}/databases`, 409, 'AlreadyExists', 'databases.k8s.mariadb.com "nova" already exists');
      expect(await pass()).to.deep.equal({ kind: 'waiting', message: 'Database nova is not Ready: it appeared while this pass created it; read again on the next pass' });
    });
  });

  describe('errors', () => {
    const failure = async (run: () => Promise<unknown>): Promise<Error> => {
      try {
        await run();
      } catch (error) {
        return error as Error;
      }
      throw new Error('expected a failure');
    };

    it('a refused read of the cluster is a ProvisioningError naming the CR and the HTTP status', async () => {
      fake.failNext('GET', `${API}/mariadbs/mariadb`, 403, 'Forbidden', 'mariadbs.k8s.mariadb.com "mariadb" is forbidden');
      const error = await failure(() => pass());
      expect(error).to.be.instanceOf(ProvisioningError);
      expect(error.message).to.equal(`cannot read MariaDB mariadb in ${NS}: HTTP 403: mariadbs.k8s.mariadb.com "mariadb" is forbidden`);
    });

    it('a refused create (an admission webhook\'s 422) is a ProvisioningError with the status and the webhook\'s words', async () => {
      seedCluster();
      fake.failNext('POST', `${API}/databases`, 422, 'Invalid', 'admission webhook denied the request: spec.name: invalid');
      const error = await failure(() => pass());
      expect(error).to.be.instanceOf(ProvisioningError);
      expect(error.message).to.equal(`cannot create Database nova in ${NS}: HTTP 422: admission webhook denied the request: spec.name: invalid`);
    });

    it('a refused update (an immutable field on older mariadb-operators) is a ProvisioningError with the status', async () => {
      seedCluster();
      await settle(cellPlan(60));
      fake.failNext('PATCH', `${API}/users/nova`, 400, 'BadRequest', "'spec.maxUserConnections' field is immutable");
      const error = await failure(() => pass(cellPlan(90)));
      expect(error).to.be.instanceOf(ProvisioningError);
      expect(error.message).to.equal(`cannot update User nova in ${NS}: HTTP 400: 'spec.maxUserConnections' field is immutable`);
    });

    it('an API server that is not there is a ProvisioningError saying so, with no status', async () => {
      // A server that was there and is gone: its port refuses connections (our own fake holds a port of its own).
      const gone = await FakeApiServer.start();
      const kubeConfig = gone.kubeConfig();
      await gone.close();
      const error = await failure(() => new MariaDbOperatorProvisioner({ kubeConfig }).provision(NS, cellPlan(), password));
      expect(error).to.be.instanceOf(ProvisioningError);
      expect(error.message).to.match(new RegExp(`^cannot read MariaDB mariadb in ${NS}: the Kubernetes API is unreachable: `));
      expect(error.message).to.not.match(/HTTP \d/);
    });
  });
});
