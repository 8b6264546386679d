/**
 * Failpoints (like etcd's gofail or TiKV's fail-rs): named places in the engine where a chaos run may kill
 * the process, to prove the crash guarantee with real processes (docs/chaos.md).
 *
 *   decided-before-append          a decision is made, its event is not yet appended
 *   appended-before-effect         the event declaring an effect is appended, the effect not yet started
 *   effect-answered-before-result  an effect's handler returned (the cloud answered), its result not yet decided
 *
 * Armed only by the environment variable `REGENT_FAILPOINTS`, read once when this module loads:
 *   REGENT_FAILPOINTS="appended-before-effect=0.05;seed=42"   fire with probability 0.05 per hit (seeded PRNG)
 *   REGENT_FAILPOINTS="decided-before-append=@3"              fire at the 3rd hit of that point
 *   REGENT_FAILPOINTS="effect-answered-before-result=@1;streams=server-rebuild-"  count only hits on streams with that prefix
 * Unset (the normal case) every hook is one comparison with `undefined`. When a point fires the process writes
 * one line to stderr (`failpoint <name> fired on <stream> (hit N)`) and SIGKILLs itself: no cleanup, no flush.
 */
import { writeSync } from 'node:fs';

export const FAILPOINT_NAMES = ['decided-before-append', 'appended-before-effect', 'effect-answered-before-result'] as const;
export type FailpointName = (typeof FAILPOINT_NAMES)[number];

/** How one point fires: with a probability per hit, or at exactly the Nth hit (1-based). */
export type FailpointRule = { kind: 'probability'; p: number } | { kind: 'nth'; n: number };

export interface FailpointConfig {
  rules: Partial<Record<FailpointName, FailpointRule>>;
  seed: number;
  /** Only streams starting with one of these prefixes count as hits (empty: every stream). */
  streamPrefixes: string[];
}

const isFailpointName = (name: string): name is FailpointName => (FAILPOINT_NAMES as readonly string[]).includes(name);

/** Parses one rule's text: `0.05` (probability in [0, 1]) or `@N` (N ≥ 1). Throws on anything else. */
export const parseFailpointRule = (text: string): FailpointRule => {
  const value = text.trim();
  if (value.startsWith('@')) {
    const n = Number(value.slice(1));
    if (!Number.isInteger(n) || n < 1) throw new Error(`failpoint rule ${JSON.stringify(text)}: @N needs an integer N ≥ 1`);
    return { kind: 'nth', n };
  }
  const p = Number(value);
  if (value === '' || !Number.isFinite(p) || p < 0 || p > 1) throw new Error(`failpoint rule ${JSON.stringify(text)}: a probability in [0, 1] or @N`);
  return { kind: 'probability', p };
};

/** Parses `REGENT_FAILPOINTS`; undefined when unset or empty. Unknown names and bad values throw (a typo must not pass as "no chaos"). */
export const parseFailpoints = (spec: string | undefined): FailpointConfig | undefined => {
  if (spec === undefined || spec.trim() === '') return undefined;
  const config: FailpointConfig = { rules: {}, seed: 1, streamPrefixes: [] };
  for (const entry of spec.split(';').map((e) => e.trim()).filter((e) => e !== '')) {
    const eq = entry.indexOf('=');
    if (eq < 0) throw new Error(`failpoint entry ${JSON.stringify(entry)}: expected name=value`);
    const name = entry.slice(0, eq).trim();
    const value = entry.slice(eq + 1).trim();
    if (name === 'seed') {
      const seed = Number(value);
      if (!Number.isInteger(seed)) throw new Error(`failpoint seed ${JSON.stringify(value)}: an integer`);
      config.seed = seed;
    } else if (name === 'streams') {
      config.streamPrefixes = value.split(',').map((p) => p.trim()).filter((p) => p !== '');
    } else if (isFailpointName(name)) {
      config.rules[name] = parseFailpointRule(value);
    } else {
      throw new Error(`unknown failpoint ${JSON.stringify(name)} (known: ${FAILPOINT_NAMES.join(', ')}, seed, streams)`);
    }
  }
  return config;
};

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** The firing state of one process: hit counts per point and the PRNG. `hit` answers whether this hit fires. */
export class FailpointState {
  private readonly hits = new Map<FailpointName, number>();
  private readonly random: () => number;

  constructor(readonly config: FailpointConfig) {
    this.random = seededRandom(config.seed);
  }

  /** Counts a hit of `name` on `stream` and answers whether it fires, with the hit's number. */
  hit(name: FailpointName, stream: string): { fires: boolean; count: number } {
    const rule = this.config.rules[name];
    if (!rule) return { fires: false, count: 0 };
    if (this.config.streamPrefixes.length > 0 && !this.config.streamPrefixes.some((p) => stream.startsWith(p))) return { fires: false, count: 0 };
    const count = (this.hits.get(name) ?? 0) + 1;
    this.hits.set(name, count);
    const fires = rule.kind === 'nth' ? count === rule.n : this.random() < rule.p;
    return { fires, count };
  }
}

const armed: FailpointState | undefined = (() => {
  const config = parseFailpoints(process.env.REGENT_FAILPOINTS);
  return config ? new FailpointState(config) : undefined;
})();

/** The engine's hook: inert unless REGENT_FAILPOINTS armed `name`; when it fires, one stderr line, then SIGKILL. */
export const failpoint = (name: FailpointName, stream: string): void => {
  if (armed === undefined) return;
  const { fires, count } = armed.hit(name, stream);
  if (!fires) return;
  writeSync(2, `failpoint ${name} fired on ${stream} (hit ${count})\n`);
  process.kill(process.pid, 'SIGKILL');
};
