/**
 * A v1 Secret document of a manifest, validated and decoded as `apply` puts it into the secret store: what the
 * parsing of manifests (./manifest-documents.ts) needs of Secrets, with no call to any store. A problem names its
 * file, document, key or field, never a value.
 */
import type { FieldError } from '../../resources/index.js';
import { secretErrors, storedLabels } from '../secrets.js';

/** A Secret document, decoded: what put stores. */
export interface SecretDocument {
  readonly namespace: string;
  readonly name: string;
  readonly data: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
}

export interface ParsedSecret {
  readonly secret?: SecretDocument;
  readonly problems: string[];
  readonly causes: FieldError[];
  readonly warnings: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const isSecretDocument = (value: Record<string, unknown>): boolean => value.apiVersion === 'v1' && value.kind === 'Secret';


/** Standard base64 with padding, as the API server decodes a Secret's data (line breaks ignored). */
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

const KEPT = new Set(['apiVersion', 'kind', 'metadata', 'type', 'data', 'stringData']);
const KEPT_METADATA = new Set(['name', 'namespace', 'labels']);

/**
 * Validates and decodes one Secret document. `stringData` wins over `data` for a key in both, as the
 * API server merges them. Fields the secret store does not keep (annotations, immutable, …) are
 * warnings; a type other than Opaque is a problem.
 */
export const parseSecretDocument = (value: Record<string, unknown>, where: string, defaultNamespace: string): ParsedSecret => {
  const problems: string[] = [];
  const causes: FieldError[] = [];
  const warnings: string[] = [];
  const problem = (path: string, message: string): void => {
    causes.push({ path, message });
    problems.push(`${where}: ${path}: ${message}`);
  };
  const metadata = isObject(value.metadata) ? value.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : defaultNamespace;
  for (const key of Object.keys(value)) if (!KEPT.has(key)) warnings.push(`field "${key}" is not kept by the secret store (ignored)`);
  for (const key of Object.keys(metadata)) if (!KEPT_METADATA.has(key)) warnings.push(`field "metadata.${key}" is not kept by the secret store (ignored)`);
  if (value.type !== undefined && value.type !== 'Opaque') problem('type', `Unsupported value: ${JSON.stringify(value.type)}: the secret store holds Opaque secrets only`);
  const labels: Record<string, string> = {};
  if (metadata.labels !== undefined && !isObject(metadata.labels)) problem('metadata.labels', 'Invalid value: must be an object');
  for (const [key, label] of Object.entries(isObject(metadata.labels) ? metadata.labels : {})) {
    if (typeof label === 'string') labels[key] = label;
    else problem(`metadata.labels[${key}]`, 'Invalid value: must be a string');
  }
  const data: Record<string, string> = {};
  for (const field of ['data', 'stringData'] as const) {
    const section = value[field];
    if (section === undefined || section === null) continue;
    if (!isObject(section)) {
      problem(field, 'Invalid value: must be an object of strings');
      continue;
    }
    for (const [key, raw] of Object.entries(section)) {
      if (typeof raw !== 'string') {
        problem(`${field}[${key}]`, `Invalid value: must be a ${field === 'data' ? 'base64 ' : ''}string (the value is not shown)`);
        continue;
      }
      if (field === 'stringData') {
        data[key] = raw;
        continue;
      }
      const compact = raw.replace(/[\r\n]/g, '');
      if (!STANDARD_BASE64.test(compact)) {
        problem(`data[${key}]`, 'Invalid value: not valid base64 (the value is not shown); use stringData for plain text');
        continue;
      }
      try {
        data[key] = UTF8.decode(Buffer.from(compact, 'base64'));
      } catch {
        problem(`data[${key}]`, 'Invalid value: decodes to bytes that are not UTF-8 text; the secret store holds text values');
      }
    }
  }
  // The rules the store applies (names, keys, size, labels), checked before anything is applied.
  const stored = storedLabels({ labels });
  const errors = secretErrors(namespace, name, data, stored).filter((e) => !causes.some((c) => c.path === e.path));
  if (errors.length > 0) {
    causes.push(...errors);
    problems.push(`${where}: Secret "${namespace}/${name}" is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  }
  return problems.length > 0 ? { problems, causes, warnings } : { secret: { namespace, name, data, labels }, problems, causes, warnings };
};
