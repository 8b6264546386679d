/**
 * Typed errors of a resource source, one per API status a caller must branch on. Both adapters map
 * to these, so a controller written against the embedded store handles a real cluster the same way.
 * Callers branch on `instanceof`, never on message text.
 */
import type { FieldError } from '../resources/index.js';

export abstract class ResourceError extends Error {
  /** The HTTP status the Kubernetes API server would answer with. */
  abstract readonly code: number;
}

/** 404: the object (or the namespace/kind) does not exist. */
export class NotFound extends ResourceError {
  override readonly name = 'NotFound';
  readonly code = 404;
  constructor(readonly kind: string, readonly namespace: string, readonly objectName: string) {
    super(`${kind} "${namespace}/${objectName}" not found`);
  }
}

/** 409 on create: an object with that name already exists. */
export class AlreadyExists extends ResourceError {
  override readonly name = 'AlreadyExists';
  readonly code = 409;
  constructor(readonly kind: string, readonly namespace: string, readonly objectName: string) {
    super(`${kind} "${namespace}/${objectName}" already exists`);
  }
}

/**
 * 409 on update: the object changed since the caller read it (resourceVersion precondition failed).
 * Re-read, re-decide, retry; never retry the same write blindly.
 */
export class Conflict extends ResourceError {
  override readonly name = 'Conflict';
  readonly code = 409;
  constructor(readonly kind: string, readonly namespace: string, readonly objectName: string, detail = 'the object has been modified; please apply your changes to the latest version and try again') {
    super(`Operation cannot be fulfilled on ${kind} "${namespace}/${objectName}": ${detail}`);
  }
}

/** 422: the object fails its schema (or a transition rule). `causes` names every field. */
export class Invalid extends ResourceError {
  override readonly name = 'Invalid';
  readonly code = 422;
  constructor(message: string, readonly causes: readonly FieldError[]) {
    super(message);
  }
}

/** 410: the resourceVersion a watch asked for is older than the retained history. Relist. */
export class Gone extends ResourceError {
  override readonly name = 'Gone';
  readonly code = 410;
  constructor(readonly resourceVersion: string, detail = 'too old resource version') {
    super(`${detail}: ${resourceVersion}`);
  }
}

/** 400: a malformed request (an unknown kind, a bad patch). */
export class BadRequest extends ResourceError {
  override readonly name: string = 'BadRequest';
  readonly code = 400;
}

/** The source cannot be reached or answered with a server error; safe to retry after a backoff. */
export class SourceUnavailable extends ResourceError {
  override readonly name = 'SourceUnavailable';
  readonly code: number;
  constructor(message: string, options?: { cause?: unknown; code?: number }) {
    super(message, options);
    this.code = options?.code ?? 503;
  }
}

/**
 * A resource source spec that is none of the accepted forms (src/kube/open.ts): the invocation must
 * change. A BadRequest, so callers that handle a malformed request handle this too.
 */
export class InvalidSourceSpec extends BadRequest {
  override readonly name: string = 'InvalidSourceSpec';
}

/**
 * No usable kubeconfig: none found, one that cannot be read, or a context it does not have. Unlike
 * SourceUnavailable, retrying does not help; without this the client fell back to
 * http://localhost:8080 and failed with a TLS message that named none of the places it had looked.
 */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
  constructor(readonly reason: 'not-found' | 'unreadable' | 'unknown-context', message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
