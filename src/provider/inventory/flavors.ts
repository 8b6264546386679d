/**
 * Flavor inventory (openstack-provider.md: "Flavor export is a hybrid model: OpenStack discovers the
 * flavor inventory, but region configuration can enrich or override user-facing flavor metadata such as
 * architecture, baremetal status, and GPU semantics"; issue 16, "Flavors").
 *
 * A pure core and an imperative shell, like the VolumeClass inventory (./volume-classes.ts):
 * - `resolveFlavors` (pure): Nova's flavors (with their extra specs) + `FlavorInventoryConfig` → the
 *   exported provider-neutral flavors and the problems an operator should see.
 * - `FlavorInventory` (shell): lists Nova's flavors with the Region's credentials once per Region
 *   connection (same Region uid, generation and credentials Secret version), so repeated calls cost no
 *   OpenStack call and a changed Region or Secret lists them again.
 *
 * Rules, each with its label (the test titles use them):
 * - F1 selector: `compute.flavorSelector.ids` omitted exports every flavor Nova lists; present, only the
 *   listed IDs Nova has, in the selector's order. A listed ID Nova does not have is a problem, not an error.
 *   (Same rule as volume-classes.ts `regionFlavorIDs`, which resolves VolumeClass allowlists.)
 * - F2 architecture: per-flavor `cpu.architecture` (`compute.flavorMetadata[]`), else the Region's `defaultArchitecture`, else x86_64
 *   (the legacy fallback for objects that bypass CRD defaulting). Nova's extra specs are NOT read for it
 *   (not `hw:architecture`, not `capabilities:cpu_arch`): the spec makes it Region configuration.
 * - F3 baremetal: true exactly when the flavor ID is in `compute.baremetalFlavorIDs`; never inferred
 *   from extra specs (a `resources:CUSTOM_*` class is not proof). A listed ID Nova does not have is a problem.
 * - F4 GPU: from two sources, configuration winning field by field:
 *   - Nova extra specs, exactly these two keys and nothing else:
 *     `pci_passthrough:alias` = `<alias>:<count>[,<alias>:<count>…]` (Nova's syntax) → kind `passthrough`,
 *       count = the sum of the counts, model = the alias names joined by `,` (Nova's alias is an operator
 *       name for a PCI vendor/product pair; the vendor itself lives in nova.conf, so it is not known here);
 *     `resources:VGPU` = `<count>` (a Placement resource request) → kind `vgpu`, count, no model or vendor.
 *     When both are present, passthrough is reported and the vGPU request is a problem (ambiguous).
 *     An unparseable value (no count, not a positive whole number) is a problem and is ignored.
 *   - per-flavor configuration (`compute.flavorMetadata[].gpu: {vendor, model, count}`): vendor and model override, count overrides
 *     (a count differing from the extra specs' is reported as a problem, the configuration still wins);
 *     a configured GPU on a flavor whose extra specs request none is exported as kind `configured`.
 * - F5 per-flavor metadata for a flavor that is not exported (not selected, or unknown to Nova) is a problem.
 */
import type { Flavor as NovaFlavor } from '../../openstack/decoders/compute.js';
import type { Region, RegionSpec } from '../../resources/region.js';
import type { RegionConnection } from '../regions/connections.js';

export type Architecture = 'x86_64' | 'aarch64';
export type GpuVendor = 'NVIDIA' | 'AMD' | 'Intel';

/** F2: the legacy fallback for objects that bypass CRD defaulting. */
export const LEGACY_ARCHITECTURE: Architecture = 'x86_64';

export interface FlavorGpu {
  /** Where the GPU semantics came from: Nova's PCI alias, a vGPU resource request, or configuration alone. */
  readonly kind: 'passthrough' | 'vgpu' | 'configured';
  readonly vendor?: GpuVendor;
  readonly model?: string;
  /** Physical devices (passthrough, configured) or virtual GPUs (vgpu) per server. */
  readonly count: number;
}

