/**
 * The Nova effect handlers (src/controllers/nova/effects.ts): "promoting installedRelease rolls the four non-API
 * roles once more through the nova.c5c3.io/installed-release annotation" (nova-operator.md, "Release upgrade") —
 * the API is never stamped, the console proxy only while it is rendered, and the result names the roles that had
 * a Deployment. A Job whose rendered hash is not the decided one is not created.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { novaEffectHandlers } from '../../src/controllers/nova/effects.js';
import { reconcileNova } from '../../src/controllers/nova/reconcile.js';
import type { NovaRole, WorkloadPort } from '../../src/nova/workloads/port.js';
import type { JobRunner, JobSpec } from '../../src/nova/jobs/port.js';
import { silentLogger } from '../../src/log/logger.js';
import type { NovaSpec } from '../../src/resources/nova.js';

const spec = (consoleProxy: boolean): NovaSpec => ({
  image: 'ghcr.io/c5c3/nova:2025.2',
  openStackRelease: '2025.2',
  database: { api: { clusterRef: { name: 'mariadb' }, database: 'nova_api', secretRef: { name: 'a' } }, cell: { clusterRef: { name: 'mariadb' }, database: 'nova', secretRef: { name: 'c' } } },
  messaging: { clusterRef: { name: 'rabbitmq' } },
  serviceUser: { secretRef: { name: 's' } },
  consoleProxy: { enabled: consoleProxy },
});

describe('Nova effect handlers (issue 14)', () => {
  let dir: string;
  let source: EmbeddedResourceSource;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-nova-effects-'));
    source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  });
  afterEach(async () => {
    await source.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const setUp = async (consoleProxy: boolean, absent: NovaRole[] = []) => {
    const stamped: NovaRole[] = [];
    const created: JobSpec[] = [];
    const workloads: WorkloadPort = {
      rollout: async () => ({ role: 'api', deployment: 'x', present: false, rolledOut: false, detail: '' }),
      stampInstalledRelease: async (_ns, _nova, role) => {
        stamped.push(role);
        return absent.includes(role) ? 'absent' : 'stamped';
      },
    };
    const jobs = { get: async () => undefined, create: async (s: JobSpec) => void created.push(s) } as unknown as JobRunner;
    const nova = await source.create({ apiVersion: 'regent.dev/v1alpha1', kind: 'Nova', metadata: { name: 'nova', namespace: 'default' }, spec: spec(consoleProxy) } as never);
    // a pass registers the Nova for its streams (it stops at the first gate: no Secrets)
    await reconcileNova({ engine: { dispatch: async () => [{ snapshot: { value: 'steady', context: {} }, changed: false }], load: async () => ({ snapshot: { value: 'steady' } }) } as never, source, secrets: source.secrets, logger: silentLogger(), provisioner: { provision: async () => ({ kind: 'ready' }), absent: async () => [], deprovision: async () => ({ live: false, message: '' }) }, databaseEndpoint: async () => undefined, jobs, workloads }, 'default', 'nova');
    const handlers = novaEffectHandlers({ source, jobs, workloads, logger: silentLogger() });
    const context = { stream: `nova-database-${nova.metadata.uid}`, logger: silentLogger() } as never;
    return { stamped, created, handlers, context };
  };

  it('the stamp rolls the conductor, scheduler, metadata and the console proxy — never the API', async () => {
    const { stamped, handlers, context } = await setUp(true);
    const result = await handlers['nova.stampInstalledRelease']!({ type: 'nova.stampInstalledRelease', release: '2025.2' } as never, context);
    expect(stamped).to.deep.equal(['conductor', 'scheduler', 'metadata', 'novncproxy']);
    expect(result).to.deep.equal({ type: 'rolesStamped', release: '2025.2', roles: ['conductor', 'scheduler', 'metadata', 'novncproxy'] });
  });

  it('a console proxy that is switched off is not stamped; a role with no Deployment is not reported stamped', async () => {
    const { stamped, handlers, context } = await setUp(false, ['metadata']);
    const result = await handlers['nova.stampInstalledRelease']!({ type: 'nova.stampInstalledRelease', release: '2025.2' } as never, context);
    expect(stamped).to.deep.equal(['conductor', 'scheduler', 'metadata']);
    expect(result).to.deep.equal({ type: 'rolesStamped', release: '2025.2', roles: ['conductor', 'scheduler'] });
  });

  it('a Job rendered with another hash than the decided one is not created (the next pass decides again)', async () => {
    const { created, handlers, context } = await setUp(true);
    await handlers['nova.createJob']!({ type: 'nova.createJob', job: 'expand', hash: 'decided-from-an-older-spec' } as never, context);
    expect(created).to.deep.equal([]);
  });
});
