/**
 * Nova server observations: the fields Regent's decisions read (rebuild gate, settlement, MAC latch), each as a
 * tagged Field. Only `id` and `name` are required; a server without them cannot be re-found and the whole answer
 * is reported unreadable. Unknown extra fields are ignored.
 */
import * as t from 'io-ts';
import type { RequestContext } from '../errors.js';
import { UnreadableResponse } from '../errors.js';
import type { Field } from './field.js';
import { absent, decodeOrThrow, isRecord, mapField, nullable, oneOf, present, readField, stringMap, timestamp, unreadable } from './field.js';

/** Nova's server statuses (Compute API reference, "Server Status"). Anything else is unreadable, never guessed. */
export const NOVA_SERVER_STATUSES = [
  'ACTIVE', 'BUILD', 'DELETED', 'ERROR', 'HARD_REBOOT', 'MIGRATING', 'PASSWORD', 'PAUSED', 'REBOOT', 'REBUILD', 'RESCUE',
  'RESIZE', 'REVERT_RESIZE', 'SHELVED', 'SHELVED_OFFLOADED', 'SHUTOFF', 'SOFT_DELETED', 'SUSPENDED', 'UNKNOWN', 'VERIFY_RESIZE',
] as const;
export type NovaServerStatus = (typeof NOVA_SERVER_STATUSES)[number];
export const novaServerStatus = oneOf('NovaServerStatus', NOVA_SERVER_STATUSES);

/** The server's image: an image id, or boot-from-volume (Nova sends `"image": ""`). */
export type ImageRef = { readonly source: 'image'; readonly id: string } | { readonly source: 'volume' };

export interface ServerAddress {
  readonly network: string;
  readonly addr: string;
  readonly version: number;
  /** `OS-EXT-IPS-MAC:mac_addr`; null when the entry does not carry it. */
  readonly mac: string | null;
  /** `OS-EXT-IPS:type`: fixed or floating; null when not carried. */
  readonly type: string | null;
}

export interface ServerFault {
  readonly code: number | null;
  readonly message: string;
}

export interface ServerObservation {
  readonly id: string;
  readonly name: string;
  readonly status: Field<NovaServerStatus>;
  /** `OS-EXT-STS:task_state`: null at rest; absent when policy hides it (then "at rest" is unknown). */
  readonly taskState: Field<string | null>;
  /** `OS-EXT-STS:vm_state`. */
  readonly vmState: Field<string | null>;
  /** `OS-SRV-USG:launched_at`: null before first boot (and reset by a rebuild). */
  readonly launchedAt: Field<string | null>;
  readonly imageRef: Field<ImageRef>;
  readonly addresses: Field<readonly ServerAddress[]>;
  /** Distinct MACs of all addresses, in order; absent when no entry carries one. */
  readonly macAddresses: Field<readonly string[]>;
  readonly metadata: Field<Readonly<Record<string, string>>>;
  /** Present only on servers in ERROR (and some DELETED). */
  readonly fault: Field<ServerFault>;
  readonly projectId: Field<string>;
  /** When this observation was read (ISO time of the client), if the caller stamped it. */
  readonly observedAt?: string;
}

/** Glance image ids are UUIDs (Glance's API reference: "id … UUID"); Nova answers them in the canonical 8-4-4-4-12 form. */
const GLANCE_IMAGE_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * A present `image.id` that is not a UUID is unreadable, never an image: the rebuild protocol compares it
 * with the target, and a garbage ref that decoded as an image would be armed on one pass and rebuilt on
 * the next (openstack-provider.md: "a fresh read whose image ref is missing or unparseable" yields).
 */
const imageRefCodec = new t.Type<ImageRef, unknown, unknown>(
  'ImageRef',
  (u): u is ImageRef => isRecord(u) && (u.source === 'image' || u.source === 'volume'),
  (u, c) => {
    if (u === '') return t.success({ source: 'volume' });
    if (isRecord(u) && typeof u.id === 'string' && GLANCE_IMAGE_ID.test(u.id)) return t.success({ source: 'image', id: u.id });
    return t.failure(u, c);
  },
  (a) => (a.source === 'volume' ? '' : { id: a.id }),
);

const addressEntry = t.intersection([
  t.type({ addr: t.string, version: t.number }),
  t.partial({ 'OS-EXT-IPS-MAC:mac_addr': t.unknown, 'OS-EXT-IPS:type': t.unknown }),
]);
const addressesCodec = t.record(t.string, t.array(addressEntry));

const faultCodec = t.intersection([t.type({ message: t.string }), t.partial({ code: t.number })]);

const decodeAddresses = (raw: Record<string, unknown>): { addresses: Field<readonly ServerAddress[]>; macs: Field<readonly string[]> } => {
  const parsed = readField(raw, 'addresses', addressesCodec);
  if (parsed.kind !== 'value') return { addresses: parsed, macs: parsed };
  const list: ServerAddress[] = [];
  let withMac = 0;
  let withoutMac = 0;
  let badMac = false;
  for (const [network, entries] of Object.entries(parsed.value)) {
    for (const entry of entries) {
      const macRaw = entry['OS-EXT-IPS-MAC:mac_addr'];
      const typeRaw = entry['OS-EXT-IPS:type'];
      if (macRaw === undefined) withoutMac++;
      else if (typeof macRaw === 'string' && macRaw !== '') withMac++;
      else badMac = true;
      list.push({
        network, addr: entry.addr, version: entry.version,
        mac: typeof macRaw === 'string' && macRaw !== '' ? macRaw.toLowerCase() : null,
        type: typeof typeRaw === 'string' ? typeRaw : null,
      });
    }
  }
  let macs: Field<readonly string[]>;
  if (badMac || (withMac > 0 && withoutMac > 0)) macs = unreadable(raw.addresses);
  else if (withMac === 0 && withoutMac > 0) macs = absent;
  else macs = present([...new Set(list.flatMap((a) => (a.mac !== null ? [a.mac] : [])))]);
  return { addresses: present(list), macs };
};

/** Decode one server object (the inner object of `{"server": …}` or one item of `servers`). */
export const decodeServer = (raw: unknown, observedAt?: string, context: RequestContext = {}): ServerObservation => {
  const head = decodeOrThrow(t.type({ id: t.string, name: t.string }), raw, 'server', context);
  if (!isRecord(raw)) throw new UnreadableResponse('unreadable server', ['(root)'], context);
  const { addresses, macs } = decodeAddresses(raw);
  const fault = readField(raw, 'fault', faultCodec);
  return {
    id: head.id,
    name: head.name,
    status: readField(raw, 'status', novaServerStatus),
    taskState: readField(raw, 'OS-EXT-STS:task_state', nullable(t.string)),
    vmState: readField(raw, 'OS-EXT-STS:vm_state', nullable(t.string)),
    launchedAt: readField(raw, 'OS-SRV-USG:launched_at', nullable(timestamp)),
    imageRef: readField(raw, 'image', imageRefCodec),
    addresses,
    macAddresses: macs,
    metadata: readField(raw, 'metadata', stringMap),
    fault: mapField(fault, (f) => ({ code: f.code ?? null, message: f.message })),
    projectId: readField(raw, 'tenant_id', t.string),
    ...(observedAt !== undefined ? { observedAt } : {}),
  };
};
