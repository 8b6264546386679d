/**
 * Reading an OpenSSH public key line back: the blob's embedded type must be the declared one and its
 * fields complete (ed25519: 32 bytes), and its fingerprint is the SHA256 `ssh-keygen -l` prints. Used by
 * the SSHCertificateAuthority status and by the Server pass before it binds a CA.
 */
import { createHash } from 'node:crypto';

/** The strings of an SSH wire-format blob (uint32 length + bytes each), or undefined when it is cut short. */
const wireStrings = (blob: Buffer): Buffer[] | undefined => {
  const out: Buffer[] = [];
  let at = 0;
  while (at < blob.length) {
    if (at + 4 > blob.length) return undefined;
    const length = blob.readUInt32BE(at);
    if (at + 4 + length > blob.length) return undefined;
    out.push(blob.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return out;
};

/** How many wire strings each key type carries after its name (ed25519: the key; rsa: e, n; ecdsa: curve, point). */
const FIELDS: Record<string, number> = { 'ssh-ed25519': 1, 'ssh-rsa': 2, 'ecdsa-sha2-nistp256': 2, 'ecdsa-sha2-nistp384': 2, 'ecdsa-sha2-nistp521': 2 };

export type PublicKeyReading = { ok: true; type: string; fingerprint: string; comment: string } | { ok: false; why: string };

/** Reads an OpenSSH public key line. */
export const readPublicKey = (line: string): PublicKeyReading => {
  const [type = '', base64 = '', ...comment] = line.trim().split(/\s+/);
  const blob = Buffer.from(base64, 'base64');
  const strings = wireStrings(blob);
  if (!strings || strings.length === 0) return { ok: false, why: 'the key blob is cut short' };
  const declared = strings[0]?.toString('latin1');
  if (declared !== type) return { ok: false, why: `the blob is a ${JSON.stringify(declared)} key, the line says ${type}` };
  if (strings.length !== 1 + (FIELDS[type] ?? -1)) return { ok: false, why: `a ${type} key has ${FIELDS[type]} field(s) after its type, this one ${strings.length - 1}` };
  if (type === 'ssh-ed25519' && strings[1]?.length !== 32) return { ok: false, why: `an ed25519 key is 32 bytes, this one ${strings[1]?.length}` };
  const fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
  return { ok: true, type, fingerprint, comment: comment.join(' ') };
};

