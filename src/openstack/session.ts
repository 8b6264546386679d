/**
 * `connect(cloud)`: authenticate once, read the catalog, and hand out one authenticated client per service
 * (`const os = await connect(cfg); await os.nova.getServer(id)`). Clients are built on first use, so a cloud
 * without Ironic still connects; using `os.ironic` there throws EndpointNotFound.
 */
import type https from 'node:https';
import type { Logger } from '../log/logger.js';
import { silentLogger } from '../log/logger.js';
import type { CloudConfig } from './keystone/clouds-config.js';
import type { IssuedToken } from './keystone/auth.js';
import type { ServiceType } from './keystone/catalog.js';
import { selectEndpoint, serviceBaseUrl } from './keystone/catalog.js';
import { KeystoneSession } from './keystone/session.js';
import { httpsAgentForCloud } from './keystone/tls.js';
import type { LoadOptions } from './keystone/clouds-reader.js';
import { loadCloudConfig } from './keystone/clouds-reader.js';
import { HttpSession } from './http.js';
import type { CancelScope } from './cancel.js';
import type { RetryPolicy } from './retry.js';
import type { Microversions } from './microversions.js';
import { baremetalHeaders, computeHeaders, resolveMicroversions, volumeHeaders } from './microversions.js';
import type { NovaClient } from './nova/index.js';
import { createNovaClient } from './nova/index.js';
import type { GlanceClient } from './glance.js';
import { createGlanceClient } from './glance.js';
import type { CinderClient } from './cinder/index.js';
import { createCinderClient } from './cinder/index.js';
import type { NeutronClient } from './neutron/index.js';
import { createNeutronClient } from './neutron/index.js';
import type { OctaviaClient } from './octavia/index.js';
import { createOctaviaClient } from './octavia/index.js';
import type { PlacementClient } from './placement.js';
import { createPlacementClient } from './placement.js';
import type { IronicClient } from './ironic.js';
import { createIronicClient } from './ironic.js';
import type { KeystoneAdminClient } from './keystone/admin/index.js';
import { createKeystoneAdminClient, rememberedSecrets } from './keystone/admin/index.js';
import type { UserLogin } from './keystone/admin/user-session.js';
import { userCloudConfig } from './keystone/admin/user-session.js';

export interface ConnectOptions {
  logger?: Logger;
  microversions?: Partial<Microversions>;
  /** Retry policy of reads (default 3 retries, 200 ms base, 5 s cap). */
  retry?: RetryPolicy;
  /** Per-attempt timeout (default 30 s). */
  timeoutMs?: number;
  /** Our clock for the token cache. */
  now?: () => number;
  refreshMarginMs?: number;
  /** Overrides the agent built from cacert/verify. */
  httpsAgent?: https.Agent;
  /** Use these URLs instead of the catalog's (clouds.yaml `<service>_endpoint_override`). */
  endpointOverrides?: Partial<Record<ServiceType, string>>;
  /** Abandons every request in flight when cancelled (src/openstack/cancel.ts). */
  cancel?: CancelScope;
  /** Test hooks for the backoff. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface OpenStackSession {
  readonly cloud: CloudConfig;
  readonly keystone: KeystoneSession;
  readonly microversions: Microversions;
  /** The token issued at connect (scope, roles, catalog). */
  readonly initialToken: IssuedToken;
  readonly projectId: string | undefined;
  /** The versioned base URL used for a service. */
  endpoint(type: ServiceType): string;
  /** The raw session of a service (for calls this layer does not wrap). */
  http(type: ServiceType): HttpSession;
  readonly nova: NovaClient;
  readonly glance: GlanceClient;
  readonly cinder: CinderClient;
  readonly neutron: NeutronClient;
  readonly octavia: OctaviaClient;
  readonly placement: PlacementClient;
  readonly ironic: IronicClient;
  /**
   * Keystone administration (domains, projects, users, roles, grants, application credentials) on the
   * catalog's identity endpoint with this session's token; what it may do is what the token's roles allow.
   */
  readonly identityAdmin: KeystoneAdminClient;
}

