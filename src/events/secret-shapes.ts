/**
 * What a secret looks like, for every writer that keeps secrets out of events and files: evidence redaction
 * (src/audit/evidence/redact.ts) and the resource streams' digests (src/resource-history/digest-secrets.ts).
 */

/** Keys that name secrets (case-insensitive): password, adminPass, secret, token, credential, api key, … */
export const SECRET_KEY = /password|passwd|passphrase|adminpass|^pass$|secret|token|credential|api[-_]?key|private[-_]?key|access[-_]?key|^auth(orization)?$|cookie|signature/i;

/** Values that are secrets whatever their key: PEM private keys, bearer/basic authorization values. */
export const SECRET_VALUE = /^-----BEGIN [A-Z ]*PRIVATE KEY-----|^(Bearer|Basic) [A-Za-z0-9._~+/=-]{8,}/;
