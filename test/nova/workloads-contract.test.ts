/**
 * The RoleWorkloads contract (src/nova/workloads/port.ts), run against both adapters: the Kubernetes one on the fake
 * API server (a rollout completes when the test plays the Deployment controller and writes the status the API server
 * would report), the local one with real supervised child processes (the stand-in role program of
 * ./support/workloads.ts; a rollout completes when the process answers its readiness check).
 *
 * "Rolled" is what each adapter changes when a template changes: a Deployment's generation (its pod template was
 * replaced), a local process's pid (it was restarted).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeApiServer } from '../kube/support/fake-apiserver.js';
import { KubernetesWorkloads } from '../../src/nova/workloads/kubernetes.js';
import { LocalWorkloads } from '../../src/nova/workloads/local.js';
import { UPGRADE_ROLE_ORDER, type NovaRole, type RoleTemplate, type RoleWorkloads } from '../../src/nova/workloads/port.js';
import { withTemplateHash } from '../../src/nova/workloads/template-hash.js';
import { roleTemplate } from '../../src/controllers/nova/steps/roles.js';
import { DIGEST_ANNOTATIONS } from '../../src/controllers/nova/pass.js';
import { allDigests, lanePass, standInLauncher } from './support/workloads.js';

const NS = 'openstack';
const NOVA = { name: 'nova', uid: 'uid-nova' };

interface Driver {
  port: RoleWorkloads;
  /** Brings the role's rollout to completion (the Deployment controller's status; the process's readiness). */
  settle(role: NovaRole): Promise<void>;
  /** What changes when the role rolls: the Deployment's generation, the process's pid. */
  identity(role: NovaRole): string | undefined;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const kubernetesDriver = async (): Promise<Driver> => {
  const fake = await FakeApiServer.start();
  const path = (role: NovaRole) => fake.objects.path('deployments', NS, `nova-${role}`);
  return {
    port: new KubernetesWorkloads({ kubeConfig: fake.kubeConfig() }),
    async settle(role) {
      const d = fake.objects.get(path(role)) as { metadata: { generation: number }; spec: { replicas: number } };
      const n = d.spec.replicas;
      fake.objects.setStatus(path(role), { observedGeneration: d.metadata.generation, replicas: n, updatedReplicas: n, readyReplicas: n, availableReplicas: n });
    },
    identity: (role) => {
      const d = fake.objects.get(path(role)) as { metadata: { generation: number } } | undefined;
      return d === undefined ? undefined : String(d.metadata.generation);
    },
    async close() {
      const unexpected = fake.unexpected.map((r) => `${r.method} ${r.path}`);
      await fake.close();
      expect(unexpected, 'requests the fake does not serve').to.deep.equal([]);
    },
  };
};

/** The values of every Secret key the templates' env names (read into the processes' environment only). */
const SECRETS: Record<string, string> = {
  'nova-api-db-connection/connection': 'mysql+pymysql://nova_api:s3cret-api@127.0.0.1/nova_api',
  'nova-db-connection/connection': 'mysql+pymysql://nova:s3cret-cell@127.0.0.1/nova',
  'nova-transport-url/url': 'rabbit://nova:s3cret-bus@127.0.0.1:5672/nova',
  'nova-service-user/password': 's3cret-service-user',
  'nova-metadata/shared-secret': 's3cret-metadata',
};

