/**
 * `npm run bench:store`: the store benchmarks of issue 2 in one run, each printed as a ratio against
 * a baseline measured in the same run on the same machine.
 *   1. sqlite adapter appends (single events, batches of 100) vs a raw better-sqlite3 insert loop
 *   2. replay of a 10,000-event stream vs a raw loop of XState transition() calls
 */
import { benchStoreAppend } from './store-append.js';
import { benchReplay } from './replay.js';

const append = await benchStoreAppend({ rounds: 5 });
console.log(`sqlite appends (synchronous=${append.synchronous}, ${append.dataBytes} B data + ${append.metadataBytes} B metadata per event)`);
for (const m of append.measurements) {
  const label = m.scenario === 'single' ? 'single-event appends' : `batches of ${m.eventsPerAppend}`;
  console.log(`  ${label.padEnd(22)} adapter ${Math.round(m.adapterEventsPerSecond)} events/s  raw ${Math.round(m.rawEventsPerSecond)} events/s  ratio ${m.ratio.toFixed(2)} (target ≥ 0.70)`);
}
const replay = await benchReplay();
console.log(`replay of a ${replay.events}-event sqlite stream`);
console.log(`  replayAt ${Math.round(replay.replayPerSecond)} events/s  raw transition() ${Math.round(replay.rawTransitionPerSecond)} events/s  ratio ${replay.ratio.toFixed(2)} (target ≥ 0.70)`);
