/**
 * Transcripts: what a scenario saw, step by step, as plain JSON with every cloud-assigned value replaced by
 * a symbol (the suite's images are `image-A`/`image-B`, any other UUID `<uuid>`, the run prefix `<prefix>`,
 * timestamps and request ids dropped). Two targets running the same script produce comparable transcripts.
 *
 * Each step says how it is compared:
 * - `exact`: the values must be equal;
 * - `subsequence`: a polled sequence; every state the real cloud showed must appear in the simulator's
 *   sequence in the same order (a real poller misses transient states the simulator's fine clock shows);
 * - `info`: recorded for the note, never compared (e.g. timings).
 */
export type StepMode = 'exact' | 'subsequence' | 'info';

export interface Step {
  label: string;
  mode: StepMode;
  value: unknown;
}

export interface Transcript {
  scenario: string;
  steps: Step[];
}

export class Recorder {
  readonly steps: Step[] = [];
  private readonly symbols = new Map<string, string>();

  constructor(private readonly prefix: string) {}

  /** Give a cloud id a stable symbol (`image-A`, `server`, ...) for this transcript. */
  name(id: string, symbol: string): void {
    this.symbols.set(id, symbol);
  }

  exact(label: string, value: unknown): void {
    this.steps.push({ label, mode: 'exact', value: this.normalize(value) });
  }

  subsequence(label: string, values: readonly unknown[]): void {
    const normalized = values.map((v) => this.normalize(v));
    const distinct = normalized.filter((v, i) => i === 0 || JSON.stringify(v) !== JSON.stringify(normalized[i - 1]));
    this.steps.push({ label, mode: 'subsequence', value: distinct });
  }

  info(label: string, value: unknown): void {
    this.steps.push({ label, mode: 'info', value: this.normalize(value) });
  }

  normalize(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.normalize(v));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.normalize(v)]));
    }
    return value;
  }

  private text(s: string): string {
    let out = s;
    for (const [id, symbol] of this.symbols) out = out.split(id).join(symbol);
    out = out.split(this.prefix).join('<prefix>');
    out = out.replace(/req-[0-9a-f-]{36}/g, '<request-id>');
    out = out.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>');
    out = out.replace(/\b[0-9a-f]{32}\b/g, '<uuid>');
    return out;
  }
}

export interface Difference {
  scenario: string;
  label: string;
  real: unknown;
  sim: unknown;
  why: string;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** True when every item of `needle` appears in `haystack` in order. */
export const orderedWithin = (needle: readonly unknown[], haystack: readonly unknown[]): boolean => {
  let at = 0;
  for (const item of needle) {
    while (at < haystack.length && !same(haystack[at], item)) at++;
    if (at >= haystack.length) return false;
    at++;
  }
  return true;
};

/** The differences between the real cloud's transcript and the simulator's, step by step. */
export const compareTranscripts = (real: Transcript, sim: Transcript): Difference[] => {
  const out: Difference[] = [];
  const simSteps = new Map(sim.steps.map((s) => [s.label, s]));
  for (const step of real.steps) {
    if (step.mode === 'info') continue;
    const other = simSteps.get(step.label);
    if (!other) {
      out.push({ scenario: real.scenario, label: step.label, real: step.value, sim: '(step missing)', why: 'the simulator run did not reach this step' });
      continue;
    }
    if (step.mode === 'exact' && !same(step.value, other.value)) {
      out.push({ scenario: real.scenario, label: step.label, real: step.value, sim: other.value, why: 'values differ' });
    }
    if (step.mode === 'subsequence' && !orderedWithin(step.value as unknown[], other.value as unknown[])) {
      out.push({ scenario: real.scenario, label: step.label, real: step.value, sim: other.value, why: 'the real sequence is not an ordered subsequence of the simulated one' });
    }
  }
  for (const step of sim.steps) {
    if (step.mode !== 'info' && !real.steps.some((s) => s.label === step.label)) {
      out.push({ scenario: real.scenario, label: step.label, real: '(step missing)', sim: step.value, why: 'the real run did not reach this step' });
    }
  }
  return out;
};
