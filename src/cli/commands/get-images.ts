/**
 * `regent get images [id|name] [-n ns] [--region <name>] [-o table|yaml|json]`: the translated image view of
 * each Region (src/provider/inventory/images.ts; reference docs/images.md). Not a stored kind: images are
 * Region-scoped inventory read from Glance with the Region's credentials, as `get volumeclasses` does.
 *
 * Two layers:
 * - `getImages(regions, options)`: given connected sessions and each Region's ImageInventoryConfig, lists
 *   the exported images and the excluded ones (with reasons) — what the table and JSON show.
 * - `getImagesCommand(name, options)`: the command's action (reads the Regions from the resource source,
 *   connects each with its credentials Secret through RegionConnections, then calls getImages).
 * Excluded images are printed as warnings on stderr (`Warning: Region default/x: image <id> (<name>) is not
 * exported: os_distro is missing (required)`), so an operator sees why an upload does not show up.
 *
 * The CLI reads an image listing once: the cache is cold and filled by one Glance list (a CLI process lives
 * for one read), so it is never disabled here even when the Region disables it for the control plane.
 */
import { stringify } from 'yaml';
import type { OpenStackSession } from '../../openstack/session.js';
import type { ImageInventoryConfig, ExcludedImage } from '../../provider/inventory/images.js';
import type { NeutralImage } from '../../provider/inventory/image-properties.js';

export type ImagesOutput = 'table' | 'yaml' | 'json';

/** The names the CLI accepts for the kind: image, images, img (any case). */
export const isImageKind = (kind: string): boolean => ['image', 'images', 'img'].includes(kind.toLowerCase());

export interface RegionImages {
  readonly region: { readonly namespace: string; readonly name: string };
  readonly session: OpenStackSession;
  readonly config: ImageInventoryConfig;
}

export interface RegionImage extends NeutralImage {
  readonly region: { readonly namespace: string; readonly name: string };
}

export interface ImageListing {
  readonly images: readonly RegionImage[];
  readonly excluded: readonly (ExcludedImage & { readonly region: { readonly namespace: string; readonly name: string } })[];
}

/** Each Region's exported images (by name) and excluded images; `name` keeps only the image with that id or name. */
export const getImages = async (regions: readonly RegionImages[], options: { name?: string } = {}): Promise<ImageListing> => {
  const { ImageInventory } = await import('../../provider/inventory/images.js');
  const images: RegionImage[] = [];
  const excluded: ImageListing['excluded'][number][] = [];
  for (const r of regions) {
    const inventory = new ImageInventory({ glance: r.session.glance, config: { ...r.config, cache: r.config.cache === false || r.config.cache === undefined ? {} : r.config.cache } });
    let result;
    try {
      result = await inventory.query({ activeOnly: false });
    } catch (error) {
      // typed OpenStack errors are user-safe (redacted faults); name the Region they came from
      throw new Error(`Region ${r.region.namespace}/${r.region.name}: ${(error as Error).message}`, { cause: error });
    }
    for (const image of result.images) images.push({ region: r.region, ...image });
    for (const e of result.excluded) excluded.push({ region: r.region, ...e });
  }
  if (options.name === undefined) return { images, excluded };
  const match = (i: { id: string; name: string }) => i.id === options.name || i.name === options.name;
  const named = images.filter(match);
  const namedExcluded = excluded.filter(match);
  if (named.length === 0 && namedExcluded.length === 0) throw new Error(`no Region has an image with ID or name "${options.name}"`);
  return { images: named, excluded: namedExcluded };
};

const none = '<none>';
const gpuCell = (i: NeutralImage): string => (i.gpu ? `${i.gpu.vendor}${i.gpu.models.length ? ` ${i.gpu.models.join(',')}` : ''}${i.gpu.driver ? ` (${i.gpu.driver})` : ''}` : none);
const ownerCell = (i: NeutralImage): string =>
  i.ownership.scope === 'public' ? 'public' : i.ownership.scope === 'organization' ? `org:${i.ownership.organizationId}${i.ownership.projectId ? `/${i.ownership.projectId}` : ''}` : `project:${i.ownership.projectId}`;
