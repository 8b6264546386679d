/**
 * The audit record of the API: every accepted write (and, once built, every operational verb) is one
 * event with its actor and source `api`, appended to `api-server-<resource uid>` through the EventStore.
 * It is a plain append (expected revision `any`), not an Engine dispatch: no machine decides API
 * writes; the resource store already took the decision (the create collided or not). userData is
 * recorded as its SHA-256 only; tokens never. Each event names its Server as `metadata.subject` (kind, namespace,
 * the resource name — the API id), like the machines' events, so the audit pages and `regent streams --resource`
 * find the API's history with the Server's other streams; the name the API was given is `data.server.serverName`.
 */
import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { EventStore } from '../store/port.js';

export const AUDIT_STREAM_PREFIX = 'api-server-';
export const AUDIT_MACHINE = 'api';

export type AuditAction = 'created' | 'updated' | 'deleted' | 'gateSatisfied' | 'start' | 'stop' | 'softreboot' | 'hardreboot' | 'consoleoutput' | 'consolesession' | 'snapshot' | 'sshkey';

export interface AuditRecord {
  readonly action: AuditAction;
  readonly actor: string;
  readonly requestId: string;
  readonly apiVersion: 1 | 2;
  readonly server: { uid: string; namespace: string; name: string; serverName: string; organizationId?: string; projectId?: string };
  /** What the request changed, without secrets (userData as a digest). */
  readonly details?: Record<string, unknown>;
  readonly at: string;
}

export const digest = (value: string | undefined): string | undefined => (value === undefined ? undefined : `sha256:${createHash('sha256').update(value).digest('hex')}`);

export const auditStream = (uid: string): string => `${AUDIT_STREAM_PREFIX}${uid}`;

export const appendAudit = async (store: EventStore, record: AuditRecord): Promise<void> => {
  const type = `api.server.${record.action}`;
  await store.append(
    auditStream(record.server.uid),
    [
      {
        id: uuidv7(),
        type,
        data: { type, apiVersion: record.apiVersion, server: record.server, ...(record.details ? { details: record.details } : {}) },
        metadata: {
          machine: AUDIT_MACHINE,
          machineVersion: 1,
          schemaVersion: 1,
          source: 'api',
          actor: record.actor,
          correlationId: record.requestId,
          causationId: null,
          from: null,
          to: record.action,
          effects: [],
          recordedAt: record.at,
          subject: { kind: 'Server', namespace: record.server.namespace, name: record.server.name },
        },
      },
    ],
    { expectedRevision: 'any' },
  );
};
