/**
 * Regent's resource kinds: types, io-ts codecs and one validate function per kind. The registry
 * `KINDS` is what the stores, the CLI and the CRD agreement test iterate.
 */
import type { KindDefinition } from './kind.js';
import { ServerKind } from './server.js';

export * from './kind.js';
export * from './meta.js';
export * from './server.js';
export { describeFieldErrors, type FieldError } from './codec/report.js';
export { Condition, Conditions, type ConditionStatus, LocalObjectReference, SecretKeyReference } from './codec/common.js';

export const KINDS: readonly KindDefinition<string, unknown, unknown>[] = [ServerKind] as unknown as readonly KindDefinition<string, unknown, unknown>[];
