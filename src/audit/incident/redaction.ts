/**
 * Redaction for what the incident views show and export: the evidence files' redaction (src/audit/evidence/redact.ts:
 * secret-named keys anywhere, a value that *starts* as a PEM private key or a Bearer/Basic credential), then one more
 * pass for secrets inside longer text, which an incident report is likelier to carry than an event's own members
 * (a status message, a note, a command line): a JWT, a Keystone Fernet token, a Bearer/Basic credential, a PEM
 * private key or a URL with a password (`mysql://nova:…@db`) anywhere in a string replaces the whole string.
 *
 * Every row is built from redacted data, so a summary can never quote what was redacted.
 */
import { redact, REDACTED, SECRET_KEY, SECRET_VALUE } from '../evidence/redact.js';

/** Secret-shaped text anywhere in a string. */
export const EMBEDDED_SECRET =
  /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}|gAAAAA[A-Za-z0-9_=-]{40,}|\b(?:Bearer|Basic) [A-Za-z0-9._~+/=-]{8,}|-----BEGIN [A-Z ]*PRIVATE KEY-----|[a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]+:[^@/?#\s]+@/;

export interface IncidentRedaction {
  marker: string;
  keyPattern: string;
  valuePattern: string;
  embeddedPattern: string;
}

export const INCIDENT_REDACTION: IncidentRedaction = { marker: REDACTED, keyPattern: SECRET_KEY.source, valuePattern: SECRET_VALUE.source, embeddedPattern: EMBEDDED_SECRET.source };

/** `value` redacted; `paths` (prefixed with `path`) say which members were replaced, never what they held. */
export const redactForIncident = <T>(value: T, path: string): { value: T; paths: string[] } => {
  const first = redact(value, path);
  const paths = [...first.paths];
  const walk = (v: unknown, at: string): unknown => {
    if (typeof v === 'string') {
      if (v !== REDACTED && EMBEDDED_SECRET.test(v)) {
        paths.push(at);
        return REDACTED;
      }
      return v;
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, `${at}[${i}]`));
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([key, child]) => [key, walk(child, at ? `${at}.${key}` : key)]));
  };
  return { value: walk(first.value, path) as T, paths: [...new Set(paths)] };
};
