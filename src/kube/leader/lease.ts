/**
 * A lease as leader election sees it: the fields of a coordination.k8s.io/v1 Lease spec, plus the
 * version that makes updates conditional. Both the Kubernetes Lease and the embedded lease row
 * implement LeaseBackend, so one elector serves both.
 */
export interface LeaseRecord {
  /** Who holds the lease; empty when it was released. */
  readonly holderIdentity: string;
  /** How long after its last renewal the lease may be taken over. Kubernetes stores whole seconds. */
  readonly leaseDurationMs: number;
  /** RFC 3339 with microseconds, when the current holder acquired it. */
  readonly acquireTime?: string;
  /** RFC 3339 with microseconds, the holder's last renewal. */
  readonly renewTime?: string;
  /** How many times the lease changed hands. */
  readonly leaseTransitions: number;
}

export interface StoredLease extends LeaseRecord {
  /** Opaque; changes on every write (the resourceVersion of a Kubernetes Lease). */
  readonly version: string;
}

export interface LeaseBackend {
  readonly description: string;
  get(): Promise<StoredLease | undefined>;
  /** Fails with AlreadyExists when the lease exists. */
  create(record: LeaseRecord): Promise<StoredLease>;
  /** Fails with Conflict when the lease changed since `version` was read. */
  update(record: LeaseRecord, version: string): Promise<StoredLease>;
}
