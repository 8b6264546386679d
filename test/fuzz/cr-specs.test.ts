/**
 * Fuzzes the custom-resource specs of every stored kind (issue 31, bad input): arbitrary JSON and mutations of a
 * valid example go through the kind's validate function and through the embedded store's real apply path
 * (`applyManifests`, as `regent apply -f` uses it). Properties: nothing is thrown but the typed Invalid/BadRequest,
 * the message names the field paths and is readable, a rejected apply leaves the store unchanged, and every valid
 * example round-trips. FUZZ_RUNS / FUZZ_SEED override the run count and seed (docs/fuzzing.md).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify as toYaml } from 'yaml';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { BadRequest, Invalid } from '../../src/kube/errors.js';
import { STORED_KINDS, STORED_KIND_NAMES, type AnyKindDefinition } from '../../src/resources/index.js';
import { applyMutation, fuzzParameters, fuzzTimeout, mutationOf, showPath, unreadable, type Mutation } from './support.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

/** The core kinds have no file in examples/: one valid object each. */
const CORE_EXAMPLES: Record<string, unknown> = {
  Node: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'compute-1', labels: { 'regent.dev/pool': 'a' } }, spec: { unschedulable: false, taints: [{ key: 'k', effect: 'NoSchedule', value: 'v' }] } },
  ConfigMap: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'demo-exports', namespace: 'default' }, data: { 'schema.json': '{}', other: 'x' } },
};

/** The kinds' examples in dependency order: examples/*.yaml (one or two per kind) and the core kinds' objects. */
const loadExamples = (): { kind: string; object: Record<string, unknown> }[] => {
  const fromFiles = readdirSync(EXAMPLES)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => parseAllDocuments(readFileSync(join(EXAMPLES, f), 'utf8')).map((d) => d.toJS() as Record<string, unknown>));
  const objects = [...fromFiles, ...Object.values(CORE_EXAMPLES)] as Record<string, unknown>[];
  const order = (kind: unknown) => STORED_KIND_NAMES.indexOf(kind as never);
  return objects.sort((a, b) => order(a.kind) - order(b.kind)).map((object) => ({ kind: object.kind as string, object }));
};

const examples = loadExamples();
const definition = (kind: string): AnyKindDefinition => STORED_KINDS.find((k) => k.kind === kind)!;

/** What a rejection must look like: every field path in the message, nothing unreadable, bounded in size. */
const checkRejection = (message: string, paths: readonly string[]): void => {
  expect(unreadable(message), message.slice(0, 500)).to.deep.equal([]);
  for (const path of paths) expect(message, `the message names ${path}`).to.contain(path);
  expect(message.length, `message of ${message.length} characters: ${message.slice(0, 300)}`).to.be.below(16_384);
};

/** Every object in the store, as JSON, with the store's resourceVersion: equal before and after a rejected apply. */
const snapshot = async (source: EmbeddedResourceSource): Promise<string> => {
  const lists = await Promise.all(STORED_KIND_NAMES.map(async (kind) => source.list(kind)));
  return JSON.stringify(lists);
};

/** Applies a JSON text as `regent apply -f` would; returns the refusal (typed) or undefined when applied. */
const applyText = async (source: EmbeddedResourceSource, text: string): Promise<Invalid | BadRequest | undefined> => {
  try {
    await applyManifests(source, text);
    return undefined;
  } catch (error) {
    if (error instanceof Invalid || error instanceof BadRequest) return error;
    throw error;
  }
};

/** `spec.listeners[1].port` → ['spec', 'listeners', '1', 'port']; `metadata.labels[a.b/c]` → ['metadata', 'labels', 'a.b/c']. */
const segmentsOf = (path: string): string[] => [...path.matchAll(/\[([^\]]*)\]|([^.[\]]+)/g)].map((m) => m[1] ?? m[2] ?? '');

const mutationDescription = (mutation: Mutation): string => `${mutation.op} ${showPath(mutation.path)}${mutation.op === 'add' ? ` key ${JSON.stringify(mutation.key)}` : ''}`;

