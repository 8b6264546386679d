/**
 * Server provider: deterministic lookup of Regent's Nova servers, image and flavor resolution, the
 * server metadata Regent writes, and the create/delete effect handlers.
 *
 * Lookup: Nova's name filter is a regex, so the exact-name helper post-filters; a server with the
 * right name but without Regent's ownership metadata is someone else's and is never adopted.
 */
import { augmentUserDataWithCa } from './ssh-ca-user-data.js';
import type { EffectHandler } from '../engine/engine.js';
import type { OpenStackSession } from '../openstack/session.js';
import { ConsistencyError, NotFound } from '../openstack/errors.js';
import { DesiredUnresolvable, ForeignResource } from './errors.js';
import type { Observed } from '../../machines/lifecycle.js';
import { isRefusal, refusal } from './effect-results.js';
import { LINKAGE_KEYS, tagMetadataKey } from '../../machines/volume-metadata.js';

/**
 * Metadata key tying a Nova server to the Regent resource that owns it. Nova accepts metadata keys
 * matching ^[a-zA-Z0-9-_:. ]{1,255}$ only (a '/' is refused with 400, as the real-cloud suite showed).
 */
export const OWNER_KEY = 'regent.dev:uid';

/**
 * The server's own linkage key, named as the Volume's `regent.dev:volume-id` (machines/volume-metadata.ts): the
 * Server resource's uid, as Regent knows it (never the Nova id, which the guest reads as `uuid` anyway).
 */
export const SERVER_ID_KEY = 'regent.dev:server-id';

/** Nova's limit on a metadata key and on a value (the create's JSON schema: pattern {1,255}, maxLength 255). */
export const NOVA_METADATA_MAX_LENGTH = 255;

/**
 * The Regent ids a server's metadata links it to (Regent's ids, not OpenStack's, as for Volumes). The
 * Identity-derived ones are absent when the server's Network names no Identity resource (the process's own
 * cloud standing in for it): an empty value would claim a linkage that does not exist.
 */
export interface ServerLinkage {
  /** The Identity resource's uid. */
  identityID?: string;
  /** The Identity's spec.organizationID. */
  organizationID?: string;
  /** The Identity's spec.projectID. */
  projectID?: string;
  /** The Identity's spec.regionRef.name. */
  regionID?: string;
  /** The Network resource's uid. */
  networkID: string;
}

/**
 * The metadata a Server's Nova server is created with (openstack-provider.md: "server metadata is written
 * deliberately as both a control-plane lookup aid and an in-guest linkage surface exposed through the metadata
 * service"; "namespaced system linkage keys are written last so user input cannot override identity,
 * organization, project, region, network, or [resource] IDs"). The Volume's convention exactly
 * (machines/volume-metadata.ts, M1–M3): user tags first as `regent.dev:<tag>`, then the linkage keys
 * `regent.dev:{identity,organization,project,region,network,server}-id` and the ownership key `regent.dev:uid`
 * (the lookup aid observeServer keys on) — written last, so a tag naming one is overwritten by Regent's value,
 * never the reverse. No legacy camelCase keys: Regent never wrote any; `regent.dev:uid` is the key older Regent
 * servers carry, and it stays as it was.
 *
 * Values fit Nova's limits by construction (uids are 36 characters, organization and project DNS labels at most
 * 63, a Region's name at most 253); a tag longer than Nova accepts is Nova's 400 to report, not Regent's to trim.
 * Pure: the pass puts it on the create request, so the exact metadata sent is part of the recorded decision.
 */
