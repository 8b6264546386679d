/**
 * The secret store on a cluster: core/v1 Secrets of type Opaque through CoreV1Api, data base64 on
 * the wire and plain strings at the port, labelled `app.kubernetes.io/managed-by: regent` plus the
 * caller's labels; version = the Secret's resourceVersion.
 *
 * - put is GET, then POST (404) or PUT with the read's resourceVersion, retried from the GET on a
 *   409 (a concurrent writer: the last write wins) — and nothing at all when the data and labels
 *   already are what is asked, so the version stays;
 * - delete is one DELETE; 404 is "already absent";
 * - list asks the API server for the managed-by label (and the caller's selector) and keeps names
 *   and keys only.
 *
 * Errors never carry the API server's text, nor the client's exception (whose message embeds the
 * response body): only the secret's namespace/name, the HTTP status, the Status reason and the
 * field paths of a 422. What the API server echoes is not ours to vet, so none of it is passed on.
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { AlreadyExists, BadRequest, Conflict, Invalid, NotFound, type ResourceError, SourceUnavailable } from '../errors.js';
import { rfc3339 } from '../object.js';
import { assertNamespace, assertSecretName, checkPut, MANAGED_BY, MANAGED_BY_LABEL, parseLabelSelector, sameRecord, secretRecord, sortedRecord, type SecretPutOptions, type SecretPutResult, type SecretStore, type SecretSummary, type StoredSecret } from '../secrets.js';
import type { StatusBody } from './errors.js';

/**
 * Attempts of a put that keeps meeting concurrent writers (409), with a jittered pause between them
 * growing to ~250 ms: writers in lockstep otherwise collide again on every retry.
 */
const RETRIES = 10;
const pause = (attempt: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.random() * 25 * attempt));
const OPAQUE = 'Opaque';
const UTF8 = new TextDecoder('utf-8', { fatal: true });

const encode = (data: Readonly<Record<string, string>>): Record<string, string> => Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));

/** The Secret's data as text, or undefined for a key whose bytes are not UTF-8 (named, never shown). */
const decode = (secret: V1Secret): { data: Record<string, string>; binary: string[] } => {
  const data: Record<string, string> = {};
  const binary: string[] = [];
  for (const [key, value] of Object.entries(secret.data ?? {})) {
    try {
      data[key] = UTF8.decode(Buffer.from(value, 'base64'));
    } catch {
      binary.push(key);
    }
  }
  return { data, binary };
};

const parseStatus = (body: unknown): StatusBody => {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as StatusBody;
    } catch {
      return {};
    }
  }
  return typeof body === 'object' && body !== null ? (body as StatusBody) : {};
};

/**
 * The typed error for a failed call about one secret, in words of our own: the exception the client
 * throws embeds the response body and headers in its message, and the API server's message or an
 * admission webhook's may quote what it was sent.
 */
const secretError = (error: unknown, namespace: string | undefined, name?: string): ResourceError => {
  const what = name === undefined ? `Secrets in ${namespace === undefined ? 'every namespace' : `namespace ${namespace}`}` : `Secret "${namespace}/${name}"`;
  const candidate = error as { code?: unknown; statusCode?: unknown; body?: unknown };
  const code = typeof candidate.code === 'number' ? candidate.code : typeof candidate.statusCode === 'number' ? candidate.statusCode : undefined;
  if (code === undefined) {
    const errno = (error as NodeJS.ErrnoException | undefined)?.code ?? (error as { cause?: NodeJS.ErrnoException } | undefined)?.cause?.code;
    return new SourceUnavailable(`${what}: cannot reach the Kubernetes API${typeof errno === 'string' ? ` (${errno})` : ''}`);
  }
  const status = parseStatus(candidate.body);
  const reason = typeof status.reason === 'string' && /^[A-Za-z]+$/.test(status.reason) ? status.reason : undefined;
  switch (code) {
    case 404:
      return new NotFound('Secret', namespace ?? '', name ?? '');
    case 409:
      return reason === 'AlreadyExists' ? new AlreadyExists('Secret', namespace ?? '', name ?? '') : new Conflict('Secret', namespace ?? '', name ?? '');
    case 422: {
      const causes = (status.details?.causes ?? []).map((c) => ({ path: typeof c.field === 'string' ? c.field : '', message: `refused by the API server (${typeof c.reason === 'string' && /^[A-Za-z]+$/.test(c.reason) ? c.reason : 'FieldValueInvalid'})` }));
      return new Invalid(`${what} is invalid: the API server refused ${causes.map((c) => c.path || 'it').join(', ') || 'it'}`, causes);
    }
    case 400:
    case 415:
      return new BadRequest(`${what}: the API server refused the request (${code}${reason ? ` ${reason}` : ''})`);
    default:
      return new SourceUnavailable(`${what}: the API server answered ${code}${reason ? ` ${reason}` : ''}`, { code });
  }
};

