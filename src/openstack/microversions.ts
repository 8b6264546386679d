/**
 * Pinned API microversions. Pinning (instead of "latest") keeps response shapes stable across cloud upgrades:
 * a cloud that gains 2.96 must not silently change what Regent decodes.
 *
 * compute 2.90: ≥ 2.89 is required (os-volume_attachments carries attachment_id and bdm_uuid, which tie a Nova
 * attachment to its Cinder row); ≤ 2.91 keeps keypair import semantics unchanged; the sandbox serves 2.1–2.93.
 * volume 3.60: ≥ 3.27 is required for the attachments API; 3.34 adds `name~=`.
 * placement 1.6 for providers/inventories/traits (traits appeared in 1.6); allocation candidates need ≥ 1.10 and
 * use 1.22 (required traits 1.17, forbidden `!TRAIT` 1.22).
 * load-balancer 2.22 is sent where a pool uses PROXYV2 (Octavia ignores it elsewhere).
 */
import { InvalidConfig } from './errors.js';

export interface Microversions {
  compute: string;
  volume: string;
  placement: string;
  placementCandidates: string;
  baremetal: string;
  loadBalancerProxyV2: string;
}

export const DEFAULT_MICROVERSIONS: Readonly<Microversions> = Object.freeze({
  compute: '2.90',
  volume: '3.60',
  placement: '1.6',
  placementCandidates: '1.22',
  baremetal: '1.46',
  loadBalancerProxyV2: '2.22',
});

const parse = (v: string): [number, number] | undefined => {
  const m = /^(\d+)\.(\d+)$/.exec(v);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
};

/** a ≥ b for "major.minor" versions. */
export const atLeast = (a: string, b: string): boolean => {
  const pa = parse(a);
  const pb = parse(b);
  if (pa === undefined || pb === undefined) return false;
  return pa[0] > pb[0] || (pa[0] === pb[0] && pa[1] >= pb[1]);
};

/** Defaults merged with overrides, refusing versions below what the clients rely on. */
export const resolveMicroversions = (overrides: Partial<Microversions> = {}): Microversions => {
  const mv = { ...DEFAULT_MICROVERSIONS, ...overrides };
  const need = (key: keyof Microversions, min: string, why: string): void => {
    if (!atLeast(mv[key], min)) throw new InvalidConfig(`microversion ${key} ${mv[key]} is unusable: need ≥ ${min} (${why})`);
  };
  need('compute', '2.89', 'attachment_id/bdm_uuid in os-volume_attachments');
  need('compute', '2.74', 'host/hypervisor_hostname on a server create (pinned servers)');
  need('volume', '3.27', 'the attachments API');
  need('placement', '1.6', 'resource provider traits');
  need('placementCandidates', '1.22', 'forbidden traits in allocation candidates');
  need('baremetal', '1.1', 'a pinned Ironic version');
  need('loadBalancerProxyV2', '2.22', 'PROXYV2 pools');
  return mv;
};

export const computeHeaders = (version: string): Record<string, string> => ({
  'OpenStack-API-Version': `compute ${version}`,
  'X-OpenStack-Nova-API-Version': version,
});
export const volumeHeaders = (version: string): Record<string, string> => ({ 'OpenStack-API-Version': `volume ${version}` });
export const placementHeaders = (version: string): Record<string, string> => ({ 'OpenStack-API-Version': `placement ${version}` });
export const baremetalHeaders = (version: string): Record<string, string> => ({ 'X-OpenStack-Ironic-API-Version': version });
export const loadBalancerHeaders = (version: string): Record<string, string> => ({ 'OpenStack-API-Version': `load-balancer ${version}` });
