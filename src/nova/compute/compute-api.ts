/**
 * The client a NovaCompute pool calls Keystone, Nova and Placement through (spec: nova-operator.md,
 * reconcileNovaComputeAggregates, reconcileNovaComputeServices, reconcileNovaComputeTraits).
 *
 * Built on src/openstack (HttpSession, KeystoneSession, catalog, microversions, typed errors); no second HTTP
 * stack. One opened client authenticates once (one token per reconcile pass); Nova is called at the URL the
 * Nova reports (its status.endpoint, with or without /v2.1), Placement at the catalog's endpoint.
 *
 * Microversions: os-services, servers and aggregates at compute 2.69 (a down cell's services are listed as
 * status UNKNOWN from 2.69 on, and fail the read instead of reading as "no service"); os-hypervisors at 2.88
 * (a host without a host mapping is left out); Placement traits at 1.6. `calls` records every call with the
 * microversion sent and the status answered, never a header value, a body or a token.
 *
 * Every failure is a ComputeApiError: the typed error of the layer, its message redacted against the password
 * and every token the client held.
 */
import type { Logger } from '../../log/logger.js';
import { silentLogger } from '../../log/logger.js';
import type { CancelScope } from '../../openstack/cancel.js';
import { EndpointNotFound, OpenStackError, redact } from '../../openstack/errors.js';
import type { HttpResponse, HttpSessionOptions, RequestSpec } from '../../openstack/http.js';
import { HttpSession } from '../../openstack/http.js';
import type { CatalogEntry } from '../../openstack/keystone/catalog.js';
import { selectEndpoint, serviceBaseUrl } from '../../openstack/keystone/catalog.js';
import type { CloudConfig, EndpointInterface } from '../../openstack/keystone/clouds-config.js';
import { normalizeAuthUrl } from '../../openstack/keystone/clouds-config.js';
import { KeystoneSession } from '../../openstack/keystone/session.js';
import { computeHeaders, resolveMicroversions } from '../../openstack/microversions.js';
import { listAllPages } from '../../openstack/paging.js';
import type { RetryPolicy } from '../../openstack/retry.js';
import { listHypervisors } from '../../openstack/nova/hypervisors.js';
import { deleteComputeService, listComputeServiceEntries, updateComputeService } from '../../openstack/nova/services.js';
import * as aggregates from '../../openstack/nova/aggregates.js';
import type { Aggregate } from '../../openstack/decoders/compute.js';
import * as placement from '../../openstack/placement.js';

/** os-services, servers and aggregates: 2.69 lists a down cell's services as status UNKNOWN. */
export const COMPUTE_SERVICES_MICROVERSION = '2.69';
/** os-hypervisors: 2.88 (no usage counters; hosts without a host mapping are left out by Nova). */
export const COMPUTE_HYPERVISORS_MICROVERSION = '2.88';
/** Placement traits appeared in 1.6. */
export const PLACEMENT_TRAITS_MICROVERSION = '1.6';

export interface ComputeApiLogin {
  /** Keystone v3, e.g. http://127.0.0.1:5000/v3 (a URL without /v3 gets it). */
  authURL: string;
  /** The Nova API endpoint (the Nova's status.endpoint), with or without /v2.1. */
  novaURL: string;
  username: string;
  password: string;
  projectName: string;
  userDomainName: string;
  projectDomainName: string;
  /** Catalog filter for Placement. */
  regionName?: string;
  /** Catalog interface for Placement (default: internal, else public). */
  interface?: EndpointInterface;
}

export interface ComputeServiceRow {
  id: string;
  host: string;
  status: 'enabled' | 'disabled';
  state: 'up' | 'down' | 'unknown';
  zone: string | null;
  disabledReason: string | null;
}

export interface AggregateRow {
  id: string;
  name: string;
  zone: string | null;
  hosts: string[];
  metadata: Record<string, string>;
}

export type ComputeApiService = 'identity' | 'compute' | 'placement';

export interface RecordedComputeCall {
  service: ComputeApiService;
  method: string;
  /** Path relative to the service endpoint, without the query string. */
  path: string;
  /** The microversion sent (compute `2.69`, placement `1.6`), null when none. */
  microversion: string | null;
  /** The HTTP status answered, null while in flight or when no answer came. */
  status: number | null;
}

