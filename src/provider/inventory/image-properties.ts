/**
 * The Glance image properties the image inventory reads, their schema, and their translation into the
 * provider-neutral image (openstack-provider.md: "Image handling is a first-class contract surface").
 * Pure: no I/O, no clock. The shell is images.ts; the signature rule is image-signature.ts.
 *
 * The one table of property names (`IMAGE_PROPERTIES`; docs/images.md is the reference page). Glance keeps
 * custom properties as top-level string keys; the decoder (src/openstack/decoders/image.ts) collects them.
 *
 * | Glance property                | neutral field              | rule |
 * |--------------------------------|----------------------------|------|
 * | `architecture`                 | `architecture`             | x86_64 or aarch64; explicit wins, else the configured default, else x86_64 |
 * | `os_type`                      | `os.kernel`                | required: linux or windows |
 * | `os_distro`                    | `os.distro`                | required: lower-case slug (ubuntu, debian, rocky, windows, …) |
 * | `os_version`                   | `os.version`               | required: version text (22.04, 12, 2022) |
 * | `regent.dev:os:family`         | `os.family`                | optional: debian, redhat, suse, arch, windows, other |
 * | `regent.dev:os:variant`        | `os.variant`               | optional slug (server, desktop, minimal) |
 * | `regent.dev:os:codename`       | `os.codename`              | optional slug (jammy, bookworm) |
 * | `regent.dev:package:<name>`    | `packages[<name>]`         | optional, one per package: the version |
 * | `regent.dev:gpu:vendor`        | `gpu.vendor`               | NVIDIA, AMD or Intel; required when models or driver are given |
 * | `regent.dev:gpu:models`        | `gpu.models`               | comma-separated model names (A100,H100) |
 * | `regent.dev:gpu:driver`        | `gpu.driver`               | the driver version (535.104.05) |
 * | `regent.dev:organization-id`   | `ownership.organizationId` | scopes a non-public image to an organization |
 * | `regent.dev:project-id`        | `ownership.projectId`      | scopes it to a project (needs the organization) |
 * | `regent.dev:virtualization`    | `virtualization`           | virtualized, baremetal or any (default any) |
 * | `regent.dev:signature`         | (verification only)        | base64 signature of a public image (image-signature.ts) |
 * | Glance `tags`                  | `tags`                     | as Glance lists them, sorted |
 *
 * Why a schema at all (spec caveat: "image metadata translation is powerful but fragile"): these strings are
 * written by hand by whoever uploads an image; an image whose properties do not say what they must is
 * excluded — with the property and what was wrong in words an operator can act on — rather than exported
 * with half-guessed metadata a user would then choose a server by.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';

export const PROP = {
  architecture: 'architecture',
  kernel: 'os_type',
  distro: 'os_distro',
  version: 'os_version',
  family: 'regent.dev:os:family',
  variant: 'regent.dev:os:variant',
  codename: 'regent.dev:os:codename',
  packagePrefix: 'regent.dev:package:',
  gpuVendor: 'regent.dev:gpu:vendor',
  gpuModels: 'regent.dev:gpu:models',
  gpuDriver: 'regent.dev:gpu:driver',
  organization: 'regent.dev:organization-id',
  project: 'regent.dev:project-id',
  virtualization: 'regent.dev:virtualization',
  signature: 'regent.dev:signature',
} as const;

/** Every property name the inventory reads (packages by prefix): the table above, as data. */
export const IMAGE_PROPERTIES: readonly string[] = Object.values(PROP);

export const ARCHITECTURES = ['x86_64', 'aarch64'] as const;
export type Architecture = (typeof ARCHITECTURES)[number];
/** The legacy fallback when neither the image nor the configuration names an architecture (same as flavors). */
export const LEGACY_ARCHITECTURE: Architecture = 'x86_64';

export const KERNELS = ['linux', 'windows'] as const;
export const FAMILIES = ['debian', 'redhat', 'suse', 'arch', 'windows', 'other'] as const;
export const GPU_VENDORS = ['NVIDIA', 'AMD', 'Intel'] as const;
export const VIRTUALIZATIONS = ['virtualized', 'baremetal', 'any'] as const;
export type Virtualization = (typeof VIRTUALIZATIONS)[number];

const SLUG = '^[a-z0-9][a-z0-9._-]{0,63}$';
const VERSION = '^[0-9A-Za-z][0-9A-Za-z._+~-]{0,63}$';
const ID = '^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$';

