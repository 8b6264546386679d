/**
 * Image validation on create and update through the provider (server-api.md): the image must exist and
 * be visible to the server's organization and project, be Ready (Glance `active`), and be architecture,
 * disk and virtualization compatible with the flavor. One contract for both paths; they differ only on a
 * flavor the region no longer offers: create rejects it (422), update tolerates it and skips the
 * flavor-dependent checks (the flavor is immutable and already in use; Nova is the backstop).
 *
 * - An unrecognized virtualization type fails closed (422): the inventory excludes such an image, naming
 *   `regent.dev:virtualization` — evidence of version skew or bad metadata in front of a destructive rebuild.
 * - Absent metadata fails open: no virtualization property reads `any`; an architecture that came from the
 *   Region's default or the legacy fallback (not from the image) is not compared.
 * - An image that does not exist and one the tenancy may not use answer the same 422 (no hint).
 *
 * The lookups are src/provider/inventory/images.ts (ImageInventory.get, through its cache) and flavors.ts
 * (the Region's exported flavors); `checkImage` is the pure rule, `inventoryImageValidator` the shell.
 */
import { NotFound as OpenStackNotFound } from '../openstack/errors.js';
import { ImageExcluded, matchesQuery } from '../provider/inventory/images.js';
import type { NeutralImage } from '../provider/inventory/image-properties.js';
import { PROP } from '../provider/inventory/image-properties.js';
import type { Flavor } from '../provider/inventory/flavors.js';
import type { ResourceSource } from '../kube/port.js';
import type { Identity } from '../resources/identity.js';
import type { Network } from '../resources/network.js';
import type { Tenancy } from './model.js';
import { unprocessable } from './errors.js';
import type { ImageValidator } from './servers.js';

export type ImageLookup = { found: true; image: NeutralImage } | { found: false } | { found: false; excluded: readonly string[] };

/** The verdict on an image for a flavor (undefined: the region does not offer it). Pure. */
export const checkImage = (input: { mode: 'create' | 'update'; imageId: string; flavorId: string; lookup: ImageLookup; flavor: Flavor | undefined; tenancy: Tenancy }): string | undefined => {
  const { lookup, flavor, mode, imageId, flavorId, tenancy } = input;
  if (!lookup.found) {
    if ('excluded' in lookup) {
      const virt = lookup.excluded.find((r) => r.startsWith(PROP.virtualization));
      if (virt) return `spec.imageId: image ${imageId} reports an unrecognized virtualization type (${virt})`;
      return `spec.imageId: image ${imageId} is not usable: ${lookup.excluded.join('; ')}`;
    }
    return `spec.imageId: image ${imageId} not found`;
  }
  const image = lookup.image;
  if (!matchesQuery(image, { usableBy: { organizationId: tenancy.organizationId, projectId: tenancy.projectId }, activeOnly: false })) return `spec.imageId: image ${imageId} not found`;
  if (image.status !== 'active') return `spec.imageId: image ${imageId} is not ready (Glance status ${image.status})`;
  if (!flavor) return mode === 'create' ? `spec.flavorId: flavor ${flavorId} is not offered by the region` : undefined;
  if (image.architectureSource === 'image' && image.architecture !== flavor.architecture)
    return `spec.imageId: image ${imageId} is built for ${image.architecture}, flavor ${flavorId} is ${flavor.architecture}`;
  if (flavor.diskGiB > 0 && image.minDiskGiB > flavor.diskGiB) return `spec.imageId: image ${imageId} needs a ${image.minDiskGiB} GiB disk, flavor ${flavorId} has ${flavor.diskGiB} GiB`;
  if (image.virtualization === 'baremetal' && !flavor.baremetal) return `spec.imageId: image ${imageId} is for baremetal servers, flavor ${flavorId} is virtual`;
  if (image.virtualization === 'virtualized' && flavor.baremetal) return `spec.imageId: image ${imageId} is for virtual servers, flavor ${flavorId} is baremetal`;
  return undefined;
};

/** What the validator needs of a Region: its image inventory's `get` and its exported flavors. */
export interface RegionInventory {
  readonly images: { get(id: string): Promise<NeutralImage> };
  flavors(): Promise<readonly Flavor[]>;
}

export interface InventoryImageValidatorDeps {
  /** The inventory of the Region the network's identity is in (identity.spec.regionRef); undefined: no such Region. */
  inventoryFor(identity: Identity, network: Network): Promise<RegionInventory | undefined>;
  readonly source: ResourceSource;
}

const lookupImage = async (images: RegionInventory['images'], id: string): Promise<ImageLookup> => {
  try {
    return { found: true, image: await images.get(id) };
  } catch (error) {
    if (error instanceof OpenStackNotFound) return { found: false };
    if (error instanceof ImageExcluded) return { found: false, excluded: error.excluded.reasons };
    throw error;
  }
};

export const inventoryImageValidator = (deps: InventoryImageValidatorDeps): ImageValidator => ({
  async validate({ mode, imageId, flavorId, tenancy, network }) {
    const identity = (await deps.source.get('Identity', network.metadata.namespace, network.spec.identityRef.name)) as Identity | undefined;
    const inventory = identity ? await deps.inventoryFor(identity, network) : undefined;
    if (!inventory) throw unprocessable(`spec.networkId: the network's region is not available`);
    const [lookup, flavors] = await Promise.all([lookupImage(inventory.images, imageId), inventory.flavors()]);
    const flavor = flavors.find((f) => f.id === flavorId);
    const refusal = checkImage({ mode, imageId, flavorId, lookup, flavor, tenancy });
    if (refusal) throw unprocessable(refusal);
  },
});

/** What `regionInventoryFor` needs: RegionImageInventories (region-images.ts) and FlavorInventory (flavors.ts). */
export interface RegionInventories {
  readonly images: { forRegion(namespace: string, name: string): Promise<{ get(id: string): Promise<NeutralImage> } | undefined> };
  readonly flavors: { flavors(namespace: string, name: string): Promise<{ flavors: readonly Flavor[] } | undefined> };
}

/** `inventoryFor` over the control plane's per-Region inventories: the identity's `regionRef` picks the Region. */
export const regionInventoryFor =
  (inventories: RegionInventories): InventoryImageValidatorDeps['inventoryFor'] =>
  async (identity) => {
    const namespace = identity.metadata.namespace;
    const region = identity.spec.regionRef.name;
    const images = await inventories.images.forRegion(namespace, region);
    if (!images) return undefined;
    return {
      images,
      flavors: async () => (await inventories.flavors.flavors(namespace, region))?.flavors ?? [],
    };
  };
