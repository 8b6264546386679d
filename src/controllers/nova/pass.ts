/**
 * One pass of the Nova lane (./lane.ts): the Nova, its ref, the controller's ports, and the values one step hands to
 * the next (pass-local: built for this pass, dropped after it). Steps live in ./steps/, one file each.
 *
 * Which step fills which value (nova-operator.md, "Pipeline"):
 *   Secrets              apiCredentials, cellCredentials, serviceUserPassword, metadataSharedSecret, messagingCA; digests
 *   DBConnectionSecrets  digests (api-db-connection-hash, db-connection-hash)
 *   TransportURLSecret   transportURL, brokerPort; digests (transport-url-hash)
 *   Config               config (the content-addressed ConfigMap's name, its hash, the rendered files)
 *   Database             databaseSynced (DBArchive reads it)
 *   Deployment           endpoint (HealthCheck probes it; status.endpoint)
 *   Conductor … Deployment read the credentials' digests and config
 */
import type { Nova } from '../../resources/nova.js';
import type { NovaRef } from '../../nova/jobs/render.js';
import type { BlockCredentials } from '../../nova/connection-secrets.js';
import type { NovaControllerDeps } from './deps.js';

/** The rendered configuration the roles and Jobs mount (the Config step's output). */
export interface RenderedNovaConfig {
  /** The immutable, content-addressed ConfigMap's name (`{name}-config-<hash>`). */
  name: string;
  hash: string;
  /** File name → content: nova.conf, the role overlays, logging.ini under json logging. */
  files: Readonly<Record<string, string>>;
}

export interface NovaPassValues {
  apiCredentials?: BlockCredentials;
  cellCredentials?: BlockCredentials;
  serviceUserPassword?: string;
  metadataSharedSecret?: string;
  /** The broker CA bundle on a TLS bus. */
  messagingCA?: string;
  transportURL?: string;
  /** The broker's port, for the NetworkPolicy member and the bus workloads' probes. */
  brokerPort?: number;
  config?: RenderedNovaConfig;
  /**
   * Rotation digests (nova-operator.md, "Rotation and deletion"): pod-template annotation → digest, stamped only
   * while non-empty, so a pass stopped at a gate rolls nothing. `nova.c5c3.io/api-db-connection-hash`,
   * `…/db-connection-hash`, `…/authtoken-hash`, `…/transport-url-hash`, `…/metadata-secret-hash` (metadata pods).
   */
  digests: Record<string, string>;
  /** The API's cluster-local endpoint (the Deployment step stamps status.endpoint from it; HealthCheck probes it). */
  endpoint?: string;
  /**
   * A step that set SecretsReady False and let the lane continue (Config's ConfigError over the last-good artefacts)
   * records it here, so the SecretsAvailable step after it does not cover that False with a True (steps/secrets-available.ts).
   */
  secretsNotReady?: { reason: string; message: string };
  /** Database: the schemas are synced at the requested release (the DBArchive step runs only then). */
  databaseSynced?: boolean;
  /**
   * ComputeConfig: status.computeConfigSecretRef's name, once `{name}-compute-config` is published (also while a
   * refused fragment leaves it as it was); absent: the step stamped nothing (the last stamp stays).
   */
  computeConfigSecretRef?: string | null;
  /** ComputeConfig: status.remoteComputeConfigSecretRef's name; null clears it (no spec.remoteCompute); absent: unchanged. */
  remoteComputeConfigSecretRef?: string | null;
}

export interface NovaLanePass {
  nova: Nova;
  ref: NovaRef;
  deps: NovaControllerDeps;
  values: NovaPassValues;
  /** Whether an upgrade is in flight (RollingUpdate and after): the workload steps then wait for their rollout. */
  upgrading: boolean;
  now: () => Date;
}

/** The digest annotation names (nova-operator.md, "Rotation and deletion"). */
export const DIGEST_ANNOTATIONS = {
  apiDbConnection: 'nova.c5c3.io/api-db-connection-hash',
  dbConnection: 'nova.c5c3.io/db-connection-hash',
  authtoken: 'nova.c5c3.io/authtoken-hash',
  transportURL: 'nova.c5c3.io/transport-url-hash',
  metadataSecret: 'nova.c5c3.io/metadata-secret-hash',
} as const;
