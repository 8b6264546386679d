/**
 * The image inventory of a Region (openstack-provider.md: "Image handling is a first-class contract surface";
 * issue 16, Images). Reference: docs/images.md.
 *
 * A pure core and an imperative shell:
 * - `classifyImage` (pure, plus Node's crypto for the signature): one Glance image → an exported neutral
 *   image, or an exclusion whose reasons name each property and what was wrong with it. The property table,
 *   schema and translation are image-properties.ts; the signed document is image-signature.ts.
 * - `ImageInventory` (shell): image query, get, create, delete and snapshot, all through the refresh-ahead
 *   ImageCache (image-cache.ts). Creates, deletes and snapshots update the cache as soon as Glance (or Nova)
 *   accepted them.
 *
 * Rules:
 * - Properties are validated against IMAGE_PROPERTY_SCHEMA (ajv 8); an invalid image is excluded, every
 *   problem named (`os_distro is missing (required)`), never exported with guessed metadata.
 * - Architecture: an explicit Glance `architecture` wins, else `defaultArchitecture`, else x86_64.
 * - With `signingKeyPem`, a public (or community) image is exported only when `regent.dev:signature` verifies
 *   over its canonical document; a missing or wrong signature excludes it with the reason. Non-public images
 *   are scoped to their owners and are not checked. Without a key nothing is checked and `signed` is false.
 * - With `cache: false`, query/get/create/delete/snapshot throw ImagesUnavailable (the spec's caveat: "when
 *   caching is disabled, large parts of the higher image contract are effectively unavailable rather than
 *   merely slower") — a caller learns it at once instead of paying Glance's latency on every call.
 * - Glance failures surface as the typed errors of src/openstack/errors.ts; a failed background refresh
 *   keeps the last good snapshot (image-cache.ts invariant 3). Deleting an image Glance no longer has is
 *   success (already absent).
 *
 * Configuration is this module's own input (`ImageInventoryConfig`); region-images.ts reads it from the
 * Region's `spec.openstack` (defaultArchitecture, images.signingKey, images.cache), docs/images.md.
 */
import type { KeyObject } from 'node:crypto';
import type { Logger } from '../../log/logger.js';
import type { GlanceClient, CreateImageRequest } from '../../openstack/glance.js';
import type { ImageObservation } from '../../openstack/decoders/image.js';
import { valueOr } from '../../openstack/decoders/field.js';
import { NotFound } from '../../openstack/errors.js';
import { ImageCache, type ImageCacheStatus } from './image-cache.js';
import { isPublic, translateImage, validateImageProperties, ARCHITECTURES, type Architecture, type GlanceImageLike, type NeutralImage, type Virtualization } from './image-properties.js';
import { loadSigningKey, verifyImageSignature } from './image-signature.js';

export interface ImageCacheConfig {
  /** A read of a snapshot at least this old starts a background refresh (default 60 s). */
  readonly refreshAfterMs?: number;
  /** The staleness bound: no read is served from an older snapshot while Glance answers (default 300 s). */
  readonly staleAfterMs?: number;
}

export interface ImageInventoryConfig {
  /** The Region's `openstack.defaultArchitecture`: used when an image names none. */
  readonly defaultArchitecture?: Architecture;
  /** A PEM public key (Ed25519, Ed448, ECDSA or RSA): public images must be signed by it. */
  readonly signingKeyPem?: string;
  /** The refresh-ahead cache; `false` disables it, and with it the image operations (ImagesUnavailable). */
  readonly cache?: ImageCacheConfig | false;
}

/** Why an image is not exported: each reason names the property at fault (or the signature). */
export interface ExcludedImage {
  readonly id: string;
  readonly name: string;
  readonly reasons: readonly string[];
}

export type ImageEntry =
  | { readonly id: string; readonly exported: true; readonly image: NeutralImage }
  | { readonly id: string; readonly exported: false; readonly excluded: ExcludedImage };

/** ImageObservation (tagged fields) → the plain shape translation reads; an unreadable field reads as absent. */
export const glanceImageOf = (o: ImageObservation): GlanceImageLike => ({
  id: o.id,
  name: o.name,
  status: valueOr(o.status, 'unknown'),
  visibility: valueOr(o.visibility, 'private'),
  owner: valueOr(o.owner, null),
  minDisk: valueOr(o.minDisk, 0),
  minRam: valueOr(o.minRam, 0),
  tags: valueOr(o.tags, []),
  properties: o.properties,
});

