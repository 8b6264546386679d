/**
 * The defects the bad-input fuzzers found (issue 31), one plain test each, shrunk to the counterexample: each failed
 * before its fix. docs/fuzzing.md lists them with cause and fix.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import { BadRequest, Invalid } from '../../src/kube/errors.js';
import { ConfigMapKind, NodeKind, ServerKind, STORED_KINDS } from '../../src/resources/index.js';
import { startApiRig, v2Body, type ApiRig } from '../api/rig.js';
import Database from 'better-sqlite3';
import { Engine } from '../../src/engine/engine.js';
import { QuarantinedEvent } from '../../src/engine/errors.js';
import { StreamLoader } from '../../src/engine/load.js';
import { replayAt, verifyStream } from '../../src/engine/replay.js';
import { verifyStoredEvents } from '../../src/engine/verify-stored.js';
import type { EventStore } from '../../src/store/port.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { SqliteEventStore } from '../../src/store/sqlite/store.js';
import { MachineRegistry } from '../../machines/registry.js';
import { toyDefinition } from '../fixtures/toy-machine.js';

const server = (spec: unknown, name: unknown = 'web-1') => ({ apiVersion: 'regent.dev/v1alpha1', kind: 'Server', metadata: { name }, spec });

describe('fuzz regressions: custom-resource validation', () => {
  it('D1: a spec key named like an Object.prototype member (constructor, toString, __proto__) is pruned, not a crash', () => {
    for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const spec = JSON.parse(`{"${key}": 1}`) as unknown;
      for (const kind of STORED_KINDS) {
        const input = { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name: 'x' }, spec };
        expect(() => kind.validate(input), `${kind.kind} spec.${key}`).not.to.throw();
      }
      const result = ServerKind.validate(server(spec));
      expect(result.ok).to.equal(false);
      if (!result.ok) expect(result.message).to.contain('spec.name: Required value');
    }
  });

  it('D1: a pruned field named constructor is reported as a warning like any unknown field', () => {
    const result = NodeKind.validate({ apiVersion: 'v1', kind: 'Node', metadata: JSON.parse('{"name": "n1", "constructor": "x"}') as unknown });
    expect(result.ok).to.equal(true);
    if (result.ok) expect(result.warnings).to.deep.equal(['unknown field "metadata.constructor"']);
  });

  it('D2: a map key __proto__ is kept as data (ConfigMap data), not dropped silently', () => {
    const data = JSON.parse('{"__proto__": "value", "other": "x"}') as unknown;
    const result = ConfigMapKind.validate({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data });
    expect(result.ok).to.equal(true);
    if (result.ok) expect(JSON.parse(JSON.stringify(result.value)).data).to.deep.equal(JSON.parse('{"__proto__": "value", "other": "x"}'));
  });

  it('D2: a Node spec field named constructor is kept, as every unknown Node spec field is', () => {
    const spec = JSON.parse('{"constructor": "x", "podCIDR": "10.0.0.0/24"}') as unknown;
    const result = NodeKind.validate({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec });
    expect(result.ok).to.equal(true);
    if (result.ok) expect(JSON.parse(JSON.stringify(result.value.spec))).to.deep.equal({ constructor: 'x', podCIDR: '10.0.0.0/24' });
  });

  it('D3: a 70 000-character value is named, not echoed: the message stays short', () => {
    const huge = 'x'.repeat(70_000);
    const cases = [
      { input: { ...server({}), apiVersion: huge }, echoed: true },
      { input: server({}, huge), echoed: true },
      { input: server({ name: 'a', image: { id: huge }, flavor: { name: 'm1.small' }, networkID: 'net-a' }), echoed: false },
    ];
    for (const { input, echoed } of cases) {
      const result = ServerKind.validate(input);
      expect(result.ok).to.equal(false);
      if (!result.ok) {
        expect(result.message.length, result.message.slice(0, 200)).to.be.below(2_000);
        if (echoed) expect(result.message).to.contain('(70000 characters)');
      }
    }
  });

  it('D3: regent apply of a document with a 70 000-character apiVersion answers a short message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-fuzz-regression-'));
    const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
    try {
      const error = await applyManifests(source, JSON.stringify({ apiVersion: 'v'.repeat(70_000), kind: 'Server', metadata: { name: 'a' }, spec: {} })).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(Error);
      expect((error as Error).message.length).to.be.below(2_000);
      expect((error as Error).message).to.contain('not a Regent resource (apiVersion "vvvv');
    } finally {
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('D3: an object-valued apiVersion is shown by its type, as the API server shows it', () => {
    const result = ServerKind.validate({ ...server({}), apiVersion: { nested: { deep: 'x'.repeat(10_000) } } });
    expect(result.ok).to.equal(false);
    if (!result.ok) expect(result.message).to.contain('apiVersion: Unsupported value: "object": supported values: "regent.dev/v1alpha1"');
    expect(Invalid).to.be.a('function');
  });
});

describe('fuzz regressions: regent apply of YAML', () => {
  let dir: string;
  let source: ReturnType<typeof openEmbeddedSource>;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-fuzz-regression-'));
    source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  });
  after(async () => {
    await source.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const refusal = async (text: string): Promise<Error> => {
    const error = await applyManifests(source, text).then(() => undefined, (e: unknown) => e);
    expect(error, 'refused').to.be.instanceOf(Error);
    return error as Error;
  };

  it('D11: aliases that expand exponentially (billion laughs) are a BadRequest naming the document; it was a ReferenceError', async () => {
    const laughs = ['x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]', ...Array.from({ length: 8 }, (_, i) => `  x${i + 1}: &x${i + 1} [${Array(9).fill(`*x${i}`).join(', ')}]`)];
    const error = await refusal(`apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec:\n  ${laughs.join('\n')}\n`);
    expect(error).to.be.instanceOf(BadRequest);
    expect(error.message).to.equal('document 1: Excessive alias count indicates a resource exhaustion attack');
  });

  it('D12: an alias that refers to a node containing it is a BadRequest; it overflowed the stack (RangeError)', async () => {
    const error = await refusal('apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: &s\n  extra: *s\n');
    expect(error).to.be.instanceOf(BadRequest);
    expect(error.message).to.equal('document 1: a YAML alias refers to a node that contains it (a cycle)');
    expect((await source.list('Node')).items).to.deep.equal([]);
  });

  it('D13: a collection used as a key prints no process warning on regent\'s stderr (it is pruned and reported as a warning)', async () => {
    const warnings: string[] = [];
    const listener = (warning: Error) => warnings.push(warning.message);
    process.on('warning', listener);
    try {
      const [outcome] = await applyManifests(source, 'apiVersion: v1\nkind: Node\nmetadata: {name: n2}\nspec:\n  ? [complex, key]\n  : 1\n');
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).to.deep.equal([]);
      expect(outcome?.kind).to.equal('Node');
    } finally {
      process.off('warning', listener);
    }
  });
});

describe('fuzz regressions: REST API', () => {
  let rig: ApiRig;
  let id: string;
  before(async () => {
    rig = await startApiRig({ bodyLimit: 8 * 1024 });
    id = ((await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { providerCreateGates: [{ name: 'fabric' }] }) })).body as { metadata: { id: string } }).metadata.id;
  });
  after(async () => rig.close());

  const errorBody = (body: unknown) => Object.keys(body as object).sort();

  // rig.call fails on any answer the contract does not declare for the operation.
  it('D4: a body on a route that takes none (DELETE, a power verb) is refused within the contract: 400, 413, 415', async () => {
    for (const path of [`/api/v2/servers/${id}`, `/api/v2/servers/${id}/start`, '/api/v1/organizations/acme/projects/web/identities/id-a/servers/nope']) {
      const method = path.endsWith('/start') ? 'POST' : 'DELETE';
      expect((await rig.call(method, path, { raw: '{' })).status).to.equal(400);
      expect((await rig.call(method, path, { raw: '[]', contentType: 'application/xml' })).status).to.equal(415);
      expect((await rig.call(method, path, { raw: JSON.stringify({ pad: 'A'.repeat(9_000) }) })).status).to.equal(413);
    }
  });

  it('D4: provider-create-gates declares the body refusals it answers (413, 415)', async () => {
    const path = `/api/v2/servers/${id}/provider-create-gates`;
    expect((await rig.call('POST', path, { raw: '{}', contentType: 'application/xml' })).status).to.equal(415);
    expect((await rig.call('POST', path, { raw: JSON.stringify({ name: 'fabric', reason: 'A'.repeat(9_000) }) })).status).to.equal(413);
  });

  it('D14: a __proto__ or constructor.prototype key is refused by name and place; it was "the request body is not valid JSON"', async () => {
    const cases = [
      ['{"__proto__": {"admin": true}, "metadata": {"name": "x"}}', 'the request body has a "__proto__" key (at (top level)); such keys are refused'],
      ['{"metadata": {"name": "x", "__proto__": null}, "spec": {}}', 'the request body has a "__proto__" key (at metadata); such keys are refused'],
      ['{"metadata": {"name": "x"}, "spec": {"constructor": {"prototype": {"x": 1}}}}', 'the request body has a "constructor.prototype" key (at spec); such keys are refused'],
      ['{"metadata": ', 'the request body is not valid JSON'],
      ['', 'the request body is empty'],
    ] as const;
    for (const [raw, description] of cases) {
      const reply = await rig.call('POST', '/api/v2/servers', { raw });
      expect(reply.status, raw).to.equal(400);
      expect((reply.body as { error_description: string }).error_description, raw).to.equal(description);
    }
  });

  it('D5: a server id over 100 characters answers the 404 of any unknown server, in the error body (was 414, fastify\'s body)', async () => {
    for (const length of [101, 253, 300]) {
      const reply = await rig.call('GET', `/api/v2/servers/${'x'.repeat(length)}`);
      expect(reply.status, String(length)).to.equal(404);
      expect(errorBody(reply.body)).to.deep.equal(['error', 'error_description', 'request_id']);
      expect((reply.body as { request_id: string }).request_id).to.equal(reply.headers.get('x-request-id'));
    }
  });

  it('D6: a path that is not valid percent-encoding answers 404 in the error body (was fastify\'s own 400 body)', async () => {
    for (const segment of ['%', '%E0%A4%A']) {
      const reply = await rig.call('DELETE', `/api/v2/servers/${segment}`);
      expect(reply.status, segment).to.equal(404);
      expect(errorBody(reply.body)).to.deep.equal(['error', 'error_description', 'request_id']);
      expect((reply.body as { error_description: string }).error_description).to.contain('percent-encoding');
    }
  });
});

describe('fuzz regressions: stored events', () => {
  const registry = new MachineRegistry([toyDefinition()]);
  const reconcile = { type: 'reconcile', source: 'reconciler', desired: 'web', exists: false } as const;
  const observed = { type: 'observed', source: 'monitor', exists: true } as const;

  /** Two toy streams of three events each (armed, submitted, observed), decided by the engine: `toy-a` (to corrupt) and `toy-b`. */
  const record = async (store: EventStore): Promise<void> => {
    const engine = new Engine({ store, registry, handlers: { 'toy.create': async () => undefined } });
    for (const stream of ['toy-a', 'toy-b']) {
      await engine.decide(stream, { stimulus: reconcile, actor: 'test' });
      await engine.decide(stream, { stimulus: reconcile, actor: 'test' });
      await engine.decide(stream, { stimulus: observed, actor: 'test' });
    }
  };

  /** A memory store whose toy-a revision 1 has its metadata replaced (written as any writer could). */
  const withMetadata = async (metadata: unknown): Promise<MemoryEventStore> => {
    const source = new MemoryEventStore();
    await record(source);
    const store = new MemoryEventStore();
    for (const event of await source.readAll()) {
      const bad = event.stream === 'toy-a' && event.revision === 1;
      await store.append(event.stream, [{ id: event.id, type: event.type, data: event.data, metadata: (bad ? metadata : event.metadata) as never }], { expectedRevision: 'any' });
    }
    return store;
  };

  const thrown = async (work: () => Promise<unknown>): Promise<unknown> => work().then(() => undefined, (error: unknown) => error);

  it('D7: stored metadata that is not an object (null) quarantines the stream; it was a TypeError in load, replay and verifyStream', async () => {
    const store = await withMetadata(null);
    const loadError = await thrown(() => new StreamLoader(store, registry, []).load('toy-a'));
    expect(loadError).to.be.instanceOf(QuarantinedEvent);
    expect((loadError as QuarantinedEvent).revision).to.equal(1);
    expect((loadError as QuarantinedEvent).problem).to.equal('metadata is null, not an object');
    expect(await thrown(() => replayAt(store, registry, 'toy-a'))).to.be.instanceOf(QuarantinedEvent);
    expect((await verifyStream(store, registry, 'toy-a')).quarantined?.revision).to.equal(1);
    expect((await new StreamLoader(store, registry, []).load('toy-b')).revision).to.equal(2);
  });

  it('D8: a schemaVersion that is not an integer ("1", 1.5, missing) quarantines; it was read as the current version', async () => {
    for (const schemaVersion of ['1', 1.5, undefined]) {
      const source = new MemoryEventStore();
      await record(source);
      const [, second] = await source.readStream('toy-a');
      const store = await withMetadata({ ...second!.metadata, schemaVersion });
      const error = await thrown(() => new StreamLoader(store, registry, []).load('toy-a'));
      expect(error, String(schemaVersion)).to.be.instanceOf(QuarantinedEvent);
      expect((error as QuarantinedEvent).problem).to.match(/^metadata\.schemaVersion .* is not an integer$/);
      const { failures } = await verifyStoredEvents(store, registry, []);
      expect(failures.map((f) => [f.stream, f.revision])).to.deep.equal([['toy-a', 1]]);
    }
  });

  it('D9: a truncated JSON row in SQLite quarantines its stream at its revision; verify reports it and checks the rest (it was a SyntaxError that ended every read)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-fuzz-regression-'));
    const path = join(dir, 'events.db');
    const store = new SqliteEventStore(path);
    try {
      await record(store);
      const db = new Database(path);
      db.prepare("UPDATE events SET data = substr(data, 1, 10) WHERE stream = 'toy-a' AND revision = 1").run();
      db.close();
      const error = await thrown(() => new StreamLoader(store, registry, []).load('toy-a'));
      expect(error).to.be.instanceOf(QuarantinedEvent);
      expect([(error as QuarantinedEvent).stream, (error as QuarantinedEvent).revision]).to.deep.equal(['toy-a', 1]);
      expect((await new StreamLoader(store, registry, []).load('toy-b')).revision).to.equal(2);
      expect(await thrown(() => replayAt(store, registry, 'toy-a'))).to.be.instanceOf(QuarantinedEvent);
      expect((await verifyStream(store, registry, 'toy-a')).quarantined?.revision).to.equal(1);
      const report = await verifyStoredEvents(store, registry, []);
      expect(report.checked).to.equal(5);
      expect(report.failures.map((f) => [f.stream, f.revision, f.type])).to.deep.equal([['toy-a', 1, '(unreadable)']]);
      expect(report.failures[0]?.position).to.be.greaterThan(0);
      const engine = new Engine({ store, registry, handlers: { 'toy.create': async () => undefined } });
      expect(await thrown(() => engine.decide('toy-a', { stimulus: observed, actor: 'test' }))).to.be.instanceOf(QuarantinedEvent);
      expect((await store.listStreams()).find((s) => s.stream === 'toy-a')?.head).to.equal(2);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('D10: a replay to a time over an event without a readable recordedAt quarantines; it stopped there silently', async () => {
    const source = new MemoryEventStore();
    await record(source);
    const [, second] = await source.readStream('toy-a');
    const { recordedAt: _gone, ...metadata } = second!.metadata;
    const store = await withMetadata(metadata);
    expect(await thrown(() => replayAt(store, registry, 'toy-a', { time: new Date('2100-01-01T00:00:00Z') }))).to.be.instanceOf(QuarantinedEvent);
    expect((await replayAt(store, registry, 'toy-a', { revision: 0 })).applied).to.equal(1);
  });
});
