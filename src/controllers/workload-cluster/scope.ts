/**
 * The clients a workload pass works with (src/controllers/scopes.ts `workload`): the cluster's Identity's, for the
 * cluster and for each of its machines. Whether the scope resolved is noted for DependenciesReady (the scope
 * reachability recorder); an Identity not ready yet is a wait, anything else fails the pass.
 */
import type { ObjectOf, KindName } from '../../resources/index.js';
import { IdentityNotReady, type IdentityScope } from '../../provider/identity/sessions.js';
import type { ScopeNote } from '../scope-reachability.js';
import type { Scopes } from '../scopes.js';

export type WorkloadScopeResult = { kind: 'ready'; scope: IdentityScope } | { kind: 'notReady'; why: string };

export const resolveWorkloadScope = async (scopes: Pick<Scopes, 'workload'>, note: ScopeNote, object: ObjectOf<KindName>): Promise<WorkloadScopeResult> => {
  try {
    const scope = await scopes.workload(object);
    note.scopeResolved();
    return { kind: 'ready', scope };
  } catch (error) {
    note.failed(error);
    if (error instanceof IdentityNotReady) return { kind: 'notReady', why: error.message };
    throw error;
  }
};
