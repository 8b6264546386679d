/**
 * A Server's provider-create gates (server-api.md: "create can carry immutable providerCreateGates; reads
 * expose only status.remainingProviderCreateGates, while the stored Kubernetes object retains per-gate status
 * details for operators"; issue 17: "the server is created in Nova only once every gate is satisfied").
 *
 * The per-gate records (`status.providerCreateGates`: name, satisfied, actor, reason, message, satisfiedAt)
 * are written only by the API's POST …/provider-create-gates; everything else is derived from them and the
 * spec: a gate is remaining when the spec declares it and no record says it is satisfied. A record for a gate
 * the spec does not declare counts for nothing. `status.remainingProviderCreateGates` is never an input, only
 * an output (the status runner keeps it equal to this derivation).
 *
 * Pure: from the spec and status as stored.
 */
import type { ServerSpec, ServerStatus } from '../src/resources/server.js';

/** How often the Server pass looks again while gates are pending (the API's status write requeues no pass by itself). */
export const PROVIDER_CREATE_GATE_RECHECK_MS = 10_000;

type GateRecord = NonNullable<ServerStatus['providerCreateGates']>[number];

/** The declared gates' names, in spec order. */
export const declaredCreateGates = (spec: Partial<ServerSpec> | undefined): string[] => (spec?.providerCreateGates ?? []).map((g) => g.name);

const satisfiedRecords = (spec: Partial<ServerSpec> | undefined, status: Partial<ServerStatus> | undefined): Map<string, GateRecord> => {
  const declared = new Set(declaredCreateGates(spec));
  const out = new Map<string, GateRecord>();
  for (const record of status?.providerCreateGates ?? []) if (record.satisfied && declared.has(record.name) && !out.has(record.name)) out.set(record.name, record);
  return out;
};

/** The declared gates no record says are satisfied, in spec order. */
export const remainingCreateGates = (spec: Partial<ServerSpec> | undefined, status: Partial<ServerStatus> | undefined): string[] => {
  const satisfied = satisfiedRecords(spec, status);
  return declaredCreateGates(spec).filter((name) => !satisfied.has(name));
};

/** Who satisfied each declared gate and when, in spec order (no reason or message: those stay on the object). */
export const satisfiedCreateGates = (spec: Partial<ServerSpec> | undefined, status: Partial<ServerStatus> | undefined): Array<{ name: string; actor?: string; satisfiedAt?: string }> => {
  const satisfied = satisfiedRecords(spec, status);
  return declaredCreateGates(spec).flatMap((name) => {
    const record = satisfied.get(name);
    if (!record) return [];
    return [{ name, ...(record.actor !== undefined ? { actor: record.actor } : {}), ...(record.satisfiedAt !== undefined ? { satisfiedAt: record.satisfiedAt } : {}) }];
  });
};

/**
 * The status.remainingProviderCreateGates the runner keeps: the derivation above; undefined (write nothing)
 * for a Server that declares no gates and has no list stored.
 */
export const renderRemainingCreateGates = (spec: Partial<ServerSpec> | undefined, status: Partial<ServerStatus> | undefined): string[] | undefined => {
  if (declaredCreateGates(spec).length === 0 && status?.remainingProviderCreateGates === undefined) return undefined;
  return remainingCreateGates(spec, status);
};

/** The message of ProviderCreateGatesPending (user-safe: gate names, the satisfying actors and times). */
export const createGatesPendingMessage = (spec: Partial<ServerSpec> | undefined, status: Partial<ServerStatus> | undefined): string => {
  const remaining = remainingCreateGates(spec, status);
  const done = satisfiedCreateGates(spec, status);
  const satisfied = done.length === 0 ? '' : `; satisfied: ${done.map((g) => `${g.name} (by ${g.actor ?? '?'} at ${g.satisfiedAt ?? '?'})`).join(', ')}`;
  return `${remaining.length} of ${declaredCreateGates(spec).length} provider-create gate${declaredCreateGates(spec).length === 1 ? '' : 's'} not satisfied: ${remaining.join(', ')}${satisfied}`;
};
