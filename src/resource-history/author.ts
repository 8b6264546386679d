/**
 * Who wrote a generation (issue 30, "who"). A writer Regent runs — the `regent` CLI, the REST API, the first-start
 * examples — stamps its author on the object it writes, as annotations the stores keep only on a write that changes
 * the spec (src/kube/mutations.ts `settleAuthorStamp`), each naming the generation it is for; the resource recorder
 * reads them when it records that generation. A stamp for another generation is stale (someone else wrote the spec
 * since: `kubectl apply` does not clear Regent's annotations) and is never used.
 *
 * Without a stamp for the generation, on Kubernetes the author is the field manager of the newest managedFields
 * entry that touched the spec (`kubectl-client-side-apply`, `helm`): that names a client, not a person, and the
 * record says so; the admission webhook's record (resource.admitted, matched by the spec's digest) names the user
 * the API server authenticated.
 */
import type { ChangeAuthor, ChangeChannel } from './stream.js';

export const AUTHOR_ANNOTATION = 'audit.regent.dev/author';
export const CHANNEL_ANNOTATION = 'audit.regent.dev/channel';
export const REQUEST_ANNOTATION = 'audit.regent.dev/request';
export const STAMP_GENERATION_ANNOTATION = 'audit.regent.dev/generation';
export const STAMP_ANNOTATIONS = [AUTHOR_ANNOTATION, CHANNEL_ANNOTATION, REQUEST_ANNOTATION, STAMP_GENERATION_ANNOTATION] as const;

/** What a writer says about itself. */
export interface AuthorStamp {
  name: string;
  channel: Exclude<ChangeChannel, 'kubernetes' | 'unknown'>;
  requestId?: string;
}

interface WithAnnotations {
  metadata: { annotations?: Record<string, string>; generation?: number; managedFields?: unknown };
}

/**
 * The input with the writer's stamp in its annotations (the store then keeps it only if the spec changes, and
 * writes the generation it is for).
 */
export const stampAuthor = <T extends { metadata: { annotations?: Record<string, string> } }>(input: T, stamp: AuthorStamp | undefined): T => {
  if (!stamp) return input;
  const annotations = { ...(input.metadata.annotations ?? {}) };
  for (const key of STAMP_ANNOTATIONS) delete annotations[key];
  annotations[AUTHOR_ANNOTATION] = stamp.name;
  annotations[CHANNEL_ANNOTATION] = stamp.channel;
  if (stamp.requestId) annotations[REQUEST_ANNOTATION] = stamp.requestId;
  return { ...input, metadata: { ...input.metadata, annotations } };
};

const CHANNELS: ReadonlySet<string> = new Set(['regent-cli', 'api', 'examples']);

/** The stamp on an object if it is for `generation` (else undefined: absent or stale). */
export const stampFor = (object: WithAnnotations, generation: number): AuthorStamp | undefined => {
  const a = object.metadata.annotations ?? {};
  const name = a[AUTHOR_ANNOTATION];
  const channel = a[CHANNEL_ANNOTATION];
  if (!name || !channel || !CHANNELS.has(channel) || a[STAMP_GENERATION_ANNOTATION] !== String(generation)) return undefined;
  return { name, channel: channel as AuthorStamp['channel'], ...(a[REQUEST_ANNOTATION] ? { requestId: a[REQUEST_ANNOTATION] } : {}) };
};

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  time?: string;
  subresource?: string;
  fieldsV1?: Record<string, unknown>;
}

/** The field manager of the newest managedFields entry that touched the spec (not a status write). */
export const specManagerOf = (object: WithAnnotations): string | undefined => {
  const entries = Array.isArray(object.metadata.managedFields) ? (object.metadata.managedFields as ManagedFieldsEntry[]) : [];
  const touching = entries.filter((e) => e && typeof e.manager === 'string' && e.subresource !== 'status' && e.fieldsV1 !== undefined && 'f:spec' in e.fieldsV1);
  touching.sort((a, b) => (a.time ?? '').localeCompare(b.time ?? ''));
  return touching.at(-1)?.manager;
};

export interface AuthorContext {
  /** Where the object lives: a stamp on Kubernetes can be written by anyone who can write annotations. */
  platform: 'embedded' | 'kubernetes';
  /** The authenticated user the admission webhook recorded for this spec, if it is installed and saw the request. */
  admitted?: { username: string };
}

const NO_STAMP_EMBEDDED = 'written without an author (a program using the store directly, or a store written before authors were recorded)';
const NO_WEBHOOK = 'Kubernetes records the field manager, not the user; install the admission webhook (admissionWebhook.enabled in the Helm chart) to record who';

/** Who wrote `generation` of the object, as far as Regent can know, and why not when it cannot. */
export const authorOf = (object: WithAnnotations, generation: number, context: AuthorContext): ChangeAuthor => {
  const stamp = stampFor(object, generation);
  const manager = context.platform === 'kubernetes' ? specManagerOf(object) : undefined;
  if (context.admitted) return { name: context.admitted.username, channel: 'kubernetes', verified: true, ...(manager ? { manager } : {}) };
  if (stamp) {
    // The REST API authenticated its caller (the token's subject); on the embedded store only Regent's own writers stamp.
    const verified = context.platform === 'embedded' && (stamp.channel === 'api' || stamp.channel === 'examples');
    return { name: stamp.name, channel: stamp.channel, verified, ...(stamp.requestId ? { requestId: stamp.requestId } : {}), ...(manager ? { manager } : {}) };
  }
  if (context.platform === 'kubernetes') return { name: null, channel: 'kubernetes', verified: false, ...(manager ? { manager } : {}), unknownReason: NO_WEBHOOK };
  return { name: null, channel: 'unknown', verified: false, unknownReason: NO_STAMP_EMBEDDED };
};