/** The JSON schema of an image's custom properties (JSON Schema draft 2020-12: ajv 8's Ajv2020, for dependentRequired). */
export const IMAGE_PROPERTY_SCHEMA = {
  type: 'object',
  required: [PROP.kernel, PROP.distro, PROP.version],
  properties: {
    [PROP.architecture]: { type: 'string', enum: [...ARCHITECTURES] },
    [PROP.kernel]: { type: 'string', enum: [...KERNELS] },
    [PROP.distro]: { type: 'string', pattern: SLUG },
    [PROP.version]: { type: 'string', pattern: VERSION },
    [PROP.family]: { type: 'string', enum: [...FAMILIES] },
    [PROP.variant]: { type: 'string', pattern: SLUG },
    [PROP.codename]: { type: 'string', pattern: SLUG },
    [PROP.gpuVendor]: { type: 'string', enum: [...GPU_VENDORS] },
    [PROP.gpuModels]: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9 ._-]*(, ?[A-Za-z0-9][A-Za-z0-9 ._-]*)*$' },
    [PROP.gpuDriver]: { type: 'string', pattern: VERSION },
    [PROP.organization]: { type: 'string', pattern: ID },
    [PROP.project]: { type: 'string', pattern: ID },
    [PROP.virtualization]: { type: 'string', enum: [...VIRTUALIZATIONS] },
    [PROP.signature]: { type: 'string', pattern: '^[A-Za-z0-9+/]+={0,2}$' },
  },
  patternProperties: {
    '^regent\\.dev:package:': { type: 'string', pattern: VERSION },
  },
  dependentRequired: {
    [PROP.gpuModels]: [PROP.gpuVendor],
    [PROP.gpuDriver]: [PROP.gpuVendor],
    [PROP.project]: [PROP.organization],
  },
} as const;

/** What is wrong with one property, in words an operator can act on. */
export interface PropertyProblem {
  /** The Glance property at fault (`os_distro`, `regent.dev:gpu:vendor`). */
  readonly property: string;
  readonly message: string;
}

const ajv = new Ajv2020({ allErrors: true, strict: true });
const validateSchema = ajv.compile(IMAGE_PROPERTY_SCHEMA);

const shown = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : typeof value);

/** ajv's error → the property and a sentence (ajv's own text names JSON pointers, not Glance properties). */
const problemOf = (e: ErrorObject, properties: Readonly<Record<string, unknown>>): PropertyProblem => {
  const pointer = e.instancePath.replace(/^\//, '').replace(/~1/g, '/').replace(/~0/g, '~');
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { property: String(params.missingProperty), message: 'is missing (required)' };
    case 'dependentRequired':
      return { property: String(params.missingProperty), message: `is missing: ${String(params.property)} requires it` };
    case 'enum':
      return { property: pointer, message: `is ${shown(properties[pointer])}, expected one of ${(params.allowedValues as unknown[]).join(', ')}` };
    case 'pattern':
      return { property: pointer, message: `is ${shown(properties[pointer])}, which does not match ${String(params.pattern)}` };
    case 'type':
      return { property: pointer, message: `is ${shown(properties[pointer])}, expected a ${String(params.type)}` };
    default:
      return { property: pointer || '(properties)', message: e.message ?? e.keyword };
  }
};

/** The schema's verdict on an image's properties: no problems, or each one naming its property. Pure. */
export const validateImageProperties = (properties: Readonly<Record<string, unknown>>): readonly PropertyProblem[] => {
  if (validateSchema(properties)) return [];
  const problems = (validateSchema.errors ?? []).map((e) => problemOf(e, properties));
  return problems.sort((a, b) => a.property.localeCompare(b.property));
};

export interface OperatingSystem {
  readonly kernel: (typeof KERNELS)[number];
  readonly family?: (typeof FAMILIES)[number];
  readonly distro: string;
  readonly variant?: string;
  readonly version: string;
  readonly codename?: string;
}

export interface ImageGPU {
  readonly vendor: (typeof GPU_VENDORS)[number];
  readonly models: readonly string[];
  readonly driver?: string;
}

export type ImageOwnership =
  /** Anyone in the Region may use it (Glance visibility public or community). */
  | { readonly scope: 'public' }
  /** Only this organization (and, when given, project) may use it. */
  | { readonly scope: 'organization'; readonly organizationId: string; readonly projectId?: string }
  /** Named by no organization: the Glance owner project's own image (a snapshot, a private upload). */
  | { readonly scope: 'project'; readonly projectId: string };

