/**
 * The operational verbs over Nova: start, stop, softreboot, hardreboot, consoleoutput and consolesession.
 * The Nova client comes from the deps (`ServerCompute.novaFor`: the server's identity session in the control
 * plane); the Nova server is the one the lifecycle recorded (`status.serverID`). Nova's conflict and
 * not-found answers become 409 and 404 with a message naming the verb; every verb is one audit event with
 * its actor and Nova's answer (accepted with its request id, or the refusal) — a refused verb too, since
 * Nova was asked. A server Nova has not created yet answers 409 (nothing is asked).
 */
import { Conflict as NovaConflict, NotFound as NovaNotFound, OpenStackError } from '../openstack/errors.js';
import type { NovaClient } from '../openstack/nova/index.js';
import type { Server } from '../resources/server.js';
import { conflict, notFound, type ApiError } from './errors.js';

export type PowerVerb = 'start' | 'stop' | 'softreboot' | 'hardreboot';
export const POWER_VERBS: readonly PowerVerb[] = ['start', 'stop', 'softreboot', 'hardreboot'];
export type Verb = PowerVerb | 'consoleoutput' | 'consolesession' | 'snapshot';

export type VerbNova = Pick<NovaClient, 'startServer' | 'stopServer' | 'rebootServer' | 'getConsoleOutput' | 'createRemoteConsole' | 'createServerImage'>;

/** The Glance properties a snapshot carries: its provenance (source server) and its ownership scope. */
export const SNAPSHOT_SOURCE_PROPERTY = 'regent.dev:source-server-id';

export interface ServerCompute {
  /** The Nova client scoped to the server's identity (its project). */
  novaFor(server: Server): Promise<VerbNova>;
}

export interface VerbAnswer {
  /** What Nova said, for the audit record: `accepted` (with Nova's request id) or the refusal. */
  readonly nova: { outcome: 'accepted'; requestId?: string } | { outcome: 'conflict' | 'notFound' | 'failed'; status?: number; message: string };
}

const WHAT: Record<Verb, string> = {
  start: 'start',
  stop: 'stop',
  softreboot: 'soft-reboot',
  hardreboot: 'hard-reboot',
  consoleoutput: 'read the console output of',
  consolesession: 'open a console session on',
  snapshot: 'snapshot',
};

/** Runs the verb; returns its result and Nova's answer, or throws an ApiError carrying the answer. */
export const runVerb = async (compute: ServerCompute, server: Server, verb: Verb, options: { length?: number; snapshot?: { name: string; organizationId: string; projectId: string } } = {}): Promise<{ result: unknown; answer: VerbAnswer }> => {
  const novaId = server.status?.serverID;
  if (!novaId) throw conflict(`cannot ${WHAT[verb]} server "${server.spec.name}": Nova has not created it yet`);
  const nova = await compute.novaFor(server);
  try {
    switch (verb) {
      case 'start':
      case 'stop':
      case 'softreboot':
      case 'hardreboot': {
        const accepted = verb === 'start' ? await nova.startServer(novaId) : verb === 'stop' ? await nova.stopServer(novaId) : await nova.rebootServer(novaId, verb === 'softreboot' ? 'SOFT' : 'HARD');
        return { result: undefined, answer: { nova: { outcome: 'accepted', ...(accepted.requestId !== undefined ? { requestId: accepted.requestId } : {}) } } };
      }
      case 'consoleoutput':
        return { result: { contents: await nova.getConsoleOutput(novaId, options.length) }, answer: { nova: { outcome: 'accepted' } } };
      case 'consolesession': {
        const console = await nova.createRemoteConsole(novaId, 'vnc', 'novnc');
        return { result: { url: console.url }, answer: { nova: { outcome: 'accepted' } } };
      }
      case 'snapshot': {
        const o = options.snapshot;
        if (!o) throw new Error('snapshot needs its name and ownership');
        // provenance and ownership travel on the image itself (image-properties.ts reads the scope back)
        const made = await nova.createServerImage(novaId, o.name, { [SNAPSHOT_SOURCE_PROPERTY]: server.metadata.name, 'regent.dev:organization-id': o.organizationId, 'regent.dev:project-id': o.projectId });
        return { result: { imageId: made.imageId, sourceServerId: server.metadata.name }, answer: { nova: { outcome: 'accepted', ...(made.requestId !== undefined ? { requestId: made.requestId } : {}) } } };
      }
    }
  } catch (error) {
    if (error instanceof NovaConflict) throw new VerbRefused(conflict(`cannot ${WHAT[verb]} server "${server.spec.name}" now: Nova refused (the server's state does not allow it): ${error.message}`), { nova: { outcome: 'conflict', status: 409, message: error.message } });
    if (error instanceof NovaNotFound) throw new VerbRefused(notFound(`cannot ${WHAT[verb]} server "${server.spec.name}": Nova no longer has it`), { nova: { outcome: 'notFound', status: 404, message: error.message } });
    if (error instanceof OpenStackError) throw new VerbRefused(undefined, { nova: { outcome: 'failed', message: error.message } }, error);
    throw error;
  }
};

/** A verb Nova answered with a refusal: the API error to send (undefined: a 500) and the answer to record. */
export class VerbRefused extends Error {
  constructor(readonly apiError: ApiError | undefined, readonly answer: VerbAnswer, override readonly cause?: unknown) {
    super(apiError?.message ?? 'Nova failed');
  }
}

/** What `identityCompute` needs of IdentitySessions (src/provider/identity/sessions.ts). */
export interface IdentitySessionSource {
  forIdentity(namespace: string, name: string): Promise<{ session: { nova: VerbNova } }>;
}

/**
 * ServerCompute over the control plane's IdentitySessions: a verb runs with the credentials of the server's
 * identity (the `regent.dev/identity` label the API wrote), in its project — as every other project-scoped call.
 */
export const identityCompute = (sessions: IdentitySessionSource): ServerCompute => ({
  async novaFor(server) {
    const identity = server.metadata.labels?.['regent.dev/identity'];
    if (!identity) throw new Error(`server ${server.metadata.name} has no identity label`);
    return (await sessions.forIdentity(server.metadata.namespace, identity)).session.nova;
  },
});