const osCell = (i: NeutralImage): string => [i.os.distro, i.os.version, i.os.codename ? `(${i.os.codename})` : '', i.os.variant ?? ''].filter((s) => s !== '').join(' ');

/** A table (NAMESPACE?, REGION, ID, NAME, STATUS, ARCH, OS, KERNEL, VIRT, GPU, OWNER, PACKAGES, TAGS, SIGNED), or YAML/JSON of the listing. */
export const formatImages = async (listing: ImageListing, format: ImagesOutput, options: { showNamespace?: boolean } = {}): Promise<string> => {
  if (format !== 'table') {
    const document = { apiVersion: 'v1', kind: 'List', items: listing.images, excluded: listing.excluded };
    return format === 'json' ? JSON.stringify(document, null, 2) : stringify(document).trimEnd();
  }
  if (listing.images.length === 0) return 'No resources found.';
  const { alignColumns } = await import('../../kube/cli/output.js');
  const header = [...(options.showNamespace ? ['NAMESPACE'] : []), 'REGION', 'ID', 'NAME', 'STATUS', 'ARCH', 'OS', 'KERNEL', 'VIRT', 'GPU', 'OWNER', 'PACKAGES', 'TAGS', 'SIGNED'];
  const rows = listing.images.map((i) => [
    ...(options.showNamespace ? [i.region.namespace] : []),
    i.region.name,
    i.id,
    i.name,
    i.status,
    i.architecture,
    osCell(i),
    i.os.kernel,
    i.virtualization,
    gpuCell(i),
    ownerCell(i),
    Object.entries(i.packages).map(([k, v]) => `${k}=${v}`).join(',') || none,
    i.tags.join(',') || none,
    String(i.signed),
  ]);
  return alignColumns(header, rows);
};

/** The stderr warning for each excluded image. */
export const exclusionWarnings = (listing: ImageListing): string[] =>
  listing.excluded.map((e) => `Region ${e.region.namespace}/${e.region.name}: image ${e.id}${e.name ? ` (${e.name})` : ''} is not exported: ${e.reasons.join('; ')}`);

export interface GetImagesCommandOptions {
  namespace?: string;
  output: string;
  region?: string;
  resources?: string;
}

/**
 * The `regent get images` action: the Regions of the resource source (one with --region), each connected
 * with its credentials Secret, then getImages; the table or document on stdout, exclusions on stderr.
 */
export const getImagesCommand = async (name: string | undefined, options: GetImagesCommandOptions, print: { out: (s: string) => void; err: (s: string) => void } = { out: console.log, err: console.error }): Promise<void> => {
  const [{ withSource }, { selectRegions }, { connect }, { createLogger }, { RegionConnections }, { regionImageConfig }] = await Promise.all([
    import('./with-source.js'),
    import('../../kube/cli/regions.js'),
    import('../../openstack/session.js'),
    import('../../log/logger.js'),
    import('../../provider/regions/connections.js'),
    import('../../provider/inventory/region-images.js'),
  ]);
  const logger = createLogger();
  await withSource(options, { create: false }, async (source) => {
    const regions = await selectRegions(source, options);
    const connections = new RegionConnections({ source, connect: (cloud) => connect(cloud, { logger }) });
    const connected: RegionImages[] = [];
    for (const region of regions) {
      const { namespace, name: regionName } = region.metadata;
      let connection;
      try {
        connection = await connections.region(namespace, regionName);
      } catch (error) {
        throw new Error(`Region ${namespace}/${regionName}: ${(error as Error).message}`, { cause: error });
      }
      if (connection) connected.push({ region: { namespace, name: regionName }, session: connection.session, config: regionImageConfig(region) });
    }
    const listing = await getImages(connected, name !== undefined ? { name } : {});
    for (const warning of exclusionWarnings(listing)) print.err(`Warning: ${warning}`);
    print.out(await formatImages(listing, options.output as ImagesOutput, { showNamespace: options.namespace === undefined && options.region === undefined }));
  });
};
