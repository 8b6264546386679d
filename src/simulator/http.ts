// Request/response values passed through the router, and errors in each service's own body shape.
// Handlers throw SimError; the pipeline renders it the way the owning service would.
import type { IncomingHttpHeaders } from 'node:http';

export type ServiceName =
  | 'keystone' | 'nova' | 'glance' | 'cinder' | 'neutron' | 'octavia' | 'placement' | 'ironic' | 'sim';

export interface SimRequest {
  method: string;
  /** Path without the query string, trailing slash removed. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or undefined when there was none (or it was not JSON). */
  body: unknown;
  raw: Buffer;
  params: Record<string, string>;
  requestId: string;
}

export interface SimResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Non-JSON payload (image download, console text). */
  raw?: Buffer | string;
  contentType?: string;
}

export class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Neutron's NeutronError.type ("NetworkNotFound"); Placement's error code. */
    readonly type?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (m: string, type?: string): SimError => new SimError(400, m, type);
export const forbidden = (m: string, type?: string): SimError => new SimError(403, m, type);
export const notFound = (m: string, type?: string): SimError => new SimError(404, m, type);
export const conflict = (m: string, type?: string): SimError => new SimError(409, m, type);

export const ok = (body: unknown, status = 200, headers?: Record<string, string>): SimResponse => ({ status, body, headers });
export const noContent = (status = 204, headers?: Record<string, string>): SimResponse => ({ status, headers });

const NOVA_FAULTS: Record<number, string> = {
  400: 'badRequest', 401: 'unauthorized', 403: 'forbidden', 404: 'itemNotFound', 405: 'badMethod',
  409: 'conflictingRequest', 413: 'overLimit', 415: 'badMediaType', 429: 'overLimit', 501: 'notImplemented',
  503: 'serviceUnavailable',
};

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 409: 'Conflict', 413: 'Request Entity Too Large', 415: 'Unsupported Media Type',
  429: 'Too Many Requests', 500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway',
  503: 'Service Unavailable', 504: 'Gateway Timeout',
};

export const statusTitle = (status: number): string => TITLES[status] ?? 'Error';

const NEUTRON_TYPES: Record<number, string> = {
  400: 'HTTPBadRequest', 401: 'HTTPUnauthorized', 403: 'HTTPForbidden', 404: 'HTTPNotFound',
  405: 'HTTPMethodNotAllowed', 409: 'HTTPConflict', 500: 'HTTPInternalServerError', 503: 'HTTPServiceUnavailable',
};

/** 401 from keystonemiddleware looks the same in front of every service. */
export const UNAUTHORIZED_BODY = {
  error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' },
};

export function errorBody(service: ServiceName, status: number, message: string, requestId: string, type?: string): unknown {
  if (status === 401 && service !== 'keystone') return UNAUTHORIZED_BODY;
  switch (service) {
    case 'nova':
    case 'cinder':
      return { [NOVA_FAULTS[status] ?? 'computeFault']: { code: status, message } };
    case 'neutron':
      return { NeutronError: { type: type ?? NEUTRON_TYPES[status] ?? 'HTTPError', message, detail: '' } };
    case 'octavia':
      return { faultcode: status >= 500 ? 'Server' : 'Client', faultstring: message, debuginfo: null };
    case 'ironic':
      return { error_message: JSON.stringify({ faultstring: message, faultcode: status >= 500 ? 'Server' : 'Client', debuginfo: null }) };
    case 'placement':
      return { errors: [{ status, title: statusTitle(status), detail: message, request_id: requestId, code: type ?? 'placement.undefined_code' }] };
    case 'glance':
      return { code: `${status} ${statusTitle(status)}`, title: statusTitle(status), message };
    case 'keystone':
      return { error: { code: status, title: statusTitle(status), message } };
    case 'sim':
      return { error: { code: status, message } };
  }
}

/** Which service owns a path (for 404s on unknown routes and injected faults). */
export function serviceForPath(path: string): ServiceName {
  const first = path.split('/')[1] ?? '';
  switch (first) {
    case 'identity': return 'keystone';
    case 'compute': return 'nova';
    case 'image': return 'glance';
    case 'volume': return 'cinder';
    case 'network': return 'neutron';
    case 'load-balancer': return 'octavia';
    case 'placement': return 'placement';
    case 'baremetal': return 'ironic';
    default: return 'sim';
  }
}
