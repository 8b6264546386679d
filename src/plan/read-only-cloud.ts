/**
 * The read-only guard a plan's OpenStack clients are wrapped in: GET and HEAD go to the cloud, any other request
 * (POST, PUT, PATCH, DELETE) is stopped before it is sent and becomes a typed `BranchStops` error — "this branch of the
 * plan needs the cloud to change first". The guard sits on each service's HttpSession (src/openstack/http.ts), below
 * every client function, so no client (Nova, Cinder, Neutron, Octavia, Glance, Placement, Ironic, Keystone admin)
 * and no raw `session.http(type)` call can send a mutation through it.
 *
 * What it does not stop: Keystone token issue (`POST /v3/auth/tokens`), which `connect` sends on its own identity
 * session before any client exists, and which an Identity's pass sends through a guarded session to check its
 * application credential. It creates nothing in the cloud; a plan needs a token to read.
 *
 * Every refused request is kept in the guard's log (service, method, path, body with secrets as `sha256:` digests),
 * also when the code that tried it catches the error: the planner reads the log, not only what was thrown.
 */
import { encodeQuery, type HttpSession, type RequestSpec } from '../openstack/http.js';
import type { OpenStackSession } from '../openstack/session.js';
import type { ServiceType } from '../openstack/keystone/catalog.js';
import type { CloudConfig } from '../openstack/keystone/clouds-config.js';
import { createNovaClient } from '../openstack/nova/index.js';
import { createGlanceClient } from '../openstack/glance.js';
import { createCinderClient } from '../openstack/cinder/index.js';
import { createNeutronClient } from '../openstack/neutron/index.js';
import { createOctaviaClient } from '../openstack/octavia/index.js';
import { createPlacementClient } from '../openstack/placement.js';
import { createIronicClient } from '../openstack/ironic.js';
import { createKeystoneAdminClient } from '../openstack/keystone/admin/index.js';
import { digestSecrets } from '../resource-history/digest-secrets.js';

/** A request the guard did not send: what the branch would have asked the cloud to do. */
export interface RefusedCall {
  service: string;
  method: string;
  /** The path relative to the service's endpoint, without the query. */
  path: string;
  /** The query string it would carry (`?cascade=true`), when it has one. */
  query?: string;
  /** The request body, secrets as `sha256:` digests; absent when there was none. */
  body?: unknown;
}

/** "This branch of the plan stops here": the code tried to change the cloud. */
export class BranchStops extends Error {
  override readonly name = 'BranchStops';
  readonly reason = 'plan-branch-stops';
  constructor(readonly call: RefusedCall) {
    super(`the plan stops here: ${call.method} ${call.path} (${call.service}) would change the cloud, and a plan only reads`);
  }
}

const READS = new Set(['GET', 'HEAD']);
/** Keystone's token issue creates nothing: an Identity's pass checks its application credential with one. */
const isTokenIssue = (service: string, spec: RequestSpec): boolean => spec.method === 'POST' && service === 'identity' && /(^|\/)auth\/tokens$/.test(spec.path);

/** Every request a guard refused, in order. */
export class GuardLog {
  readonly refused: RefusedCall[] = [];

  refuse(service: string, spec: RequestSpec): BranchStops {
    const query = encodeQuery(spec.query);
    const call: RefusedCall = { service, method: spec.method, path: spec.path, ...(query === '' ? {} : { query }), ...(spec.body === undefined ? {} : { body: digestSecrets(spec.body) }) };
    this.refused.push(call);
    return new BranchStops(call);
  }

  /** The refusals after `mark` (a length read before some work). */
  since(mark: number): RefusedCall[] {
    return this.refused.slice(mark);
  }
}

const guarded = new WeakSet<object>();

/** One service session that sends reads and refuses everything else (also through `withHeaders`). */
export const readOnlyHttp = (http: HttpSession, log: GuardLog): HttpSession => {
  if (guarded.has(http)) return http;
  const proxy: HttpSession = new Proxy(http, {
    get(target, property) {
      if (property === 'request') {
        return (spec: RequestSpec) => (READS.has(spec.method) || isTokenIssue(target.service, spec) ? target.request(spec) : Promise.reject(log.refuse(target.service, spec)));
      }
      if (property === 'withHeaders') return (headers: Readonly<Record<string, string>>) => readOnlyHttp(target.withHeaders(headers), log);
      const value: unknown = Reflect.get(target, property, target);
      // get/post/put/… call this.request: bound to the proxy, they reach the guarded request above
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(proxy) : value;
    },
  });
  guarded.add(proxy);
  return proxy;
};

const lazy = <T>(build: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= build());
};

/**
 * The session with every client rebuilt on guarded service sessions. Clients are built on first use, as `connect`
 * builds them, so a cloud without Ironic still plans (using `ironic` throws EndpointNotFound, as it would).
 */
export const readOnlySession = (session: OpenStackSession, log: GuardLog): OpenStackSession => {
  const https = new Map<ServiceType, HttpSession>();
  const http = (type: ServiceType): HttpSession => {
    let found = https.get(type);
    if (!found) https.set(type, (found = readOnlyHttp(session.http(type), log)));
    return found;
  };
  const nova = lazy(() => createNovaClient(readOnlyHttp(session.nova.http, log)));
  const glance = lazy(() => createGlanceClient(readOnlyHttp(session.glance.http, log)));
  const cinder = lazy(() => createCinderClient(readOnlyHttp(session.cinder.http, log)));
  const neutron = lazy(() => createNeutronClient(readOnlyHttp(session.neutron.http, log)));
  const octavia = lazy(() => createOctaviaClient(readOnlyHttp(session.octavia.http, log)));
  const placement = lazy(() => createPlacementClient(readOnlyHttp(session.placement.http, log)));
  const ironic = lazy(() => createIronicClient(readOnlyHttp(session.ironic.http, log)));
  const identityAdmin = lazy(() => createKeystoneAdminClient(readOnlyHttp(session.identityAdmin.http, log)));
  return {
    cloud: session.cloud,
    keystone: session.keystone,
    microversions: session.microversions,
    initialToken: session.initialToken,
    projectId: session.projectId,
    endpoint: (type) => session.endpoint(type),
    http,
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

/** A `connect` whose sessions are read-only (the token issue it needs goes through; see the header). */
export const readOnlyConnect =
  (connect: (cloud: CloudConfig) => Promise<OpenStackSession>, log: GuardLog) =>
  async (cloud: CloudConfig): Promise<OpenStackSession> =>
    readOnlySession(await connect(cloud), log);
