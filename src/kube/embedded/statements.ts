/** Prepared statements of the embedded store, prepared once per connection. */
import type Database from 'better-sqlite3';

export interface ObjectRow {
  body: string;
  resource_version: number;
}
export interface ChangeRow {
  resource_version: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  body: string;
}

export const prepareStatements = (db: Database.Database) => ({
  getMeta: db.prepare<[string], { value: string }>(`SELECT value FROM meta WHERE key = ?`),
  setMeta: db.prepare<[string, string]>(`UPDATE meta SET value = ? WHERE key = ?`),
  getObject: db.prepare<[string, string, string], ObjectRow>(`SELECT body, resource_version FROM objects WHERE kind = ? AND namespace = ? AND name = ?`),
  uidExists: db.prepare<[string], { one: number }>(`SELECT 1 AS one FROM objects WHERE uid = ?`),
  listAll: db.prepare<[string], ObjectRow>(`SELECT body, resource_version FROM objects WHERE kind = ? ORDER BY namespace, name`),
  listNamespace: db.prepare<[string, string], ObjectRow>(`SELECT body, resource_version FROM objects WHERE kind = ? AND namespace = ? ORDER BY name`),
  /** Candidate dependents of an owner: a text match narrows, the caller checks ownerReferences. */
  mentioning: db.prepare<[string, string], ObjectRow & { kind: string }>(`SELECT kind, body, resource_version FROM objects WHERE namespace = ? AND instr(body, ?) > 0`),
  upsertObject: db.prepare<[string, string, string, string, number, string]>(
    `INSERT INTO objects (kind, namespace, name, uid, resource_version, body) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (kind, namespace, name) DO UPDATE SET uid = excluded.uid, resource_version = excluded.resource_version, body = excluded.body`,
  ),
  deleteObject: db.prepare<[string, string, string]>(`DELETE FROM objects WHERE kind = ? AND namespace = ? AND name = ?`),
  insertChange: db.prepare<[number, string, string, string, string]>(`INSERT INTO changes (resource_version, kind, namespace, type, body) VALUES (?, ?, ?, ?, ?)`),
  compact: db.prepare<[number]>(`DELETE FROM changes WHERE resource_version <= ?`),
  changesAll: db.prepare<[string, number, number], ChangeRow>(`SELECT resource_version, type, body FROM changes WHERE kind = ? AND resource_version > ? ORDER BY resource_version LIMIT ?`),
  changesNamespace: db.prepare<[string, string, number, number], ChangeRow>(
    `SELECT resource_version, type, body FROM changes WHERE kind = ? AND namespace = ? AND resource_version > ? ORDER BY resource_version LIMIT ?`,
  ),
});

export type Statements = ReturnType<typeof prepareStatements>;