export interface ComputeApi {
  /** GET /os-services?binary=nova-compute at 2.69. A row of a cell that did not answer raises ComputeApiError with cellDown. */
  listComputeServices(): Promise<ComputeServiceRow[]>;
  /** GET /os-hypervisors/detail at 2.88: the `service.host` of every hypervisor Nova lists (mapped hosts). */
  mappedHosts(): Promise<Set<string>>;
  /** PUT /os-services/{id} {status: disabled, disabled_reason} at 2.69. */
  disableService(id: string, reason: string): Promise<void>;
  /** DELETE /os-services/{id} at 2.69; 404 is success (already gone). */
  deleteService(id: string): Promise<void>;
  /** GET /servers/detail?all_tenants=1&host=<host> at 2.69, every page: the number of servers on the host. */
  serversOnHost(host: string): Promise<number>;
  /** GET /os-aggregates at 2.69. */
  listAggregates(): Promise<AggregateRow[]>;
  /** POST /os-aggregates at 2.69; 409 is a ComputeApiError with conflict. */
  createAggregate(name: string, zone: string | null): Promise<AggregateRow>;
  /** POST /os-aggregates/{id}/action set_metadata at 2.69 (a null value removes the key). */
  setAggregateMetadata(id: string, metadata: Record<string, string | null>): Promise<AggregateRow>;
  /** DELETE /os-aggregates/{id} at 2.69; 404 is success. */
  deleteAggregate(id: string): Promise<void>;
  /** GET /traits/{name} at placement 1.6: true when it exists, false on 404. */
  traitExists(name: string): Promise<boolean>;
  /** PUT /traits/{name} at 1.6: 'created' on 201, 'existed' on 204. */
  createTrait(name: string): Promise<'created' | 'existed'>;
  /** DELETE /traits/{name} at 1.6: 'deleted' on 204, 'absent' on 404, 'inUse' on 409. */
  deleteTrait(name: string): Promise<'deleted' | 'absent' | 'inUse'>;
  /** Every call made, in the order sent; no header values, no bodies, no token. */
  readonly calls: readonly RecordedComputeCall[];
}

/** A failed Keystone, Nova or Placement call. The message never carries the password or a token. */
export class ComputeApiError extends Error {
  readonly service: ComputeApiService;
  /** The HTTP status, when the service answered. */
  readonly status?: number;
  /** The layer's reason (not-found, conflict, unauthorized, timeout, …; `cell-down` for a down cell). */
  readonly reason: string;
  /** A cell did not answer (os-services at 2.69 listed a service with status UNKNOWN). */
  readonly cellDown?: boolean;
  /** Nova or Placement answered 409. */
  readonly conflict?: boolean;
  readonly method?: string;
  readonly path?: string;
  readonly requestId?: string;

  constructor(message: string, fields: { service: ComputeApiService; reason: string; status?: number; cellDown?: boolean; method?: string; path?: string; requestId?: string }) {
    super(message);
    this.name = 'ComputeApiError';
    this.service = fields.service;
    this.reason = fields.reason;
    if (fields.status !== undefined) this.status = fields.status;
    if (fields.status === 409) this.conflict = true;
    if (fields.cellDown === true) this.cellDown = true;
    if (fields.method !== undefined) this.method = fields.method;
    if (fields.path !== undefined) this.path = fields.path;
    if (fields.requestId !== undefined) this.requestId = fields.requestId;
  }

  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, service: this.service, reason: this.reason, message: this.message };
    for (const key of ['status', 'cellDown', 'conflict', 'method', 'path', 'requestId'] as const) if (this[key] !== undefined) out[key] = this[key];
    return out;
  }
}

export interface ComputeApiOptions {
  /** Per-attempt timeout (default 30 s, the layer's). */
  timeoutMs?: number;
  /** Abandons every request in flight (Cancelled → ComputeApiError reason cancelled). */
  cancel?: CancelScope;
  /** Retry policy of reads (the layer's default: 3 retries with backoff). */
  retry?: RetryPolicy;
  logger?: Logger;
  /** Page size of the servers walk (default: Nova's, at most 1000). */
  serverPageSize?: number;
}

/** The `major.minor` microversion a request carries, read from the headers it is sent with. */
const microversionOf = (service: ComputeApiService, headers: Readonly<Record<string, string>>): string | null => {
  if (service === 'identity') return null;
  const nova = headers['X-OpenStack-Nova-API-Version'];
  if (service === 'compute' && nova !== undefined) return nova;
  const generic = headers['OpenStack-API-Version'];
  if (generic === undefined) return null;
  const [, version] = generic.trim().split(/\s+/);
  return version ?? null;
};

/** An HttpSession that appends every call to a shared log (before it is sent, with its status once answered). */
class RecordingHttpSession extends HttpSession {
  constructor(options: HttpSessionOptions, private readonly recorded: RecordedComputeCall[], private readonly kind: ComputeApiService) {
    super(options);
    this.sessionHeaders = options.headers ?? {};
  }

