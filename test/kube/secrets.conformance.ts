/**
 * The secret store conformance suite: the contract of src/kube/secrets.ts, run against every adapter
 * (embedded file; kubernetes through the fake API server; a real cluster when KUBECONFIG is set).
 *
 * Every value this suite stores is a random marker, and every error the store throws and every line
 * written to stdout/stderr while the suite runs is kept: the last test fails if any of them contains
 * a value (as text or as base64).
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { BadRequest, Invalid } from '../../src/kube/errors.js';
import type { ResourceSource } from '../../src/kube/port.js';
import { MAX_SECRET_BYTES, type SecretStore } from '../../src/kube/secrets.js';
import type { ConformanceTarget, FreshSource } from './conformance.js';

const CHILD = fileURLToPath(new URL('./support/child-secrets.ts', import.meta.url));

/** Everything the suite's stores threw, and everything written to stdout/stderr while it ran. */
export interface LeakWitness {
  readonly errors: unknown[];
  readonly output: string[];
  readonly values: Set<string>;
}

/** A value to store: random, so finding it anywhere else means it leaked from here. */
const markerFor = (witness: LeakWitness, label: string): string => {
  const value = `v-${label}-${randomBytes(9).toString('hex')}`;
  witness.values.add(value);
  return value;
};

/** The store, with every rejection and throw recorded before it reaches the test. */
const recording = (store: SecretStore, witness: LeakWitness): SecretStore =>
  new Proxy(store, {
    get(target, property, receiver) {
      const member = Reflect.get(target, property, receiver) as unknown;
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) => {
        try {
          const result = (member as (...a: unknown[]) => unknown).apply(target, args);
          return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(witness.errors.push(error) && error)) : result;
        } catch (error) {
          witness.errors.push(error);
          throw error;
        }
      };
    },
  });

/** Every form in which an error could show a value: message, stack, inspection (cause, body), JSON. */
export const errorTexts = (error: unknown): string[] => {
  const texts = [inspect(error, { depth: 10 }), String(error)];
  if (error instanceof Error) texts.push(error.message, error.stack ?? '');
  try {
    texts.push(JSON.stringify(error) ?? '');
  } catch {
    // a circular error cannot be serialized by a logger either
  }
  return texts;
};

/** The values (as text or base64) found in any of the texts. */
export const leaksIn = (texts: readonly string[], values: Iterable<string>): string[] => {
  const found = new Set<string>();
  for (const value of values) {
    const forms = [value, Buffer.from(value, 'utf8').toString('base64')];
    if (texts.some((t) => forms.some((f) => t.includes(f)))) found.add(value);
  }
  return [...found];
};

/** Tees stdout and stderr into `output` until the returned function is called. */
const captureOutput = (output: string[]): (() => void) => {
  const originals = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  const tee =
    (write: typeof process.stdout.write) =>
    (chunk: unknown, ...rest: unknown[]): boolean => {
      output.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    };
  process.stdout.write = tee(originals.out) as typeof process.stdout.write;
  process.stderr.write = tee(originals.err) as typeof process.stderr.write;
  return () => {
    process.stdout.write = originals.out;
    process.stderr.write = originals.err;
  };
};

const runChild = (args: string[], env: Record<string, string> = {}): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`child exited ${code}: ${stderr}`))));
  });

const increasing = (versions: readonly string[]): boolean => versions.every((v, i) => i === 0 || BigInt(v) > BigInt(versions[i - 1]!));
const rejection = (promise: Promise<unknown>): Promise<unknown> => promise.then(
  () => new Error('expected a rejection'),
  (error: unknown) => error,
);

