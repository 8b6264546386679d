/**
 * An independent reading of a CRD's structural schema, for the agreement test: it validates an
 * object the way the API server does (type, enum, ranges, lengths, pattern, format, required,
 * list-type uniqueness, pruning of unknown fields and nulls) and evaluates the CEL rules written in
 * the YAML. Transition rules (those reading `oldSelf`) run on update, with old values correlated by
 * property name and by list-map keys, once the new object is otherwise valid.
 *
 * It shares only the format checks with src/resources (formats.ts states the API server's format
 * semantics); everything else is written from the schema's side on purpose.
 */
import { hasFormat, type StringFormat } from '../../../src/resources/codec/formats.js';
import { evaluateCel, isTransitionRule } from './cel.js';

export interface CelRule {
  rule: string;
  message?: string;
  fieldPath?: string;
}

export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
  items?: Schema;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  description?: string;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: CelRule[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

export interface SchemaError {
  path: string;
  message: string;
  /** Set when a CEL rule failed: the rule's message. */
  ruleMessage?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (path: string, key: string): string => (key.startsWith('[') || path === '' ? `${path}${key}` : `${path}.${key}`);
const FORMATS: readonly string[] = ['date-time', 'ipv4', 'cidr', 'uuid', 'byte'];

const typeOk = (schema: Schema, value: unknown): boolean => {
  switch (schema.type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
};

const sortKey = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (isObject(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

/** Drops unknown fields and nulls, and orders set/map lists, so CEL equality ignores their order. */
export const prune = (schema: Schema, value: unknown, forCel = false): unknown => {
  if (schema.type === 'object' && isObject(value)) {
    if (schema['x-kubernetes-preserve-unknown-fields']) return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (v === null || v === undefined) continue;
      const child = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (child) out[key] = prune(child, v, forCel);
    }
    return out;
  }
  if (schema.type === 'array' && Array.isArray(value) && schema.items) {
    const items = value.map((v) => prune(schema.items as Schema, v, forCel));
    const unordered = schema['x-kubernetes-list-type'] === 'set' || schema['x-kubernetes-list-type'] === 'map';
    return forCel && unordered ? [...items].sort((a, b) => sortKey(a).localeCompare(sortKey(b))) : items;
  }
  return value;
};

const runRules = (schema: Schema, value: unknown, old: unknown, path: string, transition: boolean, errors: SchemaError[]): void => {
  for (const rule of schema['x-kubernetes-validations'] ?? []) {
    if (isTransitionRule(rule.rule) !== transition) continue;
    const scope = transition ? { self: prune(schema, value, true), oldSelf: prune(schema, old, true) } : { self: prune(schema, value, true) };
    let ok: unknown;
    try {
      ok = evaluateCel(rule.rule, scope);
    } catch (error) {
      throw new Error(`CEL rule ${JSON.stringify(rule.rule)} at ${path}: ${(error as Error).message}`, { cause: error });
    }
    if (ok !== true) {
      const target = (rule.fieldPath ?? '').split('.').filter(Boolean).reduce(join, path);
      errors.push({ path: target, message: `rule failed: ${rule.message ?? rule.rule}`, ruleMessage: rule.message ?? rule.rule });
    }
  }
};

/** Pass one: everything but transition rules. */
const validateNode = (schema: Schema, value: unknown, path: string, errors: SchemaError[]): void => {
  if (!typeOk(schema, value)) {
    errors.push({ path, message: `expected ${schema.type ?? 'any'}` });
    return;
  }
  const before = errors.length;
  if (schema.enum && !schema.enum.includes(value)) errors.push({ path, message: 'not in enum' });
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) errors.push({ path, message: 'too short' });
    if (schema.maxLength !== undefined && length > schema.maxLength) errors.push({ path, message: 'too long' });
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) errors.push({ path, message: 'pattern' });
    if (schema.format !== undefined && FORMATS.includes(schema.format) && !hasFormat(schema.format as StringFormat, value)) errors.push({ path, message: `format ${schema.format}` });
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push({ path, message: 'below minimum' });
    if (schema.maximum !== undefined && value > schema.maximum) errors.push({ path, message: 'above maximum' });
  }
  if (isObject(value)) {
    const present = (key: string): boolean => value[key] !== undefined && value[key] !== null;
    for (const key of schema.required ?? []) if (!present(key)) errors.push({ path: join(path, key), message: 'required' });
    const entries = Object.entries(value).filter(([key]) => present(key));
    if (schema.maxProperties !== undefined && entries.length > schema.maxProperties) errors.push({ path, message: 'too many properties' });
    for (const [key, v] of entries) {
      const child = schema.properties?.[key];
      if (child) validateNode(child, v, join(path, key), errors);
      else if (typeof schema.additionalProperties === 'object') validateNode(schema.additionalProperties, v, join(path, `[${key}]`), errors);
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) errors.push({ path, message: 'too few items' });
    if (schema.maxItems !== undefined && value.length > schema.maxItems) errors.push({ path, message: 'too many items' });
    const itemsBefore = errors.length;
    value.forEach((v, i) => schema.items && validateNode(schema.items, v, join(path, `[${i}]`), errors));
    const listType = schema['x-kubernetes-list-type'];
    if (errors.length === itemsBefore && (listType === 'set' || listType === 'map')) {
      const seen = new Set<string>();
      value.forEach((v, i) => {
        const key = listType === 'map' && isObject(v) ? sortKey((schema['x-kubernetes-list-map-keys'] ?? []).map((k) => v[k])) : sortKey(prune(schema.items ?? {}, v));
        if (seen.has(key)) errors.push({ path: join(path, `[${i}]`), message: 'duplicate' });
        seen.add(key);
      });
    }
  }
  // Object rules run on a node whose own subtree is valid, as in src/resources (see structure.ts).
  if (errors.length === before) runRules(schema, value, undefined, path, false, errors);
};

/** Pass two: transition rules, with old values correlated by property name and list-map keys. */
const validateTransitions = (schema: Schema, value: unknown, old: unknown, path: string, errors: SchemaError[]): void => {
  if (old === undefined || old === null) return;
  if (isObject(value) && isObject(old)) {
    for (const [key, v] of Object.entries(value)) {
      if (v === null || v === undefined) continue;
      const child = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      const childPath = schema.properties?.[key] ? join(path, key) : join(path, `[${key}]`);
      if (child) validateTransitions(child, v, old[key], childPath, errors);
    }
  }
  if (Array.isArray(value) && Array.isArray(old) && schema['x-kubernetes-list-type'] === 'map' && schema.items) {
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    value.forEach((v, i) => {
      const match = old.find((o) => isObject(o) && isObject(v) && keys.every((k) => sortKey(o[k]) === sortKey(v[k])));
      if (match !== undefined) validateTransitions(schema.items as Schema, v, match, join(path, `[${i}]`), errors);
    });
  }
  runRules(schema, value, old, path, true, errors);
};

/** Validates `value` (and `old`, on update) against a CRD version's openAPIV3Schema. */
export const validateAgainstSchema = (root: Schema, value: unknown, old?: unknown): SchemaError[] => {
  const errors: SchemaError[] = [];
  if (!isObject(value)) return [{ path: '', message: 'expected object' }];
  for (const key of root.required ?? []) if (value[key] === undefined || value[key] === null) errors.push({ path: key, message: 'required' });
  for (const key of ['spec', 'status']) {
    const child = root.properties?.[key];
    if (child && value[key] !== undefined && value[key] !== null) validateNode(child, value[key], key, errors);
  }
  if (errors.length === 0 && isObject(old)) {
    for (const key of ['spec', 'status']) {
      const child = root.properties?.[key];
      if (child && value[key] !== undefined && value[key] !== null) validateTransitions(child, value[key], old[key], key, errors);
    }
  }
  return errors;
};
