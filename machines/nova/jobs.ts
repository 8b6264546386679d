/**
 * The Nova Database step's Job vocabulary: which Jobs exist and what each is called. Shared by the machine that
 * decides them (machines/nova-upgrade.ts) and the shell that renders and runs them (src/nova/jobs/), so it lives
 * below both: the renderer names a Job exactly as the decision that asked for it did, without importing the
 * machine, and the machine imports nothing from src/nova (issue 25, layers).
 *
 * Pure: no I/O, no clock.
 */

/** The Database step's Jobs: `{nova}-db-sync`, `{nova}-db-expand`, `{nova}-db-migrate`, `{nova}-db-contract`. */
export const NOVA_JOBS = ['sync', 'expand', 'migrate', 'contract'] as const;
export type NovaJob = (typeof NOVA_JOBS)[number];
export const novaJobName = (nova: string, job: NovaJob): string => `${nova}-db-${job}`;
