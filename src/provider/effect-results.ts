/**
 * Mapping OpenStack answers to lifecycle result stimuli. An error that says the request itself was
 * refused (400/403/404/409/413) becomes a `*Rejected` result carrying the service's own fault message
 * (OpenStackError.fault: already redacted of the secrets in play, and truncated), so status can say
 * why; an error that leaves the outcome unknown (5xx, timeout, no answer) is thrown, so the next pass
 * observes before deciding again.
 */
import { BadRequest, Conflict, Forbidden, NotFound, OverLimit, type OpenStackError } from '../openstack/errors.js';

export const isRefusal = (error: unknown): error is OpenStackError =>
  error instanceof BadRequest || error instanceof Forbidden || error instanceof NotFound || error instanceof Conflict || error instanceof OverLimit;

export const refusal = (type: 'createRejected' | 'deleteRejected', error: OpenStackError) => ({
  type,
  status: error.status ?? 0,
  reason: error.reason,
  ...(error.fault !== undefined && error.fault !== '' ? { fault: error.fault } : {}),
});