const localDriver = async (): Promise<Driver> => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-workloads-contract-'));
  const port = new LocalWorkloads({ dir, readSecret: async (_ns, name, key) => SECRETS[`${name}/${key}`], launcher: standInLauncher, readyAfterMs: 300, probeIntervalMs: 100, graceMs: 3_000 });
  return {
    port,
    async settle(role) {
      for (let i = 0; i < 100; i += 1) {
        if ((await port.rollout(NS, NOVA.name, role, 'ghcr.io/c5c3/nova:2025.1')).rolledOut) return;
        await sleep(100);
      }
      throw new Error(`${role} never became ready`);
    },
    identity: (role) => {
      const pid = port.pid(NS, NOVA.name, role);
      return pid === undefined ? undefined : String(pid);
    },
    async close() {
      await port.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/** A role's template as the workload steps build it (roleTemplate), with these digests. */
const templateOf = (role: NovaRole, digests = allDigests()): RoleTemplate => {
  const built = roleTemplate(lanePass({ digests }), role);
  if ('waiting' in built) throw new Error(built.waiting);
  return built.template;
};

for (const [adapter, open] of [['kubernetes (fake API server)', kubernetesDriver], ['local (supervised processes)', localDriver]] as const) {
  describe(`RoleWorkloads contract: ${adapter}`, function () {
    this.timeout(30_000);
    let driver: Driver;
    beforeEach(async () => {
      driver = await open();
    });
    afterEach(async () => {
      await driver.close();
    });

    it('ensure creates the role: present, rolled out only once it is ready, and an unchanged template is not touched again', async () => {
      const first = await driver.port.ensure(NS, NOVA, 'api', templateOf('api'));
      expect(first).to.include({ role: 'api', deployment: 'nova-api', present: true, rolledOut: false });
      await driver.settle('api');
      const rolled = driver.identity('api');
      const again = await driver.port.ensure(NS, NOVA, 'api', templateOf('api'));
      expect(again.rolledOut, again.detail).to.equal(true);
      expect(driver.identity('api'), 'an unchanged template rolls nothing').to.equal(rolled);
    });

    it('a changed template re-rolls the role, which is not rolled out until the new one is ready', async () => {
      await driver.port.ensure(NS, NOVA, 'conductor', templateOf('conductor'));
      await driver.settle('conductor');
      const before = driver.identity('conductor');
      const changed = withTemplateHash({ ...templateOf('conductor'), config: { name: 'nova-config-fedcba9876', files: { 'nova.conf': '[DEFAULT]\ndebug = true\n' } } });
      const rolling = await driver.port.ensure(NS, NOVA, 'conductor', changed);
      expect(rolling.rolledOut, rolling.detail).to.equal(false);
      expect(driver.identity('conductor')).to.not.equal(before);
      await driver.settle('conductor');
      expect((await driver.port.ensure(NS, NOVA, 'conductor', changed)).rolledOut).to.equal(true);
    });

    it('a changed digest rolls exactly the roles that carry it: the metadata secret only the metadata API, the service user every role but the console proxy', async () => {
      for (const role of UPGRADE_ROLE_ORDER) await driver.port.ensure(NS, NOVA, role, templateOf(role));
      for (const role of UPGRADE_ROLE_ORDER) await driver.settle(role);
      const rolledBy = async (digests: Record<string, string>): Promise<NovaRole[]> => {
        const before = Object.fromEntries(UPGRADE_ROLE_ORDER.map((role) => [role, driver.identity(role)]));
        for (const role of UPGRADE_ROLE_ORDER) await driver.port.ensure(NS, NOVA, role, templateOf(role, digests));
        const rolled = UPGRADE_ROLE_ORDER.filter((role) => driver.identity(role) !== before[role]);
        for (const role of rolled) await driver.settle(role);
        return rolled;
      };
      const metadataRotated = { ...allDigests(), [DIGEST_ANNOTATIONS.metadataSecret]: 'f'.repeat(64) };
      expect(await rolledBy(metadataRotated)).to.deep.equal(['metadata']);
      expect(await rolledBy({ ...metadataRotated, [DIGEST_ANNOTATIONS.authtoken]: '1'.repeat(64) })).to.deep.equal(['conductor', 'scheduler', 'metadata', 'api']);
      expect(await rolledBy({ ...metadataRotated, [DIGEST_ANNOTATIONS.authtoken]: '1'.repeat(64) }), 'the same digests again roll nothing').to.deep.equal([]);
    });

    it('rollout(image) reads a role that runs another image as not rolled out, and a missing role as absent', async () => {
      await driver.port.ensure(NS, NOVA, 'scheduler', templateOf('scheduler'));
      await driver.settle('scheduler');
      expect((await driver.port.rollout(NS, NOVA.name, 'scheduler', 'ghcr.io/c5c3/nova:2025.1')).rolledOut).to.equal(true);
      expect((await driver.port.rollout(NS, NOVA.name, 'scheduler', 'ghcr.io/c5c3/nova:2025.2')).rolledOut).to.equal(false);
      expect(await driver.port.rollout(NS, NOVA.name, 'metadata', 'ghcr.io/c5c3/nova:2025.1')).to.include({ present: false, rolledOut: false });
    });

    it('remove takes the role away (then it reads as absent); removing it again is absent', async () => {
      await driver.port.ensure(NS, NOVA, 'novncproxy', templateOf('novncproxy'));
      expect(await driver.port.remove(NS, NOVA.name, 'novncproxy')).to.equal('removed');
      expect(driver.identity('novncproxy')).to.equal(undefined);
      expect(await driver.port.rollout(NS, NOVA.name, 'novncproxy', 'ghcr.io/c5c3/nova:2025.1')).to.include({ present: false });
      expect(await driver.port.remove(NS, NOVA.name, 'novncproxy')).to.equal('absent');
    });

    it('the API has an endpoint once it is ensured, and none before', async () => {
      expect(await driver.port.endpoint(NS, NOVA.name)).to.equal(undefined);
      await driver.port.ensure(NS, NOVA, 'api', templateOf('api'));
      expect(await driver.port.endpoint(NS, NOVA.name)).to.match(/^http:\/\/[a-z0-9.-]+:\d+$/);
    });
  });
}
