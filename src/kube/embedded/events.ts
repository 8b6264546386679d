/**
 * Recorded events in the embedded store. Like the Kubernetes event recorder, a repeat of the same
 * event (same object, type, reason and message) increments `count` and moves `lastTimestamp`
 * instead of adding a row, so a controller that reports the same wait every pass does not flood the
 * table. The table is bounded: the oldest rows go first.
 */
import type Database from 'better-sqlite3';
import type { KindName, ObjectOf } from '../../resources/index.js';
import { BadRequest } from '../errors.js';
import { rfc3339 } from '../object.js';
import type { EventFilter, EventType, RecordedEvent } from '../port.js';

const MAX_MESSAGE = 1024;

interface EventRow {
  body: string;
  count: number;
  first_timestamp: string;
  last_timestamp: string;
}

export class EventLog {
  private readonly upsert: Database.Statement<[string, string, string, string, string, string, string, string, string, string, string]>;
  private readonly trim: Database.Statement<[number]>;
  private readonly select: Database.Statement<[{ kind: string | null; namespace: string | null; name: string | null }], EventRow>;

  constructor(
    private readonly db: Database.Database,
    private readonly options: { limit: number; component: string; now: () => Date },
  ) {
    this.upsert = db.prepare(
      `INSERT INTO events (namespace, involved_kind, involved_name, involved_uid, type, reason, message, count, first_timestamp, last_timestamp, component, body)
       VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
       ON CONFLICT (involved_uid, type, reason, message) DO UPDATE SET count = count + 1, last_timestamp = excluded.last_timestamp`,
    );
    this.trim = db.prepare(`DELETE FROM events WHERE id <= (SELECT MAX(id) FROM events) - ?`);
    this.select = db.prepare(
      `SELECT body, count, first_timestamp, last_timestamp FROM events
       WHERE (@kind IS NULL OR involved_kind = @kind) AND (@namespace IS NULL OR namespace = @namespace) AND (@name IS NULL OR involved_name = @name) ORDER BY last_timestamp, id`,
    );
  }

  record(object: ObjectOf<KindName>, type: EventType, reason: string, message: string): void {
    if (type !== 'Normal' && type !== 'Warning') throw new BadRequest(`event type must be Normal or Warning, not ${String(type)}`);
    if (!/^[A-Za-z][A-Za-z0-9]{0,127}$/.test(reason)) throw new BadRequest(`event reason must be CamelCase (got "${reason}")`);
    const text = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message;
    const { kind, apiVersion, metadata } = object;
    const involved = { kind, apiVersion, namespace: metadata.namespace, name: metadata.name, uid: metadata.uid };
    const now = rfc3339(this.options.now());
    const body = JSON.stringify({ type, reason, message: text, involvedObject: involved, reportingComponent: this.options.component });
    this.db
      .transaction(() => {
        this.upsert.run(metadata.namespace, kind, metadata.name, metadata.uid, type, reason, text, now, now, this.options.component, body);
        this.trim.run(this.options.limit);
      })
      .immediate();
  }

  list(filter: EventFilter): RecordedEvent[] {
    return this.select.all({ kind: filter.kind ?? null, namespace: filter.namespace ?? null, name: filter.name ?? null }).map((row) => ({
      ...(JSON.parse(row.body) as Omit<RecordedEvent, 'count' | 'firstTimestamp' | 'lastTimestamp'>),
      count: row.count,
      firstTimestamp: row.first_timestamp,
      lastTimestamp: row.last_timestamp,
    }));
  }
}