export const runSecretConformance = (target: ConformanceTarget): void => {
  describe(`SecretStore conformance: ${target.name}`, function () {
    this.timeout(Math.max(30_000, target.eventuallyMs * 4));
    const witness: LeakWitness = { errors: [], output: [], values: new Set() };
    let restore: () => void = () => undefined;
    let fresh: FreshSource;
    let secrets: SecretStore;
    let ns: string;
    const value = (label: string): string => markerFor(witness, label);
    const others: ResourceSource[] = [];
    const connect = async (): Promise<SecretStore> => {
      const other = await fresh.connect!();
      others.push(other);
      return recording(other.secrets, witness);
    };
    before(() => (restore = captureOutput(witness.output)));
    after(() => restore());
    beforeEach(async () => {
      fresh = await target.fresh();
      secrets = recording(fresh.source.secrets, witness);
      ns = fresh.namespace;
    });
    afterEach(async () => {
      await Promise.all(others.splice(0).map((o) => o.close()));
      await fresh.cleanup();
    });

    describe('round trip', () => {
      it('put creates; get reads the data back as plain strings, with the version put returned and the labels (managed-by: regent added)', async () => {
        const data = { username: value('user'), password: value('pass'), 'clouds.yaml': `clouds:\n  one:\n    auth: {password: ${value('yaml')}}\n` };
        const put = await secrets.put(ns, 'region-one-credentials', data, { labels: { 'regent.dev/region': 'region-one' } });
        expect(put.created).to.equal(true);
        expect(put.version).to.match(/^\d+$/);
        const got = await secrets.get(ns, 'region-one-credentials');
        expect(got).to.deep.equal({ data, version: put.version, labels: { 'app.kubernetes.io/managed-by': 'regent', 'regent.dev/region': 'region-one' } });
        expect(await secrets.get(ns, 'nope')).to.equal(undefined);
      });

      it('a stored secret prints and serializes as its keys only (inspect, JSON)', async () => {
        const secret = value('printed');
        await secrets.put(ns, 'printed', { token: secret });
        const got = (await secrets.get(ns, 'printed'))!;
        expect(got.data.token).to.equal(secret);
        for (const text of [inspect(got), inspect(got.data), JSON.stringify(got), JSON.stringify({ secret: got })]) {
          expect(text).to.not.include(secret);
          expect(text).to.include('token');
        }
      });

      it('another connection reads what one wrote (the store is shared, not per client)', async function () {
        if (!fresh.connect) this.skip();
        const data = { token: value('shared') };
        const put = await secrets.put(ns, 'shared', data);
        const other = await connect();
        expect(await other.get(ns, 'shared')).to.deep.equal({ data, version: put.version, labels: { 'app.kubernetes.io/managed-by': 'regent' } });
      });
    });

    describe('replace', () => {
      it('a put that changes data replaces it wholesale and takes a greater version: a key left out is gone', async () => {
        const first = await secrets.put(ns, 'app-cred', { id: value('id'), secret: value('old') });
        const next = { id: value('id2') };
        const second = await secrets.put(ns, 'app-cred', next);
        expect(second.created).to.equal(false);
        expect(BigInt(second.version) > BigInt(first.version)).to.equal(true);
        expect((await secrets.get(ns, 'app-cred'))?.data).to.deep.equal(next);
      });

      it('a put that changes nothing keeps the version, whatever order the keys and labels come in', async () => {
        const [a, b] = [value('a'), value('b')];
        const first = await secrets.put(ns, 'steady', { a, b }, { labels: { x: '1', y: '2' } });
        const again = await secrets.put(ns, 'steady', { b, a }, { labels: { y: '2', x: '1' } });
        expect(again).to.deep.equal({ version: first.version, created: false });
        expect((await secrets.get(ns, 'steady'))?.version).to.equal(first.version);
      });

      it('a put that changes only the labels takes a new version; ownerUid is kept as the regent.dev/owner-uid label', async () => {
        const data = { token: value('labelled') };
        const first = await secrets.put(ns, 'owned', data);
        const owner = '6f1c4f6e-2b7a-4d4b-9a55-0c6f1f3d2e10';
        const second = await secrets.put(ns, 'owned', data, { ownerUid: owner });
        expect(BigInt(second.version) > BigInt(first.version)).to.equal(true);
        expect((await secrets.get(ns, 'owned'))?.labels).to.deep.equal({ 'app.kubernetes.io/managed-by': 'regent', 'regent.dev/owner-uid': owner });
        expect((await secrets.list(ns, `regent.dev/owner-uid=${owner}`)).map((s) => s.name)).to.deep.equal(['owned']);
      });
    });

    describe('delete', () => {
      it('delete removes the secret and answers true; a second delete answers false', async () => {
        await secrets.put(ns, 'doomed', { token: value('doomed') });
        expect(await secrets.delete(ns, 'doomed')).to.equal(true);
        expect(await secrets.get(ns, 'doomed')).to.equal(undefined);
        expect(await secrets.delete(ns, 'doomed')).to.equal(false);
        expect(await secrets.delete(ns, 'never-was')).to.equal(false);
      });

      it('a secret deleted and put again is created anew, with a version greater than any before', async () => {
        const first = await secrets.put(ns, 'phoenix', { token: value('one') });
        await secrets.delete(ns, 'phoenix');
        const again = await secrets.put(ns, 'phoenix', { token: value('two') });
        expect(again.created).to.equal(true);
        expect(BigInt(again.version) > BigInt(first.version)).to.equal(true);
      });
    });

    describe('list', () => {
      it('list names secrets and their keys (sorted), in one namespace or every one, by label selector: never a value', async () => {
        const b = await secrets.put(ns, 'b-cred', { z: value('z'), a: value('a') }, { labels: { tier: 'identity' } });
        const a = await secrets.put(ns, 'a-cred', { token: value('t') }, { labels: { tier: 'region' } });
        const listed = await secrets.list(ns);
        expect(listed.map(({ createdAt: _created, ...rest }) => rest)).to.deep.equal([
          { namespace: ns, name: 'a-cred', keys: ['token'], version: a.version, labels: { 'app.kubernetes.io/managed-by': 'regent', tier: 'region' } },
          { namespace: ns, name: 'b-cred', keys: ['a', 'z'], version: b.version, labels: { 'app.kubernetes.io/managed-by': 'regent', tier: 'identity' } },
        ]);
        for (const s of listed) expect(Date.parse(s.createdAt)).to.be.closeTo(Date.now(), 120_000);
        expect((await secrets.list(undefined, 'tier=identity')).filter((s) => s.namespace === ns).map((s) => s.name)).to.deep.equal(['b-cred']);
        expect((await secrets.list(ns, 'tier in (region, identity),tier!=identity')).map((s) => s.name)).to.deep.equal(['a-cred']);
        expect((await secrets.list(ns, '!tier')).map((s) => s.name)).to.deep.equal([]);
        expect(leaksIn([JSON.stringify(listed), inspect(listed, { depth: 10 })], witness.values)).to.deep.equal([]);
      });

      it('a malformed label selector is BadRequest', async () => {
        expect(await rejection(secrets.list(ns, 'tier in region'))).to.be.instanceOf(BadRequest);
        expect(await rejection(secrets.list(ns, '=x'))).to.be.instanceOf(BadRequest);
      });
    });

    describe('validation: refused before anything is stored', () => {
      const causesOf = (error: unknown): string[] => (error as Invalid).causes.map((c) => c.path);

      it('a name that is not a DNS subdomain (or longer than 253), or a namespace that is not a DNS label, is Invalid naming the field', async () => {
        const token = { token: value('badname') };
        for (const name of ['Upper', 'under_score', 'trailing-', '', 'a'.repeat(254), 'dots..twice']) {
          const error = await rejection(secrets.put(ns, name, token));
          expect(error, name).to.be.instanceOf(Invalid);
          expect(causesOf(error), name).to.deep.equal(['metadata.name']);
        }
        expect(causesOf(await rejection(secrets.put('Not_A_Namespace', 'fine', token)))).to.deep.equal(['metadata.namespace']);
        expect(await rejection(secrets.get(ns, 'Upper'))).to.be.instanceOf(Invalid);
        expect(await rejection(secrets.delete(ns, 'Upper'))).to.be.instanceOf(Invalid);
        const ok = await secrets.put(ns, `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`, token);
        expect(ok.created, 'a 253-character name is fine').to.equal(true);
      });

      it('a key outside [-._a-zA-Z0-9], or ".", "..", "..x", is Invalid naming the key, and nothing is stored', async () => {
        for (const key of ['has space', 'slash/key', '.', '..', '..hidden', 'ünïcode', '']) {
          const error = await rejection(secrets.put(ns, 'keyed', { fine: value('fine'), [key]: value('bad-key') }));
          expect(error, JSON.stringify(key)).to.be.instanceOf(Invalid);
          expect(causesOf(error)).to.deep.equal([`data[${key}]`]);
        }
        expect(await secrets.get(ns, 'keyed')).to.equal(undefined);
        expect((await secrets.put(ns, 'keyed', { '.dotfile': value('dot'), 'a-b_c.d': value('abc') })).created).to.equal(true);
      });

      it('more than 1 MiB of keys and values together is Invalid naming data; exactly 1 MiB is stored', async () => {
        const key = 'blob';
        const filler = (bytes: number): string => value('big').padEnd(bytes, 'x');
        const error = await rejection(secrets.put(ns, 'big', { [key]: filler(MAX_SECRET_BYTES - key.length + 1) }));
        expect(error).to.be.instanceOf(Invalid);
        expect(causesOf(error)).to.deep.equal(['data']);
        expect((error as Error).message).to.match(/at most 1048576 bytes/);
        expect(await secrets.get(ns, 'big')).to.equal(undefined);
        const exact = filler(MAX_SECRET_BYTES - key.length);
        await secrets.put(ns, 'big', { [key]: exact });
        expect((await secrets.get(ns, 'big'))?.data[key]).to.equal(exact);
      });

      it('a value that is not a string is refused naming its key; an invalid label or owner uid is Invalid naming it', async () => {
        const error = await rejection(secrets.put(ns, 'typed', { port: 5432 as unknown as string }));
        expect(causesOf(error)).to.deep.equal(['data[port]']);
        expect((error as Error).message).to.not.include('5432');
        expect(causesOf(await rejection(secrets.put(ns, 'typed', { a: value('l') }, { labels: { 'bad key!': 'x' } })))).to.deep.equal(['metadata.labels[bad key!]']);
        expect(causesOf(await rejection(secrets.put(ns, 'typed', { a: value('l') }, { labels: { tier: 'no spaces allowed' } })))).to.deep.equal(['metadata.labels[tier]']);
        expect(causesOf(await rejection(secrets.put(ns, 'typed', { a: value('l') }, { ownerUid: 'not a uid' })))).to.deep.equal(['ownerUid']);
        expect(await secrets.get(ns, 'typed')).to.equal(undefined);
      });
    });

    describe('concurrent writers', () => {
      it('concurrent puts from two connections: the last write wins and every change takes a strictly greater version', async function () {
        if (!fresh.connect) this.skip();
        const other = await connect();
        const writers = { a: secrets, b: other };
        const outcomes = await Promise.all(
          Array.from({ length: 16 }, async (_, i) => {
            const writer = i % 2 === 0 ? 'a' : 'b';
            const data = { writer, n: String(i), token: value(`c${i}`) };
            return { data, ...(await writers[writer].put(ns, 'contended', data)) };
          }),
        );
        const versions = outcomes.map((o) => BigInt(o.version));
        expect(new Set(versions).size, 'every put changed the data, so each took its own version').to.equal(outcomes.length);
        const last = outcomes.reduce((x, y) => (BigInt(y.version) > BigInt(x.version) ? y : x));
        const stored = await other.get(ns, 'contended');
        expect(stored?.version).to.equal(last.version);
        expect(stored?.data).to.deep.equal(last.data);
      });

      it('concurrent puts from two processes: the last write wins, each writer sees its versions strictly increase, no version is given twice', async function () {
        if (!fresh.spec) this.skip();
        this.timeout(120_000);
        const count = 40;
        const startAt = String(Date.now() + 4000);
        const [a, b] = await Promise.all(['a', 'b'].map((writer) => runChild([fresh.spec!, ns, 'raced', writer, String(count), startAt], fresh.childEnv).then((out) => JSON.parse(out) as string[])));
        expect(increasing(a!), `writer a: ${a!.join(' ')}`).to.equal(true);
        expect(increasing(b!), `writer b: ${b!.join(' ')}`).to.equal(true);
        expect(new Set([...a!, ...b!]).size).to.equal(2 * count);
        const lastA = BigInt(a![count - 1]!);
        const lastB = BigInt(b![count - 1]!);
        const winner = lastA > lastB ? 'a' : 'b';
        const stored = await secrets.get(ns, 'raced');
        expect(stored?.data).to.deep.equal({ writer: winner, n: String(count - 1) });
        expect(stored?.version).to.equal(String(lastA > lastB ? lastA : lastB));
      });
    });

    describe('no value is ever shown', () => {
      it('no value stored in this suite appears in any error the stores threw or any line written to stdout/stderr', () => {
        expect(witness.values.size, 'the suite stored values').to.be.greaterThan(10);
        expect(witness.errors.length, 'the suite provoked errors').to.be.greaterThan(10);
        const texts = [...witness.errors.flatMap(errorTexts), ...witness.output];
        expect(leaksIn(texts, witness.values)).to.deep.equal([]);
      });
    });
  });
};
