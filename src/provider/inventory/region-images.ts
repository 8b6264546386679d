/**
 * One ImageInventory (and so one warm image cache) per Region connection: what the control plane holds so
 * the cache survives every pass and call, and is rebuilt — cold, with the new configuration — only when the
 * Region's generation or its credentials Secret's version moves (the key RegionConnections uses, as
 * VolumeClassInventory does). A Region that is gone gives undefined; `forget` drops its inventory.
 *
 * The Region → ImageInventoryConfig mapping is a parameter (`configOf`) because the Region fields that carry
 * the signing key and cache settings are not in the CRD yet (docs/images.md names them); until then
 * `regionImageConfig` reads `openstack.defaultArchitecture` only.
 */
import type { Logger } from '../../log/logger.js';
import type { Region } from '../../resources/region.js';
import type { RegionConnection } from '../regions/connections.js';
import { ImageInventory, type ImageInventoryConfig } from './images.js';

export interface RegionConnectionSource {
  region(namespace: string, name: string): Promise<RegionConnection | undefined>;
}

/** What a Region says about its images today: the default architecture. */
export const regionImageConfig = (region: Region): ImageInventoryConfig => {
  const arch = region.spec.openstack.defaultArchitecture;
  return arch !== undefined ? { defaultArchitecture: arch } : {};
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
