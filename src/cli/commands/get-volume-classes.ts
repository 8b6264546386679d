/**
 * `regent get volumeclasses [id|name] [-n ns] [--region <name>] [-o yaml|json]`: the VolumeClasses each
 * Region exports (src/provider/inventory/volume-classes.ts). Not a kind of the resource source: a
 * VolumeClass is Region-scoped inventory, computed from Cinder's volume types and the Region's
 * blockStorage settings, so listing them connects to each Region with its credentials Secret (as the
 * control plane does) and lists Cinder's volume types and Nova's flavors.
 *
 * A Region that cannot be listed (its Secret missing or refused, Keystone unreachable, invalid
 * settings) fails the command with one line naming the Region; what the inventory reports as a
 * problem (a selected ID Cinder does not have, …) is a warning, and the rest is still printed.
 */
import { selectRegions } from '../../kube/cli/regions.js';
import { stringify } from 'yaml';
import type { CloudConfig } from '../../openstack/keystone/clouds-config.js';
import type { OpenStackSession } from '../../openstack/session.js';
import { OpenStackError } from '../../openstack/errors.js';
import { VolumeClassConfigInvalid, VolumeClassInventory, type VolumeClass } from '../../provider/inventory/volume-classes.js';
import { RegionConnections } from '../../provider/regions/connections.js';
import { RegionUnusable } from '../../provider/regions/credentials.js';
import type { Region } from '../../resources/region.js';
import type { ResourceSource } from '../../kube/port.js';
import { alignColumns, type OutputFormat } from '../../kube/cli/output.js';

/** The names the CLI accepts for the kind: volumeclass, volumeclasses, vc (any case). */
export const isVolumeClassKind = (name: string): boolean => ['volumeclass', 'volumeclasses', 'vc'].includes(name.toLowerCase());

/** One exported VolumeClass and the Region that exports it. */
export interface RegionVolumeClass extends VolumeClass {
  readonly region: { readonly namespace: string; readonly name: string };
}

export interface VolumeClassListing {
  readonly classes: readonly RegionVolumeClass[];
  /** `Region default/x: spec.openstack.blockStorage.volumeClasses.selector.ids[1]: Cinder has no volume type …`. */
  readonly warnings: readonly string[];
}

export interface GetVolumeClassesOptions {
  /** Omitted: Regions of every namespace (with `region`: default). */
  readonly namespace?: string;
  /** Only this Region's classes; NotFound when there is no such Region. */
  readonly region?: string;
  /** Only the class with this Cinder volume type ID or name; NotFound when no Region exports one. */
  readonly name?: string;
}

export interface VolumeClassDependencies {
  /** Connects a Region's CloudConfig (src/openstack/session.ts connect). */
  readonly connect: (cloud: CloudConfig) => Promise<OpenStackSession>;
  /** Where Secrets live when a reference names no namespace (RegionConnections' secretNamespace). */
  readonly secretNamespace?: string;
}

const regionName = (r: Region): string => `${r.metadata.namespace}/${r.metadata.name}`;

/** Each Region's exported classes, in Region order then selector order. */
export const getVolumeClasses = async (source: ResourceSource, deps: VolumeClassDependencies, options: GetVolumeClassesOptions = {}): Promise<VolumeClassListing> => {
  const connections = new RegionConnections({ source, connect: deps.connect, ...(deps.secretNamespace !== undefined ? { secretNamespace: deps.secretNamespace } : {}) });
  const inventory = new VolumeClassInventory(connections);
  const regions = await selectRegions(source, options);
  const classes: RegionVolumeClass[] = [];
  const warnings: string[] = [];
  for (const region of regions) {
    const { namespace, name } = region.metadata;
    let found;
    try {
      found = await inventory.classes(namespace, name);
    } catch (error) {
      // its message already names the Region and every field at fault
      if (error instanceof VolumeClassConfigInvalid) throw new Error(error.message, { cause: error });
      // user-safe by construction: names of Secrets and keys, redacted OpenStack faults, never a credential
      if (error instanceof RegionUnusable || error instanceof OpenStackError) throw new Error(`Region ${regionName(region)}: ${error.message}`, { cause: error });
      throw error;
    }
    // deleted between the list and the read: nothing to show
    if (!found) continue;
    for (const problem of found.problems) warnings.push(`Region ${regionName(region)}: ${problem.field}: ${problem.message}`);
    for (const c of found.classes) classes.push({ region: { namespace, name }, ...c });
  }
  if (options.name === undefined) return { classes, warnings };
  const named = classes.filter((c) => c.id === options.name || c.name === options.name);
  if (named.length === 0) {
    const where = options.region !== undefined ? `Region ${options.namespace ?? 'default'}/${options.region}` : options.namespace !== undefined ? `no Region in namespace ${options.namespace}` : 'no Region';
    throw new Error(options.region !== undefined ? `${where} exports no VolumeClass with ID or name "${options.name}"` : `${where} exports a VolumeClass with ID or name "${options.name}"`);
  }
  return { classes: named, warnings };
};

const none = '<none>';
const flavorsCell = (c: VolumeClass): string => (!c.supportedFlavors.restricted ? '<any>' : c.supportedFlavors.ids.join(',') || none);

/** A table (NAMESPACE, REGION, ID, NAME, MIN GIB, MAX GIB, MEDIA, ENCRYPTED, FLAVORS), or YAML/JSON of the classes. */
export const formatVolumeClasses = (classes: readonly RegionVolumeClass[], format: OutputFormat, options: { showNamespace?: boolean; single?: boolean } = {}): string => {
  if (format !== 'table') {
    const document = options.single && classes.length === 1 ? classes[0] : { apiVersion: 'v1', kind: 'List', items: classes };
    return format === 'json' ? JSON.stringify(document, null, 2) : stringify(document).trimEnd();
  }
  if (classes.length === 0) return 'No resources found.';
  const header = [...(options.showNamespace ? ['NAMESPACE'] : []), 'REGION', 'ID', 'NAME', 'MIN GIB', 'MAX GIB', 'MEDIA', 'ENCRYPTED', 'FLAVORS'];
  const rows = classes.map((c) => [
    ...(options.showNamespace ? [c.region.namespace] : []),
    c.region.name,
    c.id,
    c.name,
    c.minCapacityGiB !== undefined ? String(c.minCapacityGiB) : none,
    c.maxCapacityGiB !== undefined ? String(c.maxCapacityGiB) : none,
    c.media ?? none,
    String(c.encrypted),
    flavorsCell(c),
  ]);
  return alignColumns(header, rows);
};
