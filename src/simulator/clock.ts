// The simulator's notion of time. Every transition is scheduled on this clock and resolved lazily
// when state is read, so tests drive time explicitly (manual) and the demo just lets it pass (real).

export interface SimClock {
  readonly kind: 'manual' | 'real';
  now(): number;
  /** Moves a manual clock forward; a real clock ignores it (time passes by itself). */
  advance(ms: number): void;
}

export function manualClock(start: number = Date.now()): SimClock {
  let t = start;
  return {
    kind: 'manual',
    now: () => t,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`cannot advance the clock by ${ms} ms`);
      t += ms;
    },
  };
}

export function realClock(): SimClock {
  return { kind: 'real', now: () => Date.now(), advance: () => undefined };
}
