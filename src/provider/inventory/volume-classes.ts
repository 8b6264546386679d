/**
 * VolumeClass inventory (openstack-provider.md: "VolumeClass configuration follows the same inventory
 * pattern for block storage"): the Cinder volume types a Region exports to users, each enriched with
 * the operator's metadata. Region-scoped inventory configuration, not a project-owned resource.
 *
 * A pure core and an imperative shell:
 * - `resolveVolumeClasses` (pure): Cinder volume types + the Region's blockStorage settings + the
 *   Region's exported flavor IDs → the exported VolumeClasses and the problems found on the way, or the
 *   configuration errors (each naming its field) when the settings are invalid.
 * - `VolumeClassInventory` (shell): lists the Cinder volume types and Nova flavors with the Region's
 *   credentials and keeps them while the Region's connection is the same one (same Region uid,
 *   generation and credentials Secret version as RegionConnections keys it), so repeated calls cost no
 *   OpenStack call and a changed Region configuration or Secret refreshes them.
 *
 * Rules, in the spec's words:
 * - `selector.ids` is a strict allowlist: only Cinder volume type IDs listed there are exported. Missing
 *   volumeClasses, a missing selector or nil/empty IDs export nothing (fail closed). A listed ID Cinder
 *   does not have is not exported, and is reported as a problem (an operator's typo must be visible).
 * - Capacity bounds are operator-authored positive whole GiB, either may be omitted, max ≥ min when both
 *   are given; they are never discovered from Cinder (its extra specs are not read at all).
 * - `supportedFlavors` omitted, or with omitted or empty `ids`, is unrestricted compatibility; it is
 *   resolved to the Flavor ID allowlist (every exported flavor when unrestricted, else the listed IDs the
 *   Region exports) and never inferred from Cinder volume types.
 * - `maxIOPS` and `maxThroughputMiBps` are caps, not guaranteed reservations.
 */
import type { Region, RegionSpec } from '../../resources/region.js';
import { BlockStorageSettings } from '../../resources/region.js';
import { describeFieldErrors, toFieldErrors, type FieldError } from '../../resources/codec/report.js';
import type { RegionConnection } from '../regions/connections.js';

/** Where the settings live in a Region: the prefix of every field named in errors and problems. */
export const BLOCK_STORAGE_FIELD = 'spec.openstack.blockStorage';

export type VolumeMedia = 'hdd' | 'ssd' | 'nvme';

/** The provider-neutral VolumeClass: what a user may choose as a Volume's volumeClassID. */
export interface VolumeClass {
  /** The Cinder volume type ID (a Volume's volumeClassID). */
  readonly id: string;
  /** The Cinder volume type's name. */
  readonly name: string;
  readonly minCapacityGiB?: number;
  readonly maxCapacityGiB?: number;
  readonly media?: VolumeMedia;
  /** A cap, not a guaranteed reservation. */
  readonly maxIOPS?: number;
  /** A cap in MiB/s, not a guaranteed reservation. */
  readonly maxThroughputMiBps?: number;
  /** The operator's encryption signal; false unless the operator says true. */
  readonly encrypted: boolean;
  /**
   * The resolved Flavor ID allowlist: a Volume of this class may be used with a flavor in `ids`.
   * `restricted` false: the operator named no flavors, so `ids` is every flavor the Region exports.
   */
  readonly supportedFlavors: { readonly restricted: boolean; readonly ids: readonly string[] };
}

/** Something the operator should fix that did not stop the other classes from being exported. */
export interface VolumeClassProblem {
  /** The Region field at fault: `spec.openstack.blockStorage.volumeClasses.selector.ids[1]`. */
  readonly field: string;
  readonly message: string;
}

export type VolumeClassResolution =
  | { readonly ok: true; readonly classes: readonly VolumeClass[]; readonly problems: readonly VolumeClassProblem[] }
  /** The settings are invalid: nothing is exported (fail closed). Each error names its field. */
  | { readonly ok: false; readonly errors: readonly FieldError[] };

/** The part of a Cinder volume type the inventory reads (never its extra specs). */
export interface VolumeTypeLike {
  readonly id: string;
  readonly name: string;
}

