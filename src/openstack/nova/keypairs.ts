/**
 * Nova keypairs. Regent only imports public keys: asking Nova to generate one would put a private key in an HTTP
 * answer, and this layer never handles private key material.
 */
import * as t from 'io-ts';
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import { listAllPages } from '../paging.js';
import { decodeOrThrow, unwrap } from '../decoders/field.js';
import type { Keypair } from '../decoders/compute.js';
import { keypairCodec } from '../decoders/compute.js';

const enc = encodeURIComponent;

// Compute API: List Keypairs — GET /os-keypairs
export const listKeypairs = async (http: HttpSession): Promise<Keypair[]> => {
  const items = await listAllPages(http, { path: '/os-keypairs', collection: 'keypairs', next: 'links' });
  return items.map((item) => decodeOrThrow(t.type({ keypair: keypairCodec }), item.raw, 'keypair', contextOf(http, item.response)).keypair);
};

// Compute API: Show Keypair Details — GET /os-keypairs/{keypair_name}
export const getKeypair = async (http: HttpSession, name: string): Promise<Keypair> => {
  const response = await http.get(`/os-keypairs/${enc(name)}`);
  const context = contextOf(http, response);
  return decodeOrThrow(keypairCodec, unwrap(response.data, 'keypair', context), 'keypair', context);
};

// Compute API: Import Or Create Keypair — POST /os-keypairs (always with public_key: import only)
export const importKeypair = async (http: HttpSession, name: string, publicKey: string, type: 'ssh' | 'x509' = 'ssh'): Promise<Keypair> => {
  const response = await http.post('/os-keypairs', { keypair: { name, public_key: publicKey, type } });
  const context = contextOf(http, response);
  const keypair = decodeOrThrow(keypairCodec, unwrap(response.data, 'keypair', context), 'keypair', context);
  return { name: keypair.name, ...(keypair.public_key !== undefined ? { public_key: keypair.public_key } : {}), ...(keypair.fingerprint !== undefined ? { fingerprint: keypair.fingerprint } : {}), ...(keypair.type !== undefined ? { type: keypair.type } : {}) };
};

// Compute API: Delete Keypair — DELETE /os-keypairs/{keypair_name}
export const deleteKeypair = async (http: HttpSession, name: string): Promise<void> => {
  await http.delete(`/os-keypairs/${enc(name)}`);
};
