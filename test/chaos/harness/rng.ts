/** A seeded PRNG for the harness's choices (mulberry32, the failpoints' own), with the helpers a plan needs. */
import { seededRandom } from '../../../src/engine/failpoints.js';

export interface Rng {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export const rngFrom = (seed: number): Rng => {
  const next = seededRandom(seed);
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
    chance: (p) => next() < p,
  };
};
