/** Every stream replays with no divergence: verifyStream (src/engine/replay.ts) re-decided each stored event the same way. */
import type { Invariant } from './types.js';

export const replayNoDivergence: Invariant = ({ divergences }) => divergences.map((d) => ({ invariant: 'replay-no-divergence' as const, detail: `${d.stream}: ${d.detail}` }));
