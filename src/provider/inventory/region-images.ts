/**
 * One ImageInventory (and so one warm image cache) per Region connection: what the control plane holds so
 * the cache survives every pass and call, and is rebuilt — cold, with the new configuration — only when the
 * Region's generation or its credentials Secret's version moves (the key RegionConnections uses, as
 * VolumeClassInventory does). A Region that is gone gives undefined; `forget` drops its inventory.
 *
 * The Region → ImageInventoryConfig mapping is `regionImageConfig` (a parameter, `configOf`, for tests).
 */
import type { Logger } from '../../log/logger.js';
import type { Region } from '../../resources/region.js';
import type { RegionConnection } from '../regions/connections.js';
import { ImageInventory, type ImageInventoryConfig } from './images.js';
import { DEFAULT_REFRESH_AFTER_MS, DEFAULT_STALE_AFTER_MS } from './image-cache.js';

export interface RegionConnectionSource {
  region(namespace: string, name: string): Promise<RegionConnection | undefined>;
}

/**
 * The Region's `spec.openstack` → ImageInventoryConfig: `defaultArchitecture`; `images.signingKey` (PEM) →
 * signingKeyPem; `images.cache.enabled: false` → cache disabled (ImagesUnavailable); the cache's seconds →
 * ms. When only one of the two bounds is given, the other keeps refresh-ahead before the bound: a missing
 * refreshAfter is min(60 s, staleAfter / 2), a missing staleAfter is max(300 s, refreshAfter × 2). Pure.
 */
export const regionImageConfig = (region: Region): ImageInventoryConfig => {
  const o = region.spec.openstack;
  const images = o.images;
  const c = images?.cache;
  let cache: ImageInventoryConfig['cache'];
  if (c?.enabled === false) cache = false;
  else if (c?.refreshAfterSeconds !== undefined || c?.staleAfterSeconds !== undefined) {
    const refresh = c.refreshAfterSeconds !== undefined ? c.refreshAfterSeconds * 1000 : undefined;
    const stale = c.staleAfterSeconds !== undefined ? c.staleAfterSeconds * 1000 : undefined;
    cache = {
      refreshAfterMs: refresh ?? Math.min(DEFAULT_REFRESH_AFTER_MS, (stale ?? DEFAULT_STALE_AFTER_MS) / 2),
      staleAfterMs: stale ?? Math.max(DEFAULT_STALE_AFTER_MS, (refresh ?? DEFAULT_REFRESH_AFTER_MS) * 2),
    };
  }
  return {
    ...(o.defaultArchitecture !== undefined ? { defaultArchitecture: o.defaultArchitecture } : {}),
    ...(images?.signingKey !== undefined ? { signingKeyPem: images.signingKey } : {}),
    ...(cache !== undefined ? { cache } : {}),
  };
};

const keyOf = (c: RegionConnection): string => `${c.region.metadata.uid}:${c.region.metadata.generation ?? 1}:${c.secretVersion}`;

export interface RegionImageInventoriesOptions {
  readonly connections: RegionConnectionSource;
  readonly configOf?: (region: Region) => ImageInventoryConfig;
  readonly now?: () => number;
  readonly logger?: Logger;
  /** Keep each inventory's cache warm on a timer (the control plane: true). */
  readonly keepWarm?: boolean;
}

export class RegionImageInventories {
  private readonly byRegion = new Map<string, { key: string; inventory: ImageInventory; stop: () => void }>();

  constructor(private readonly options: RegionImageInventoriesOptions) {}

  /** The Region's inventory; undefined when there is no such Region. Throws what RegionConnections throws. */
  async forRegion(namespace: string, name: string): Promise<ImageInventory | undefined> {
    const connection = await this.options.connections.region(namespace, name);
    if (!connection) return undefined;
    const uid = connection.region.metadata.uid;
    const key = keyOf(connection);
    const held = this.byRegion.get(uid);
    if (held && held.key === key) return held.inventory;
    held?.stop();
    const { session, region } = connection;
    const inventory = new ImageInventory({
      glance: session.glance,
      nova: session.nova,
      config: (this.options.configOf ?? regionImageConfig)(region),
      ...(this.options.now !== undefined ? { now: this.options.now } : {}),
      ...(this.options.logger !== undefined ? { logger: this.options.logger.child({ region: `${region.metadata.namespace}/${region.metadata.name}` }) } : {}),
    });
    const stop = this.options.keepWarm ? inventory.keepWarm() : () => undefined;
    this.byRegion.set(uid, { key, inventory, stop });
    return inventory;
  }

  /** Drop a Region's inventory (its resource was deleted). */
  forget(regionUid: string): void {
    this.byRegion.get(regionUid)?.stop();
    this.byRegion.delete(regionUid);
  }

  /** Stop every keep-warm timer. */
  close(): void {
    for (const held of this.byRegion.values()) held.stop();
    this.byRegion.clear();
  }
}
