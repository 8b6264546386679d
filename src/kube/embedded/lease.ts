/**
 * A leader-election lease as a row of the embedded store, so two local replicas on one file never
 * reconcile at once. Updates are conditional on the row's version, like a Lease's resourceVersion.
 */
import type Database from 'better-sqlite3';
import { AlreadyExists, Conflict, NotFound } from '../errors.js';
import type { LeaseBackend, LeaseRecord, StoredLease } from '../leader/lease.js';

interface LeaseRow {
  holder_identity: string | null;
  lease_duration_ms: number;
  acquire_time: string | null;
  renew_time: string | null;
  lease_transitions: number;
  version: number;
}

const toStored = (row: LeaseRow): StoredLease => ({
  holderIdentity: row.holder_identity ?? '',
  leaseDurationMs: row.lease_duration_ms,
  ...(row.acquire_time ? { acquireTime: row.acquire_time } : {}),
  ...(row.renew_time ? { renewTime: row.renew_time } : {}),
  leaseTransitions: row.lease_transitions,
  version: String(row.version),
});

export class EmbeddedLeaseBackend implements LeaseBackend {
  readonly description: string;
  private readonly select: Database.Statement<[string, string], LeaseRow>;
  private readonly insert: Database.Statement<[string, string, string, number, string | null, string | null, number]>;
  private readonly change: Database.Statement<[string, number, string | null, string | null, number, string, string, number]>;

  constructor(
    private readonly db: Database.Database,
    private readonly namespace: string,
    private readonly name: string,
  ) {
    this.description = `embedded lease ${namespace}/${name}`;
    this.select = db.prepare(`SELECT holder_identity, lease_duration_ms, acquire_time, renew_time, lease_transitions, version FROM leases WHERE namespace = ? AND name = ?`);
    this.insert = db.prepare(
      `INSERT INTO leases (namespace, name, holder_identity, lease_duration_ms, acquire_time, renew_time, lease_transitions, version) VALUES (?, ?, ?, ?, ?, ?, ?, 1)`,
    );
    this.change = db.prepare(
      `UPDATE leases SET holder_identity = ?, lease_duration_ms = ?, acquire_time = ?, renew_time = ?, lease_transitions = ?, version = version + 1
       WHERE namespace = ? AND name = ? AND version = ?`,
    );
  }

  async get(): Promise<StoredLease | undefined> {
    const row = this.select.get(this.namespace, this.name);
    return row === undefined ? undefined : toStored(row);
  }

  async create(record: LeaseRecord): Promise<StoredLease> {
    return this.db
      .transaction(() => {
        if (this.select.get(this.namespace, this.name) !== undefined) throw new AlreadyExists('Lease', this.namespace, this.name);
        this.insert.run(this.namespace, this.name, record.holderIdentity, record.leaseDurationMs, record.acquireTime ?? null, record.renewTime ?? null, record.leaseTransitions);
        return toStored(this.select.get(this.namespace, this.name) as LeaseRow);
      })
      .immediate();
  }

  async update(record: LeaseRecord, version: string): Promise<StoredLease> {
    return this.db
      .transaction(() => {
        const { changes } = this.change.run(record.holderIdentity, record.leaseDurationMs, record.acquireTime ?? null, record.renewTime ?? null, record.leaseTransitions, this.namespace, this.name, Number(version));
        if (changes === 0) {
          if (this.select.get(this.namespace, this.name) === undefined) throw new NotFound('Lease', this.namespace, this.name);
          throw new Conflict('Lease', this.namespace, this.name);
        }
        return toStored(this.select.get(this.namespace, this.name) as LeaseRow);
      })
      .immediate();
  }
}
