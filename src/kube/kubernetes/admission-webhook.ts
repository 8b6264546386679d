/**
 * The optional validating admission webhook (issue 30, "who"): the Kubernetes API server calls `POST /validate`
 * with an `admission.k8s.io/v1` AdmissionReview for every CREATE, UPDATE and DELETE of Regent's kinds (the Helm
 * chart's ValidatingWebhookConfiguration, `admissionWebhook.enabled`), carrying the `userInfo` it authenticated.
 * The webhook appends a `resource.admitted` record (src/resource-history/admission.ts) to the resource's stream;
 * the recorder then names that user, verified, as the author of the generation with the same spec digest.
 *
 * It records, it never decides: every well-formed review is answered `allowed: true`, also when the record could
 * not be appended (logged; the configuration's failurePolicy is Ignore too, so a webhook that is down or slow never
 * blocks a write — the write is then recorded with its field manager only). A body that is not an AdmissionReview
 * v1 is answered 400, a body over MAX_BODY_BYTES 413. Logs name kind, namespace, name, operation and user, never
 * the object (a spec may hold user data).
 *
 * TLS: `tls.crt` and `tls.key` from a directory (a kubernetes.io/tls Secret's mount), read at start and polled every
 * `reloadIntervalMs` (10 s): a changed pair (cert-manager's rotation, which the kubelet writes into the mount) is
 * loaded into the running server for new connections; a pair that does not load (a half-written rotation) keeps
 * the old one and is tried again on the next poll.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { createSecureContext } from 'node:tls';
import { createHash, X509Certificate } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { EventStore } from '../../store/port.js';
import type { Logger } from '../../log/logger.js';
import { admissionEventOf, admissionStreamOf, admittedRecordOf, allowedResponse, describeRequest, parseAdmissionReview, type AdmissionRequest } from '../../resource-history/admission.js';

export const ADMISSION_PATH = '/validate';
/**
 * An UPDATE's review holds the object and the old object, each up to etcd's 1.5 MiB (the API server takes request
 * bodies up to 3 MiB): twice that with room for the envelope. A bigger body is refused (413), which the API server
 * ignores (failurePolicy Ignore): the write goes through unrecorded.
 */
export const MAX_BODY_BYTES = 6 * 1024 * 1024;
const DEFAULT_RELOAD_INTERVAL_MS = 10_000;
/** Under the configuration's timeoutSeconds (5): a slow store answers allowed before the API server gives up. */
const DEFAULT_APPEND_TIMEOUT_MS = 3_000;

export interface AdmissionWebhookOptions {
  store: Pick<EventStore, 'append'>;
  logger: Logger;
  host: string;
  port: number;
  /** The directory holding `tls.crt` and `tls.key` (a kubernetes.io/tls Secret mounted as a volume). */
  tlsDir: string;
  /** How often the TLS files are checked for a rotation (default 10 s). */
  reloadIntervalMs?: number;
  /** How long a request waits for its record to be appended before it is answered anyway (default 3 s). */
  appendTimeoutMs?: number;
  /** The largest body accepted (default MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  now?: () => Date;
  /** Maps a listen failure (EADDRINUSE, EACCES) to the error to report. */
  onListenError?: (error: NodeJS.ErrnoException) => Error;
}

export interface AdmissionWebhook {
  /** https://host:port */
  url: string;
  /** Reads the TLS files now; true when a changed pair was loaded. */
  reloadTls(): Promise<boolean>;
  close(): Promise<void>;
}

interface KeyPair {
  cert: Buffer;
  key: Buffer;
}

const readPair = async (dir: string): Promise<KeyPair> => {
  const read = (file: string) =>
    readFile(join(dir, file)).catch((error: NodeJS.ErrnoException) => {
      throw new Error(`admission webhook: cannot read ${join(dir, file)} (${error.code ?? error.message}); --admission-webhook-tls names a directory with tls.crt and tls.key (a kubernetes.io/tls Secret's mount)`, { cause: error });
    });
  const [cert, key] = await Promise.all([read('tls.crt'), read('tls.key')]);
  return { cert, key };
};

/** Throws when the pair does not make a TLS context (not PEM, the key does not match the certificate). */
const checkPair = (pair: KeyPair, dir: string): void => {
  try {
    createSecureContext({ cert: pair.cert, key: pair.key });
  } catch (error) {
    throw new Error(`admission webhook: ${dir}/tls.crt and tls.key do not make a TLS certificate (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
};

const certificateSummary = (cert: Buffer): Record<string, string> => {
  try {
    const x509 = new X509Certificate(cert);
    return { subject: x509.subject.replace(/\n/g, ', '), validTo: x509.validTo, fingerprint256: x509.fingerprint256 };
  } catch {
    return {};
  }
};

class BadRequest extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const readBody = (req: IncomingMessage, limit: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return reject(new BadRequest(413, `request body of ${declared} bytes is over the limit of ${limit} bytes`));
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(new BadRequest(413, `request body is over the limit of ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (error) => {
      if (!failed) reject(error);
    });
  });

