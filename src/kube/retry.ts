/**
 * Conflict handling for status writes: read, decide, patch with the read's resourceVersion as a
 * precondition; on Conflict, read again and decide again. The decision is re-made from fresh state
 * each time (never the same patch re-sent), because whatever changed the object may have changed
 * what the right status is.
 */
import type { KindName, ObjectOf, StatusOf } from '../resources/index.js';
import { Conflict, NotFound } from './errors.js';
import type { MergePatch } from './merge-patch.js';
import type { ResourceSource } from './port.js';

export interface RetryOptions {
  /** Attempts before the last Conflict is thrown. Default 5. */
  readonly attempts?: number;
}

/**
 * `decide` gets the current object and returns the status merge patch to write, or undefined to
 * write nothing. Returns the object as written (or as read, when nothing was written).
 */
export const patchStatusWithRetry = async <K extends KindName>(
  source: ResourceSource,
  kind: K,
  namespace: string,
  name: string,
  decide: (current: ObjectOf<K>) => MergePatch<StatusOf<K>> | undefined,
  options: RetryOptions = {},
): Promise<ObjectOf<K>> => {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    const current = await source.get(kind, namespace, name);
    if (current === undefined) throw new NotFound(kind, namespace, name);
    const patch = decide(current);
    if (patch === undefined) return current;
    try {
      return await source.patchStatus(kind, namespace, name, patch, { resourceVersion: current.metadata.resourceVersion });
    } catch (error) {
      if (!(error instanceof Conflict) || attempt >= attempts) throw error;
    }
  }
};
