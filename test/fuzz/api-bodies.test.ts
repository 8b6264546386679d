/**
 * Fuzzes the REST API over real HTTP on 127.0.0.1 (issue 31, bad input): random and mutated bodies, random content
 * types, malformed and oversized JSON, odd tokens and server ids, on every mutating route of openapi.yaml (v2 create,
 * update, delete, the power verbs, snapshot, provider-create-gates; v1 create, update, delete) and PATCH, which no
 * route has. Properties: never a 5xx and never a dropped connection (the rig fails on either); every answer is in the
 * contract and every 4xx has the one error body with a readable description; after a rejection nothing was persisted
 * (the resource store's objects and the event store's events are what they were). FUZZ_RUNS / FUZZ_SEED override the
 * run count and seed (docs/fuzzing.md).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { startApiRig, v2Body, type ApiRig, type Reply } from '../api/rig.js';
import { ENDPOINTS } from '../../src/api/auth.js';
import { STORED_KIND_NAMES } from '../../src/resources/index.js';
import { applyMutation, fuzzParameters, fuzzTimeout, hostileValue, mutationOf, unreadable, type Mutation } from './support.js';

const BODY_LIMIT = 8 * 1024;
/** Stands for the id of the server the fuzzer created last (or an unknown id before it created one). */
const CREATED = 'created-by-the-fuzzer';
const V1 = '/api/v1/organizations/acme/projects/web/identities/id-a/servers';

interface ErrorReply {
  error: string;
  error_description: string;
  request_id: string;
}

interface Route {
  readonly method: string;
  /** The path for a server id (ignored by the collection routes). */
  readonly path: (id: string) => string;
  /** A valid body for the route, if it takes one. */
  readonly body?: unknown;
  /** The route deletes what it names: never pointed at the seed servers, so the other routes keep something to act on. */
  readonly destructive?: boolean;
  /** A method openapi.yaml declares nowhere (PATCH): answered 404 with the error body, outside the contract's checks. */
  readonly outsideContract?: boolean;
}

/** Sends a request the contract has no operation for (the rig refuses those) and reads the reply the same way. */
const callOutsideContract = async (rig: ApiRig, method: string, path: string, options: { raw?: string; contentType?: string; token?: string | null }): Promise<Reply> => {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? rig.admin : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.raw !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(`${rig.api.url}${path}`, { method, headers, ...(options.raw !== undefined ? { body: options.raw } : {}) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown), headers: response.headers };
};

const v1Body = (name: string, overrides: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { networkId: 'net-a', flavorId: 'm1.small', imageId: '11111111-1111-4111-8111-111111111111', ...overrides } });

const ROUTES: readonly Route[] = [
  { method: 'POST', path: () => '/api/v2/servers', body: v2Body('fz-new', { providerCreateGates: [{ name: 'fabric' }], securityGroups: [] }) },
  { method: 'PUT', path: (id) => `/api/v2/servers/${id}`, body: v2Body('seed-1', { providerCreateGates: [{ name: 'fabric' }] }) },
  { method: 'DELETE', path: (id) => `/api/v2/servers/${id}`, destructive: true },
  ...['start', 'stop', 'softreboot', 'hardreboot'].map((verb): Route => ({ method: 'POST', path: (id) => `/api/v2/servers/${id}/${verb}` })),
  { method: 'POST', path: (id) => `/api/v2/servers/${id}/snapshot`, body: { metadata: { name: 'before-upgrade' } } },
  { method: 'POST', path: (id) => `/api/v2/servers/${id}/provider-create-gates`, body: { name: 'fabric', reason: 'PortsProgrammed', message: 'leaf-3' } },
  { method: 'POST', path: () => V1, body: v1Body('fz-v1-new') },
  { method: 'PUT', path: (id) => `${V1}/${id}`, body: v1Body('seed-v1') },
  { method: 'DELETE', path: (id) => `${V1}/${id}`, destructive: true },
  // the v1 tenancy segments, fuzzed like a server id: another or a malformed organization, project or identity
  { method: 'POST', path: (id) => `/api/v1/organizations/${id}/projects/web/identities/id-a/servers`, body: v1Body('fz-v1-org') },
  { method: 'PUT', path: (id) => `/api/v1/organizations/acme/projects/${id}/identities/${id}/servers/${id}`, body: v1Body('seed-v1') },
  { method: 'PATCH', path: (id) => `/api/v2/servers/${id}`, body: { spec: { flavorId: 'm1.small' } }, outsideContract: true },
];

/** The field a mutated body's 400 must name: the added key, or the last name on the mutated path. */
const fieldOf = (mutation: Mutation): string =>
  mutation.op === 'add' ? mutation.key : String([...mutation.path].reverse().find((k) => typeof k === 'string') ?? '');

/** Remembers which mutation made a body text for a route, so the property can ask that a 400 names the field. */
const mutationOfBody = new Map<string, Mutation>();
const bodyKey = (route: Route, raw: string): string => `${route.method} ${route.path('{id}')} ${raw}`;
const tagged = (route: Route, raw: string, mutation: Mutation): string => {
  mutationOfBody.set(bodyKey(route, raw), mutation);
  return raw;
};

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'application/merge-patch+json', 'multipart/form-data; boundary=x', 'application/octet-stream', 'application/jsonx', ';;;'];

/** Texts that are not JSON, or JSON a parser may mishandle. */
const malformedJson = fc.oneof(
  fc.constantFrom('', '{', '{"metadata": {"name": "a"}, "spec": ', 'null', 'true', '[]', '"text"', '1e999999', '{"a": 1}{"b": 2}', '\ufeff{}', '{"__proto__": {"admin": true}}', '{"constructor": {"prototype": {"x": 1}}}', '{"metadata": {"name": "a"}, "metadata": 7}', '\u0000', '{"a": "\\ud800"}'),
  fc.string({ unit: 'binary', maxLength: 120 }),
  fc.constant(JSON.stringify({ padding: 'A'.repeat(BODY_LIMIT + 1) })),
);

