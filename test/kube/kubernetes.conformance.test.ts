/**
 * The conformance suites (resources and secrets) against the kubernetes adapter: over HTTP through the fake API server
 * always, and against a real cluster when KUBECONFIG is set (the CRDs from deploy/crds are installed
 * first, and each test uses its own namespace).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiextensionsV1Api, CoreV1Api, KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { openKubernetesSource } from '../../src/kube/kubernetes/source.js';
import { runConformance, type ConformanceTarget } from './conformance.js';
import { runSecretConformance } from './secrets.conformance.js';
import { FakeApiServer } from './support/fake-apiserver.js';
import { CRD_DIR } from '../resources/support/crds.js';

const CHANGE_LOG_LIMIT = 20;

const overHttp: ConformanceTarget = {
  name: 'kubernetes adapter over HTTP (fake API server)',
  changeLogLimit: CHANGE_LOG_LIMIT,
  eventuallyMs: 3000,
  async fresh() {
    const fake = await FakeApiServer.start({ changeLogLimit: CHANGE_LOG_LIMIT });
    const source = openKubernetesSource({ kubeConfig: fake.kubeConfig() });
    const dir = mkdtempSync(join(tmpdir(), 'regent-kubeconfig-'));
    const kubeconfig = join(dir, 'config');
    writeFileSync(kubeconfig, fake.kubeConfigYaml());
    return {
      source,
      namespace: 'conformance',
      spec: 'kubernetes',
      childEnv: { KUBECONFIG: kubeconfig },
      connect: async () => openKubernetesSource({ kubeConfig: fake.kubeConfig() }),
      interruptWatches: () => fake.endWatches(),
      async cleanup() {
        await source.close();
        const unexpected = fake.unexpected.map((r) => `${r.method} ${r.path}`);
        await fake.close();
        rmSync(dir, { recursive: true, force: true });
        if (unexpected.length > 0) throw new Error(`the adapter made requests the fake does not serve: ${unexpected.join('; ')}`);
      },
    };
  },
};
runConformance(overHttp);
runSecretConformance(overHttp);

const kubeconfig = process.env.KUBECONFIG;
if (!kubeconfig) {
  console.log('  (skipped: the ResourceSource conformance suite against a real cluster runs only when KUBECONFIG is set)');
  describe('ResourceSource conformance: real cluster', () => {
    it.skip('runs only when KUBECONFIG is set');
  });
} else {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const core = kc.makeApiClient(CoreV1Api);
  let installed = false;
  const installCrds = async (): Promise<void> => {
    if (installed) return;
    const api = kc.makeApiClient(ApiextensionsV1Api);
    for (const file of readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml'))) {
      const crd = parse(readFileSync(join(CRD_DIR, file), 'utf8')) as V1CustomResourceDefinition;
      const name = crd.metadata!.name!;
      try {
        const existing = await api.readCustomResourceDefinition({ name });
        await api.replaceCustomResourceDefinition({ name, body: { ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata?.resourceVersion } } });
      } catch {
        await api.createCustomResourceDefinition({ body: crd });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 2000)); // let discovery catch up
    installed = true;
  };
  const cluster: ConformanceTarget = {
    name: `real cluster (${kc.getCurrentCluster()?.server ?? '?'})`,
    eventuallyMs: 15_000,
    async fresh() {
      await installCrds();
      const namespace = `regent-conformance-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      const source = openKubernetesSource({ kubeConfig: kc });
      return {
        source,
        namespace,
        spec: 'kubernetes',
        connect: async () => openKubernetesSource({ kubeConfig: kc }),
        async cleanup() {
          await source.close();
          await core.deleteNamespace({ name: namespace }).catch(() => undefined);
        },
      };
    },
  };
  runConformance(cluster);
  runSecretConformance(cluster);
}