export interface VolumeClassInput {
  /** The Region's `spec.openstack.blockStorage`, as stored (validated again here: objects can bypass the CRD). */
  readonly blockStorage: unknown;
  /** Cinder's volume types. */
  readonly volumeTypes: readonly VolumeTypeLike[];
  /** The IDs of the flavors the Region exports (`regionFlavorIDs`). */
  readonly flavorIDs: readonly string[];
}

/** The Cinder volume type IDs `selector.ids` lists (none when anything on the way is missing). Pure. */
export const selectedVolumeTypeIDs = (blockStorage: unknown): string[] => {
  const ids = (blockStorage as { volumeClasses?: { selector?: { ids?: unknown } } } | undefined)?.volumeClasses?.selector?.ids;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
};

/**
 * The flavors a Region exports, from Nova's flavors and `compute.flavorSelector`: omitted exports every
 * flavor; present, the listed IDs Nova has, in the selector's order. Pure.
 */
export const regionFlavorIDs = (flavors: readonly { readonly id: string }[], compute?: RegionSpec['openstack']['compute']): string[] => {
  const known = flavors.map((f) => f.id);
  const selector = compute?.flavorSelector;
  if (!selector) return known;
  const present = new Set(known);
  return selector.ids.filter((id) => present.has(id));
};

/** Cinder volume types + Region settings + exported flavors → exported VolumeClasses | configuration errors. Pure. */
export const resolveVolumeClasses = (input: VolumeClassInput): VolumeClassResolution => {
  if (input.blockStorage === undefined || input.blockStorage === null) return { ok: true, classes: [], problems: [] };
  const decoded = BlockStorageSettings.decode(input.blockStorage);
  if (decoded._tag === 'Left') {
    return { ok: false, errors: toFieldErrors(decoded.left).map((e) => ({ path: `${BLOCK_STORAGE_FIELD}.${e.path}`, message: e.message })) };
  }
  const settings = decoded.right;
  const selected = settings.volumeClasses?.selector?.ids ?? [];
  const metadata = settings.volumeClasses?.metadata ?? [];
  const problems: VolumeClassProblem[] = [];
  const field = (suffix: string): string => `${BLOCK_STORAGE_FIELD}.volumeClasses.${suffix}`;

  // metadata for a type the selector does not list exports nothing: say so rather than ignore it
  const selectedSet = new Set(selected);
  metadata.forEach((m, i) => {
    if (!selectedSet.has(m.id)) problems.push({ field: field(`metadata[${i}].id`), message: `metadata for volume type ${m.id}, which selector.ids does not list: ignored (nothing is exported without the selector)` });
  });

  const types = new Map(input.volumeTypes.map((t) => [t.id, t]));
  const exportedFlavors = new Set(input.flavorIDs);
  const classes: VolumeClass[] = [];
  selected.forEach((id, i) => {
    const type = types.get(id);
    if (!type) {
      problems.push({ field: field(`selector.ids[${i}]`), message: `Cinder has no volume type ${id}: not exported` });
      return;
    }
    const index = metadata.findIndex((m) => m.id === id);
    const m = index >= 0 ? metadata[index] : undefined;
    const listed = m?.supportedFlavors?.ids ?? [];
    let supportedFlavors: VolumeClass['supportedFlavors'];
    if (listed.length === 0) {
      supportedFlavors = { restricted: false, ids: [...input.flavorIDs] };
    } else {
      listed.forEach((flavorID, j) => {
        if (!exportedFlavors.has(flavorID)) problems.push({ field: field(`metadata[${index}].supportedFlavors.ids[${j}]`), message: `flavor ${flavorID} is not a flavor the Region exports: left out of volume type ${id}'s allowlist` });
      });
      supportedFlavors = { restricted: true, ids: listed.filter((flavorID) => exportedFlavors.has(flavorID)) };
    }
    classes.push({
      id: type.id,
      name: type.name,
      ...(m?.minCapacityGiB !== undefined ? { minCapacityGiB: m.minCapacityGiB } : {}),
      ...(m?.maxCapacityGiB !== undefined ? { maxCapacityGiB: m.maxCapacityGiB } : {}),
      ...(m?.media !== undefined ? { media: m.media } : {}),
      ...(m?.maxIOPS !== undefined ? { maxIOPS: m.maxIOPS } : {}),
      ...(m?.maxThroughputMiBps !== undefined ? { maxThroughputMiBps: m.maxThroughputMiBps } : {}),
      encrypted: m?.encrypted ?? false,
      supportedFlavors,
    });
  });
  return { ok: true, classes, problems };
};