describe('fuzz: REST API request bodies on every mutating route', function () {
  this.timeout(fuzzTimeout());
  let rig: ApiRig;
  let seedV2: string;
  let seedV1: string;
  let narrow: string;
  before(async () => {
    // The compute is never reached: the seed servers have no Nova id yet, so verbs answer 409 before asking Nova.
    rig = await startApiRig({ bodyLimit: BODY_LIMIT, compute: { novaFor: async () => Promise.reject(new Error('not reached')) } });
    seedV2 = ((await rig.call('POST', '/api/v2/servers', { body: v2Body('seed-1', { providerCreateGates: [{ name: 'fabric' }, { name: 'dns' }] }) })).body as { metadata: { id: string } }).metadata.id;
    seedV1 = ((await rig.call('POST', V1, { body: v1Body('seed-v1') })).body as { metadata: { id: string } }).metadata.id;
    narrow = await rig.token({ global: [{ name: ENDPOINTS.serversV2, operations: ['read'] }] }, 'narrow');
  });
  after(async () => rig.close());

  /** The resource store's objects of every kind and the event store's events: equal before and after a rejection. */
  const snapshot = async (): Promise<string> => {
    const objects = await Promise.all(STORED_KIND_NAMES.map(async (kind) => (await rig.source.list(kind)).items));
    const events = await rig.events.readAll();
    return JSON.stringify({ objects, events: events.map((e) => [e.position, e.stream, e.revision, e.type]) });
  };

  const ids = (route: Route) =>
    fc.oneof(
      { weight: route.destructive ? 0 : 6, arbitrary: fc.constantFrom(seedV2, seedV1) },
      // the server the fuzzer itself created last (so a delete can be accepted too)
      { weight: 2, arbitrary: fc.constant(CREATED) },
      { weight: 2, arbitrary: fc.constantFrom('does-not-exist', 'a', 'x'.repeat(300), 'x'.repeat(253), 'UPPER', '..', '%2e%2e', '%E0%A4%A', '%', '%00', 'web-1.example', '0') },
      { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s) || 'empty') },
    );

  const bodies = (route: Route) =>
    route.body === undefined
      ? fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)), malformedJson)
      : fc.oneof(
          { weight: 6, arbitrary: mutationOf(route.body).map((m) => tagged(route, JSON.stringify(applyMutation(route.body, m)) ?? 'null', m)) },
          { weight: 1, arbitrary: fc.constant(JSON.stringify(route.body)) },
          { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
          { weight: 2, arbitrary: malformedJson },
          { weight: 1, arbitrary: hostileValue().map((v) => JSON.stringify({ ...(route.body as object), extra: v }) ?? 'null') },
        );

  const requests = fc.constantFrom(...ROUTES).chain((route) =>
    fc.record({
      route: fc.constant(route),
      id: ids(route),
      raw: bodies(route),
      contentType: fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
      token: fc.oneof({ weight: 8, arbitrary: fc.constant<'admin' | 'none' | 'garbage' | 'narrow'>('admin') }, { weight: 1, arbitrary: fc.constantFrom<'admin' | 'none' | 'garbage' | 'narrow'>('none', 'garbage', 'narrow') }),
    }),
  );

  it('never a 5xx or a dropped connection; every refusal is the error body; nothing persisted from a refusal', async () => {
    let accepted = 0;
    const created: string[] = [];
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requests, async ({ route, id, raw, contentType, token }) => {
        const before = await snapshot();
        const path = route.path(id === CREATED ? (created.at(-1) ?? 'none-created-yet') : id);
        const tok = token === 'admin' ? undefined : token === 'none' ? null : token === 'garbage' ? 'not.a.jwt' : narrow;
        const options = { ...(raw === undefined ? {} : { raw, contentType }), token: tok };
        const reply = route.outsideContract ? await callOutsideContract(rig, route.method, path, options) : await rig.call(route.method, path, options);
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        const what = `${route.method} ${path} ${contentType} ${String(raw).slice(0, 200)} → ${reply.status} ${JSON.stringify(reply.body)?.slice(0, 300)}`;
        expect(reply.status, what).to.be.below(500);
        if (reply.status < 400) {
          accepted += 1;
          const made = (reply.body as { metadata?: { id?: unknown } } | undefined)?.metadata?.id;
          if (reply.status === 201 && typeof made === 'string') created.push(made);
          return;
        }
        const body = reply.body as ErrorReply;
        expect(Object.keys(body).sort(), what).to.deep.equal(['error', 'error_description', 'request_id']);
        expect(body.request_id, what).to.equal(reply.headers.get('x-request-id'));
        expect(unreadable(body.error_description), what).to.deep.equal([]);
        expect(body.error_description.length, what).to.be.below(4096);
        const mutation = raw === undefined ? undefined : mutationOfBody.get(bodyKey(route, raw));
        if (reply.status === 400 && mutation !== undefined && contentType === 'application/json' && token === 'admin') {
          expect(body.error_description, `the 400 names the field: ${what}`).to.contain(fieldOf(mutation));
        }
        expect(await snapshot(), `a refusal changed the stores: ${what}`).to.equal(before);
      }),
      fuzzParameters(300),
    );
    // The long runs (FUZZ_RUNS) report what they reached: how many requests answered each status.
    if (process.env.FUZZ_RUNS !== undefined) console.log(`      statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
    expect(accepted, `statuses ${JSON.stringify([...statuses])}`).to.be.greaterThan(0);
  });
});
