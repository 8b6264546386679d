/**
 * The shared provisioning flow of a Nova database block (nova-operator.md, "Database"), behind a port with two
 * adapters:
 * - `mariadb-operator.ts`: the mariadb-operator's Database, User and Grant CRs (k8s.mariadb.com/v1alpha1) on
 *   Kubernetes, each applied only once the one before it is Ready;
 * - `sql.ts`: plain SQL against a MariaDB server (the embedded default, and what CI runs against the sandbox's
 *   MariaDB): CREATE DATABASE / CREATE USER … WITH MAX_USER_CONNECTIONS / GRANT, idempotent.
 *
 * `plan.ts` turns a Nova into the ordered steps (primary Database, additional Database (cell0), User with the
 * primary Grant, additional Grant) with the schema names checked against ^[A-Za-z0-9_]{1,64}$ before anything
 * is applied. The adapters apply a plan; they never decide names or order.
 */

/** One block's provisioning, in the order it must be applied. */
export interface BlockPlan {
  /** The Nova CR's name (the CR adapter labels its CRs `regent.dev/nova: <nova>`; `instance` cannot tell it). */
  nova: string;
  /** `{nova}-api` for nova_api, `{nova}` for the cell block (the mariadb-operator CR names). */
  instance: string;
  /** The MariaDB cluster the block names (spec.database.<block>.clusterRef.name). */
  clusterRef: string;
  /** The ordered steps. */
  steps: readonly ProvisionStep[];
  /**
   * The block's tls, when enabled (spec.database.<block>.tls): the Secret keys of the CA bundle and, optionally, of
   * the client certificate and key. The SQL adapter connects with them; the CR adapter has no connection of its own.
   */
  tls?: { ca: SecretKey; cert?: SecretKey; key?: SecretKey };
}

/** A key of a Secret in the Nova's namespace. */
export interface SecretKey {
  name: string;
  key: string;
}

export type ProvisionStep =
  | { kind: 'Database'; /** CR name */ name: string; database: string }
  | { kind: 'User'; name: string; username: string; /** The credentials Secret (key `password`) */ passwordSecret: { name: string; key: string }; maxUserConnections: number }
  | { kind: 'Grant'; name: string; username: string; database: string };

/** The answer of one provisioning pass over a block. */
export type ProvisionOutcome =
  /** Every step is applied and (on Kubernetes) Ready. */
  | { kind: 'ready' }
  /** The MariaDB cluster is not there or not ready (DatabaseReady=False / ClusterNotReady). */
  | { kind: 'clusterNotReady'; message: string }
  /** A step is applied but not Ready yet, or waits on the one before it (DatabaseReady=False / WaitingForDatabase). */
  | { kind: 'waiting'; message: string };

export class ProvisioningError extends Error {
  override readonly name = 'ProvisioningError';
}

export interface DatabaseProvisioner {
  /**
   * Applies the block's plan in order. `password` resolves a Secret key (the User's password, and the TLS files of
   * plan.tls); the SQL adapter needs the values, the CR adapter only names the Secret. Never logs or returns a value.
   */
  provision(namespace: string, plan: BlockPlan, password: (secret: { name: string; key: string }) => Promise<string | undefined>): Promise<ProvisionOutcome>;
  close?(): Promise<void>;
}
