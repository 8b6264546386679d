/**
 * The HTTP surface (fastify): routes of openapi.yaml over the ServerService, bearer authentication,
 * body validation against the OpenAPI schemas, and the one error body. `buildApi` gives an app to
 * listen on (tests use port 0 on 127.0.0.1); `startApi` builds and listens. Create and update take `?dryRun=All`
 * (./dry-run.ts): the same checks, then 200 with the plan instead of the write.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type winston from 'winston';
import type { ResourceSource } from '../kube/port.js';
import type { EventStore } from '../store/port.js';
import { createAuthenticator, type AuthOptions, type Authenticator } from './auth.js';
import { ApiError, badRequest, notFound, type ErrorBody, type ErrorCode } from './errors.js';
import { describeSchemaError, openApiText, SchemaValidators } from './openapi.js';
import { ServerService, type ImageValidator, type RequestContext, type V1Write, type V2Write } from './servers.js';
import { POWER_VERBS, type ServerCompute } from './verbs.js';
import { DRY_RUN_PARAMETER, dryRunRequested, type DryRunPlanning } from './dry-run.js';

/** Default body limit: a 64 KiB userData in base64 plus the rest of a request fits. */
export const DEFAULT_BODY_LIMIT = 128 * 1024;

export interface ApiDeps {
  readonly source: ResourceSource;
  readonly events: EventStore;
  /** An Authenticator, or how to build one (a JWKS file, URL or in-process key set). */
  readonly auth: Authenticator | AuthOptions;
  readonly namespace?: string;
  readonly bodyLimit?: number;
  readonly images?: ImageValidator;
  /** Nova for the power and console verbs (the server's identity session); absent: those verbs answer 501. */
  readonly compute?: ServerCompute;
  /** Where the Identities' Secrets live (sshkey reads the keypair's private key there); default the served namespace. */
  readonly secretNamespace?: string;
  /** The cloud `?dryRun=All` plans against (regent serve's connect and process Region); absent: a dry run answers 501 after every check. */
  readonly plan?: DryRunPlanning;
  readonly logger?: winston.Logger;
  readonly now?: () => Date;
}

const isAuthenticator = (a: Authenticator | AuthOptions): a is Authenticator => typeof (a as Authenticator).authenticate === 'function';

const send = (reply: FastifyReply, status: number, code: ErrorCode, description: string) => {
  const body: ErrorBody = { error: code, error_description: description, request_id: String(reply.request.id) };
  return reply.code(status).type('application/json').send(body);
};

const OBJECT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** The longest path parameter routed: an object name (253, a DNS subdomain) fits; a longer one answers 404. */
const MAX_PARAM_LENGTH = 253;

/**
 * The router's own refusals (they bypass the error handler): a path that is not valid percent-encoding, a path segment
 * longer than any object name. Either names no object, so both answer the 404 every unknown server gets, in the one
 * error body (fastify's default body has another shape and echoes the whole path).
 */
const answerRoutingError = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
  reply.header('x-request-id', request.id);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return send(reply, 404, 'not_found', `no object is named by a path segment of over ${MAX_PARAM_LENGTH} characters`);
  if (error.code === 'FST_ERR_BAD_URL') return send(reply, 404, 'not_found', 'no object is named by a path that is not valid percent-encoding');
  return send(reply, 400, 'invalid_request', 'the request could not be routed');
};

/**
 * Where a parsed body holds a key that could reach a prototype if merged carelessly — `__proto__`, or `constructor`
 * with a `prototype` — as `metadata` / `(top level)`; undefined when there is none. Iterative: a body may nest deeply.
 */
export const poisonedKey = (body: unknown): { key: string; at: string } | undefined => {
  const pending: { value: unknown; path: string }[] = [{ value: body, path: '' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value !== 'object' || value === null) continue;
    for (const [key, child] of Object.entries(value)) {
      const at = path === '' ? '(top level)' : path;
      if (key === '__proto__') return { key, at };
      if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) return { key: 'constructor.prototype', at };
      pending.push({ value: child, path: Array.isArray(value) ? `${path}[${key}]` : path === '' ? key : `${path}.${key}` });
    }
  }
  return undefined;
};

/**
 * The JSON body parser: fastify's own refuses a `__proto__` key with the same "not valid JSON" as a syntax error,
 * which sends the caller looking for a syntax error that is not there. This one names the key and where it is.
 */
