/**
 * Runs async work one at a time per key. The engine uses it so two passes of one process on the same
 * stream do not race each other to the append (they would still be correct, via WrongExpectedVersion,
 * but would waste a reload). Races between processes are handled by the store's expected revision.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
