/** The kubernetes adapter: import from here only when a cluster is involved (it loads @kubernetes/client-node). */
export { KubernetesResourceSource, openKubernetesSource, type KubernetesSourceOptions } from './source.js';
export { KubernetesLeaseBackend } from './lease.js';
export { loadKubeConfig, type KubeConfigOptions } from './config.js';
export { KubernetesSecretStore } from './secrets.js';