/** The Region's blockStorage settings are invalid; nothing is exported. The message names every field. */
export class VolumeClassConfigInvalid extends Error {
  override readonly name = 'VolumeClassConfigInvalid';
  constructor(
    readonly region: string,
    readonly errors: readonly FieldError[],
  ) {
    super(`Region ${region}: the VolumeClass configuration is invalid, no VolumeClass is exported: ${describeFieldErrors(errors)}`);
  }
}

/** What the inventory discovered with one connection: Cinder's volume types and Nova's flavors. */
export interface DiscoveredInventory {
  readonly volumeTypes: readonly VolumeTypeLike[];
  readonly flavors: readonly { readonly id: string }[];
}

export interface RegionVolumeClasses {
  readonly region: Region;
  readonly classes: readonly VolumeClass[];
  readonly problems: readonly VolumeClassProblem[];
}

/** What the inventory needs of RegionConnections (src/provider/regions/connections.ts). */
export interface ConnectionSource {
  region(namespace: string, name: string): Promise<RegionConnection | undefined>;
}

/** The cache key of a connection: RegionConnections' own (uid, generation, Secret version). */
const keyOf = (c: RegionConnection): string => `${c.region.metadata.uid}:${c.region.metadata.generation ?? 1}:${c.secretVersion}`;

/**
 * The VolumeClasses of each Region. Cinder's volume types (and Nova's flavors, which resolve the
 * supportedFlavors allowlists) are listed once per connection and kept with it: the next list happens
 * only when the Region's generation or its credentials Secret's version moved. A failed list is not
 * kept: the next call lists again.
 */
export class VolumeClassInventory {
  private readonly cache = new Map<string, { key: string; discovered: Promise<DiscoveredInventory> }>();

  constructor(private readonly connections: ConnectionSource) {}

  /**
   * The Region's exported VolumeClasses and problems; undefined when there is no such Region.
   * VolumeClassConfigInvalid when its settings are invalid; what RegionConnections or OpenStack threw
   * otherwise (RegionUnusable, Unauthorized, …).
   */
  async classes(namespace: string, name: string): Promise<RegionVolumeClasses | undefined> {
    const connection = await this.connections.region(namespace, name);
    if (!connection) return undefined;
    const region = connection.region;
    const blockStorage = region.spec.openstack.blockStorage;
    // fail closed without asking OpenStack: nothing selected is nothing exported
    const discovered: DiscoveredInventory = selectedVolumeTypeIDs(blockStorage).length === 0 ? { volumeTypes: [], flavors: [] } : await this.discover(connection);
    const resolution = resolveVolumeClasses({ blockStorage, volumeTypes: discovered.volumeTypes, flavorIDs: regionFlavorIDs(discovered.flavors, region.spec.openstack.compute) });
    if (!resolution.ok) throw new VolumeClassConfigInvalid(`${region.metadata.namespace}/${region.metadata.name}`, resolution.errors);
    return { region, classes: resolution.classes, problems: resolution.problems };
  }

  /** Drops what is cached for a Region (its resource was deleted). */
  forget(regionUid: string): void {
    this.cache.delete(regionUid);
  }

  private discover(connection: RegionConnection): Promise<DiscoveredInventory> {
    const uid = connection.region.metadata.uid;
    const key = keyOf(connection);
    const cached = this.cache.get(uid);
    if (cached && cached.key === key) return cached.discovered;
    const { session } = connection;
    const discovered = Promise.all([session.cinder.listVolumeTypes(), session.nova.listFlavors()]).then(([volumeTypes, flavors]) => ({ volumeTypes, flavors }));
    this.cache.set(uid, { key, discovered });
    discovered.catch(() => {
      if (this.cache.get(uid)?.key === key) this.cache.delete(uid);
    });
    return discovered;
  }
}