export interface ClassifyOptions {
  readonly defaultArchitecture?: Architecture;
  /** loadSigningKey(config.signingKeyPem), when configured. */
  readonly signingKey?: KeyObject;
}

/** One Glance image → exported, or excluded with every reason. Pure (crypto verification aside). */
export const classifyImage = (image: GlanceImageLike, options: ClassifyOptions): ImageEntry => {
  const reasons = validateImageProperties(image.properties).map((p) => `${p.property} ${p.message}`);
  let signed = false;
  if (options.signingKey !== undefined && isPublic(image)) {
    const verdict = verifyImageSignature(image, options.signingKey);
    if (verdict.ok) signed = true;
    else reasons.push(verdict.reason);
  }
  if (reasons.length > 0) return { id: image.id, exported: false, excluded: { id: image.id, name: image.name ?? '', reasons } };
  return {
    id: image.id,
    exported: true,
    image: translateImage(image, { signed, ...(options.defaultArchitecture !== undefined ? { defaultArchitecture: options.defaultArchitecture } : {}) }),
  };
};

/** Caching is disabled, so this image operation is unavailable (by design, not a transient failure). */
export class ImagesUnavailable extends Error {
  override readonly name = 'ImagesUnavailable';
  readonly reason = 'image-cache-disabled' as const;
  constructor(readonly operation: ImageOperation) {
    super(`image ${operation} is unavailable: the image cache is disabled for this Region (enable it to use images)`);
  }
}

/** Glance has the image, but it is not exported; `reasons` say why. */
export class ImageExcluded extends Error {
  override readonly name = 'ImageExcluded';
  readonly reason = 'image-excluded' as const;
  constructor(readonly excluded: ExcludedImage) {
    super(`image ${excluded.id}${excluded.name ? ` (${excluded.name})` : ''} is not exported: ${excluded.reasons.join('; ')}`);
  }
}

export class InvalidImageInventoryConfig extends Error {
  override readonly name = 'InvalidImageInventoryConfig';
}

export type ImageOperation = 'query' | 'get' | 'create' | 'delete' | 'snapshot';

export interface ImageQuery {
  readonly architecture?: Architecture;
  /** Images usable for this virtualization: an image marked `any` matches both. */
  readonly virtualization?: Exclude<Virtualization, 'any'>;
  readonly distro?: string;
  /** Every one of these tags. */
  readonly tags?: readonly string[];
  /** Only images this organization (and project) may use: public ones and those scoped to it. */
  readonly usableBy?: { readonly organizationId?: string; readonly projectId?: string };
  /** Default true: only Glance-active (bootable) images. */
  readonly activeOnly?: boolean;
}

export interface ImageQueryResult {
  readonly images: readonly NeutralImage[];
  readonly excluded: readonly ExcludedImage[];
}

/** Does the image match the query? Pure. */
export const matchesQuery = (image: NeutralImage, q: ImageQuery): boolean => {
  if ((q.activeOnly ?? true) && image.status !== 'active') return false;
  if (q.architecture !== undefined && image.architecture !== q.architecture) return false;
  if (q.virtualization !== undefined && image.virtualization !== 'any' && image.virtualization !== q.virtualization) return false;
  if (q.distro !== undefined && image.os.distro !== q.distro) return false;
  if (q.tags !== undefined && !q.tags.every((t) => image.tags.includes(t))) return false;
  if (q.usableBy !== undefined) {
    const o = image.ownership;
    if (o.scope === 'organization') {
      if (o.organizationId !== q.usableBy.organizationId) return false;
      if (o.projectId !== undefined && o.projectId !== q.usableBy.projectId) return false;
    } else if (o.scope === 'project') {
      if (o.projectId !== q.usableBy.projectId) return false;
    }
  }
  return true;
};

/** What snapshot needs of Nova (OpenStackSession.nova). */
export interface SnapshotCompute {
  createServerImage(serverId: string, name: string, metadata?: Readonly<Record<string, string>>): Promise<{ imageId: string }>;
}

export interface ImageInventoryDependencies {
  readonly glance: Pick<GlanceClient, 'listImages' | 'getImage' | 'createImage' | 'deleteImage'>;
  readonly nova?: SnapshotCompute;
  readonly config?: ImageInventoryConfig;
  /** The cache's clock (ms); the simulator's manual clock in tests. */
  readonly now?: () => number;
  readonly logger?: Logger;
  /** Glance page size of the listing (default 1000, Glance's usual api_limit_max). */
  readonly pageSize?: number;
}