  private readonly sessionHeaders: Readonly<Record<string, string>>;

  override async request(spec: RequestSpec): Promise<HttpResponse> {
    const entry: RecordedComputeCall = {
      service: this.kind, method: spec.method, path: spec.path.split('?')[0] ?? spec.path,
      microversion: microversionOf(this.kind, { ...this.sessionHeaders, ...spec.headers }), status: null,
    };
    this.recorded.push(entry);
    try {
      const response = await super.request(spec);
      entry.status = response.status;
      return response;
    } catch (error: unknown) {
      if (error instanceof OpenStackError && error.status !== undefined) entry.status = error.status;
      throw error;
    }
  }
}

const stringMetadata = (metadata: Readonly<Record<string, unknown>> | null | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata ?? {})) {
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
  }
  return out;
};

const aggregateRow = (a: Aggregate): AggregateRow => ({
  id: String(a.id), name: a.name, zone: a.availability_zone ?? null, hosts: [...(a.hosts ?? [])], metadata: stringMetadata(a.metadata),
});

/** Whether the catalog offers the service on an interface (and region), so a fallback never hides an ambiguity. */
const offers = (catalog: readonly CatalogEntry[], type: string, iface: EndpointInterface, region: string | undefined): boolean =>
  catalog.some((entry) => entry.type === type && entry.endpoints.some((e) =>
    (e.interface === iface || e.interface === `${iface}URL`) && (region === undefined || (e.region_id ?? e.region) === region)));

/** Placement's base URL: the configured interface, or internal when the catalog has it, else public. */
export const placementEndpoint = (catalog: readonly CatalogEntry[], login: ComputeApiLogin): string => {
  const region = login.regionName;
  const iface: EndpointInterface = login.interface ?? (offers(catalog, 'placement', 'internal', region) ? 'internal' : 'public');
  return serviceBaseUrl('placement', selectEndpoint(catalog, { type: 'placement', interface: iface, ...(region !== undefined ? { region } : {}) }));
};

