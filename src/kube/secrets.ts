/**
 * The secret store port: the one place credentials live (issue 11). A Region's credentials and an
 * Identity's application credential are kept here — a core/v1 Secret on a cluster, a row of the
 * embedded store's `secrets` table on one machine — and never in events or logs: those carry the
 * secret's namespace/name (and a digest), never its data.
 *
 * Both adapters share the rules in this file, so they refuse the same inputs with the same errors:
 * names as the API server validates a Secret's (a DNS subdomain of at most 253 characters, in a
 * namespace that is a DNS label), keys as a Secret's data keys (`[-._a-zA-Z0-9]+`, not `.`/`..`), and
 * at most 1 MiB of keys and values together (the API server's limit). Every message names the
 * secret, the key or the label, and never a value. See src/kube/README.md, "SecretStore".
 */
import { inspect } from 'node:util';
import type { FieldError } from '../resources/index.js';
import { BadRequest, Invalid } from './errors.js';

export interface SecretStore {
  /** The secret's data as strings (decoded), its version and labels; undefined when there is none. */
  get(namespace: string, name: string): Promise<StoredSecret | undefined>;
  /**
   * Creates the secret or replaces its data and labels. A put that changes nothing keeps the
   * version; concurrent puts are serialized: the last one wins and every change takes a new version.
   */
  put(namespace: string, name: string, data: Readonly<Record<string, string>>, options?: SecretPutOptions): Promise<SecretPutResult>;
  /** True when a secret was deleted, false when there was none (already absent is success). */
  delete(namespace: string, name: string): Promise<boolean>;
  /**
   * The secrets Regent manages (labelled `app.kubernetes.io/managed-by: regent`) in a namespace, or
   * in every namespace: names and keys only, never values. `labelSelector` as kubectl's `-l`.
   */
  list(namespace?: string, labelSelector?: string): Promise<SecretSummary[]>;
}

export interface StoredSecret {
  readonly data: Readonly<Record<string, string>>;
  /** Changes with every write that changes data or labels (a resourceVersion on a cluster). */
  readonly version: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface SecretPutOptions {
  /** Stored as given, plus `app.kubernetes.io/managed-by: regent` (and the owner label). */
  readonly labels?: Readonly<Record<string, string>>;
  /** The uid of the object the secret belongs to, kept as the label `regent.dev/owner-uid`. */
  readonly ownerUid?: string;
}

export interface SecretPutResult {
  readonly version: string;
  /** True when there was no secret of that name before. */
  readonly created: boolean;
}

export interface SecretSummary {
  readonly namespace: string;
  readonly name: string;
  /** The data keys, sorted. */
  readonly keys: readonly string[];
  readonly version: string;
  readonly labels: Readonly<Record<string, string>>;
  /** RFC 3339: when the secret was first created (kubectl's AGE). */
  readonly createdAt: string;
}

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'regent';
export const OWNER_UID_LABEL = 'regent.dev/owner-uid';
/** The API server refuses a Secret whose keys and values together exceed this (k8s.io/api MaxSecretSize). */
export const MAX_SECRET_BYTES = 1024 * 1024;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DATA_KEY = /^[-._a-zA-Z0-9]+$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const quoted = (text: string): string => JSON.stringify(text);

/** Namespace and name, as the API server checks a Secret's (keys and names are not secret: they are quoted). */
export const secretNameErrors = (namespace: string, name: string): FieldError[] => {
  const errors: FieldError[] = [];
  if (typeof namespace !== 'string' || namespace === '') errors.push({ path: 'metadata.namespace', message: 'Required value' });
  else if (namespace.length > 63 || !DNS_LABEL.test(namespace)) {
    errors.push({ path: 'metadata.namespace', message: `Invalid value: ${quoted(namespace)}: a lowercase RFC 1123 label (at most 63 characters of [a-z0-9-], starting and ending with an alphanumeric character)` });
  }
  if (typeof name !== 'string' || name === '') errors.push({ path: 'metadata.name', message: 'Required value' });
  else if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    errors.push({ path: 'metadata.name', message: `Invalid value: ${quoted(name)}: a lowercase RFC 1123 subdomain (at most 253 characters of [a-z0-9-.], starting and ending with an alphanumeric character)` });
  }
  return errors;
};

