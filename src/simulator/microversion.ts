// Microversion negotiation per service: read the request header, refuse what the service would refuse
// (400 malformed, 406 out of range), and produce the headers the service echoes.
import type { IncomingHttpHeaders } from 'node:http';
import { SimError } from './http.js';
import type { ServiceName } from './http.js';

export interface Version { major: number; minor: number }

interface Spec {
  /** Service type as written in `OpenStack-API-Version: <type> <version>`. */
  type: string;
  min: string;
  max: string;
  dflt: string;
  legacyHeader?: string;
}

export const MICROVERSIONS: Partial<Record<ServiceName, Spec>> = {
  nova: { type: 'compute', min: '2.1', max: '2.96', dflt: '2.1', legacyHeader: 'x-openstack-nova-api-version' },
  cinder: { type: 'volume', min: '3.0', max: '3.70', dflt: '3.0' },
  placement: { type: 'placement', min: '1.0', max: '1.39', dflt: '1.0' },
  // Real Octavia does not negotiate; see README "Where it deliberately differs".
  octavia: { type: 'load-balancer', min: '2.0', max: '2.27', dflt: '2.0' },
  ironic: { type: 'baremetal', min: '1.1', max: '1.81', dflt: '1.1', legacyHeader: 'x-openstack-ironic-api-version' },
};

export const parseVersion = (s: string): Version | null => {
  const m = /^(\d+)\.(\d+)$/.exec(s.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
};

export const cmp = (a: Version, b: Version): number => a.major - b.major || a.minor - b.minor;
export const fmt = (v: Version): string => `${v.major}.${v.minor}`;

const literals = new Map<string, Version>();

/** True when the negotiated version is at least `v` ("2.47"). Literals are parsed once (hot in list views). */
export function atLeast(mv: Version, v: string): boolean {
  let b = literals.get(v);
  if (!b) {
    const parsed = parseVersion(v);
    if (!parsed) throw new Error(`bad version literal ${v}`);
    literals.set(v, (b = parsed));
  }
  return mv.major > b.major || (mv.major === b.major && mv.minor >= b.minor);
}

const NONE: Version = { major: 0, minor: 0 };

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

export function negotiate(service: ServiceName, headers: IncomingHttpHeaders): { version: Version; echo: Record<string, string> } {
  const spec = MICROVERSIONS[service];
  if (!spec) return { version: NONE, echo: {} };
  let requested: string | undefined;
  const generic = headerValue(headers, 'openstack-api-version');
  if (generic) {
    for (const part of generic.split(',')) {
      const [type, value] = part.trim().split(/\s+/);
      if (type?.toLowerCase() === spec.type && value) requested = value;
    }
  }
  if (requested === undefined && spec.legacyHeader) requested = headerValue(headers, spec.legacyHeader);
  const min = parseVersion(spec.min) as Version;
  const max = parseVersion(spec.max) as Version;
  let version: Version;
  if (requested === undefined) version = parseVersion(spec.dflt) as Version;
  else if (requested.trim().toLowerCase() === 'latest') version = max;
  else {
    const v = parseVersion(requested);
    if (!v) throw new SimError(400, `API Version String ${requested} is of invalid format. Must be of format MajorNum.MinorNum.`);
    if (cmp(v, min) < 0 || cmp(v, max) > 0) {
      throw new SimError(406, `Version ${requested} is not supported by the API. Minimum is ${spec.min} and maximum is ${spec.max}.`);
    }
    version = v;
  }
  const echo: Record<string, string> = { 'OpenStack-API-Version': `${spec.type} ${fmt(version)}`, Vary: 'OpenStack-API-Version' };
  if (service === 'nova') {
    echo['X-OpenStack-Nova-API-Version'] = fmt(version);
    echo.Vary = 'OpenStack-API-Version, X-OpenStack-Nova-API-Version';
  }
  if (service === 'ironic') {
    echo['X-OpenStack-Ironic-API-Version'] = fmt(version);
    echo['X-OpenStack-Ironic-API-Minimum-Version'] = spec.min;
    echo['X-OpenStack-Ironic-API-Maximum-Version'] = spec.max;
  }
  return { version, echo };
}