export const serverMetadata = (input: { serverUid: string; linkage: ServerLinkage; tags?: Readonly<Record<string, string>> }): Record<string, string> => {
  const metadata: Record<string, string> = {};
  // sorted, so the recorded decision does not depend on the order the tags were read in
  for (const [tag, value] of Object.entries(input.tags ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) metadata[tagMetadataKey(tag)] = value;
  // written last: user input cannot override them (a tag naming an absent linkage key is dropped too)
  const linkage: Array<[string, string | undefined]> = [
    [LINKAGE_KEYS.identity, input.linkage.identityID],
    [LINKAGE_KEYS.organization, input.linkage.organizationID],
    [LINKAGE_KEYS.project, input.linkage.projectID],
    [LINKAGE_KEYS.region, input.linkage.regionID],
    [LINKAGE_KEYS.network, input.linkage.networkID],
    [SERVER_ID_KEY, input.serverUid],
    [OWNER_KEY, input.serverUid],
  ];
  for (const [key, value] of linkage) {
    delete metadata[key];
    if (value !== undefined && value !== '') metadata[key] = value;
  }
  return metadata;
};

export interface ServerCreateRequest {
  name: string;
  imageId: string;
  flavorId: string;
  networkId: string;
  ownerUid: string;
  /** A pinned create's destination (spec.infrastructureRef.host): sent as Nova's `host`, with the bound credentials. */
  host?: string;
  /** The identity's Nova keypair name: only for identityKeypair SSH injection (src/provider/identity/keypair.ts). */
  keyName?: string;
  /** The SSH certificate authority a `ca` server binds (its public key, not a secret): merged into the user data (ssh-ca-user-data.ts). */
  sshCertificateAuthority?: { name: string; publicKey: string };
  /** The server metadata (serverMetadata): linkage and ownership. Absent on requests recorded before issue 24. */
  metadata?: Record<string, string>;
  [key: string]: unknown;
}

/** Longest fault text carried into an observation (Nova keeps at most 255 characters of it anyway). */
const MAX_FAULT = 300;
const capped = (text: string): string => (text.length > MAX_FAULT ? `${text.slice(0, MAX_FAULT)}…` : text);

/**
 * An exact-name lookup's "nothing or two" as the user-safe cause the lifecycle records (L9); any other
 * error (5xx, timeout, an unreadable answer) is left to the pass's backoff.
 */
const unresolvable = (error: unknown, what: 'Image' | 'Flavor', service: string, name: string): unknown => {
  if (error instanceof NotFound && error.lookupName !== undefined) {
    return new DesiredUnresolvable(`${what}NotFound`, `no ${service} ${what.toLowerCase()} is named exactly '${name}'`);
  }
  if (error instanceof ConsistencyError) {
    const ids = error.ids.length > 5 ? `${error.ids.slice(0, 5).join(', ')}, …` : error.ids.join(', ');
    return new DesiredUnresolvable(`${what}Ambiguous`, `${error.ids.length} ${service} ${what.toLowerCase()}s are named exactly '${name}' (ids ${ids}); name one by id`);
  }
  return error;
};

/** The spec's image as a Glance id; DesiredUnresolvable when its name matches no image, or several. */
export const resolveImageId = async (os: Pick<OpenStackSession, 'glance'>, ref: { id?: string; name?: string }): Promise<string> => {
  if (ref.id !== undefined) return ref.id;
  const name = ref.name ?? '';
  try {
    return (await os.glance.findImageByName(name)).id;
  } catch (error) {
    throw unresolvable(error, 'Image', 'Glance', name);
  }
};

/**
 * Before a create, an image named by id must exist too: without this, a missing id went to Nova and came back a
 * 400 (CreateRejected, the server failed), while the same missing image named by name was ImageNotFound (L9,
 * recorded, retried) — one fault, two reasons (issue 24, item 5). Glance answers for the project's token, so an
 * image the project cannot see is not found either, as Nova would find it.
 */
export const confirmImageId = async (os: Pick<OpenStackSession, 'glance'>, imageId: string): Promise<string> => {
  try {
    return (await os.glance.getImage(imageId)).id;
  } catch (error) {
    if (error instanceof NotFound) throw new DesiredUnresolvable('ImageNotFound', `no Glance image has the id '${imageId}' (or the project cannot see it)`);
    throw error;
  }
};

/** Before a create, a flavor named by id must exist too, for the same reason (FlavorNotFound either way). */
export const confirmFlavorId = async (os: Pick<OpenStackSession, 'nova'>, flavorId: string): Promise<string> => {
  try {
    return (await os.nova.getFlavor(flavorId)).id;
  } catch (error) {
    if (error instanceof NotFound) throw new DesiredUnresolvable('FlavorNotFound', `no Nova flavor has the id '${flavorId}' (or the project cannot use it)`);
    throw error;
  }
};

/** The spec's flavor as a Nova id; DesiredUnresolvable when its name matches no flavor, or several. */
export const resolveFlavorId = async (os: Pick<OpenStackSession, 'nova'>, ref: { id?: string; name?: string }): Promise<string> => {
  if (ref.id !== undefined) return ref.id;
  const name = ref.name ?? '';
  try {
    return (await os.nova.findFlavorByName(name)).id;
  } catch (error) {
    throw unresolvable(error, 'Flavor', 'Nova', name);
  }
};

/** The fresh exact-name observation a lifecycle pass decides on. */
export const observeServer = async (os: Pick<OpenStackSession, 'nova'>, name: string, ownerUid: string): Promise<Observed> => {
  const server = await os.nova.lookupServerByName(name);
  if (!server) return { kind: 'absent' };
  const owner = server.metadata.kind === 'value' ? server.metadata.value[OWNER_KEY] : undefined;
  if (owner !== ownerUid) {
    throw new ForeignResource(`a Nova server named ${name} exists but is not owned by this resource (${OWNER_KEY}=${owner ?? 'unset'})`);
  }
  return {
    kind: 'present',
    id: server.id,
    ...(server.status.kind === 'value' ? { status: server.status.value } : {}),
    // read fresh on this GET: only a launched_at that is present and null means "never booted"
    ...(server.launchedAt.kind === 'value' ? { launched: server.launchedAt.value !== null } : {}),
    // Nova's own words for an ERROR (shown to the project by Nova too); L6 carries the last one to status
    ...(server.fault.kind === 'value' && server.fault.value.message !== '' ? { fault: capped(server.fault.value.message) } : {}),
  };
};

/**
 * nova.createServer: user data is looked up at execution time so it never enters an event. A pinned create
 * (`desired.host`) is sent with `pinned()` — the region credentials bound to the identity's project — so
 * Nova's policy decides the requested destination on the region user's roles there; without it, refused.
 * `desired.keyName` (identityKeypair servers) is sent as Nova's key_name; the pinned path never sends one.
 */
export const createServerHandler =
  (os: Pick<OpenStackSession, 'nova'>, userDataFor: (ownerUid: string) => string | undefined, pinned?: () => Promise<Pick<OpenStackSession, 'nova'>>): EffectHandler =>
  async (effect, context) => {
    const desired = effect.desired as ServerCreateRequest;
    try {
      const userData = userDataFor(desired.ownerUid);
      const host = typeof desired.host === 'string' ? desired.host : undefined;
      if (host !== undefined && !pinned) throw new Error('a pinned create (host) without bound region credentials');
      const nova = host !== undefined && pinned ? (await pinned()).nova : os.nova;
      const created = await nova.createServer({
        name: desired.name,
        imageRef: desired.imageId,
        flavorRef: desired.flavorId,
        networks: [{ uuid: desired.networkId }],
        // the recorded metadata, the ownership key last whatever it holds: the lookup must find the server again
        metadata: { ...(isStringRecord(desired.metadata) ? desired.metadata : {}), [OWNER_KEY]: desired.ownerUid },
        ...novaUserData(userData, desired.sshCertificateAuthority),
        ...(host !== undefined ? { host } : {}),
        // identityKeypair servers only (the request names the identity's keypair); never ca, none or a pinned create
        ...(typeof desired.keyName === 'string' && host === undefined ? { keyName: desired.keyName } : {}),
        // spec.securityGroups: the groups' Neutron ids (src/controllers/security-group/for-server.ts); absent: Nova's default
        ...(Array.isArray(desired.securityGroupIds) ? { securityGroups: desired.securityGroupIds as string[] } : {}),
      });
      context.logger.info('nova accepted the server create', { name: desired.name, serverId: created.id, requestId: created.requestId, ...(host !== undefined ? { host } : {}) });
      return { type: 'created', id: created.id };
    } catch (error) {
      if (isRefusal(error)) return refusal('createRejected', error);
      throw error;
    }
  };

const isStringRecord = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

/** The user data Nova receives: the stored payload, with a `ca` server's CA merged in (a MIME multipart). */
const novaUserData = (base64: string | undefined, ca: ServerCreateRequest['sshCertificateAuthority']): { userData?: string } => {
  if (ca) return { userData: augmentUserDataWithCa(base64 === undefined ? undefined : Buffer.from(base64, 'base64'), ca.publicKey) };
  return base64 === undefined ? {} : { userData: Buffer.from(base64, 'base64').toString('utf8') };
};

/** nova.deleteServer: a server already gone (404) is success. */
export const deleteServerHandler = (os: Pick<OpenStackSession, 'nova'>): EffectHandler => async (effect, context) => {
  try {
    await os.nova.deleteServer(String(effect.id));
    context.logger.info('nova accepted the server delete', { serverId: effect.id });
    return { type: 'deleteAccepted' };
  } catch (error) {
    if (error instanceof NotFound) return { type: 'deleteAccepted' };
    if (isRefusal(error)) return refusal('deleteRejected', error);
    throw error;
  }
};
