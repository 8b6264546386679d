// Identifiers and timestamp formats in the shapes each OpenStack service uses.
import { createHash, randomBytes, randomUUID } from 'node:crypto';

export const uuid = (): string => randomUUID();
/** Keystone-style ids: 32 hex characters, no dashes. */
export const hexId = (): string => randomBytes(16).toString('hex');
export const requestId = (): string => `req-${randomUUID()}`;
/** Deterministic ids for seed data, so a reset simulator keeps the same project ids across runs. */
export const stableHex = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 32);
export const stableUuid = (key: string): string => {
  const h = createHash('sha256').update(key).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
export const sha224 = (s: string): string => createHash('sha224').update(s).digest('hex');
export const md5 = (b: Buffer | string): string => createHash('md5').update(b).digest('hex');
export const sha512 = (b: Buffer | string): string => createHash('sha512').update(b).digest('hex');
export const tokenId = (): string => `gAAAAAB${randomBytes(60).toString('base64url')}`;
export const secret = (): string => randomBytes(32).toString('base64url');

export function macAddress(): string {
  const b = randomBytes(3);
  return `fa:16:3e:${[...b].map((x) => x.toString(16).padStart(2, '0')).join(':')}`;
}

/** `2024-05-01T10:00:00Z` — Nova created/updated, Glance, Neutron, Octavia. */
export const isoSeconds = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`;
/** `2024-05-01T10:00:00.000000` — Nova launched_at, Cinder timestamps (no zone). */
export const isoMicros = (ms: number): string => `${new Date(ms).toISOString().slice(0, 23)}000`;
/** `2024-05-01T10:00:00.000000Z` — Keystone expires_at / issued_at. */
export const isoMicrosZ = (ms: number): string => `${isoMicros(ms)}Z`;

/** Parses the ISO-8601 forms clients send in filters (changes-since etc.); NaN when unparseable. */
export function parseIso(s: string): number {
  const withZone = /[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`;
  return Date.parse(withZone);
}
