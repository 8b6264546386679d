/**
 * No secret in any event or log line: none of the cloud's passwords, and no `password`, `secret` or token-like
 * field holding a clear value (digests and redaction markers are fine).
 */
import type { Invariant, Violation } from './types.js';

const SECRET_FIELD = /"(password|secret|application_credential_secret|token|x-auth-token|x-subject-token)"\s*:\s*"([^"]{6,})"/gi;
/** Digests, redaction markers, and references to a Secret by namespace/name (not its value). */
const HARMLESS = /^(sha256:|\*+$|\[redacted\]|redacted|<redacted>|[a-z0-9-]+\/[a-z0-9.-]+$)/i;

/** What in one text leaks: a known secret verbatim, or a secret-named field with a clear value. */
export const leaksIn = (text: string, secrets: readonly string[]): string | undefined => {
  const known = secrets.find((s) => s !== '' && text.includes(s));
  if (known) return `a cloud password (${known.slice(0, 3)}…)`;
  for (const m of text.matchAll(SECRET_FIELD)) if (!HARMLESS.test(m[2] as string)) return `field "${m[1]}" in clear`;
  return undefined;
};

export const noSecret: Invariant = ({ events, logLines, secrets }) => {
  const violations: Violation[] = [];
  for (const e of events) {
    const leak = leaksIn(JSON.stringify(e), secrets);
    if (leak) violations.push({ invariant: 'no-secret', detail: `${e.stream}@${e.revision} ${e.type}: ${leak}` });
  }
  for (const line of logLines) {
    const leak = leaksIn(line, secrets);
    if (leak) violations.push({ invariant: 'no-secret', detail: `log line: ${leak}: ${line.slice(0, 160)}` });
  }
  return violations;
};
