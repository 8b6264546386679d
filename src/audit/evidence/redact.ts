/**
 * Redaction for evidence files: any member whose key looks secret-shaped is replaced, recursively,
 * in event data and metadata alike. Redaction runs before hashing, so the hash chain covers exactly
 * what the file holds; the list of redacted paths says what was removed, never what it was.
 */

export const REDACTED = '[REDACTED]';

/** Keys that name secrets (case-insensitive): password, adminPass, secret, token, credential, api key, … */
export const SECRET_KEY = /password|passwd|passphrase|adminpass|^pass$|secret|token|credential|api[-_]?key|private[-_]?key|access[-_]?key|^auth(orization)?$|cookie|signature/i;

/** Values that are secrets whatever their key: PEM private keys, bearer/basic authorization values. */
export const SECRET_VALUE = /^-----BEGIN [A-Z ]*PRIVATE KEY-----|^(Bearer|Basic) [A-Za-z0-9._~+/=-]{8,}/;

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
