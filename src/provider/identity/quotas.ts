/**
 * The quota Regent applies to each Identity's OpenStack project (issue 16, "Quota and roles";
 * openstack-provider.md: "Quota and role behaviour are not purely discovered from OpenStack defaults").
 *
 * Pure rules first — the desired quota (Regent's defaults with the Region's overrides merged key by key) and
 * the drift between desired and observed — then a thin shell that reads and writes through the services'
 * quota APIs with an admin (Region) session: Nova `os-quota-sets`, Neutron `quotas`, Cinder `os-quota-sets`.
 *
 * Values are integers; `-1` is unlimited and is compared exactly like any other number (desired -1 against
 * observed 10 is drift, and so is desired 10 against observed -1). Only the keys Regent desires are
 * compared: whatever else a service reports (Nova's `key_pairs`, Cinder's per-volume-type keys) is the
 * service's default and left alone.
 */
import type { OpenStackSession } from '../../openstack/session.js';

export type QuotaService = 'compute' | 'network' | 'volume';
/** Quota key → limit; -1 = unlimited. Keys are the service's own (`instances`, `floatingip`, `gigabytes`). */
export type QuotaValues = Readonly<Record<string, number>>;
export type QuotaSettings = Readonly<Partial<Record<QuotaService, QuotaValues>>>;

/** In the order drift is reported and writes are sent. */
export const QUOTA_SERVICES: readonly QuotaService[] = ['compute', 'network', 'volume'];

/**
 * What Regent applies when the Region says nothing.
 *
 * - compute `instances`/`cores`/`ram` unlimited: an Identity's project is Regent's, and Regent admits its
 *   Servers against the Region's capacity (flavors, Placement) itself. OpenStack's stock per-project defaults
 *   (10 instances, 20 cores, 50 GiB RAM) are sized for hand-made tenants and would refuse Regent's creates
 *   with a 403 that says nothing about the Region's actual room.
 * - network `floatingip` 3: public addresses come from a pool every project of the Region shares, so an
 *   Identity gets a small, explicit share (Neutron's default is 50) rather than the power to drain it.
 * - Everything else (volumes, ports, security groups, …) stays at the cloud's own default: those are the
 *   operator's to size, and a Region that wants otherwise names the keys.
 */
export const DEFAULT_IDENTITY_QUOTAS: QuotaSettings = Object.freeze({
  compute: Object.freeze({ instances: -1, cores: -1, ram: -1 }),
  network: Object.freeze({ floatingip: 3 }),
});

/**
 * Region overrides merged key by key over the defaults: an override replaces only the keys it names, and a
 * service the Region names replaces nothing else (naming `network` keeps the compute defaults). A service
 * with no key left is omitted.
 */
export const desiredQuotas = (overrides: QuotaSettings | undefined): QuotaSettings => {
  const out: Partial<Record<QuotaService, QuotaValues>> = {};
  for (const service of QUOTA_SERVICES) {
    const merged = { ...(DEFAULT_IDENTITY_QUOTAS[service] ?? {}), ...(overrides?.[service] ?? {}) };
    if (Object.keys(merged).length > 0) out[service] = merged;
  }
  return out;
};

/**
 * Why a QuotaSettings cannot be applied, one line per bad value (path `compute.instances`), empty when all are
 * integers ≥ -1. The services refuse anything else with a 400; the Region codec can report it first.
 */
export const quotaProblems = (settings: QuotaSettings | undefined): string[] => {
  const problems: string[] = [];
  for (const service of Object.keys(settings ?? {}).sort()) {
    if (!(QUOTA_SERVICES as readonly string[]).includes(service)) {
      problems.push(`${service}: not a quota service (expected one of ${QUOTA_SERVICES.join(', ')})`);
      continue;
    }
    const values = settings?.[service as QuotaService] ?? {};
    for (const key of Object.keys(values).sort()) {
      const value = values[key];
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -1) {
        problems.push(`${service}.${key}: ${String(value)} is not a quota (an integer ≥ 0, or -1 for unlimited)`);
      }
    }
  }
  return problems;
};

export interface QuotaDrift {
  service: QuotaService;
  key: string;
  want: number;
  /** undefined: the service did not report the key. */
  have: number | undefined;
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Every desired key whose observed value differs (an absent key counts as drift). Sorted by service then key. */
export const quotaDrift = (desired: QuotaSettings, observed: QuotaSettings): QuotaDrift[] => {
  const drift: QuotaDrift[] = [];
  for (const service of QUOTA_SERVICES) {
    const want = desired[service];
    if (want === undefined) continue;
    const have = observed[service] ?? {};
    for (const key of Object.keys(want).sort(byCodeUnit)) {
      const w = want[key] as number;
      const h = Object.prototype.hasOwnProperty.call(have, key) ? have[key] : undefined;
      if (h !== w) drift.push({ service, key, want: w, have: h });
    }
  }
  return drift;
};

export type QuotaSession = Pick<OpenStackSession, 'nova' | 'neutron' | 'cinder'>;

const read = (session: QuotaSession, service: QuotaService, projectId: string): Promise<Record<string, number>> => {
  switch (service) {
    case 'compute': return session.nova.getQuotaSet(projectId);
    case 'network': return session.neutron.getQuota(projectId);
    case 'volume': return session.cinder.getQuotaSet(projectId);
  }
};

const write = (session: QuotaSession, service: QuotaService, projectId: string, values: QuotaValues): Promise<Record<string, number>> => {
  switch (service) {
    case 'compute': return session.nova.updateQuotaSet(projectId, values);
    case 'network': return session.neutron.updateQuota(projectId, values);
    case 'volume': return session.cinder.updateQuotaSet(projectId, values);
  }
};

/**
 * Reads the project's quotas of the services `desired` names, with an admin (region) session: one GET per
 * service, each answer whole (every key the service reports). A failed read throws the client's typed error
 * (Forbidden for a member token reading another project, NotFound for an unknown service endpoint, …).
 */
export const readQuotas = async (session: QuotaSession, projectId: string, desired: QuotaSettings): Promise<QuotaSettings> => {
  const services = QUOTA_SERVICES.filter((s) => desired[s] !== undefined);
  const answers = await Promise.all(services.map((s) => read(session, s, projectId)));
  const out: Partial<Record<QuotaService, QuotaValues>> = {};
  services.forEach((s, i) => { out[s] = answers[i] as QuotaValues; });
  return out;
};

/**
 * Writes only the drifted keys, one PUT per service that drifted (compute, network, volume, in that order,
 * one after the other); returns what it wrote. Writes are not retried (the client sends a PUT once): a PUT
 * that fails throws its typed error, and the services before it stay written — a later read shows it, and the
 * next drift is smaller. Nova and Cinder refuse a limit below what the project already uses (400, BadRequest);
 * Regent does not send `force`.
 */
export const applyQuotas = async (session: QuotaSession, projectId: string, drift: readonly QuotaDrift[]): Promise<QuotaSettings> => {
  const byService: Partial<Record<QuotaService, Record<string, number>>> = {};
  for (const d of drift) (byService[d.service] ??= {})[d.key] = d.want;
  const written: Partial<Record<QuotaService, QuotaValues>> = {};
  for (const service of QUOTA_SERVICES) {
    const values = byService[service];
    if (values === undefined) continue;
    await write(session, service, projectId, values);
    written[service] = values;
  }
  return written;
};