/** k8s.io/apimachinery IsConfigMapKey: the rule for Secret and ConfigMap data keys. */
const keyErrors = (key: string): string[] => {
  const errors: string[] = [];
  if (key.length > 253) errors.push('must be no more than 253 characters');
  if (!DATA_KEY.test(key)) errors.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.'");
  if (key === '.') errors.push("must not be '.'");
  else if (key === '..') errors.push("must not be '..'");
  else if (key.startsWith('..')) errors.push("must not start with '..'");
  return errors;
};

const qualifiedNameErrors = (key: string): string[] => {
  const slash = key.indexOf('/');
  const [prefix, name] = slash >= 0 ? [key.slice(0, slash), key.slice(slash + 1)] : [undefined, key];
  const errors: string[] = [];
  if (prefix !== undefined && (prefix === '' || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) errors.push('prefix part must be a lowercase RFC 1123 subdomain');
  if (name === '' || name.length > 63 || !LABEL_NAME.test(name)) errors.push("name part must consist of at most 63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character");
  return errors;
};

export const labelErrors = (labels: Readonly<Record<string, unknown>>): FieldError[] =>
  Object.entries(labels).flatMap(([key, value]): FieldError[] => {
    const path = `metadata.labels[${key}]`;
    const problems = qualifiedNameErrors(key).map((m) => ({ path, message: `Invalid value: ${quoted(key)}: ${m}` }));
    if (typeof value !== 'string') problems.push({ path, message: 'Invalid value: must be a string' });
    else if (value.length > 63 || !LABEL_VALUE.test(value)) problems.push({ path, message: `Invalid value: ${quoted(value)}: a label value must be at most 63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character` });
    return problems;
  });

/**
 * Everything the API server would refuse in a Secret, as field errors. A value is never quoted:
 * a value that is not a string is named by its key only, and the size by its total.
 */
export const secretErrors = (namespace: string, name: string, data: unknown, labels: Readonly<Record<string, unknown>>): FieldError[] => {
  const errors = secretNameErrors(namespace, name);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    errors.push({ path: 'data', message: 'Invalid value: must be an object of strings' });
    return [...errors, ...labelErrors(labels)];
  }
  let size = 0;
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    for (const message of keyErrors(key)) errors.push({ path: `data[${key}]`, message: `Invalid value: ${quoted(key)}: ${message}` });
    if (typeof value !== 'string') errors.push({ path: `data[${key}]`, message: 'Invalid value: must be a string (the value is not shown)' });
    else size += Buffer.byteLength(key, 'utf8') + Buffer.byteLength(value, 'utf8');
  }
  if (size > MAX_SECRET_BYTES) errors.push({ path: 'data', message: `Too long: must have at most ${MAX_SECRET_BYTES} bytes (keys and values together: ${size})` });
  return [...errors, ...labelErrors(labels)];
};