describe('fuzz: custom-resource specs of every kind', function () {
  this.timeout(fuzzTimeout());
  let dir: string;
  let source: EmbeddedResourceSource;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-fuzz-cr-'));
    source = openEmbeddedSource({ path: join(dir, 'resources.db') });
    for (const { object } of examples) await applyManifests(source, JSON.stringify(object));
  });
  after(async () => {
    await source.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has a valid example for every stored kind', () => {
    expect([...new Set(examples.map((e) => e.kind))].sort()).to.deep.equal([...STORED_KIND_NAMES].sort());
  });

  it('every valid example round-trips: validate is idempotent and the store keeps the validated object', async () => {
    for (const { kind, object } of examples) {
      const first = definition(kind).validate(object);
      expect(first.ok, first.ok ? '' : first.message).to.equal(true);
      if (!first.ok) continue;
      const second = definition(kind).validate(JSON.parse(JSON.stringify(first.value)));
      expect(second.ok && second.value, kind).to.deep.equal(first.value);
      const metadata = object.metadata as { name: string; namespace?: string };
      const stored = (await source.get(kind as never, metadata.namespace ?? 'default', metadata.name)) as Record<string, unknown> | undefined;
      expect(stored?.spec, kind).to.deep.equal((first.value as unknown as Record<string, unknown>).spec);
    }
  });

  it('arbitrary JSON as the object of any kind: only a readable, path-naming rejection', () => {
    const kinds = fc.constantFrom(...STORED_KINDS);
    const objects = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.record({ metadata: fc.jsonValue({ maxDepth: 3 }), spec: fc.jsonValue({ maxDepth: 4 }), status: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(kinds, objects, fc.boolean(), (kind, body, stamped) => {
        const input = stamped && typeof body === 'object' && body !== null && !Array.isArray(body) ? { ...body, apiVersion: kind.apiVersion, kind: kind.kind } : body;
        const result = kind.validate(input);
        if (!result.ok) checkRejection(result.message, result.errors.map((e) => e.path).filter((p) => p !== ''));
      }),
      fuzzParameters(400),
    );
  });

  it('a mutated valid example: validate never throws, a rejection names a field near the mutation', () => {
    const cases = fc.constantFrom(...examples).chain((example) => mutationOf(example.object).map((mutation) => ({ example, mutation })));
    fc.assert(
      fc.property(cases, ({ example, mutation }) => {
        const input = applyMutation(example.object, mutation);
        const result = definition(example.kind).validate(input);
        if (result.ok) return;
        const paths = result.errors.map((e) => e.path);
        checkRejection(result.message, paths.filter((p) => p !== ''));
        // The error points at the mutated field, an ancestor (a rule on the object, a required field) or a descendant;
        // an added field is refused within the object it was added to; apiVersion and kind are checked first.
        const mutated = (mutation.op === 'add' ? mutation.path.slice(0, -1) : mutation.path).map(String);
        const related = (p: string) => {
          const segments = segmentsOf(p);
          const common = Math.min(segments.length, mutated.length);
          return segments.slice(0, common).every((segment, i) => segment === mutated[i]);
        };
        const near = paths.some((p) => p === '' || p === 'apiVersion' || p === 'kind' || related(p));
        expect(near, `${mutationDescription(mutation)} → ${result.message.slice(0, 300)}`).to.equal(true);
      }),
      fuzzParameters(600),
    );
  });

  it('apply of YAML only YAML can say (aliases, cycles, exponential expansion, tags, merge keys, junk): a typed refusal and an unchanged store', async () => {
    const laughs = ['x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]', ...Array.from({ length: 8 }, (_, i) => `x${i + 1}: &x${i + 1} [${Array(9).fill(`*x${i}`).join(', ')}]`)];
    const injections: readonly ((yaml: string) => string)[] = [
      (yaml) => yaml.replace(/^metadata:\n/m, 'metadata: &anchor\n  loop: *anchor\n'),
      (yaml) => yaml.replace(/^spec:\n/m, 'spec: &anchor\n  loop: *anchor\n'),
      (yaml) => `${yaml}extra:\n${laughs.map((line) => `  ${line}`).join('\n')}\n`,
      (yaml) => yaml.replace(/^metadata:\n/m, 'metadata:\n  tagged: !!binary aGVsbG8=\n  labels: !!set {a, b}\n'),
      (yaml) => yaml.replace(/^metadata:\n/m, 'metadata:\n  annotations: !!omap [a: b]\n  <<: {namespace: merged}\n'),
      (yaml) => yaml.replace(/^spec:\n/m, 'spec: !unknown-tag\n'),
      (yaml) => yaml.replace(/^spec:\n/m, 'spec:\n  ? [complex, key]\n  : 1\n'),
      (yaml) => `${yaml}---\n${yaml}`,
      (yaml) => `%YAML 1.1\n---\n${yaml}`,
    ];
    const texts = fc.oneof(
      { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...examples), fc.constantFrom(...injections)).map(([example, inject]) => inject(toYaml(example.object))) },
      { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...'{}[]:,&*!|>-?%@`#\'"\n '.split(''), 'a', 'spec', 'kind'), maxLength: 80 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 80 }) },
    );
    await fc.assert(
      fc.asyncProperty(texts, async (text) => {
        const before = await snapshot(source);
        const refusal = await applyText(source, text);
        if (refusal === undefined) return;
        checkRejection(refusal.message, []);
        expect(await snapshot(source), `a refused apply changed the store: ${text.slice(0, 300)}`).to.equal(before);
      }),
      fuzzParameters(150),
    );
  });

  it('apply (regent apply -f) of arbitrary or mutated documents: a typed refusal and an unchanged store', async () => {
    const mutated = fc.constantFrom(...examples).chain((example) => mutationOf(example.object).map((mutation) => applyMutation(example.object, mutation)));
    const documents = fc.oneof({ weight: 4, arbitrary: mutated }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) });
    await fc.assert(
      fc.asyncProperty(documents, fc.boolean(), async (document, asYaml) => {
        const before = await snapshot(source);
        // YAML carries what JSON cannot (.nan, .inf); JSON is what most tools write.
        const text = (asYaml ? toYaml(document) : JSON.stringify(document)) ?? 'null';
        const refusal = await applyText(source, text);
        if (refusal === undefined) return;
        checkRejection(refusal.message, refusal instanceof Invalid ? refusal.causes.map((c) => c.path).filter((p) => p !== '') : []);
        expect(await snapshot(source), `a refused apply changed the store: ${text.slice(0, 300)}`).to.equal(before);
      }),
      fuzzParameters(200),
    );
  });
});
