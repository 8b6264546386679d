/**
 * `regent get flavors [id|name] [-n ns] [--region <name>] [-o table|yaml|json]`: the flavors each Region
 * exports (src/provider/inventory/flavors.ts). Not a kind of the resource source: a flavor is Region-scoped
 * inventory, computed from Nova's flavors and the Region's configuration, so listing them connects to each
 * Region with its credentials Secret and lists Nova's flavors.
 *
 * A Region that cannot be listed fails the command with one line naming the Region; what the inventory
 * reports as a problem (a selected ID Nova does not have, an unparseable GPU extra spec, …) is a warning,
 * and the rest is still printed.
 *
 * Dispatch (src/cli/commands/resources.ts, in `get`, beside volumeclasses; not wired here):
 *   if (isFlavorKind(kind)) return (await import('./get-flavors.js')).runGetFlavors(name, options);
 */
import { selectRegions } from '../../kube/cli/regions.js';
import { stringify } from 'yaml';
import type { CloudConfig } from '../../openstack/keystone/clouds-config.js';
import type { OpenStackSession } from '../../openstack/session.js';
import { OpenStackError } from '../../openstack/errors.js';
import { FlavorInventory, type Flavor, type FlavorMetadata } from '../../provider/inventory/flavors.js';
import { RegionConnections } from '../../provider/regions/connections.js';
import { RegionUnusable } from '../../provider/regions/credentials.js';
import type { Region } from '../../resources/region.js';
import type { ResourceSource } from '../../kube/port.js';
import { alignColumns, type OutputFormat } from '../../kube/cli/output.js';

/** The names the CLI accepts for the kind: flavor, flavors, fl (any case). */
export const isFlavorKind = (name: string): boolean => ['flavor', 'flavors', 'fl'].includes(name.toLowerCase());

/** One exported flavor and the Region that exports it. */
export interface RegionFlavor extends Flavor {
  readonly region: { readonly namespace: string; readonly name: string };
}

export interface FlavorListing {
  readonly flavors: readonly RegionFlavor[];
  readonly warnings: readonly string[];
}

export interface GetFlavorsOptions {
  readonly namespace?: string;
  readonly region?: string;
  /** Only the flavor with this Nova ID or name. */
  readonly name?: string;
}

export interface FlavorDependencies {
  readonly connect: (cloud: CloudConfig) => Promise<OpenStackSession>;
  readonly secretNamespace?: string;
  /** Per-flavor metadata of a Region in place of its `compute.flavorMetadata`. */
  readonly metadataOf?: (region: Region) => readonly FlavorMetadata[] | undefined;
}

const regionName = (r: Region): string => `${r.metadata.namespace}/${r.metadata.name}`;

/** Each Region's exported flavors, in Region order then selector (or Nova) order. */
export const getFlavors = async (source: ResourceSource, deps: FlavorDependencies, options: GetFlavorsOptions = {}): Promise<FlavorListing> => {
  const connections = new RegionConnections({ source, connect: deps.connect, ...(deps.secretNamespace !== undefined ? { secretNamespace: deps.secretNamespace } : {}) });
  const inventory = new FlavorInventory(connections, deps.metadataOf ? { metadataOf: deps.metadataOf } : {});
  const regions = await selectRegions(source, options);
  const flavors: RegionFlavor[] = [];
  const warnings: string[] = [];
  for (const region of regions) {
    const { namespace, name } = region.metadata;
    let found;
    try {
      found = await inventory.flavors(namespace, name);
    } catch (error) {
      if (error instanceof RegionUnusable || error instanceof OpenStackError) throw new Error(`Region ${regionName(region)}: ${error.message}`, { cause: error });
      throw error;
    }
    if (!found) continue;
    for (const problem of found.problems) warnings.push(`Region ${regionName(region)}: ${problem.field}: ${problem.message}`);
    for (const f of found.flavors) flavors.push({ region: { namespace, name }, ...f });
  }
  if (options.name === undefined) return { flavors, warnings };
  const named = flavors.filter((f) => f.id === options.name || f.name === options.name);
  if (named.length === 0) throw new Error(`${options.region !== undefined ? `Region ${options.namespace ?? 'default'}/${options.region}` : 'no Region'} exports a flavor with ID or name "${options.name}"`);
  return { flavors: named, warnings };
};

const none = '<none>';
const memory = (mib: number): string => (mib % 1024 === 0 ? `${mib / 1024}Gi` : `${mib}Mi`);
const gpuCell = (f: Flavor): string => (f.gpu ? `${f.gpu.count}x ${[f.gpu.vendor, f.gpu.model].filter(Boolean).join(' ') || 'GPU'} (${f.gpu.kind})` : none);

/** A table (NAMESPACE, REGION, ID, NAME, CPUS, MEMORY, DISK, ARCH, BAREMETAL, GPU), or YAML/JSON of the flavors. */
export const formatFlavors = (flavors: readonly RegionFlavor[], format: OutputFormat, options: { showNamespace?: boolean; single?: boolean } = {}): string => {
  if (format !== 'table') {
    const document = options.single && flavors.length === 1 ? flavors[0] : { apiVersion: 'v1', kind: 'List', items: flavors };
    return format === 'json' ? JSON.stringify(document, null, 2) : stringify(document).trimEnd();
  }
  if (flavors.length === 0) return 'No resources found.';
  const header = [...(options.showNamespace ? ['NAMESPACE'] : []), 'REGION', 'ID', 'NAME', 'CPUS', 'MEMORY', 'DISK', 'ARCH', 'BAREMETAL', 'GPU'];
  const rows = flavors.map((f) => [
    ...(options.showNamespace ? [f.region.namespace] : []),
    f.region.name,
    f.id,
    f.name,
    String(f.cpus),
    memory(f.memoryMiB),
    `${f.diskGiB}G`,
    f.architecture,
    String(f.baremetal),
    gpuCell(f),
  ]);
  return alignColumns(header, rows);
};

/** The `get flavors` action: what resources.ts dispatches to (loaded on use, so other commands start fast). */
export const runGetFlavors = async (name: string | undefined, options: { namespace?: string; output: string; region?: string; resources?: string }): Promise<void> => {
  const [{ withSource }, session, { createLogger }] = await Promise.all([import('./with-source.js'), import('../../openstack/session.js'), import('../../log/logger.js')]);
  const logger = createLogger();
  await withSource(options, { create: false }, async (source) => {
    const listing = await getFlavors(
      source,
      { connect: (cloud) => session.connect(cloud, { logger }) },
      { ...(options.namespace !== undefined ? { namespace: options.namespace } : {}), ...(options.region !== undefined ? { region: options.region } : {}), ...(name !== undefined ? { name } : {}) },
    );
    for (const warning of listing.warnings) console.error(`Warning: ${warning}`);
    console.log(formatFlavors(listing.flavors, options.output as OutputFormat, { single: name !== undefined, showNamespace: options.namespace === undefined && options.region === undefined }));
  });
};
