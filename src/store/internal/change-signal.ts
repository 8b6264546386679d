/**
 * "Something may have been appended": a wake-up with no payload. Subscribers re-read the store when
 * it fires, so a spurious wake costs one empty read and a missed one is impossible as long as every
 * append path (in-process append, cross-process poller) fires it after commit.
 */
export class ChangeSignal {
  private readonly listeners = new Set<() => void>();

  /** Registers a listener; returns the function that removes it. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  fire(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
