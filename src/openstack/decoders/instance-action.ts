/**
 * Nova instance actions (`GET /servers/{id}/os-instance-actions`): what Nova recorded it accepted for a
 * server, one entry per accepted request, named by that request's id. A caller correlates an action it
 * submitted (the request id of its 202) with what Nova recorded, so `action` and `request_id` are the
 * entry's identity: an entry without them makes the whole answer unreadable, because a list that quietly
 * dropped one would read as "that rebuild was never accepted".
 */
import * as t from 'io-ts';
import type { RequestContext } from '../errors.js';
import type { Field } from './field.js';
import { decodeOrThrow, nullable, readField, timestamp, valueOr } from './field.js';

const nonEmptyString = new t.Type<string, string, unknown>(
  'NonEmptyString',
  (u): u is string => typeof u === 'string' && u !== '',
  (u, c) => (typeof u === 'string' && u !== '' ? t.success(u) : t.failure(u, c)),
  (a) => a,
);

const actionHead = t.type({ action: nonEmptyString, request_id: nonEmptyString });

export interface InstanceAction {
  /** Nova's action name: `create`, `rebuild`, `stop`, `reboot`, `delete`, … */
  readonly action: string;
  /** The request id of the call that started it (the `X-Openstack-Request-Id` of its 2xx). */
  readonly requestId: string;
  /** `start_time` as Nova printed it (`2024-05-01T10:00:00.000000`, UTC without a zone); null unless readable. */
  readonly startTime: string | null;
  /** Nova's message (null unless the action failed: `Error`); null unless readable. */
  readonly message: string | null;
  /** The same two fields as observations, for a caller that must tell absent, unreadable and null apart. */
  readonly fields: { readonly startTime: Field<string | null>; readonly message: Field<string | null> };
}

export const decodeInstanceAction = (raw: unknown, context: RequestContext = {}): InstanceAction => {
  const head = decodeOrThrow(actionHead, raw, 'instance action', context);
  const obj = raw as Record<string, unknown>;
  const startTime = readField(obj, 'start_time', nullable(timestamp));
  const message = readField(obj, 'message', nullable(t.string));
  return {
    action: head.action,
    requestId: head.request_id,
    startTime: valueOr(startTime, null),
    message: valueOr(message, null),
    fields: { startTime, message },
  };
};
