/**
 * Secrets in the CLI: `regent apply -f` of `apiVersion: v1, kind: Secret` documents (stringData and
 * base64 data) into the resource source's secret store, `regent get secrets` (namespace, name, keys,
 * age — never a value, in every output format) and `regent delete secret <name>`.
 *
 * A problem with a document names its file, document, key or field, never a value: a value that is
 * not valid base64 is "data[password]: not valid base64", not the text that failed to decode.
 */
import { stringify } from 'yaml';
import { Invalid, NotFound } from '../errors.js';
import type { ResourceSource } from '../port.js';
import type { SecretSummary } from '../secrets.js';
import { alignColumns, formatAge, type OutputFormat } from './output.js';

export { isSecretDocument, parseSecretDocument, type ParsedSecret, type SecretDocument } from './secret-documents.js';
import type { SecretDocument } from './secret-documents.js';

/** kubectl's names for the kind: secret, secrets (any case). */
export const isSecretKind = (name: string): boolean => ['secret', 'secrets'].includes(name.toLowerCase());

/**
 * Puts one decoded document; `unchanged` when the version did not move. The version before is read
 * with get (which the ServiceAccount may do, unlike list); what it read is never printed.
 */
export const applySecret = async (source: ResourceSource, secret: SecretDocument): Promise<{ action: 'created' | 'configured' | 'unchanged'; version: string }> => {
  const before = await source.secrets.get(secret.namespace, secret.name).catch((error: unknown) => {
    // A Secret the store cannot read as text (binary data) is replaced by the put: it was not "unchanged".
    if (error instanceof Invalid) return undefined;
    throw error;
  });
  const result = await source.secrets.put(secret.namespace, secret.name, secret.data, { labels: secret.labels });
  const action = result.created ? 'created' : before?.version === result.version ? 'unchanged' : 'configured';
  return { action, version: result.version };
};

/** `regent get secrets [name]`: summaries only. One name: NotFound when there is none. */
export const getSecrets = async (source: ResourceSource, name?: string, options: { namespace?: string } = {}): Promise<SecretSummary[]> => {
  if (name === undefined) return source.secrets.list(options.namespace);
  const namespace = options.namespace ?? 'default';
  const found = (await source.secrets.list(namespace)).filter((s) => s.name === name);
  if (found.length === 0) throw new NotFound('Secret', namespace, name);
  return found;
};

/** `regent delete secret <name>`: kubectl's wording; NotFound when there is none. */
export const deleteSecret = async (source: ResourceSource, name: string, namespace = 'default'): Promise<string> => {
  if (!(await source.secrets.delete(namespace, name))) throw new NotFound('Secret', namespace, name);
  return `secret "${name}" deleted`;
};

const view = (s: SecretSummary) => ({ namespace: s.namespace, name: s.name, keys: [...s.keys], version: s.version, labels: { ...s.labels }, createdAt: s.createdAt });

/** A table (NAMESPACE, NAME, KEYS, AGE), or YAML/JSON of the summaries: never a value, in any format. */
export const formatSecrets = (secrets: readonly SecretSummary[], format: OutputFormat, options: { showNamespace?: boolean; single?: boolean; now?: Date } = {}): string => {
  if (format !== 'table') {
    const document = options.single && secrets.length === 1 ? view(secrets[0]!) : { apiVersion: 'v1', kind: 'List', items: secrets.map(view) };
    return format === 'json' ? JSON.stringify(document, null, 2) : stringify(document).trimEnd();
  }
  if (secrets.length === 0) return 'No resources found.';
  const now = options.now ?? new Date();
  const header = [...(options.showNamespace ? ['NAMESPACE'] : []), 'NAME', 'KEYS', 'AGE'];
  const rows = secrets.map((s) => [...(options.showNamespace ? [s.namespace] : []), s.name, s.keys.join(',') || '<none>', formatAge(s.createdAt, now)]);
  return alignColumns(header, rows);
};
