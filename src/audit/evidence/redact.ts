/**
 * Redaction for evidence files: any member whose key looks secret-shaped is replaced, recursively,
 * in event data and metadata alike. Redaction runs before hashing, so the hash chain covers exactly
 * what the file holds; the list of redacted paths says what was removed, never what it was.
 */

import { SECRET_KEY, SECRET_VALUE } from '../../events/secret-shapes.js';

export { SECRET_KEY, SECRET_VALUE };

export const REDACTED = '[REDACTED]';

export interface Redacted<T> {
  value: T;
  /** JSON-pointer-like paths (`data.server.adminPass`) of the members replaced. */
  paths: string[];
}

export const redact = <T>(value: T, path = ''): Redacted<T> => {
  const paths: string[] = [];
  const walk = (v: unknown, at: string): unknown => {
    if (Array.isArray(v)) return v.map((item, i) => walk(item, `${at}[${i}]`));
    if (typeof v === 'string' && SECRET_VALUE.test(v)) {
      paths.push(at);
      return REDACTED;
    }
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(v as Record<string, unknown>)) {
      const here = at ? `${at}.${key}` : key;
      if (SECRET_KEY.test(key) && child !== null && child !== undefined) {
        out[key] = REDACTED;
        paths.push(here);
      } else out[key] = walk(child, here);
    }
    return out;
  };
  return { value: walk(value, path) as T, paths };
};
