/**
 * Endpoint selection from a Keystone v3 catalog: by service type (with the service-types-authority aliases),
 * interface (public by default) and region. Ambiguity is an error, never a coin toss: two regions offering the
 * same service with no region configured would otherwise send writes to whichever the catalog listed first.
 */
import * as t from 'io-ts';
import { EndpointNotFound } from '../errors.js';
import { nullable } from '../decoders/field.js';
import type { EndpointInterface } from './clouds-config.js';

export const catalogEndpointCodec = t.intersection([
  t.type({ interface: t.string, url: t.string }),
  t.partial({ id: t.string, region: nullable(t.string), region_id: nullable(t.string) }),
]);
export const catalogEntryCodec = t.intersection([
  t.type({ type: t.string, endpoints: t.array(catalogEndpointCodec) }),
  t.partial({ id: t.string, name: t.string }),
]);
export type CatalogEndpoint = t.TypeOf<typeof catalogEndpointCodec>;
export type CatalogEntry = t.TypeOf<typeof catalogEntryCodec>;

/** Regent's service types, each with the catalog types that may carry it, in order of preference. */
export const SERVICE_TYPE_ALIASES = {
  compute: ['compute'],
  image: ['image'],
  'block-storage': ['block-storage', 'volumev3'],
  network: ['network'],
  'load-balancer': ['load-balancer'],
  placement: ['placement'],
  baremetal: ['baremetal'],
  identity: ['identity'],
} as const;
export type ServiceType = keyof typeof SERVICE_TYPE_ALIASES;

/** `volumev3` → `block-storage`; unknown types are returned unchanged (and will not be found). */
export const canonicalServiceType = (type: string): ServiceType | undefined => {
  for (const [canonical, aliases] of Object.entries(SERVICE_TYPE_ALIASES)) {
    if (canonical === type || (aliases as readonly string[]).includes(type)) return canonical as ServiceType;
  }
  return undefined;
};

export interface EndpointQuery {
  type: ServiceType | 'volumev3';
  interface?: EndpointInterface;
  region?: string;
}

const regionOf = (e: CatalogEndpoint): string | undefined => e.region_id ?? e.region ?? undefined;

/** The raw catalog URL for a service. */
export const selectEndpoint = (catalog: readonly CatalogEntry[], query: EndpointQuery): string => {
  const canonical = canonicalServiceType(query.type);
  const iface = query.interface ?? 'public';
  const describe = `${query.type} (interface ${iface}${query.region !== undefined ? `, region ${query.region}` : ''})`;
  if (canonical === undefined) throw new EndpointNotFound(`unknown service type ${query.type}`);
  for (const catalogType of SERVICE_TYPE_ALIASES[canonical]) {
    const entries = catalog.filter((entry) => entry.type === catalogType);
    const endpoints = entries.flatMap((entry) => entry.endpoints).filter((e) => e.interface === iface || e.interface === `${iface}URL`);
    const inRegion = query.region === undefined ? endpoints : endpoints.filter((e) => regionOf(e) === query.region);
    if (inRegion.length === 0) continue;
    const urls = [...new Set(inRegion.map((e) => e.url.replace(/\/+$/, '')))];
    if (urls.length > 1) {
      const regions = [...new Set(inRegion.map((e) => regionOf(e) ?? '(none)'))];
      throw new EndpointNotFound(`catalog has ${urls.length} endpoints for ${describe} in regions ${regions.join(', ')}: configure region_name`);
    }
    return urls[0] as string;
  }
  throw new EndpointNotFound(`catalog has no endpoint for ${describe}`);
};

/**
 * The base URL clients append their paths to. Catalogs differ in whether they register the versioned URL
 * (`/v2.1`, `/v3/{project}`) or the service root (`:9292`, `:9696`): add the version segment only when missing.
 */
export const serviceBaseUrl = (type: ServiceType, catalogUrl: string): string => {
  const url = catalogUrl.replace(/\/+$/, '');
  const endsWith = (re: RegExp): boolean => re.test(url);
  switch (type) {
    case 'compute':
      return endsWith(/\/v2(\.1)?(\/[^/]+)?$/) ? url : `${url}/v2.1`;
    case 'image':
      return endsWith(/\/v2(\.\d+)?$/) ? url : `${url}/v2`;
    case 'block-storage':
      return /\/v3(\/|$)/.test(url) ? url : `${url}/v3`;
    case 'network':
      return endsWith(/\/v2\.0$/) ? url : `${url}/v2.0`;
    case 'load-balancer':
      return endsWith(/\/v2(\.0)?$/) ? url : `${url}/v2`;
    case 'baremetal':
      return endsWith(/\/v1$/) ? url : `${url}/v1`;
    case 'identity':
      return endsWith(/\/v3$/) ? url : `${url}/v3`;
    case 'placement':
      return url;
  }
};
