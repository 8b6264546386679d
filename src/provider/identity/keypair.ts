/**
 * The identity's SSH key pair (machines/identity-lifecycle.ts I7; server-api.md: "GET …/sshkey only returns
 * the identity private key for servers where Region requested identityKeypair SSH injection"): an ed25519
 * key generated here, its public half imported into Nova as the identity's user under a deterministic
 * name, its private half kept only in the identity's Secret, in the openssh-key-v1 format an OpenSSH
 * client reads (`ssh -i`, `ssh-keygen -y -f`). Events carry the keypair's name and the public key's
 * SHA256 fingerprint (as `ssh-keygen -l` prints it), never the private key.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { ResourceSource } from '../../kube/port.js';
import type { Identity } from '../../resources/identity.js';
import { resolveSshInjection, type ServerSpec } from '../../resources/server.js';
import { SECRET_KEYS } from './names.js';
import type { Engine } from '../../engine/engine.js';
import { identityLifecycleDefinition, identityLifecycleStream } from '../../../machines/identity-lifecycle.js';

/** The identity's Nova keypair, owned by the identity's user (names are unique per user). */
export const identityKeypairName = (identityUid: string): string => `regent-${identityUid}`;

export interface SshKeyPair {
  /** `ssh-ed25519 <base64> <comment>`: what Nova imports and the guest's authorized_keys gets. */
  readonly publicKey: string;
  /** `-----BEGIN OPENSSH PRIVATE KEY-----` … (openssh-key-v1, unencrypted). */
  readonly privateKey: string;
  /** `SHA256:<base64>` of the public key blob. */
  readonly fingerprint: string;
}

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const sshString = (value: Buffer | string): Buffer => {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([u32(bytes.length), bytes]);
};

/** The public key blob of an OpenSSH public key line (`<type> <base64> [comment]`); undefined when it is not one. */
export const publicKeyBlob = (line: string): Buffer | undefined => {
  const [type, data] = line.trim().split(/\s+/);
  if (!type || !data || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) return undefined;
  const blob = Buffer.from(data, 'base64');
  // the blob starts with its own type name
  if (blob.length < 4) return undefined;
  const length = blob.readUInt32BE(0);
  if (blob.subarray(4, 4 + length).toString() !== type) return undefined;
  return blob;
};

/** `SHA256:…` as `ssh-keygen -l` prints it (base64 without padding). */
export const sshFingerprint = (publicKeyLine: string): string => {
  const blob = publicKeyBlob(publicKeyLine);
  if (!blob) throw new Error('not an OpenSSH public key');
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
};

/** Two public key lines name the same key (type and blob; comments do not matter). */
export const samePublicKey = (a: string, b: string): boolean => {
  const x = publicKeyBlob(a);
  const y = publicKeyBlob(b);
  return x !== undefined && y !== undefined && x.equals(y);
};

/** A new ed25519 key pair as OpenSSH writes one (`ssh-keygen -t ed25519 -N '' -C comment`). */
export const generateSshKeyPair = (comment: string): SshKeyPair => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const seed = Buffer.from(String(jwk.d), 'base64url');
  const pub = Buffer.from(String(jwk.x), 'base64url');
  if (seed.length !== 32 || pub.length !== 32 || !Buffer.from(String(publicKey.export({ format: 'jwk' }).x), 'base64url').equals(pub)) throw new Error('unexpected ed25519 key lengths');
  const blob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);
  const check = randomBytes(4);
  let section = Buffer.concat([check, check, sshString('ssh-ed25519'), sshString(pub), sshString(Buffer.concat([seed, pub])), sshString(comment)]);
  // padded with 1, 2, 3, … to the cipher's block size (8 for "none")
  const pad: number[] = [];
  for (let i = 1; (section.length + pad.length) % 8 !== 0; i++) pad.push(i);
  section = Buffer.concat([section, Buffer.from(pad)]);
  const body = Buffer.concat([Buffer.from('openssh-key-v1\0'), sshString('none'), sshString('none'), sshString(''), u32(1), sshString(blob), sshString(section)]);
  const base64 = body.toString('base64').replace(/(.{70})/g, '$1\n').replace(/\n$/, '');
  seed.fill(0);
  const publicLine = `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
  return { publicKey: publicLine, privateKey: `-----BEGIN OPENSSH PRIVATE KEY-----\n${base64}\n-----END OPENSSH PRIVATE KEY-----\n`, fingerprint: sshFingerprint(publicLine) };
};

/** The key pair the identity's Secret holds (undefined when it holds no private key). */
export const storedKeyPair = (data: Readonly<Record<string, string>> | undefined): { privateKey: string; publicKey: string } | undefined => {
  const privateKey = data?.[SECRET_KEYS.sshPrivateKey];
  const publicKey = data?.[SECRET_KEYS.sshPublicKey];
  return privateKey && publicKey ? { privateKey, publicKey } : undefined;
};

/**
 * The key name a Server's create sends Nova (server-api.md: "Nova receives the identity key name only for
 * identityKeypair"): the identity's keypair name when the server resolves to identityKeypair, is not pinned
 * (a pinned create goes with the region credentials, whose user does not own the keypair; the API refuses
 * the combination) and its Identity has imported its keypair (the identity stream records it: I7, decided
 * before the credential Servers are created with). Nothing for ca and none, and nothing for an identity
 * without a keypair (a Region without a managed domain: the identity has no user of its own).
 */
export const identityKeyNameFor = async (deps: { source: ResourceSource; engine: Pick<Engine, 'load'> }, namespace: string, spec: ServerSpec): Promise<{ keyName?: string }> => {
  if (resolveSshInjection(spec) !== 'identityKeypair' || spec.infrastructureRef !== undefined) return {};
  const network = await deps.source.get('Network', namespace, spec.networkID);
  if (!network) return {};
  const identity = (await deps.source.get('Identity', namespace, network.spec.identityRef.name)) as Identity | undefined;
  if (!identity) return {};
  const keypair = (await deps.engine.load(identityLifecycleDefinition, identityLifecycleStream(identity.metadata.uid))).context.keypair;
  return keypair ? { keyName: keypair.name } : {};
};
