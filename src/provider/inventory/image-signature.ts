/**
 * Signature verification of public images (openstack-provider.md: "public images can additionally be
 * signature-verified"). Pure apart from Node's crypto; no I/O.
 *
 * Why: a public image is offered to every tenant of the Region, and its properties say what a user gets (OS,
 * packages, GPU driver). Anyone with Glance rights to publish or edit a public image could otherwise change
 * what Regent advertises. With a signing key configured, a public image is exported only when the operator's
 * key signed exactly the id, name, tags and properties Regent reads.
 *
 * The signed document (version 1), `canonicalImageDocument`: UTF-8 JSON, no whitespace, keys sorted:
 *   {"id":"<image id>","name":"<name>","properties":{<every property of the IMAGE_PROPERTIES table the image
 *    carries (packages by prefix), except regent.dev:signature, key-sorted>},"tags":[<sorted>],"v":1}
 * The signature is base64 in the `regent.dev:signature` property:
 * - Ed25519 / Ed448 keys sign the document's bytes directly (they hash internally);
 * - ECDSA and RSA keys sign its SHA-256 (`crypto.sign('sha256', document, key)`; ECDSA in DER form).
 * `signImage` produces exactly that, for operators' tooling and tests.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { IMAGE_PROPERTIES, PROP, type GlanceImageLike } from './image-properties.js';

export const SIGNATURE_DOCUMENT_VERSION = 1;

const signedKey = (key: string): boolean => key !== PROP.signature && (IMAGE_PROPERTIES.includes(key) || key.startsWith(PROP.packagePrefix));

/** The exact bytes that are signed (see the header). Pure. */
export const canonicalImageDocument = (image: Pick<GlanceImageLike, 'id' | 'name' | 'tags' | 'properties'>): Buffer => {
  const properties: Record<string, string> = {};
  for (const key of Object.keys(image.properties).filter(signedKey).sort()) {
    const value = image.properties[key];
    properties[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  // JSON.stringify keeps insertion order: build every object in sorted key order
  return Buffer.from(JSON.stringify({ id: image.id, name: image.name ?? '', properties, tags: [...image.tags].sort(), v: SIGNATURE_DOCUMENT_VERSION }), 'utf8');
};

/** null for the EdDSA keys (they take the message), sha256 for ECDSA/RSA. */
const digestFor = (key: KeyObject): string | null => (key.asymmetricKeyType === 'ed25519' || key.asymmetricKeyType === 'ed448' ? null : 'sha256');

/** The configured public key; throws InvalidSigningKey when the PEM is not a usable public key. */
export const loadSigningKey = (pem: string): KeyObject => {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw new InvalidSigningKey(`the image signing key is not a PEM public key: ${(error as Error).message}`);
  }
  if (!['ed25519', 'ed448', 'ec', 'rsa', 'rsa-pss'].includes(key.asymmetricKeyType ?? '')) throw new InvalidSigningKey(`the image signing key's type ${key.asymmetricKeyType ?? '?'} is not supported (Ed25519, Ed448, ECDSA or RSA)`);
  return key;
};

export class InvalidSigningKey extends Error {
  override readonly name = 'InvalidSigningKey';
  readonly reason = 'invalid-signing-key' as const;
}

export type SignatureVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Does `regent.dev:signature` verify against the key over this image's canonical document? */
export const verifyImageSignature = (image: Pick<GlanceImageLike, 'id' | 'name' | 'tags' | 'properties'>, key: KeyObject): SignatureVerdict => {
  const signature = image.properties[PROP.signature];
  if (typeof signature !== 'string' || signature === '') return { ok: false, reason: `${PROP.signature} is missing: a public image must be signed by the Region's signing key` };
  const bytes = Buffer.from(signature, 'base64');
  let good: boolean;
  try {
    good = verify(digestFor(key), canonicalImageDocument(image), key, bytes);
  } catch {
    good = false;
  }
  return good ? { ok: true } : { ok: false, reason: `${PROP.signature} does not verify against the Region's signing key (the id, name, tags or a property changed since it was signed, or another key signed it)` };
};

/** The `regent.dev:signature` value for an image, signed with a private key (PEM). */
export const signImage = (image: Pick<GlanceImageLike, 'id' | 'name' | 'tags' | 'properties'>, privateKeyPem: string): string => {
  const key = createPrivateKey(privateKeyPem);
  return sign(digestFor(key), canonicalImageDocument(image), key).toString('base64');
};
