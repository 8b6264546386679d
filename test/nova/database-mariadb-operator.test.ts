/**
 * The mariadb-operator DatabaseProvisioner on the wire, against the fake API server's generic object store:
 * the exact CR bodies, the order (nothing is applied before the step ahead of it is Ready), the cluster gate,
 * the waiting/ready outcomes, updates of a drifted spec, a settled pass that only reads, and errors.
 * The fake plays the mariadb-operator: a test marks a CR Ready by setting its status.
 *
 * Deprovisioning (the Nova finalizer's half, nova-operator.md "Rotation and deletion"): every CR read before the
 * first DELETE, the names per block (cell0 under the cell key), liveness as observed before the DELETE (a CR the
 * mariadb-operator's finalizer keeps is marked, and marked is not live), the uid precondition, and a CR of the same
 * name that is not this Nova's left alone.
 */
import { expect } from 'chai';
import { FakeApiServer, type RecordedRequest } from '../kube/support/fake-apiserver.js';
import { MariaDbOperatorProvisioner } from '../../src/nova/database/mariadb-operator.js';
import { planDatabases } from '../../src/nova/database/plan.js';
import { ProvisioningError, type BlockPlan, type DeprovisionOutcome, type ProvisionOutcome } from '../../src/nova/database/port.js';
import type { NovaSpec } from '../../src/resources/nova.js';

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

