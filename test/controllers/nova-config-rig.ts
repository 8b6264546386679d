/**
 * A lane pass for the Config and ComputeConfig steps' tests: a Nova, the embedded store's SecretStore (real labels
 * and owner uids) counting its writes and deletes, a ConfigPort (the local store in a temporary directory unless the
 * test hands one), and the values the Secrets and TransportURLSecret steps hand on, with credentials the tests look
 * for in every byte the steps produce.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import type { SecretStore } from '../../src/kube/secrets.js';
import type { Nova, NovaSpec } from '../../src/resources/nova.js';
import type { NovaLanePass } from '../../src/controllers/nova/pass.js';
import type { NovaControllerDeps } from '../../src/controllers/nova/reconcile.js';
import type { ConfigPort } from '../../src/nova/config/port.js';
import { LocalConfigStore } from '../../src/nova/config/local.js';
import { CREDENTIALS, NAME, NS, UID, baseSpec, transportURL } from '../nova/support/config-fixtures.js';

export interface CountingSecrets extends SecretStore {
  writes: string[];
  deletes: string[];
}

const counting = (inner: SecretStore): CountingSecrets => {
  const writes: string[] = [];
  const deletes: string[] = [];
  return {
    writes,
    deletes,
    get: (ns, name) => inner.get(ns, name),
    put: (ns, name, data, options) => (writes.push(name), inner.put(ns, name, data, options)),
    delete: (ns, name) => (deletes.push(name), inner.delete(ns, name)),
    list: (ns, selector) => inner.list(ns, selector),
  };
};

export interface ConfigRig {
  dir: string;
  source: EmbeddedResourceSource;
  secrets: CountingSecrets;
  configs: ConfigPort;
  pass(spec?: NovaSpec, values?: Partial<NovaLanePass['values']>): NovaLanePass;
  close(): Promise<void>;
}

/** The values the steps before Config hand on: every credential of CREDENTIALS among them. */
export const upstreamValues = (): Partial<NovaLanePass['values']> => ({
  apiCredentials: { username: 'nova_api', password: CREDENTIALS.apiPassword },
  cellCredentials: { username: 'nova', password: CREDENTIALS.cellPassword },
  serviceUserPassword: CREDENTIALS.serviceUser,
  metadataSharedSecret: CREDENTIALS.metadata,
  transportURL: transportURL(),
  brokerPort: 5672,
});

/** The pass with another ConfigPort (or none). */
export const withConfigs = (pass: NovaLanePass, configs: ConfigPort | undefined): NovaLanePass => ({ ...pass, deps: { ...pass.deps, configs } as unknown as NovaControllerDeps });

export const openConfigRig = (options: { configs?: (dir: string) => ConfigPort } = {}): ConfigRig => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-config-step-'));
  const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  const secrets = counting(source.secrets);
  const configs = options.configs?.(dir) ?? new LocalConfigStore({ dir: join(dir, 'nova'), settings: { keystoneURL: 'https://keystone.example:5000/v3', regionName: 'RegionOne' } });
  const deps = { secrets, configs } as unknown as NovaControllerDeps;
  return {
    dir,
    source,
    secrets,
    configs,
    pass: (spec = baseSpec(), values = upstreamValues()) => ({
      nova: { apiVersion: 'regent.dev/v1alpha1', kind: 'Nova', metadata: { name: NAME, namespace: NS, uid: UID, generation: 1 }, spec } as unknown as Nova,
      ref: { namespace: NS, name: NAME, uid: UID },
      deps,
      values: { digests: {}, ...values },
      upgrading: false,
      now: () => new Date('2026-01-01T00:00:00Z'),
    }),
    close: async () => {
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
