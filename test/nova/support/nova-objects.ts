/** A Nova spec and object for the watch tests: every referenced name derived from `prefix`. */
import type { Nova, NovaSpec } from '../../../src/resources/nova.js';

export const novaSpecFor = (prefix: string, extra: Partial<NovaSpec> = {}): NovaSpec => ({
  image: 'ghcr.io/c5c3/nova:2025.1',
  openStackRelease: '2025.1',
  database: {
    api: { clusterRef: { name: `${prefix}-mariadb` }, database: 'nova_api', secretRef: { name: `${prefix}-api-db` } },
    cell: { clusterRef: { name: `${prefix}-mariadb` }, database: 'nova', secretRef: { name: `${prefix}-cell-db` } },
  },
  messaging: { secretRef: { name: `${prefix}-rabbit`, key: 'url' } },
  serviceUser: { secretRef: { name: `${prefix}-service-user` } },
  ...extra,
});

export const novaObject = (name: string, uid: string, spec: NovaSpec, namespace: string): Nova => ({
  apiVersion: 'regent.dev/v1alpha1',
  kind: 'Nova',
  metadata: { namespace, name, uid, resourceVersion: '1', generation: 1, creationTimestamp: '2025-01-01T00:00:00Z' },
  spec,
});