/** Authenticate once and return the client of one reconcile pass. */
export const openComputeApi = async (login: ComputeApiLogin, options: ComputeApiOptions = {}): Promise<ComputeApi> => {
  const recorded: RecordedComputeCall[] = [];
  const logger = options.logger ?? silentLogger();
  const microversions = resolveMicroversions({ placement: PLACEMENT_TRAITS_MICROVERSION });
  const common = {
    logger, microversions,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.retry !== undefined ? { retry: options.retry } : {}),
    ...(options.cancel !== undefined ? { cancel: options.cancel } : {}),
  };
  const cloud: CloudConfig = {
    authUrl: normalizeAuthUrl(login.authURL),
    auth: { type: 'password', user: { name: login.username, domain: { name: login.userDomainName } }, password: login.password },
    scope: { kind: 'project', project: { name: login.projectName, domain: { name: login.projectDomainName } } },
    ...(login.regionName !== undefined ? { regionName: login.regionName } : {}),
    interface: login.interface ?? 'internal',
    verify: true,
  };
  const identity = new RecordingHttpSession({ ...common, service: 'identity', baseUrl: cloud.authUrl, secrets: () => [login.password] }, recorded, 'identity');
  const keystone = new KeystoneSession(cloud, identity, { logger });
  const secrets = (): readonly string[] => [login.password, ...keystone.secrets()];

  const fail = (service: ComputeApiService, error: unknown): ComputeApiError => {
    if (error instanceof ComputeApiError) return error;
    if (error instanceof OpenStackError) {
      return new ComputeApiError(redact(error.message, secrets()), {
        service, reason: error.reason,
        ...(error.status !== undefined ? { status: error.status } : {}),
        ...(error.method !== undefined ? { method: error.method } : {}),
        ...(error.path !== undefined ? { path: error.path } : {}),
        ...(error.requestId !== undefined ? { requestId: error.requestId } : {}),
      });
    }
    const text = error instanceof Error ? error.message : String(error);
    return new ComputeApiError(redact(`${service}: ${text}`, secrets()), { service, reason: 'internal' });
  };
  const guarded = async <T>(service: ComputeApiService, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error: unknown) {
      throw fail(service, error);
    }
  };

  const token = await guarded('identity', () => keystone.current());

  const novaBase = serviceBaseUrl('compute', login.novaURL);
  const novaAt = (version: string): HttpSession =>
    new RecordingHttpSession({ ...common, service: 'compute', baseUrl: novaBase, auth: keystone, headers: computeHeaders(version) }, recorded, 'compute');
  const nova = novaAt(COMPUTE_SERVICES_MICROVERSION);
  const novaHypervisors = novaAt(COMPUTE_HYPERVISORS_MICROVERSION);

  // A catalog without Placement fails the Placement calls only, so the Nova steps of the pass still run.
  let placementHttp: HttpSession | ComputeApiError;
  try {
    placementHttp = new RecordingHttpSession({ ...common, service: 'placement', baseUrl: placementEndpoint(token.catalog, login), auth: keystone }, recorded, 'placement');
  } catch (error: unknown) {
    placementHttp = fail('placement', error instanceof EndpointNotFound ? error : new EndpointNotFound(String(error)));
  }
  const withPlacement = <T>(call: (http: HttpSession) => Promise<T>): Promise<T> => guarded('placement', () => {
    if (placementHttp instanceof ComputeApiError) throw placementHttp;
    return call(placementHttp);
  });
  const goneIsDone = (error: unknown): void => {
    if (error instanceof OpenStackError && error.status === 404) return;
    throw error;
  };

  return {
    calls: recorded,

    listComputeServices: () => guarded('compute', async () => {
      const entries = await listComputeServiceEntries(nova, { binary: 'nova-compute' });
      const down = entries.filter((e) => e.kind === 'cell-down').map((e) => e.service.host);
      if (down.length > 0) {
        throw new ComputeApiError(`compute: a cell did not answer: os-services listed nova-compute on ${[...new Set(down)].sort().join(', ')} with status UNKNOWN`, {
          service: 'compute', reason: 'cell-down', cellDown: true, method: 'GET', path: '/os-services',
        });
      }
      return entries.flatMap((e): ComputeServiceRow[] => {
        if (e.kind !== 'service') return [];
        const s = e.service;
        if (s.status !== 'enabled' && s.status !== 'disabled') {
          throw new ComputeApiError(`compute: nova-compute on ${s.host} has an unreadable status`, { service: 'compute', reason: 'unreadable-response', method: 'GET', path: '/os-services' });
        }
        return [{
          id: String(s.id), host: s.host, status: s.status, state: s.state === 'up' || s.state === 'down' ? s.state : 'unknown',
          zone: s.zone ?? null, disabledReason: s.disabled_reason ?? null,
        }];
      });
    }),

    mappedHosts: () => guarded('compute', async () => {
      const hosts = new Set<string>();
      for (const h of await listHypervisors(novaHypervisors)) {
        if (h.service === undefined) {
          throw new ComputeApiError(`compute: hypervisor ${String(h.id)} is listed without its service`, {
            service: 'compute', reason: 'unreadable-response', method: 'GET', path: '/os-hypervisors/detail',
          });
        }
        hosts.add(h.service.host);
      }
      return hosts;
    }),

    disableService: (id, reason) => guarded('compute', async () => {
      await updateComputeService(nova, id, { status: 'disabled', disabledReason: reason });
    }),

    deleteService: (id) => guarded('compute', () => deleteComputeService(nova, id).catch(goneIsDone)),

    serversOnHost: (host) => guarded('compute', async () => {
      const items = await listAllPages(nova, { path: '/servers/detail', query: { all_tenants: 1, host }, collection: 'servers', next: 'links' },
        options.serverPageSize !== undefined ? { pageSize: options.serverPageSize } : {});
      return items.length;
    }),

    listAggregates: () => guarded('compute', async () => (await aggregates.listAggregates(nova)).map(aggregateRow)),

    createAggregate: (name, zone) => guarded('compute', async () => aggregateRow(await aggregates.createAggregate(nova, name, zone ?? undefined))),

    setAggregateMetadata: (id, metadata) => guarded('compute', async () => aggregateRow(await aggregates.setAggregateMetadata(nova, id, metadata))),

    deleteAggregate: (id) => guarded('compute', () => aggregates.deleteAggregate(nova, id).catch(goneIsDone)),

    traitExists: (name) => withPlacement((http) => placement.traitExists(http, name)),

    createTrait: (name) => withPlacement((http) => placement.createTrait(http, name)),

    deleteTrait: (name) => withPlacement(async (http) => {
      try {
        await placement.deleteTrait(http, name);
        return 'deleted' as const;
      } catch (error: unknown) {
        if (error instanceof OpenStackError && error.status === 404) return 'absent' as const;
        if (error instanceof OpenStackError && error.status === 409) return 'inUse' as const;
        throw error;
      }
    }),
  };
};
