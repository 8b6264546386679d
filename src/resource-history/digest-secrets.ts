/**
 * A spec or status as a resource stream records it: every secret-shaped member (src/events/secret-shapes.ts) and
 * every user-data member replaced by `sha256:<hex>` of its value. A digest, not a blank: an auditor can still see
 * that the secret changed between two generations (and compare it with a value they hold), never what it is.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../resources/codec/transitions.js';
import { SECRET_KEY, SECRET_VALUE } from '../events/secret-shapes.js';

/** Keys recorded as digests besides the secret-shaped ones: cloud-init user data carries keys and passwords. */
const DIGESTED_KEY = /^user[-_]?data$/i;

export const sha256Of = (value: unknown): string => `sha256:${createHash('sha256').update(typeof value === 'string' ? value : canonicalJson(value)).digest('hex')}`;

export const digestSecrets = <T>(value: T): T => {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'string') return SECRET_VALUE.test(v) ? sha256Of(v) : v;
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(v as Record<string, unknown>)) {
      out[key] = (SECRET_KEY.test(key) || DIGESTED_KEY.test(key)) && child !== null && child !== undefined ? sha256Of(child) : walk(child);
    }
    return out;
  };
  return walk(value) as T;
};