/** Authenticate and build the per-service clients. */
export const connect = async (cloud: CloudConfig, options: ConnectOptions = {}): Promise<OpenStackSession> => {
  const logger = options.logger ?? silentLogger();
  const microversions = resolveMicroversions(options.microversions);
  const httpsAgent = options.httpsAgent ?? (await httpsAgentForCloud(cloud, logger));
  const common = {
    logger,
    microversions,
    ...(options.retry !== undefined ? { retry: options.retry } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(httpsAgent !== undefined ? { httpsAgent } : {}),
    ...(options.sleep !== undefined ? { sleep: options.sleep } : {}),
    ...(options.random !== undefined ? { random: options.random } : {}),
    ...(options.cancel !== undefined ? { cancel: options.cancel } : {}),
  };
  const authSecret = cloud.auth.type === 'password' ? cloud.auth.password : cloud.auth.secret;
  const identity = new HttpSession({ ...common, service: 'identity', baseUrl: cloud.authUrl, secrets: () => [authSecret] });
  const keystone = new KeystoneSession(cloud, identity, {
    logger,
    ...(options.now !== undefined ? { now: options.now } : {}),
    ...(options.refreshMarginMs !== undefined ? { refreshMarginMs: options.refreshMarginMs } : {}),
  });
  const initialToken = await keystone.current();

  const headersFor: Partial<Record<ServiceType, Record<string, string>>> = {
    compute: computeHeaders(microversions.compute),
    'block-storage': volumeHeaders(microversions.volume),
    baremetal: baremetalHeaders(microversions.baremetal),
  };

  const endpoint = (type: ServiceType): string => {
    const override = options.endpointOverrides?.[type];
    const raw = override ?? selectEndpoint(initialToken.catalog, {
      type, interface: cloud.interface, ...(cloud.regionName !== undefined ? { region: cloud.regionName } : {}),
    });
    return serviceBaseUrl(type, raw);
  };

  const sessions = new Map<ServiceType, HttpSession>();
  const http = (type: ServiceType): HttpSession => {
    let session = sessions.get(type);
    if (session === undefined) {
      const headers = headersFor[type];
      session = new HttpSession({ ...common, service: type, baseUrl: endpoint(type), auth: keystone, ...(headers !== undefined ? { headers } : {}) });
      sessions.set(type, session);
    }
    return session;
  };

  const lazy = <T>(build: () => T): (() => T) => {
    let value: T | undefined;
    return () => (value ??= build());
  };
  const nova = lazy(() => createNovaClient(http('compute')));
  const glance = lazy(() => createGlanceClient(http('image')));
  const cinder = lazy(() => createCinderClient(http('block-storage')));
  const neutron = lazy(() => createNeutronClient(http('network')));
  const octavia = lazy(() => createOctaviaClient(http('load-balancer')));
  const placement = lazy(() => createPlacementClient(http('placement')));
  const ironic = lazy(() => createIronicClient(http('baremetal')));
  const identityAdmin = lazy(() => {
    // Its own session so the secrets its calls carry (a new user's password, an issued application
    // credential's secret) are part of this session's redaction (keystone/admin/common.ts).
    const adminHttp: HttpSession = new HttpSession({
      ...common, service: 'identity', baseUrl: endpoint('identity'), auth: keystone, secrets: () => rememberedSecrets(adminHttp),
    });
    return createKeystoneAdminClient(adminHttp);
  });

  logger.debug('openstack connected', { cloud: cloud.cloudName, projectId: initialToken.project?.id, services: initialToken.catalog.map((e) => e.type) });

  return {
    cloud, keystone, microversions, initialToken,
    projectId: initialToken.project?.id,
    endpoint, http,
    get nova() { return nova(); },
    get glance() { return glance(); },
    get cinder() { return cinder(); },
    get neutron() { return neutron(); },
    get octavia() { return octavia(); },
    get placement() { return placement(); },
    get ironic() { return ironic(); },
    get identityAdmin() { return identityAdmin(); },
  };
};

/**
 * A session authenticated AS a managed user (password, by user id or by name in its domain), scoped to one of
 * its projects, on the endpoints of `cloud` (auth URL, region, interface, TLS settings; its credentials are not
 * used). This is the session `identityAdmin.createApplicationCredential` must be called on: Keystone lets only
 * the owner create an application credential, and scopes it to the creating token's project.
 */
export const connectAsUser = (cloud: CloudConfig, login: UserLogin, options: ConnectOptions = {}): Promise<OpenStackSession> =>
  connect(userCloudConfig(cloud, login), options);

/** `connect` to the cloud the environment selects (OS_CLOUD + clouds.yaml, or OS_AUTH_URL …), or to `cloudName`. */
export const connectFromEnvironment = async (options: ConnectOptions & LoadOptions = {}): Promise<OpenStackSession> =>
  connect(await loadCloudConfig(options), options);