const parseJsonBody = (_request: FastifyRequest, body: string | Buffer, done: (error: Error | null, value?: unknown) => void): void => {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.length === 0) return done(badRequest('the request body is empty'));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return done(badRequest('the request body is not valid JSON'));
  }
  const poisoned = poisonedKey(value);
  if (poisoned !== undefined) return done(badRequest(`the request body has a "${poisoned.key}" key (at ${poisoned.at}); such keys are refused`));
  done(null, value);
};

export const buildApi = (deps: ApiDeps): FastifyInstance => {
  const auth = isAuthenticator(deps.auth) ? deps.auth : createAuthenticator(deps.auth);
  const service = new ServerService(deps);
  const schemas = new SchemaValidators();
  const app = Fastify({ logger: false, bodyLimit: deps.bodyLimit ?? DEFAULT_BODY_LIMIT, genReqId: () => randomUUID(), onProtoPoisoning: 'error', onConstructorPoisoning: 'error', routerOptions: { maxParamLength: MAX_PARAM_LENGTH }, frameworkErrors: answerRoutingError });

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  app.setNotFoundHandler((request, reply) => send(reply, 404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}`));

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) return send(reply, error.status, error.code, error.message);
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(reply, 413, 'request_entity_too_large', `the request body is over the limit of ${deps.bodyLimit ?? DEFAULT_BODY_LIMIT} bytes`);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(reply, 415, 'unsupported_media_type', 'the request body must be application/json');
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send(reply, 400, 'invalid_request', 'the request body is empty');
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return send(reply, 400, 'invalid_request', 'the request body is not valid JSON');
      default:
        break;
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      // the body parser's other refusals (a __proto__ key, a bad content length): the client's fault
      return send(reply, error.statusCode, error.statusCode === 413 ? 'request_entity_too_large' : 'invalid_request', error.statusCode === 400 && error instanceof SyntaxError ? 'the request body is not valid JSON' : error.message);
    }
    deps.logger?.error('API request failed', { requestId: request.id, method: request.method, route: request.routeOptions.url, error: error instanceof Error ? error.message : String(error) });
    return send(reply, 500, 'server_error', 'the request failed inside Regent; quote the request id when reporting it');
  });

  const context = async (request: FastifyRequest): Promise<RequestContext> => ({ principal: await auth.authenticate(request.headers.authorization), requestId: String(request.id) });

  const body = <T>(request: FastifyRequest, schema: string): T => {
    const validate = schemas.schema(schema);
    if (!validate(request.body)) throw badRequest(describeSchemaError(validate.errors![0]!));
    return request.body as T;
  };

  const id = (request: FastifyRequest): string => {
    const value = (request.params as { serverID: string }).serverID;
    if (!OBJECT_NAME.test(value) || value.length > 253) throw notFound(`server "${value}" not found`);
    return value;
  };

  const query = (request: FastifyRequest) => {
    const q = request.query as Record<string, unknown>;
    const out: { organizationID?: string; projectID?: string; networkID?: string } = {};
    for (const key of ['organizationID', 'projectID', 'networkID'] as const) {
      const v = q[key];
      if (v === undefined) continue;
      if (typeof v !== 'string' || !OBJECT_NAME.test(v)) throw badRequest(`query parameter "${key}" is invalid`);
      out[key] = v;
    }
    const unknown = Object.keys(q).find((k) => !['organizationID', 'projectID', 'networkID'].includes(k));
    if (unknown !== undefined) throw badRequest(`unknown query parameter "${unknown}"`);
    return out;
  };

  /**
   * A create's or update's query: `dryRun` (./dry-run.ts) and nothing else — an unknown parameter is refused, so a
   * misspelt dry run (`dryrun=All`) is a 400, never a real write.
   */
  const writeQuery = (request: FastifyRequest): { dryRun: boolean } => {
    const q = request.query as Record<string, unknown>;
    const unknown = Object.keys(q).find((k) => k !== DRY_RUN_PARAMETER);
    if (unknown !== undefined) throw badRequest(`unknown query parameter "${unknown}" (a create or update takes only "${DRY_RUN_PARAMETER}")`);
    return { dryRun: dryRunRequested(q) };
  };

  app.get('/openapi.yaml', async (_request, reply) => reply.type('application/yaml').send(openApiText()));

  // v2
  app.post('/api/v2/servers', async (request, reply) => {
    const ctx = await context(request);
    const options = writeQuery(request);
    return reply.code(options.dryRun ? 200 : 201).send(await service.createV2(ctx, body<V2Write>(request, 'ServerV2Write'), options));
  });
  app.get('/api/v2/servers', async (request) => {
    const ctx = await context(request);
    return service.listV2(ctx, query(request));
  });
  app.get('/api/v2/servers/:serverID', async (request) => service.getV2(await context(request), id(request)));
  app.put('/api/v2/servers/:serverID', async (request) => {
    const ctx = await context(request);
    const options = writeQuery(request);
    return service.updateV2(ctx, id(request), body<V2Write>(request, 'ServerV2Write'), options);
  });
  app.delete('/api/v2/servers/:serverID', async (request, reply) => {
    await service.deleteV2(await context(request), id(request));
    return reply.code(202).send();
  });

  // v2 verbs. Power and console verbs run through deps.compute (501 without it, after the 404/403 checks).
  for (const verb of POWER_VERBS) {
    app.post(`/api/v2/servers/:serverID/${verb}`, async (request, reply) => {
      await service.verb(await context(request), id(request), verb);
      return reply.code(202).send();
    });
  }
  app.get('/api/v2/servers/:serverID/consoleoutput', async (request) => {
    const ctx = await context(request);
    const raw = (request.query as Record<string, unknown>).length;
    const length = raw === undefined ? undefined : Number(raw);
    if (length !== undefined && (!Number.isInteger(length) || length < 1 || length > 10000)) throw badRequest('query parameter "length" must be an integer from 1 to 10000');
    return service.verb(ctx, id(request), 'consoleoutput', length !== undefined ? { length } : {});
  });
  app.get('/api/v2/servers/:serverID/consolesession', async (request) => service.verb(await context(request), id(request), 'consolesession'));
  app.post('/api/v2/servers/:serverID/snapshot', async (request, reply) => {
    const ctx = await context(request);
    const snapshot = body<{ metadata: { name: string } }>(request, 'SnapshotRequest');
    return reply.code(201).send(await service.snapshot(ctx, id(request), snapshot.metadata.name));
  });
  // the identity's private key, identityKeypair servers only (404 for ca and none)
  app.get('/api/v2/servers/:serverID/sshkey', async (request, reply) => reply.header('cache-control', 'no-store').send(await service.sshKeyV2(await context(request), id(request))));
  app.post('/api/v2/servers/:serverID/provider-create-gates', async (request) => {
    const ctx = await context(request);
    return service.satisfyGateV2(ctx, id(request), body<{ name: string; reason: string; message?: string }>(request, 'ProviderCreateGateSatisfy'));
  });

  // v1 compatibility
  const v1 = (request: FastifyRequest) => request.params as { organizationID: string; projectID: string; identityID: string };
  const V1 = '/api/v1/organizations/:organizationID/projects/:projectID/identities/:identityID/servers';
  app.post(V1, async (request, reply) => {
    const ctx = await context(request);
    const options = writeQuery(request);
    const p = v1(request);
    return reply.code(options.dryRun ? 200 : 201).send(await service.createV1(ctx, p.organizationID, p.projectID, p.identityID, body<V1Write>(request, 'ServerV1Write'), options));
  });
  app.get(V1, async (request) => {
    const p = v1(request);
    return service.listV1(await context(request), p.organizationID, p.projectID, p.identityID);
  });
  app.get(`${V1}/:serverID`, async (request) => {
    const p = v1(request);
    return service.getV1(await context(request), p.organizationID, p.projectID, p.identityID, id(request));
  });
  app.put(`${V1}/:serverID`, async (request) => {
    const ctx = await context(request);
    const options = writeQuery(request);
    const p = v1(request);
    return service.updateV1(ctx, p.organizationID, p.projectID, p.identityID, id(request), body<V1Write>(request, 'ServerV1Write'), options);
  });
  app.delete(`${V1}/:serverID`, async (request, reply) => {
    const p = v1(request);
    await service.deleteV1(await context(request), p.organizationID, p.projectID, p.identityID, id(request));
    return reply.code(202).send();
  });

  return app;
};

export interface StartApiOptions extends ApiDeps {
  readonly host?: string;
  readonly port?: number;
}

export interface RunningApi {
  readonly app: FastifyInstance;
  /** `http://host:port` as bound (port 0 resolves to the chosen port). */
  readonly url: string;
  close(): Promise<void>;
}

/** Builds the app and listens (default 127.0.0.1:8090). */
export const startApi = async (options: StartApiOptions): Promise<RunningApi> => {
  const app = buildApi(options);
  await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 8090 });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port ?? 8090;
  const host = options.host ?? '127.0.0.1';
  return { app, url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, close: () => app.close() };
};