const refuse = (namespace: string, name: string, errors: readonly FieldError[]): void => {
  if (errors.length === 0) return;
  throw new Invalid(`Secret ${quoted(`${namespace}/${name}`)} is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
};

export const assertSecretName = (namespace: string, name: string): void => refuse(namespace, name, secretNameErrors(namespace, name));

export const assertNamespace = (namespace: string): void => {
  const errors = secretNameErrors(namespace, 'x').filter((e) => e.path === 'metadata.namespace');
  if (errors.length > 0) throw new Invalid(`namespace ${quoted(namespace)} is invalid: ${errors.map((e) => e.message).join('; ')}`, errors);
};

/** The labels a put stores: the caller's, the managed-by label, and the owner's uid when given. */
export const storedLabels = (options: SecretPutOptions = {}): Record<string, string> => ({
  ...(options.labels ?? {}),
  [MANAGED_BY_LABEL]: MANAGED_BY,
  ...(options.ownerUid === undefined ? {} : { [OWNER_UID_LABEL]: options.ownerUid }),
});

/** Checks a put's arguments; returns the labels to store. Throws Invalid naming every field. */
export const checkPut = (namespace: string, name: string, data: unknown, options: SecretPutOptions = {}): Record<string, string> => {
  const errors: FieldError[] = [];
  if (options.ownerUid !== undefined && (typeof options.ownerUid !== 'string' || options.ownerUid.length > 63 || !LABEL_VALUE.test(options.ownerUid) || options.ownerUid === '')) {
    errors.push({ path: 'ownerUid', message: 'Invalid value: must be a uid (a label value)' });
  }
  const labels = storedLabels(options);
  // A bad owner uid is named once, as ownerUid, not again as the label it would have become.
  const checked = errors.length > 0 ? storedLabels({ ...options, ownerUid: undefined }) : labels;
  refuse(namespace, name, [...secretErrors(namespace, name, data, checked), ...errors]);
  return labels;
};

/** The same record regardless of insertion order: keys sorted. */
export const sortedRecord = <T>(record: Readonly<Record<string, T>>): Record<string, T> => Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export const sameRecord = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && b[k] === a[k]);
};

const redacted = (data: Readonly<Record<string, string>>): string => `[secret data: ${Object.keys(data).sort().join(', ') || 'no keys'}]`;

/**
 * A stored secret as get returns it. Its data is a plain frozen object; but printing the record or
 * its data (util.inspect, console.log, a logger that JSON-serializes the record) shows the keys only,
 * so a debug line of "the secret we read" does not leak it.
 */
export const secretRecord = (data: Record<string, string>, version: string, labels: Record<string, string>): StoredSecret => {
  const frozen = sortedRecord(data);
  Object.defineProperty(frozen, inspect.custom, { value: () => redacted(frozen), enumerable: false });
  Object.freeze(frozen);
  const record = { data: frozen as Readonly<Record<string, string>>, version, labels: Object.freeze(sortedRecord(labels)) };
  Object.defineProperty(record, 'toJSON', { value: () => ({ data: redacted(frozen), version, labels: record.labels }), enumerable: false });
  Object.defineProperty(record, inspect.custom, { value: () => `StoredSecret { data: ${redacted(frozen)}, version: ${quoted(version)} }`, enumerable: false });
  return Object.freeze(record);
};

// ---------------------------------------------------------------------------------------------
// Label selectors (kubectl -l): equality- and set-based, as the API server parses them

export type LabelRequirement =
  | { readonly key: string; readonly op: 'exists' | 'notexists' }
  | { readonly key: string; readonly op: 'in' | 'notin'; readonly values: readonly string[] };

/** Splits on commas outside parentheses. */
const splitTopLevel = (text: string): string[] => {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim());
};

/** Parses a selector; throws BadRequest naming the part it cannot read. The empty selector selects everything. */
export const parseLabelSelector = (selector: string | undefined): LabelRequirement[] => {
  if (selector === undefined || selector.trim() === '') return [];
  const bad = (part: string, why: string): never => {
    throw new BadRequest(`unable to parse label selector ${quoted(selector)} at ${quoted(part)}: ${why}`);
  };
  const key = (text: string, part: string): string => {
    const k = text.trim();
    if (qualifiedNameErrors(k).length > 0) bad(part, `${quoted(k)} is not a valid label key`);
    return k;
  };
  const value = (text: string, part: string): string => {
    const v = text.trim();
    if (v.length > 63 || !LABEL_VALUE.test(v)) bad(part, `${quoted(v)} is not a valid label value`);
    return v;
  };
  return splitTopLevel(selector).map((part): LabelRequirement => {
    if (part === '') return bad(part, 'empty requirement');
    const set = /^(\S+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(part);
    if (set) return { key: key(set[1]!, part), op: set[2] as 'in' | 'notin', values: set[3]!.split(',').map((v) => value(v, part)) };
    const equality = /^([^=!\s]+)\s*(==|=|!=)\s*([^=!]*)$/.exec(part);
    if (equality) return { key: key(equality[1]!, part), op: equality[2] === '!=' ? 'notin' : 'in', values: [value(equality[3]!, part)] };
    if (part.startsWith('!')) return { key: key(part.slice(1), part), op: 'notexists' };
    if (/^[^\s=!(),]+$/.test(part)) return { key: key(part, part), op: 'exists' };
    return bad(part, 'expected key, !key, key=value, key!=value, key in (…) or key notin (…)');
  });
};

export const matchesSelector = (labels: Readonly<Record<string, string>>, requirements: readonly LabelRequirement[]): boolean =>
  requirements.every((r) => {
    const present = Object.prototype.hasOwnProperty.call(labels, r.key);
    switch (r.op) {
      case 'exists':
        return present;
      case 'notexists':
        return !present;
      case 'in':
        return present && r.values.includes(labels[r.key]!);
      case 'notin':
        return !present || !r.values.includes(labels[r.key]!);
    }
  });