const answer = (res: ServerResponse, status: number, body: unknown, close = false): void => {
  const text = typeof body === 'string' ? `${body}\n` : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json', ...(close ? { connection: 'close' } : {}) });
  res.end(text);
};

export const startAdmissionWebhook = async (options: AdmissionWebhookOptions): Promise<AdmissionWebhook> => {
  const { logger, store } = options;
  const now = options.now ?? (() => new Date());
  const appendTimeoutMs = options.appendTimeoutMs ?? DEFAULT_APPEND_TIMEOUT_MS;
  let current = await readPair(options.tlsDir);
  checkPair(current, options.tlsDir);

  /** Appends the request's record; resolves when appended, failed (logged) or timed out (logged), never rejects. */
  const record = async (request: AdmissionRequest): Promise<void> => {
    const described = describeRequest(request);
    const decided = admittedRecordOf(request);
    const event = 'record' in decided ? admissionEventOf(request, { now: now() }) : undefined;
    if (!event) {
      logger.debug('admission webhook: request not recorded', { ...described, reason: 'skipped' in decided ? decided.skipped : 'unknown' });
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const appended = store.append(admissionStreamOf(event), [event], { expectedRevision: 'any' }).then(
      () => {
        logger.debug('admission webhook: request recorded', described);
        return 'appended' as const;
      },
      (error: unknown) => {
        logger.warn('admission webhook: could not record the request (allowed anyway)', { ...described, error: error instanceof Error ? error.message : String(error) });
        return 'failed' as const;
      },
    );
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), appendTimeoutMs);
    });
    const outcome = await Promise.race([appended, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') logger.warn('admission webhook: the record is still being appended; answered allowed before the API server times out', { ...described, afterMs: appendTimeoutMs });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== ADMISSION_PATH) return answer(res, 404, `not found: the admission webhook serves POST ${ADMISSION_PATH}`);
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return answer(res, 405, `method ${req.method ?? ''} not allowed: POST an admission.k8s.io/v1 AdmissionReview`);
    }
    let body: Buffer;
    try {
      body = await readBody(req, options.maxBodyBytes ?? MAX_BODY_BYTES);
    } catch (error) {
      if (error instanceof BadRequest) {
        answer(res, error.status, error.message, true);
        req.resume();
        return;
      }
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch (error) {
      return answer(res, 400, `the body is not JSON (${error instanceof Error ? error.message : String(error)}): POST an admission.k8s.io/v1 AdmissionReview`);
    }
    const review = parseAdmissionReview(parsed);
    if ('error' in review) return answer(res, 400, `not an admission.k8s.io/v1 AdmissionReview: ${review.error}`);
    const { request } = review.review;
    await record(request);
    answer(res, 200, allowedResponse(request.uid));
  };

  const server: Server = createServer({ cert: current.cert, key: current.key }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.warn('admission webhook: request failed', { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) answer(res, 500, 'internal error');
      else res.end();
    });
  });
  // a client that never finishes its request must not hold a socket forever (the API server waits 5 s at most)
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

  let lastRejected: string | undefined;
  const reloadTls = async (): Promise<boolean> => {
    let next: KeyPair;
    try {
      next = await readPair(options.tlsDir);
    } catch (error) {
      logger.warn('admission webhook: TLS files unreadable, keeping the loaded certificate', { error: error instanceof Error ? error.message : String(error) });
      return false;
    }
    if (next.cert.equals(current.cert) && next.key.equals(current.key)) return false;
    try {
      checkPair(next, options.tlsDir);
      server.setSecureContext({ cert: next.cert, key: next.key });
    } catch (error) {
      const fingerprint = createHash('sha256').update(next.cert).update(next.key).digest('hex');
      // a rotation half-written, or a broken pair: said once, tried again on every poll
      if (lastRejected !== fingerprint) logger.warn('admission webhook: new TLS files do not load, keeping the loaded certificate', { error: error instanceof Error ? error.message : String(error) });
      lastRejected = fingerprint;
      return false;
    }
    current = next;
    lastRejected = undefined;
    logger.info('admission webhook: TLS certificate reloaded', { dir: options.tlsDir, ...certificateSummary(next.cert) });
    return true;
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(options.onListenError ? options.onListenError(error) : error));
    server.listen(options.port, options.host, () => resolve());
  });
  let reloading = false;
  const poll = setInterval(() => {
    if (reloading) return;
    reloading = true;
    void reloadTls().finally(() => {
      reloading = false;
    });
  }, options.reloadIntervalMs ?? DEFAULT_RELOAD_INTERVAL_MS);
  poll.unref();
  const { port } = server.address() as AddressInfo;
  const url = `https://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  logger.info('admission webhook: listening', { url: `${url}${ADMISSION_PATH}`, tls: options.tlsDir, ...certificateSummary(current.cert) });
  return {
    url,
    reloadTls,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(poll);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
