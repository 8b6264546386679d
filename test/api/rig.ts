/**
 * The API rig: the embedded resource store in a temp dir with two tenancies (Identity + Network each),
 * a memory event store, an in-process signing key, and the API listening on 127.0.0.1:0. `call` sends
 * a real HTTP request and checks the response (status declared, body valid) against openapi.yaml;
 * a body sent as `body` is checked against the operation's request schema too (`raw` is sent as is).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createTokenIssuer, ENDPOINTS, OPERATIONS, type Acl, type Operation, type TokenIssuer } from '../../src/api/auth.js';
import { startApi, type RunningApi } from '../../src/api/server.js';
import { openApiDocument, responseValidator, SchemaValidators } from '../../src/api/openapi.js';
import type { ImageValidator } from '../../src/api/servers.js';
import type { ServerCompute } from '../../src/api/verbs.js';

export const IMAGE = '11111111-1111-4111-8111-111111111111';
export const IMAGE_2 = '22222222-2222-4222-8222-222222222222';

export interface Reply {
  status: number;
  body: unknown;
  headers: Headers;
}

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as is (malformed JSON, oversize bodies); not checked against the request schema. */
  raw?: string;
  contentType?: string;
}

export interface ApiRig {
  api: RunningApi;
  source: EmbeddedResourceSource;
  /** `get Server`, `list Network`, …: every read the API made, in order (tests clear it). */
  reads: string[];
  events: MemoryEventStore;
  issuer: TokenIssuer;
  /** Full access everywhere (global ACL). */
  admin: string;
  token(acl: Acl, sub?: string): Promise<string>;
  call(method: string, path: string, options?: CallOptions): Promise<Reply>;
  /** Every Server resource in the store. */
  servers(): Promise<{ name: string; spec: Record<string, unknown>; metadata: Record<string, unknown> }[]>;
  close(): Promise<void>;
}

/** Grants on `endpoints` (all operations unless given) in one project. */
export const projectAcl = (org: string, project: string, endpoints: readonly string[], operations: readonly Operation[] = OPERATIONS): Acl => ({
  organizations: [{ id: org, projects: [{ id: project, endpoints: endpoints.map((name) => ({ name, operations: [...operations] })) }] }],
});

export const v2Body = (name: string, overrides: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { networkId: 'net-a', flavorId: 'm1.small', imageId: IMAGE, ...overrides } });

const templates = () => Object.keys(openApiDocument().paths).map((t) => ({ template: t, pattern: new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`) }));

export const startApiRig = async (options: { bodyLimit?: number; images?: (source: EmbeddedResourceSource) => ImageValidator; compute?: ServerCompute } = {}): Promise<ApiRig> => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-api-'));
  const store = openEmbeddedSource({ path: join(dir, 'resources.db') });
  const reads: string[] = [];
  // Records which kinds the API reads (get/list), so a test can tell there was no read-before-write.
  const source = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if ((property === 'get' || property === 'list') && typeof value === 'function')
        return (kind: string, ...rest: unknown[]) => (reads.push(`${String(property)} ${kind}`), (value as (...a: unknown[]) => unknown).call(target, kind, ...rest));
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const events = new MemoryEventStore();
  const issuer = await createTokenIssuer();
  for (const [identity, org, project, network, prefix] of [
    ['id-a', 'acme', 'web', 'net-a', '10.0.0.0/24'],
    ['id-b', 'other', 'ops', 'net-b', '10.1.0.0/24'],
    ['id-c', 'acme', 'db', 'net-c', '10.2.0.0/24'],
  ] as const) {
    await source.create({ apiVersion: 'regent.dev/v1alpha1', kind: 'Identity', metadata: { name: identity }, spec: { regionRef: { name: 'region-one' }, organizationID: org, projectID: project } });
    await source.create({ apiVersion: 'regent.dev/v1alpha1', kind: 'Network', metadata: { name: network }, spec: { identityRef: { name: identity }, prefix } });
  }
  const api = await startApi({ source, events, auth: { jwks: issuer.jwks }, host: '127.0.0.1', port: 0, ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}), ...(options.images ? { images: options.images(store) } : {}), ...(options.compute ? { compute: options.compute } : {}) });
  const validators = new SchemaValidators();
  const paths = templates();
  const token = (acl: Acl, sub = 'tester') => issuer.sign({ sub, acl });
  const admin = await token({ global: Object.values(ENDPOINTS).map((name) => ({ name, operations: [...OPERATIONS] })) }, 'admin');
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<Reply> => {
    const template = paths.find((p) => p.pattern.test(path.split('?')[0] as string))?.template;
    if (o.body !== undefined && template) {
      const op = openApiDocument().paths[template]?.[method.toLowerCase()] as { requestBody?: { content: Record<string, unknown> } } | undefined;
      if (op?.requestBody) {
        const v = validators.forRef(`#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/requestBody/content/application~1json/schema`);
        if (!v(o.body)) throw new Error(`the test's request body does not match the contract: ${JSON.stringify(v.errors)}`);
      }
    }
    const headers: Record<string, string> = {};
    const tok = o.token === undefined ? admin : o.token;
    if (tok !== null) headers.authorization = `Bearer ${tok}`;
    const payload = o.raw ?? (o.body !== undefined ? JSON.stringify(o.body) : undefined);
    if (payload !== undefined) headers['content-type'] = o.contentType ?? 'application/json';
    const response = await fetch(`${api.url}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    const body = text === '' ? undefined : type.includes('json') ? (JSON.parse(text) as unknown) : text;
    if (template) {
      const validate = responseValidator(validators, template, method, response.status);
      if (validate && !validate(body)) throw new Error(`${method} ${path} answered ${response.status} with a body outside the contract: ${JSON.stringify(validate.errors)} ${text}`);
    } else if (response.status !== 404) {
      throw new Error(`${method} ${path} is not in the contract but answered ${response.status}`);
    }
    return { status: response.status, body, headers: response.headers };
  };
  return {
    api,
    source,
    reads,
    events,
    issuer,
    admin,
    token,
    call,
    servers: async () => (await source.list('Server')).items.map((s) => ({ name: s.metadata.name, spec: s.spec as unknown as Record<string, unknown>, metadata: s.metadata as unknown as Record<string, unknown> })),
    close: async () => {
      await api.close();
      await source.close();
      await events.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
