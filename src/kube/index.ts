/**
 * Regent's desired-state layer: the ResourceSource port, its two adapters, the Informer, status
 * conflict handling, leader election, and the helpers the CLI wires. See README.md.
 *
 * The kubernetes adapter is exported from './kubernetes/index.js' (not here) so that importing
 * this module never loads @kubernetes/client-node; `openResourceSource('kubernetes')` loads it on demand.
 */
export * from './port.js';
export * from './errors.js';
export {
  MANAGED_BY,
  MANAGED_BY_LABEL,
  MAX_SECRET_BYTES,
  OWNER_UID_LABEL,
  parseLabelSelector,
  type SecretPutOptions,
  type SecretPutResult,
  type SecretStore,
  type SecretSummary,
  type StoredSecret,
} from './secrets.js';
export { EmbeddedSecretStore } from './embedded/secrets.js';
export { Informer, type InformerHandler, type InformerOptions } from './informer.js';
export { patchStatusWithRetry, type RetryOptions } from './retry.js';
export { applyMergePatch, type MergePatch } from './merge-patch.js';
export { ownerReferenceTo, hasFinalizer, isDeleting, findCondition, objectKey, keyOf } from './object.js';
export { resolveKind, definitionOf, isKindName } from './kinds.js';
export { openResourceSource, DEFAULT_SOURCE } from './open.js';
export { EmbeddedResourceSource, openEmbeddedSource, type EmbeddedOptions } from './embedded/store.js';
export { EmbeddedLeaseBackend } from './embedded/lease.js';
export { LeaderElector, type LeaderElectionOptions } from './leader/elector.js';
export type { LeaseBackend, LeaseRecord, StoredLease } from './leader/lease.js';
export { applyManifests, parseManifests, getResources, deleteResource, describeApplyOutcome, type ApplyOutcome, type ManifestOptions, type GetOptions } from './cli/manifests.js';
export { getSecrets, deleteSecret, formatSecrets, isSecretKind } from './cli/secrets.js';
export { formatTable, formatObjects, formatAge, type OutputFormat, type TableOptions } from './cli/output.js';