/** The provider-neutral flavor: what a user may choose as a Server's flavor. */
export interface Flavor {
  readonly id: string;
  readonly name: string;
  readonly cpus: number;
  readonly memoryMiB: number;
  readonly diskGiB: number;
  readonly architecture: Architecture;
  readonly baremetal: boolean;
  readonly gpu?: FlavorGpu;
}

/** Per-flavor configuration: the Region's `spec.openstack.compute.flavorMetadata` (src/resources/region.ts FlavorMetadata). */
export interface FlavorMetadata {
  readonly id: string;
  readonly cpu?: { readonly architecture?: Architecture };
  readonly gpu?: { readonly vendor?: GpuVendor; readonly model?: string; readonly count?: number };
}

/** The configuration the inventory reads, local to this module; `flavorInventoryConfigOf` fills it from a Region. */
export interface FlavorInventoryConfig {
  /** `spec.openstack.defaultArchitecture`. */
  readonly defaultArchitecture?: Architecture;
  /** `spec.openstack.compute.baremetalFlavorIDs`. */
  readonly baremetalFlavorIDs?: readonly string[];
  /** `spec.openstack.compute.flavorSelector`; omitted exports every flavor. */
  readonly flavorSelector?: { readonly ids: readonly string[] };
  /** `spec.openstack.compute.flavorMetadata`: per-flavor enrichment keyed by flavor id. */
  readonly metadata?: readonly FlavorMetadata[];
}

export interface FlavorProblem {
  /** What is at fault: a Region field (`spec.openstack.compute.flavorSelector.ids[1]`), a config entry or a Nova extra spec. */
  readonly field: string;
  readonly message: string;
}

export interface FlavorResolution {
  readonly flavors: readonly Flavor[];
  readonly problems: readonly FlavorProblem[];
}

/** The part of a Nova flavor the inventory reads. */
export type NovaFlavorLike = Pick<NovaFlavor, 'id' | 'name' | 'vcpus' | 'ram' | 'disk' | 'extra_specs'>;

const COMPUTE_FIELD = 'spec.openstack.compute';
export const PCI_ALIAS_SPEC = 'pci_passthrough:alias';
export const VGPU_SPEC = 'resources:VGPU';

/** The Region's fields; `metadata` given explicitly replaces `compute.flavorMetadata`. */
export const flavorInventoryConfigOf = (openstack: RegionSpec['openstack'], metadata: readonly FlavorMetadata[] = openstack.compute?.flavorMetadata ?? []): FlavorInventoryConfig => ({
  ...(openstack.defaultArchitecture !== undefined ? { defaultArchitecture: openstack.defaultArchitecture } : {}),
  ...(openstack.compute?.baremetalFlavorIDs !== undefined ? { baremetalFlavorIDs: openstack.compute.baremetalFlavorIDs } : {}),
  ...(openstack.compute?.flavorSelector !== undefined ? { flavorSelector: openstack.compute.flavorSelector } : {}),
  metadata,
});

const positiveInt = (text: string): number | undefined => (/^[1-9][0-9]*$/.test(text.trim()) ? Number(text.trim()) : undefined);

