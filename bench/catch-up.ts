/** Seconds a catch-up subscription takes to deliver `total` events from the start (what bench:store times for every adapter). */
import type { EventStore, SubscribeOptions } from '../src/store/port.js';

export const timeCatchUp = async (store: EventStore, total: number, options: SubscribeOptions = {}): Promise<number> => {
  let seen = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const started = process.hrtime.bigint();
  const subscription = store.subscribe(options, () => {
    if (++seen === total) finish();
  });
  await finished;
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  await subscription.close();
  return elapsed;
};