/** The provider-neutral image: what a user chooses a server image by. */
export interface NeutralImage {
  readonly id: string;
  readonly name: string;
  /** Glance's status (only `active` images are bootable). */
  readonly status: string;
  readonly architecture: Architecture;
  /** Where the architecture came from: the image's property, the configured default, or the legacy fallback. */
  readonly architectureSource: 'image' | 'default' | 'legacy';
  readonly os: OperatingSystem;
  readonly packages: Readonly<Record<string, string>>;
  readonly gpu?: ImageGPU;
  readonly ownership: ImageOwnership;
  readonly virtualization: Virtualization;
  readonly tags: readonly string[];
  readonly minDiskGiB: number;
  readonly minRamMiB: number;
  /** True when the image was public and its signature verified against the configured key. */
  readonly signed: boolean;
}

/** The part of a Glance image translation reads (ImageObservation's fields, unwrapped). */
export interface GlanceImageLike {
  readonly id: string;
  readonly name: string | null;
  readonly status: string;
  readonly visibility: string;
  readonly owner: string | null;
  readonly minDisk: number;
  readonly minRam: number;
  readonly tags: readonly string[];
  readonly properties: Readonly<Record<string, unknown>>;
}

/** Visibility public or community: usable by everyone, so the one kind a signature is checked on. */
export const isPublic = (image: Pick<GlanceImageLike, 'visibility'>): boolean => image.visibility === 'public' || image.visibility === 'community';

/**
 * An explicit Glance `architecture` wins; else the configured default; else x86_64 (the spec's "same defensive
 * legacy fallback as flavor conversion", for configurations that bypass CRD defaulting). Pure.
 */
export const resolveArchitecture = (property: unknown, defaultArchitecture?: Architecture): { architecture: Architecture; source: NeutralImage['architectureSource'] } => {
  if (typeof property === 'string' && (ARCHITECTURES as readonly string[]).includes(property)) return { architecture: property as Architecture, source: 'image' };
  if (defaultArchitecture !== undefined) return { architecture: defaultArchitecture, source: 'default' };
  return { architecture: LEGACY_ARCHITECTURE, source: 'legacy' };
};

const str = (properties: Readonly<Record<string, unknown>>, key: string): string | undefined => {
  const v = properties[key];
  return typeof v === 'string' ? v : undefined;
};

const opt = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } => (value !== undefined ? ({ [key]: value } as { [P in K]: V }) : {});

/**
 * A schema-valid Glance image → the neutral image. Call only after `validateImageProperties` found nothing
 * (images.ts does): the casts below lean on the schema's enums. Pure.
 */
export const translateImage = (image: GlanceImageLike, options: { defaultArchitecture?: Architecture; signed: boolean }): NeutralImage => {
  const p = image.properties;
  const { architecture, source } = resolveArchitecture(p[PROP.architecture], options.defaultArchitecture);
  const packages: Record<string, string> = {};
  for (const key of Object.keys(p).sort()) {
    const value = p[key];
    if (key.startsWith(PROP.packagePrefix) && typeof value === 'string') packages[key.slice(PROP.packagePrefix.length)] = value;
  }
  const vendor = str(p, PROP.gpuVendor) as ImageGPU['vendor'] | undefined;
  const gpu: ImageGPU | undefined =
    vendor === undefined
      ? undefined
      : { vendor, models: (str(p, PROP.gpuModels) ?? '').split(',').map((m) => m.trim()).filter((m) => m !== ''), ...opt('driver', str(p, PROP.gpuDriver)) };
  const organizationId = str(p, PROP.organization);
  const ownership: ImageOwnership = isPublic(image)
    ? { scope: 'public' }
    : organizationId !== undefined
      ? { scope: 'organization', organizationId, ...opt('projectId', str(p, PROP.project)) }
      : { scope: 'project', projectId: image.owner ?? '' };
  return {
    id: image.id,
    name: image.name ?? '',
    status: image.status,
    architecture,
    architectureSource: source,
    os: {
      kernel: str(p, PROP.kernel) as OperatingSystem['kernel'],
      ...opt('family', str(p, PROP.family) as OperatingSystem['family']),
      distro: str(p, PROP.distro) ?? '',
      ...opt('variant', str(p, PROP.variant)),
      version: str(p, PROP.version) ?? '',
      ...opt('codename', str(p, PROP.codename)),
    },
    packages,
    ...(gpu !== undefined ? { gpu } : {}),
    ownership,
    virtualization: (str(p, PROP.virtualization) as Virtualization | undefined) ?? 'any',
    tags: [...image.tags].sort(),
    minDiskGiB: image.minDisk,
    minRamMiB: image.minRam,
    signed: options.signed,
  };
};