/** What Nova's extra specs say about GPUs (F4), with the problems found reading them. Pure. */
export const gpuFromExtraSpecs = (flavorId: string, specs: Readonly<Record<string, string>> = {}): { gpu?: FlavorGpu; problems: FlavorProblem[] } => {
  const problems: FlavorProblem[] = [];
  const field = (key: string) => `nova flavor ${flavorId} extra spec ${key}`;
  let passthrough: FlavorGpu | undefined;
  let vgpu: FlavorGpu | undefined;
  const alias = specs[PCI_ALIAS_SPEC];
  if (alias !== undefined) {
    const entries = alias.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
    const parsed = entries.map((entry) => {
      const [name = '', count = '', ...rest] = entry.split(':');
      const n = positiveInt(count);
      return name.trim() !== '' && n !== undefined && rest.length === 0 ? { name: name.trim(), count: n } : undefined;
    });
    if (entries.length === 0 || parsed.some((p) => p === undefined)) {
      problems.push({ field: field(PCI_ALIAS_SPEC), message: `"${alias}" is not <alias>:<count>[,<alias>:<count>…]: ignored` });
    } else {
      const ok = parsed as { name: string; count: number }[];
      passthrough = { kind: 'passthrough', model: ok.map((p) => p.name).join(','), count: ok.reduce((sum, p) => sum + p.count, 0) };
    }
  }
  const vgpus = specs[VGPU_SPEC];
  if (vgpus !== undefined) {
    const n = positiveInt(vgpus);
    if (n === undefined) problems.push({ field: field(VGPU_SPEC), message: `"${vgpus}" is not a positive whole number of vGPUs: ignored` });
    else vgpu = { kind: 'vgpu', count: n };
  }
  if (passthrough && vgpu) {
    problems.push({ field: field(VGPU_SPEC), message: `the flavor also requests PCI passthrough (${PCI_ALIAS_SPEC}): the passthrough GPUs are exported, the vGPU request is not` });
    return { gpu: passthrough, problems };
  }
  const gpu = passthrough ?? vgpu;
  return gpu ? { gpu, problems } : { problems };
};

/** Nova's flavors + the Region's configuration → the exported flavors and the problems. Pure. */
export const resolveFlavors = (nova: readonly NovaFlavorLike[], config: FlavorInventoryConfig): FlavorResolution => {
  const problems: FlavorProblem[] = [];
  const byId = new Map(nova.map((f) => [f.id, f]));
  // F1: the selector, in its own order; omitted: Nova's order.
  let selected: NovaFlavorLike[];
  if (config.flavorSelector === undefined) {
    selected = [...nova];
  } else {
    selected = [];
    config.flavorSelector.ids.forEach((id, i) => {
      const f = byId.get(id);
      if (f) selected.push(f);
      else problems.push({ field: `${COMPUTE_FIELD}.flavorSelector.ids[${i}]`, message: `Nova has no flavor ${id}: not exported` });
    });
  }
  const baremetal = new Set(config.baremetalFlavorIDs ?? []);
  (config.baremetalFlavorIDs ?? []).forEach((id, i) => {
    if (!byId.has(id)) problems.push({ field: `${COMPUTE_FIELD}.baremetalFlavorIDs[${i}]`, message: `Nova has no flavor ${id}: nothing is marked baremetal by it` });
  });
  const metadata = new Map<string, { entry: FlavorMetadata; field: string }>();
  const exported = new Set(selected.map((f) => f.id));
  (config.metadata ?? []).forEach((m, i) => {
    const field = `${COMPUTE_FIELD}.flavorMetadata[${i}]`;
    // F5: configuration that exports nothing must be visible, not silently ignored
    if (!exported.has(m.id)) problems.push({ field: `${field}.id`, message: `metadata for flavor ${m.id}, which is not exported: ignored` });
    else if (metadata.has(m.id)) problems.push({ field: `${field}.id`, message: `second metadata entry for flavor ${m.id}: ignored (the first wins)` });
    else metadata.set(m.id, { entry: m, field });
  });

  const flavors = selected.map((f): Flavor => {
    const found = metadata.get(f.id);
    const m = found?.entry;
    const fromSpecs = gpuFromExtraSpecs(f.id, f.extra_specs);
    problems.push(...fromSpecs.problems);
    const gpu = mergeGpu(found?.field ?? '', fromSpecs.gpu, m?.gpu, problems);
    return {
      id: f.id,
      name: f.name,
      cpus: f.vcpus,
      memoryMiB: f.ram,
      diskGiB: f.disk,
      // F2
      architecture: m?.cpu?.architecture ?? config.defaultArchitecture ?? LEGACY_ARCHITECTURE,
      // F3
      baremetal: baremetal.has(f.id),
      ...(gpu ? { gpu } : {}),
    };
  });
  return { flavors, problems };
};

