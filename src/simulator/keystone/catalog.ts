// The service catalog. Every endpoint points back at this one simulator, under devstack's prefixes.
import { stableHex } from '../ids.js';

export const REGION = 'RegionOne';

interface ServiceDef { type: string; name: string; path: (projectId: string | null) => string | null }

export const SERVICES: ServiceDef[] = [
  { type: 'identity', name: 'keystone', path: () => '/identity/v3' },
  { type: 'compute', name: 'nova', path: () => '/compute/v2.1' },
  { type: 'image', name: 'glance', path: () => '/image' },
  // Keystone drops endpoints whose $(project_id)s it cannot fill (unscoped and domain-scoped tokens).
  { type: 'volumev3', name: 'cinderv3', path: (p) => (p ? `/volume/v3/${p}` : null) },
  { type: 'block-storage', name: 'cinder', path: (p) => (p ? `/volume/v3/${p}` : null) },
  { type: 'network', name: 'neutron', path: () => '/network' },
  { type: 'load-balancer', name: 'octavia', path: () => '/load-balancer' },
  { type: 'placement', name: 'placement', path: () => '/placement' },
  { type: 'baremetal', name: 'ironic', path: () => '/baremetal' },
];

const INTERFACES = ['public', 'internal', 'admin'] as const;

export function catalog(baseUrl: string, projectId: string | null): unknown[] {
  return SERVICES.map((s) => {
    const path = s.path(projectId);
    return {
      id: stableHex(`service:${s.type}`),
      type: s.type,
      name: s.name,
      endpoints: path === null ? [] : INTERFACES.map((i) => ({
        id: stableHex(`endpoint:${s.type}:${i}`), interface: i, region: REGION, region_id: REGION, url: `${baseUrl}${path}`,
      })),
    };
  });
}

/** GET /v3/services and /v3/endpoints, for admins who inspect the catalog directly. */
export function serviceList(baseUrl: string): { services: unknown[]; endpoints: unknown[] } {
  const services = SERVICES.map((s) => ({
    id: stableHex(`service:${s.type}`), type: s.type, name: s.name, enabled: true, description: `${s.name} (simulated)`,
    links: { self: `${baseUrl}/identity/v3/services/${stableHex(`service:${s.type}`)}` },
  }));
  const endpoints = SERVICES.flatMap((s) => INTERFACES.map((i) => ({
    id: stableHex(`endpoint:${s.type}:${i}`), interface: i, region: REGION, region_id: REGION,
    service_id: stableHex(`service:${s.type}`), enabled: true,
    url: `${baseUrl}${(s.path('$(project_id)s') ?? '')}`,
    links: { self: `${baseUrl}/identity/v3/endpoints/${stableHex(`endpoint:${s.type}:${i}`)}` },
  })));
  return { services, endpoints };
}
