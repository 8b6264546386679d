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
 *
 * Deprovisioning (nova-operator.md, "Rotation and deletion": the Nova finalizer) takes the same plans, so it
 * reaches exactly the names they were provisioned under: nova_api under `{name}-api`, the cell block under
 * `{name}` with cell0 as its additional schema (no key of its own).
 * - Ownership. The rule is that the embedded default drops only what it created, never a schema it did
 *   not. The CR adapter's CRs carry that themselves (named per Nova, labelled `regent.dev/nova`); a SQL schema or
 *   user does not, so before each provision the caller asks `absent()` which of the plan's schemas and users do
 *   not exist yet and records them as claims in the Nova's event stream FIRST (write-ahead): a crash right after a
 *   CREATE still leaves the claim behind, and a schema that existed before Regent never becomes one. The claims
 *   come back to `deprovision()` as `owned`.
 * - Liveness is observed before anything is deleted, because a Delete flips a CR's deletion timestamp and a check
 *   after it would always answer none-live and release the finalizer at once. `live: true` means something was
 *   still there when the call began: the finalizer holds one more pass (FinalizingDatabase), and the next call
 *   confirms that nothing is left (`live: false`, DatabaseFinalized).
 * - The SQL adapter reaches its server with the block's TLS files, so `absent()` and `deprovision()` take the same
 *   Secret reader `provision()` does. A server it cannot use is a ServerNotReadyError carrying the outcome
 *   `provision()` would have answered (clusterNotReady, or waiting for the TLS files): there is no pass outcome to
 *   return it in, and a guessed answer would either claim a schema Regent did not create or leave one it did.
 */

/** One block's provisioning, in the order it must be applied. */
export interface BlockPlan {
  /** The Nova CR's name (the CR adapter labels its CRs `regent.dev/nova: <nova>`; `instance` cannot tell it). */
  nova: string;
  /** The Nova CR's uid: the CR adapter on a target cluster labels its CRs `regent.dev/nova-uid: <uid>` (src/nova/ownership.ts). */
  uid?: string;
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
  override readonly name: string = 'ProvisioningError';
}

/**
 * `absent()` or `deprovision()` could not use the block's server: the outcome `provision()` would have answered in
 * the same place, so the caller can report it the same way (ClusterNotReady, WaitingForDatabase) instead of as a
 * failure. Its message is the outcome's, user-safe.
 */
export class ServerNotReadyError extends ProvisioningError {
  override readonly name: string = 'ServerNotReadyError';
  constructor(readonly outcome: Exclude<ProvisionOutcome, { kind: 'ready' }>) {
    super(outcome.message);
  }
}

/** A Secret key's value, or undefined when the Secret or the key is not there. Never logged. */
export type SecretReader = (secret: SecretKey) => Promise<string | undefined>;

/** A schema, or a SQL user (its host is always the adapters' SQL_HOST `%`), that Regent created for a plan. */
export type ProvisionedObject = { kind: 'database'; name: string } | { kind: 'user'; name: string };

/** The answer of one deprovisioning pass over a block. */
export interface DeprovisionOutcome {
  /** Something of the block was still there when the call began (observed before any delete): hold one more pass. */
  live: boolean;
  /** What was deleted, what is being deleted, and what was left and why; user-safe. */
  message: string;
}

export interface DatabaseProvisioner {
  /**
   * Applies the block's plan in order. `password` resolves a Secret key (the User's password, and the TLS files of
   * plan.tls); the SQL adapter needs the values, the CR adapter only names the Secret. Never logs or returns a value.
   */
  provision(namespace: string, plan: BlockPlan, password: (secret: { name: string; key: string }) => Promise<string | undefined>): Promise<ProvisionOutcome>;
  /**
   * The plan's schemas and users that do not exist yet, in plan order: what the next `provision()` would create, to
   * be recorded as claims before it runs. `secrets` reads the TLS files of plan.tls (the SQL adapter connects with
   * them). The CR adapter answers [] (its CRs carry their ownership). Throws ServerNotReadyError when the server
   * cannot be used.
   */
  absent(namespace: string, plan: BlockPlan, secrets: SecretReader): Promise<ProvisionedObject[]>;
  /**
   * Deletes what the block provisioned and answers whether anything of it was live before the delete. The SQL
   * adapter drops only the plan's schemas and users that are in `owned` (the recorded claims), never anything else;
   * the CR adapter deletes its CRs by the names they were provisioned under and ignores `owned`. Throws
   * ServerNotReadyError when the server cannot be used.
   */
  deprovision(namespace: string, plan: BlockPlan, owned: readonly ProvisionedObject[], secrets: SecretReader): Promise<DeprovisionOutcome>;
  close?(): Promise<void>;
}