/** F4: configuration wins field by field over what the extra specs say. */
const mergeGpu = (field: string, discovered: FlavorGpu | undefined, configured: FlavorMetadata['gpu'], problems: FlavorProblem[]): FlavorGpu | undefined => {
  if (!configured) return discovered;
  if (!discovered) {
    if (configured.count === undefined || configured.count < 1) {
      problems.push({ field: `${field}.gpu.count`, message: 'a configured GPU on a flavor whose extra specs request none needs a positive count: no GPU exported' });
      return undefined;
    }
    return { kind: 'configured', ...(configured.vendor ? { vendor: configured.vendor } : {}), ...(configured.model ? { model: configured.model } : {}), count: configured.count };
  }
  if (configured.count !== undefined && configured.count !== discovered.count) {
    problems.push({ field: `${field}.gpu.count`, message: `configured ${configured.count}, Nova's extra specs request ${discovered.count}: the configured count is exported` });
  }
  const vendor = configured.vendor ?? discovered.vendor;
  const model = configured.model ?? discovered.model;
  return { kind: discovered.kind, ...(vendor ? { vendor } : {}), ...(model ? { model } : {}), count: configured.count ?? discovered.count };
};

export interface RegionFlavors {
  readonly region: Region;
  readonly flavors: readonly Flavor[];
  readonly problems: readonly FlavorProblem[];
}

/** What the inventory needs of RegionConnections (src/provider/regions/connections.ts). */
export interface ConnectionSource {
  region(namespace: string, name: string): Promise<RegionConnection | undefined>;
}

export interface FlavorInventoryOptions {
  /** Per-flavor metadata of a Region in place of its `compute.flavorMetadata` (tests, tools); undefined: the Region's. */
  readonly metadataOf?: (region: Region) => readonly FlavorMetadata[] | undefined;
}

const keyOf = (c: RegionConnection): string => `${c.region.metadata.uid}:${c.region.metadata.generation ?? 1}:${c.secretVersion}`;

/**
 * The flavors each Region exports. Nova's flavor list (GET /flavors/detail at the session's compute
 * microversion, ≥ 2.61, so each flavor carries its extra_specs inline: no per-flavor extra-spec call) is
 * listed once per connection and kept with it; a failed list is not kept. Nova lists the public
 * flavors here (the default `is_public=true`): a private flavor is never exported, and naming one in the
 * selector is reported as "Nova has no flavor".
 */
export class FlavorInventory {
  private readonly cache = new Map<string, { key: string; flavors: Promise<NovaFlavorLike[]> }>();

  constructor(
    private readonly connections: ConnectionSource,
    private readonly options: FlavorInventoryOptions = {},
  ) {}

  /** The Region's exported flavors and problems; undefined when there is no such Region. */
  async flavors(namespace: string, name: string): Promise<RegionFlavors | undefined> {
    const connection = await this.connections.region(namespace, name);
    if (!connection) return undefined;
    const region = connection.region;
    const nova = await this.discover(connection);
    const config = flavorInventoryConfigOf(region.spec.openstack, this.options.metadataOf?.(region) ?? region.spec.openstack.compute?.flavorMetadata ?? []);
    const resolution = resolveFlavors(nova, config);
    return { region, flavors: resolution.flavors, problems: resolution.problems };
  }

  forget(regionUid: string): void {
    this.cache.delete(regionUid);
  }

  private discover(connection: RegionConnection): Promise<NovaFlavorLike[]> {
    const uid = connection.region.metadata.uid;
    const key = keyOf(connection);
    const cached = this.cache.get(uid);
    if (cached && cached.key === key) return cached.flavors;
    const flavors = connection.session.nova.listFlavors();
    this.cache.set(uid, { key, flavors });
    flavors.catch(() => {
      if (this.cache.get(uid)?.key === key) this.cache.delete(uid);
    });
    return flavors;
  }
}