const summary = (secret: V1Secret): SecretSummary => ({
  namespace: secret.metadata?.namespace ?? '',
  name: secret.metadata?.name ?? '',
  keys: Object.keys(secret.data ?? {}).sort(),
  version: secret.metadata?.resourceVersion ?? '',
  labels: sortedRecord(secret.metadata?.labels ?? {}),
  createdAt: secret.metadata?.creationTimestamp instanceof Date ? rfc3339(secret.metadata.creationTimestamp) : String(secret.metadata?.creationTimestamp ?? ''),
});

const byName = (a: SecretSummary, b: SecretSummary): number => (a.namespace === b.namespace ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.namespace < b.namespace ? -1 : 1);

export class KubernetesSecretStore implements SecretStore {
  constructor(private readonly core: CoreV1Api) {}

  async get(namespace: string, name: string): Promise<StoredSecret | undefined> {
    assertSecretName(namespace, name);
    const secret = await this.read(namespace, name);
    if (secret === undefined) return undefined;
    const { data, binary } = decode(secret);
    if (binary.length > 0) {
      const causes = binary.map((key) => ({ path: `data[${key}]`, message: 'not UTF-8 text (the secret store holds text values)' }));
      throw new Invalid(`Secret "${namespace}/${name}" cannot be read as text: ${causes.map((c) => c.path).join(', ')}`, causes);
    }
    return secretRecord(data, secret.metadata?.resourceVersion ?? '', secret.metadata?.labels ?? {});
  }

  async put(namespace: string, name: string, data: Readonly<Record<string, string>>, options: SecretPutOptions = {}): Promise<SecretPutResult> {
    const labels = checkPut(namespace, name, data, options);
    for (let attempt = 1; ; attempt++) {
      const existing = await this.read(namespace, name);
      try {
        if (existing === undefined) return { version: await this.create(namespace, name, data, labels), created: true };
        const type = existing.type ?? OPAQUE;
        if (type !== OPAQUE) {
          throw new Invalid(`Secret "${namespace}/${name}" has type ${type}; the secret store writes only ${OPAQUE} secrets`, [{ path: 'type', message: `Unsupported value: "${type}"` }]);
        }
        const version = existing.metadata?.resourceVersion ?? '';
        const current = decode(existing);
        if (current.binary.length === 0 && sameRecord(current.data, data) && sameRecord(existing.metadata?.labels ?? {}, labels)) return { version, created: false };
        return { version: await this.replace(existing, data, labels), created: false };
      } catch (error) {
        // Another writer came between the read and the write: read again and write over it.
        if (!(error instanceof Conflict || error instanceof AlreadyExists) || attempt >= RETRIES) throw error;
        await pause(attempt);
      }
    }
  }

  async delete(namespace: string, name: string): Promise<boolean> {
    assertSecretName(namespace, name);
    try {
      await this.core.deleteNamespacedSecret({ name, namespace });
      return true;
    } catch (error) {
      const mapped = secretError(error, namespace, name);
      if (mapped instanceof NotFound) return false;
      throw mapped;
    }
  }

  async list(namespace?: string, labelSelector?: string): Promise<SecretSummary[]> {
    if (namespace !== undefined) assertNamespace(namespace);
    // Refused here exactly as the embedded store refuses it, before any request.
    parseLabelSelector(labelSelector);
    const selector = [`${MANAGED_BY_LABEL}=${MANAGED_BY}`, ...(labelSelector?.trim() ? [labelSelector.trim()] : [])].join(',');
    try {
      const list = namespace === undefined ? await this.core.listSecretForAllNamespaces({ labelSelector: selector }) : await this.core.listNamespacedSecret({ namespace, labelSelector: selector });
      return list.items.map(summary).sort(byName);
    } catch (error) {
      throw secretError(error, namespace);
    }
  }

  private async read(namespace: string, name: string): Promise<V1Secret | undefined> {
    try {
      return await this.core.readNamespacedSecret({ name, namespace });
    } catch (error) {
      const mapped = secretError(error, namespace, name);
      if (mapped instanceof NotFound) return undefined;
      throw mapped;
    }
  }

  private async create(namespace: string, name: string, data: Readonly<Record<string, string>>, labels: Record<string, string>): Promise<string> {
    const body: V1Secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace, labels }, type: OPAQUE, data: encode(data) };
    try {
      return (await this.core.createNamespacedSecret({ namespace, body })).metadata?.resourceVersion ?? '';
    } catch (error) {
      throw secretError(error, namespace, name);
    }
  }

  /** A PUT with the read's resourceVersion; what is not ours (annotations, owners, finalizers) is kept. */
  private async replace(existing: V1Secret, data: Readonly<Record<string, string>>, labels: Record<string, string>): Promise<string> {
    const { name = '', namespace = '', resourceVersion, annotations, ownerReferences, finalizers } = existing.metadata ?? {};
    const body: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, resourceVersion, labels, ...(annotations ? { annotations } : {}), ...(ownerReferences ? { ownerReferences } : {}), ...(finalizers ? { finalizers } : {}) },
      type: OPAQUE,
      ...(existing.immutable === undefined ? {} : { immutable: existing.immutable }),
      data: encode(data),
    };
    try {
      return (await this.core.replaceNamespacedSecret({ name, namespace, body })).metadata?.resourceVersion ?? '';
    } catch (error) {
      throw secretError(error, namespace, name);
    }
  }
}
