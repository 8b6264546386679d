/**
 * The admission webhook's record (issue 30, "who"): on Kubernetes Regent sees a write only through its informers,
 * which name the field manager (managedFields), never the person. The optional validating admission webhook
 * (src/kube/kubernetes/admission-webhook.ts) sees every write of Regent's kinds before the API server stores it,
 * with the `userInfo` the API server authenticated; for each one it appends a `resource.admitted` record to the
 * resource's stream, carrying the digest of the spec the request asked for. When the recorder (recorder.ts) later
 * records a spec with that digest it names that user, verified.
 *
 * This module is the pure part: an AdmissionReview request in, the event to append (or why none) out. It never
 * copies the object: the record holds the spec's digest, not the spec.
 *
 * Not recorded: dry runs (nothing is written; the configuration says sideEffects NoneOnDryRun), operations other
 * than CREATE, UPDATE and DELETE (CONNECT), other groups, subresources (`/status` is Regent's own write), and an
 * UPDATE that leaves the spec as it was (finalizers, labels, annotations: the recorder records spec changes only,
 * so such a record would never be matched, and Regent's own finalizer patches would fill the stream with them).
 */
import { v7 as uuidv7 } from 'uuid';
import type { NewEvent } from '../events/envelope.js';
import { specDigestOf } from './recorder.js';
import { recordEvent, resourceStream, type Admitted } from './stream.js';

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';
export const ADMISSION_REVIEW_KIND = 'AdmissionReview';
/** The API group of Regent's kinds (deploy/crds). */
export const REGENT_GROUP = 'regent.dev';

const OPERATIONS: ReadonlySet<string> = new Set(['CREATE', 'UPDATE', 'DELETE']);

interface AdmittedObject {
  metadata?: { name?: string; namespace?: string; uid?: string };
  spec?: unknown;
}

/** What the webhook reads of an `admission.k8s.io/v1` AdmissionRequest (the API server sends more). */
export interface AdmissionRequest {
  uid: string;
  kind?: { group?: string; version?: string; kind?: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation?: string;
  userInfo?: { username?: string; uid?: string; groups?: string[] };
  object?: AdmittedObject | null;
  oldObject?: AdmittedObject | null;
  dryRun?: boolean;
}

export interface AdmissionReview {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: typeof ADMISSION_REVIEW_KIND;
  request: AdmissionRequest;
}

/** The answer: always allowed — the webhook records, it never decides. */
export const allowedResponse = (uid: string): Record<string, unknown> => ({
  apiVersion: ADMISSION_API_VERSION,
  kind: ADMISSION_REVIEW_KIND,
  response: { uid, allowed: true },
});

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The review a request body holds, or why it is not an `admission.k8s.io/v1` AdmissionReview with a request. */
export const parseAdmissionReview = (body: unknown): { review: AdmissionReview } | { error: string } => {
  if (!isObject(body)) return { error: 'expected an AdmissionReview object' };
  if (body.kind !== ADMISSION_REVIEW_KIND) return { error: `expected kind ${ADMISSION_REVIEW_KIND}, got ${JSON.stringify(body.kind ?? null)}` };
  if (body.apiVersion !== ADMISSION_API_VERSION) {
    return { error: `expected apiVersion ${ADMISSION_API_VERSION}, got ${JSON.stringify(body.apiVersion ?? null)} (the webhook configuration must list admissionReviewVersions: [v1])` };
  }
  const request = body.request;
  if (!isObject(request)) return { error: 'the AdmissionReview has no request' };
  if (typeof request.uid !== 'string' || request.uid === '') return { error: 'the AdmissionReview request has no uid' };
  return { review: body as unknown as AdmissionReview };
};

/** Names a request in logs and skip reasons: never the object, only kind, namespace, name, operation and user. */
export const describeRequest = (request: AdmissionRequest): { kind: string; namespace: string; name: string; operation: string; user: string } => {
  const object = request.operation === 'DELETE' ? request.oldObject : request.object;
  return {
    kind: request.kind?.kind ?? 'unknown',
    namespace: request.namespace ?? object?.metadata?.namespace ?? '',
    name: object?.metadata?.name || request.name || '',
    operation: request.operation ?? 'unknown',
    user: request.userInfo?.username ?? '',
  };
};

/** The `resource.admitted` record of a request, or why the request records nothing. */
export const admittedRecordOf = (request: AdmissionRequest): { record: Admitted } | { skipped: string } => {
  if (request.dryRun === true) return { skipped: 'a dry run' };
  const operation = request.operation ?? '';
  if (!OPERATIONS.has(operation)) return { skipped: `operation ${operation || 'missing'}` };
  if (request.kind?.group !== REGENT_GROUP) return { skipped: `group ${request.kind?.group ?? 'missing'} is not ${REGENT_GROUP}` };
  if (typeof request.kind.kind !== 'string' || request.kind.kind === '') return { skipped: 'no kind' };
  if (request.subResource) return { skipped: `subresource ${request.subResource}` };
  const username = request.userInfo?.username;
  if (typeof username !== 'string' || username === '') return { skipped: 'no userInfo.username' };
  // a DELETE carries the object being deleted as oldObject (object is null)
  const object = operation === 'DELETE' ? request.oldObject : request.object;
  if (!isObject(object) || !isObject(object.metadata)) return { skipped: `no ${operation === 'DELETE' ? 'oldObject' : 'object'}` };
  const uid = object.metadata.uid;
  if (typeof uid !== 'string' || uid === '') return { skipped: 'the object has no metadata.uid' };
  const specDigest = specDigestOf(object.spec);
  if (operation === 'UPDATE' && isObject(request.oldObject) && specDigestOf(request.oldObject.spec) === specDigest) return { skipped: 'the spec is unchanged' };
  const groups = Array.isArray(request.userInfo?.groups) ? request.userInfo.groups.filter((g): g is string => typeof g === 'string') : undefined;
  const { namespace, name } = describeRequest(request);
  return {
    record: {
      type: 'resource.admitted',
      kind: request.kind.kind,
      namespace: namespace || 'default',
      name,
      uid,
      operation: operation as Admitted['operation'],
      specDigest,
      user: { username, ...(groups ? { groups } : {}) },
      requestUid: request.uid,
    },
  };
};

/**
 * The event the webhook appends for a request (to `admissionStreamOf(event)`, with expected revision `any`: the
 * recorder names the revision it read, so it notices this append and reads the stream again), or undefined when
 * the request records nothing (admittedRecordOf says why). Metadata as the recorder's own events.
 */
export const admissionEventOf = (request: AdmissionRequest, options: { now?: Date; id?: string } = {}): NewEvent | undefined => {
  const decided = admittedRecordOf(request);
  if (!('record' in decided)) return undefined;
  const { record } = decided;
  return recordEvent(record, { id: options.id ?? uuidv7(), source: 'operator', actor: record.user.username, correlationId: request.uid, from: null, to: 'admitted', recordedAt: (options.now ?? new Date()).toISOString() });
};

/** The stream an admission event belongs to: `resource-<uid>`. */
export const admissionStreamOf = (event: NewEvent): string => resourceStream((event.data as unknown as Admitted).uid);
