/**
 * The incident timeline as a file for an incident report (`GET /api/incidents/export`, `regent timeline --export`):
 * the query (with relative times resolved), when it was generated and from which store, the resource and its related
 * set, every row, and which members were redacted (by stream, revision and path: never what they held).
 *
 * Redacted twice: each row is built from redacted data (timeline.ts), then the whole row — summary, author, actor,
 * effects — goes through the same redaction again, so a secret reaching any text of a row is replaced too.
 */
import type { EventStore } from '../../store/port.js';
import type { IncidentQuery, IncidentQueryInput } from './query.js';
import { INCIDENT_REDACTION, redactForIncident, type IncidentRedaction } from './redaction.js';
import type { RelatedResource, SubjectResource } from './related.js';
import { incidentTimeline, type IncidentOptions, type IncidentRow } from './timeline.js';

export const INCIDENT_FORMAT = 'regent-incident/1';

export interface IncidentExport {
  format: typeof INCIDENT_FORMAT;
  generatedAt: string;
  /** The store the rows were read from (`sqlite:./data/regent.db`). */
  store: string;
  query: IncidentQuery;
  subject?: SubjectResource;
  related?: RelatedResource[];
  counts: { rows: number; destructive: number; streams: number };
  truncated: boolean;
  redaction: IncidentRedaction & { paths: Array<{ stream: string; revision: number; path: string }> };
  rows: IncidentRow[];
}

export const incidentExport = async (store: Pick<EventStore, 'listStreams' | 'readStream' | 'description'>, input: IncidentQueryInput | IncidentQuery, options: IncidentOptions = {}): Promise<IncidentExport> => {
  const timeline = await incidentTimeline(store, input, options);
  const paths: IncidentExport['redaction']['paths'] = [];
  const rows = timeline.rows.map((row) => {
    const again = redactForIncident(row, '');
    const redacted = [...new Set([...row.redacted, ...again.paths])];
    for (const path of redacted) paths.push({ stream: row.stream, revision: row.revision, path });
    return { ...again.value, redacted };
  });
  return {
    format: INCIDENT_FORMAT,
    generatedAt: timeline.generatedAt,
    store: store.description,
    query: timeline.query,
    ...(timeline.subject ? { subject: timeline.subject } : {}),
    ...(timeline.related ? { related: timeline.related } : {}),
    counts: { rows: rows.length, destructive: rows.filter((r) => r.destructive).length, streams: new Set(rows.map((r) => r.stream)).size },
    truncated: timeline.truncated,
    redaction: { ...INCIDENT_REDACTION, paths },
    rows,
  };
};
