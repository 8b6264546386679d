/**
 * userData validation at the API edge (server-api.md): a malformed payload answers 422 instead of failing
 * mid-provision or silently in the guest. Checked at create, and at update only when the stored value would
 * change (an unchanged legacy payload PUT back is never re-validated).
 *
 * The payload is base64. Its decoded form must be one cloud-init understands, checked as cloud-init's
 * format detection reads the first line: `#cloud-config` (YAML that parses to a mapping), `#!` (a script),
 * `#include` / `#include-once` (URLs), `#cloud-boothook`, `#part-handler`, `## template: jinja` (the rest is
 * checked again), a MIME multipart (`Content-Type: multipart/…; boundary=…`), or gzip (magic 1f 8b).
 * Anything else is refused: cloud-init would ignore it and the guest would boot unconfigured.
 * With an SSH certificate authority the payload must support managed augmentation (Regent merges the CA into
 * it), which excludes gzip; without one, gzip passes through unmodified (not decompressed, not inspected).
 *
 * This is the API's own parser: the repository has no server-provisioner parser to share yet (docs/api.md).
 */
import YAML from 'yaml';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Why the payload is refused, or undefined when it is accepted. */
export const userDataProblem = (base64: string, options: { sshCertificateAuthority: boolean }): string | undefined => {
  if (!BASE64.test(base64) || base64.length % 4 !== 0) return 'spec.userData: not valid base64';
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length === 0) return undefined;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    // server-api.md: "without one, gzip payloads are accepted and passed through unmodified" — so without a CA the
    // archive is not decompressed nor inspected (a payload that is only a gzip header was refused as "does not
    // decompress": a check the spec does not make, issue 24 item 3)
    if (options.sshCertificateAuthority) return 'spec.userData: a gzip payload cannot carry the SSH certificate authority (managed cloud-init augmentation needs an uncompressed payload)';
    return undefined;
  }
  const text = bytes.toString('utf8');
  if (Buffer.from(text, 'utf8').compare(bytes) !== 0) return 'spec.userData: the payload is neither gzip nor UTF-8 text';
  return textProblem(text, 0);
};

const textProblem = (text: string, depth: number): string | undefined => {
  const firstLine = (text.split(/\r?\n/, 1)[0] ?? '').trimEnd();
  if (/^#cloud-config\s*$/.test(firstLine)) {
    let parsed: unknown;
    try {
      parsed = YAML.parse(text);
    } catch (error) {
      return `spec.userData: the #cloud-config payload is not valid YAML (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
    }
    if (parsed !== null && parsed !== undefined && (typeof parsed !== 'object' || Array.isArray(parsed))) return 'spec.userData: the #cloud-config payload must be a YAML mapping';
    return undefined;
  }
  if (/^## template:\s*jinja\s*$/i.test(firstLine) && depth === 0) return textProblem(text.slice(text.indexOf('\n') + 1), 1);
  if (firstLine.startsWith('#!') || /^#(include|include-once|cloud-boothook|part-handler)\s*$/.test(firstLine)) return undefined;
  if (/^content-type:\s*multipart\//i.test(firstLine) || /^mime-version:/i.test(firstLine)) {
    return /boundary="?[^";\s]+"?/i.test(text) ? undefined : 'spec.userData: the MIME multipart payload names no boundary';
  }
  return 'spec.userData: cloud-init does not recognize the payload (start it with #cloud-config, #!, #include, or send MIME multipart)';
};
