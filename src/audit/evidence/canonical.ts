/**
 * Canonical JSON for hashing: object keys sorted by code point, no whitespace, `undefined` members
 * dropped (as JSON.stringify does). Two parties that hold the same JSON value produce the same bytes.
 */
import { createHash } from 'node:crypto';

export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined && typeof v !== 'function')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
};

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** One link of the chain: sha256(previous link's hex || canonical JSON of the event). */
export const nextLink = (previous: string, event: unknown): string => sha256(previous + canonicalJson(event));