/** Both blocks of Nova `nova` as planDatabases names them: nova_api under nova-api, the cell block under nova. */
const novaPlans = (): readonly [BlockPlan, BlockPlan] => {
  const spec: NovaSpec = {
    image: 'registry.example/nova:2025.2',
    openStackRelease: '2025.2',
    database: {
      api: { clusterRef: { name: 'mariadb' }, database: 'nova_api', secretRef: { name: 'nova-db-api' } },
      cell: { clusterRef: { name: 'mariadb' }, database: 'nova', secretRef: { name: 'nova-db-cell' } },
    },
    messaging: { clusterRef: { name: 'rabbitmq' } },
    serviceUser: { secretRef: { name: 'nova-service-user' } },
  };
  const plan = planDatabases({ metadata: { name: 'nova' }, spec }, { api: { username: 'nova_api' }, cell: { username: 'nova' } });
  if (!plan.ok) throw new Error(plan.problems.join('; '));
  return plan.blocks;
};

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
  describe('deprovisioning: the Nova finalizer deletes the CRs by the names they were provisioned with', () => {
    const deprovision = (plan: BlockPlan = cellPlan()): Promise<DeprovisionOutcome> => provisioner.deprovision(NS, plan, [], password);
    const CELL_CRS = [`databases/nova`, `databases/nova-cell0`, `users/nova`, `grants/nova`, `grants/nova-cell0`];
    const withFinalizer = (plural: 'databases' | 'users' | 'grants', name: string): void =>
      void fake.objects.mutate(path(plural, name), (o) => {
        (o.metadata as Record<string, unknown>).finalizers = [`${plural.slice(0, -1)}.k8s.mariadb.com/finalizer`];
      });

    it('absent() answers [] and sends nothing: the CRs are named per Nova and labelled, which is their ownership', async () => {
      expect(await provisioner.absent(NS, cellPlan(), password)).to.deep.equal([]);
      expect(fake.requests).to.deep.equal([]);
    });

    it('every CR of the block is read before the first DELETE; the live ones are deleted Grants first, each with its uid as a precondition; live', async () => {
      seedCluster();
      await settle();
      const uids = Object.fromEntries(CELL_CRS.map((cr) => [cr, (fake.objects.get(`${API}/${cr}`)!.metadata as { uid: string }).uid]));
      fake.clearRequests();
      expect(await deprovision()).to.deep.equal({ live: true, message: 'deleted Database nova, Database nova-cell0, User nova, Grant nova, Grant nova-cell0' });
      expect(fake.requests.map(line)).to.deep.equal([...CELL_CRS.map((cr) => `GET ${API}/${cr}`), ...[...CELL_CRS].reverse().map((cr) => `DELETE ${API}/${cr}`)]);
      for (const r of fake.requests.filter((q) => q.method === 'DELETE')) {
        expect((r.body as { preconditions?: unknown }).preconditions, r.path).to.deep.equal({ uid: uids[r.path.slice(API.length + 1)] });
      }
      for (const cr of CELL_CRS) expect(fake.objects.get(`${API}/${cr}`), cr).to.equal(undefined);
      // The MariaDB cluster is never read: the CRs go whether it serves or not.
      expect(fake.requests.some((r) => r.path.includes('/mariadbs/'))).to.equal(false);
    });

    it('a second call after the CRs are gone: not live, only reads, says none is left', async () => {
      seedCluster();
      await settle();
      await deprovision();
      fake.clearRequests();
      expect(await deprovision()).to.deep.equal({ live: false, message: 'no live CR of nova is left' });
      expect(writes(fake)).to.deep.equal([]);
    });

    it('the names per block: nova_api under {name}-api; the cell block under {name}, cell0 under {name}-cell0 through the cell key (planDatabases\' plans)', async () => {
      seedCluster();
      const [api, cell] = novaPlans();
      await settle(api);
      await settle(cell);
      fake.clearRequests();
      expect(await deprovision(api)).to.deep.include({ live: true });
      expect(writes(fake)).to.deep.equal([`DELETE ${API}/grants/nova-api`, `DELETE ${API}/users/nova-api`, `DELETE ${API}/databases/nova-api`]);
      expect(fake.objects.get(path('databases', 'nova')), 'the api block leaves the cell block alone').to.not.equal(undefined);
      fake.clearRequests();
      expect(await deprovision(cell)).to.deep.include({ live: true });
      expect(writes(fake)).to.deep.equal([`DELETE ${API}/grants/nova-cell0`, `DELETE ${API}/grants/nova`, `DELETE ${API}/users/nova`, `DELETE ${API}/databases/nova-cell0`, `DELETE ${API}/databases/nova`]);
    });

    it('liveness is observed before the DELETE: CRs the mariadb-operator\'s finalizer keeps are only marked; the first call is live, the second is not (marked is not live) and deletes nothing again', async () => {
      seedCluster();
      await settle();
      for (const cr of CELL_CRS) withFinalizer(cr.split('/')[0] as 'databases', cr.split('/')[1]!);
      expect(await deprovision()).to.deep.include({ live: true });
      // Still there, marked: a liveness check after the DELETE would have found none live.
      for (const cr of CELL_CRS) expect((fake.objects.get(`${API}/${cr}`)!.metadata as { deletionTimestamp?: string }).deletionTimestamp, cr).to.be.a('string');
      fake.clearRequests();
      expect(await deprovision()).to.deep.equal({ live: false, message: 'no live CR of nova is left; Database nova, Database nova-cell0, User nova, Grant nova, Grant nova-cell0 already being deleted' });
      expect(writes(fake)).to.deep.equal([]);
    });

    it('the second call is live again only while a live CR remains: one re-created between the passes is the only one deleted', async () => {
      seedCluster();
      await settle();
      withFinalizer('databases', 'nova');
      await deprovision();
      fake.objects.put(path('users', 'nova'), { metadata: { name: 'nova', labels: LABELS }, spec: { name: 'nova' } });
      fake.clearRequests();
      expect(await deprovision()).to.deep.equal({ live: true, message: 'deleted User nova; Database nova already being deleted' });
      expect(writes(fake)).to.deep.equal([`DELETE ${API}/users/nova`]);
      fake.clearRequests();
      expect(await deprovision()).to.deep.equal({ live: false, message: 'no live CR of nova is left; Database nova already being deleted' });
      expect(writes(fake)).to.deep.equal([]);
    });

    it('a CR of the same name that is not this Nova\'s (no regent.dev/nova label, or another Nova\'s) is never deleted and does not hold the finalizer; the message says it was left', async () => {
      fake.objects.put(path('databases', 'nova'), { metadata: { name: 'nova', labels: { 'example.com/team': 'db' } }, spec: { name: 'nova' } });
      fake.objects.put(path('users', 'nova'), { metadata: { name: 'nova', labels: { ...LABELS, 'regent.dev/nova': 'other' } }, spec: { name: 'nova' } });
      fake.objects.put(path('grants', 'nova'), { metadata: { name: 'nova', labels: LABELS }, spec: {} });
      expect(await deprovision()).to.deep.equal({
        live: true,
        message: 'deleted Grant nova; left Database nova: it has no label regent.dev/nova, so it is not this Nova\'s; left User nova: it is labelled regent.dev/nova=other, so it is not this Nova\'s',
      });
      expect(writes(fake)).to.deep.equal([`DELETE ${API}/grants/nova`]);
      expect(fake.objects.get(path('databases', 'nova'))).to.not.equal(undefined);
      expect(fake.objects.get(path('users', 'nova'))).to.not.equal(undefined);
      fake.clearRequests();
      expect(await deprovision()).to.deep.include({ live: false });
      expect(writes(fake)).to.deep.equal([]);
    });

    it('a CR replaced under its name between the read and the DELETE (the uid precondition\'s 409) is not reached and stays live for the next pass; a 404 is success', async () => {
      seedCluster();
      await settle();
      fake.failNext('DELETE', `${API}/users/nova`, 409, 'Conflict', 'Operation cannot be fulfilled on users.k8s.mariadb.com "nova": Precondition failed');
      fake.failNext('DELETE', `${API}/grants/nova`, 404, 'NotFound', 'grants.k8s.mariadb.com "nova" not found');
      expect(await deprovision()).to.deep.equal({ live: true, message: 'deleted Database nova, Database nova-cell0, Grant nova, Grant nova-cell0; User nova changed since it was read; read again on the next pass' });
      expect(fake.objects.get(path('users', 'nova'))).to.not.equal(undefined);
    });

    it('a refused DELETE is a ProvisioningError naming the verb, the CR and the HTTP status', async () => {
      seedCluster();
      await settle();
      fake.failNext('DELETE', `${API}/grants/nova-cell0`, 403, 'Forbidden', 'grants.k8s.mariadb.com "nova-cell0" is forbidden');
      let error: unknown;
      try {
        await deprovision();
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(ProvisioningError);
      expect((error as Error).message).to.equal(`cannot delete Grant nova-cell0 in ${NS}: HTTP 403: grants.k8s.mariadb.com "nova-cell0" is forbidden`);
    });
  });
});