export class ImageInventory {
  private readonly cache: ImageCache<ImageEntry> | undefined;
  private readonly classify: ClassifyOptions;

  constructor(private readonly deps: ImageInventoryDependencies) {
    const config = deps.config ?? {};
    if (config.defaultArchitecture !== undefined && !(ARCHITECTURES as readonly string[]).includes(config.defaultArchitecture)) {
      throw new InvalidImageInventoryConfig(`defaultArchitecture ${String(config.defaultArchitecture)} is not one of ${ARCHITECTURES.join(', ')}`);
    }
    this.classify = {
      ...(config.defaultArchitecture !== undefined ? { defaultArchitecture: config.defaultArchitecture } : {}),
      ...(config.signingKeyPem !== undefined ? { signingKey: loadSigningKey(config.signingKeyPem) } : {}),
    };
    if (config.cache !== false) {
      const c = config.cache ?? {};
      this.cache = new ImageCache<ImageEntry>({
        load: async () => (await deps.glance.listImages({}, { pageSize: deps.pageSize ?? 1000 })).map((o) => this.entryOf(o)),
        fetchOne: async (id) => this.entryOf(await deps.glance.getImage(id)),
        ...(c.refreshAfterMs !== undefined ? { refreshAfterMs: c.refreshAfterMs } : {}),
        ...(c.staleAfterMs !== undefined ? { staleAfterMs: c.staleAfterMs } : {}),
        ...(deps.now !== undefined ? { now: deps.now } : {}),
        ...(deps.logger !== undefined ? { logger: deps.logger } : {}),
      });
    }
  }

  /** The exported images matching the query, and every excluded image with its reasons. */
  async query(q: ImageQuery = {}): Promise<ImageQueryResult> {
    const entries = await this.through('query').list();
    const images: NeutralImage[] = [];
    const excluded: ExcludedImage[] = [];
    for (const e of entries) {
      if (e.exported) {
        if (matchesQuery(e.image, q)) images.push(e.image);
      } else excluded.push(e.excluded);
    }
    const byName = (a: { name: string; id: string }, b: { name: string; id: string }) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id);
    return { images: images.sort(byName), excluded: excluded.sort(byName) };
  }

  /** One exported image; NotFound when Glance has none, ImageExcluded when it is not exported. */
  async get(id: string): Promise<NeutralImage> {
    const entry = await this.through('get').get(id);
    if (!entry.exported) throw new ImageExcluded(entry.excluded);
    return entry.image;
  }

  /** Create a Glance image (queued until its data is uploaded); the cache holds it from now on. */
  async create(req: CreateImageRequest): Promise<ImageEntry> {
    const cache = this.through('create');
    const entry = this.entryOf(await this.deps.glance.createImage(req));
    cache.upsert(entry);
    return entry;
  }

  /** Delete a Glance image; an image Glance no longer has is already deleted (success). */
  async delete(id: string): Promise<void> {
    const cache = this.through('delete');
    try {
      await this.deps.glance.deleteImage(id);
    } catch (error) {
      if (!(error instanceof NotFound)) throw error;
    }
    cache.remove(id);
  }

  /** Snapshot a server (Nova createImage) and hold the new image (read back from Glance) in the cache. */
  async snapshot(serverId: string, name: string, properties?: Readonly<Record<string, string>>): Promise<ImageEntry> {
    const cache = this.through('snapshot');
    if (this.deps.nova === undefined) throw new InvalidImageInventoryConfig('image snapshot needs a compute client');
    const { imageId } = await this.deps.nova.createServerImage(serverId, name, properties);
    const entry = this.entryOf(await this.deps.glance.getImage(imageId));
    cache.upsert(entry);
    return entry;
  }

  /** The cache's state (undefined when disabled). */
  cacheStatus(): ImageCacheStatus | undefined {
    return this.cache?.status();
  }

  /** Refresh ahead on a timer (see ImageCache.keepWarm); a no-op stop when caching is disabled. */
  keepWarm(): () => void {
    return this.cache?.keepWarm() ?? (() => undefined);
  }

  /** Refresh now: the control plane's warm-up, and tests. */
  refresh(): Promise<void> {
    return this.through('query').refresh();
  }

  private through(operation: ImageOperation): ImageCache<ImageEntry> {
    if (this.cache === undefined) throw new ImagesUnavailable(operation);
    return this.cache;
  }

  private entryOf(o: ImageObservation): ImageEntry {
    return classifyImage(glanceImageOf(o), this.classify);
  }
}
