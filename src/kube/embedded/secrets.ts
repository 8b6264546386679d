/**
 * The secret store on the embedded file: the `secrets` table (schema 2, src/kube/embedded/database.ts).
 * A put is one BEGIN IMMEDIATE transaction that reads the row, keeps it when nothing changes, and
 * otherwise takes the next value of the file's secret counter (meta `secret_version`), so versions
 * strictly increase across every connection and process on the file, and the last commit wins.
 *
 * Secrets are not objects: no change log entry, no event, no watch; nothing else in the file (and
 * nothing this module throws) carries a value.
 */
import type Database from 'better-sqlite3';
import { rfc3339 } from '../object.js';
import { SourceUnavailable } from '../errors.js';
import { assertNamespace, assertSecretName, checkPut, matchesSelector, parseLabelSelector, secretRecord, sortedRecord, type SecretPutOptions, type SecretPutResult, type SecretStore, type SecretSummary, type StoredSecret } from '../secrets.js';
import { isBusy } from './database.js';

interface SecretRow {
  version: number;
  data: string;
  labels: string;
}

interface SummaryRow {
  namespace: string;
  name: string;
  version: number;
  keys: string;
  labels: string;
  created_at: string;
}

export interface EmbeddedSecretContext {
  readonly db: Database.Database;
  /** For messages: the file. */
  readonly path: string;
  readonly now: () => Date;
  /** Throws SourceUnavailable once the store is closed. */
  readonly assertOpen: () => void;
}

export class EmbeddedSecretStore implements SecretStore {
  private readonly select: Database.Statement<[string, string], SecretRow>;
  private readonly upsert: Database.Statement<[string, string, number, string, string, string, string]>;
  private readonly remove: Database.Statement<[string, string]>;
  private readonly listAll: Database.Statement<[], SummaryRow>;
  private readonly listNamespace: Database.Statement<[string], SummaryRow>;
  private readonly head: Database.Statement<[], { value: string }>;
  private readonly advance: Database.Statement<[string]>;

  constructor(private readonly context: EmbeddedSecretContext) {
    const { db } = context;
    this.select = db.prepare(`SELECT version, data, labels FROM secrets WHERE namespace = ? AND name = ?`);
    this.upsert = db.prepare(
      `INSERT INTO secrets (namespace, name, version, data, keys, labels, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (namespace, name) DO UPDATE SET version = excluded.version, data = excluded.data, keys = excluded.keys, labels = excluded.labels`,
    );
    this.remove = db.prepare(`DELETE FROM secrets WHERE namespace = ? AND name = ?`);
    // Never the data column: a listing has no reason to read a value.
    this.listAll = db.prepare(`SELECT namespace, name, version, keys, labels, created_at FROM secrets ORDER BY namespace, name`);
    this.listNamespace = db.prepare(`SELECT namespace, name, version, keys, labels, created_at FROM secrets WHERE namespace = ? ORDER BY name`);
    this.head = db.prepare(`SELECT value FROM meta WHERE key = 'secret_version'`);
    this.advance = db.prepare(`UPDATE meta SET value = ? WHERE key = 'secret_version'`);
  }

  async get(namespace: string, name: string): Promise<StoredSecret | undefined> {
    this.context.assertOpen();
    assertSecretName(namespace, name);
    const row = this.select.get(namespace, name);
    return row === undefined ? undefined : secretRecord(JSON.parse(row.data) as Record<string, string>, String(row.version), JSON.parse(row.labels) as Record<string, string>);
  }

  async put(namespace: string, name: string, data: Readonly<Record<string, string>>, options: SecretPutOptions = {}): Promise<SecretPutResult> {
    this.context.assertOpen();
    const labels = checkPut(namespace, name, data, options);
    // Sorted, so that the same data and labels are the same text whatever order the caller built them in.
    const dataText = JSON.stringify(sortedRecord(data));
    const labelText = JSON.stringify(sortedRecord(labels));
    const keys = JSON.stringify(Object.keys(sortedRecord(data)));
    return this.immediate(() => {
      const row = this.select.get(namespace, name);
      if (row !== undefined && row.data === dataText && row.labels === labelText) return { version: String(row.version), created: false };
      const version = Number(this.head.get()?.value ?? 0) + 1;
      this.advance.run(String(version));
      this.upsert.run(namespace, name, version, dataText, keys, labelText, rfc3339(this.context.now()));
      return { version: String(version), created: row === undefined };
    });
  }

  async delete(namespace: string, name: string): Promise<boolean> {
    this.context.assertOpen();
    assertSecretName(namespace, name);
    return this.immediate(() => this.remove.run(namespace, name).changes > 0);
  }

  async list(namespace?: string, labelSelector?: string): Promise<SecretSummary[]> {
    this.context.assertOpen();
    if (namespace !== undefined) assertNamespace(namespace);
    const requirements = parseLabelSelector(labelSelector);
    const rows = namespace === undefined ? this.listAll.all() : this.listNamespace.all(namespace);
    return rows
      .map((row) => ({
        namespace: row.namespace,
        name: row.name,
        keys: JSON.parse(row.keys) as string[],
        version: String(row.version),
        labels: JSON.parse(row.labels) as Record<string, string>,
        createdAt: row.created_at,
      }))
      .filter((s) => matchesSelector(s.labels, requirements));
  }

  private immediate<T>(body: () => T): Promise<T> {
    try {
      return Promise.resolve(this.context.db.transaction(body).immediate());
    } catch (error) {
      if (isBusy(error)) return Promise.reject(new SourceUnavailable(`resource store ${this.context.path} is busy`));
      return Promise.reject(error);
    }
  }
}
