/**
 * The refresh-ahead image cache (openstack-provider.md: "an optional refresh-ahead cache exists because raw
 * image API latency is too expensive to expose directly to every caller").
 *
 * One snapshot of every entry (the whole Glance listing, translated), with the time its load was *sent*
 * (so an answer that took long is not counted fresher than it is).
 *
 * Invariants:
 * 1. Warm means callers never wait on Glance: a read younger than `staleAfterMs` is answered from the
 *    snapshot. From `refreshAfterMs` on, the read also starts one background refresh (at most one in
 *    flight; concurrent callers share it) — so with reads arriving, the snapshot is replaced before it
 *    reaches the bound.
 * 2. The staleness bound: no read is answered from a snapshot older than `staleAfterMs` while Glance
 *    answers. A read past the bound (no read came during the refresh-ahead window, or refreshes kept
 *    failing) waits for a refresh. `keepWarm()` refreshes on a timer so an idle cache does not get there.
 * 3. A failed refresh keeps the last good snapshot, is logged (warn, with the typed error), counted, and
 *    noted in `status().lastError`; reads go on being served from it. Only a cold cache (no snapshot yet)
 *    has nothing to serve, and then the read throws Glance's typed error (src/openstack/errors.ts).
 * 4. Writes through the cache are never lost to a refresh that was already in flight: a create, delete or
 *    snapshot updates the snapshot at once and is journaled while a refresh runs, then replayed onto the
 *    refreshed listing (else an older listing would resurrect a deleted image or drop a new one).
 *
 * Caveat: a get for an id the snapshot does not hold goes to Glance (a miss, counted), since the image may
 * have been created since the last refresh by someone else; a found image is added to the snapshot.
 */
import type { Logger } from '../../log/logger.js';
import { describeError } from '../../log/logger.js';

/** Default refresh-ahead point: a read of a snapshot older than this starts a background refresh. */
export const DEFAULT_REFRESH_AFTER_MS = 60_000;
/** Default staleness bound: no read is served from a snapshot older than this while Glance answers. */
export const DEFAULT_STALE_AFTER_MS = 300_000;

export interface ImageCacheOptions<T extends { readonly id: string }> {
  /** The whole listing (Glance list, translated). */
  readonly load: () => Promise<readonly T[]>;
  /** One entry by id, for a miss (Glance GET). Throws NotFound when Glance has none. */
  readonly fetchOne: (id: string) => Promise<T>;
  readonly refreshAfterMs?: number;
  readonly staleAfterMs?: number;
  /** Milliseconds since the epoch; the simulator's manual clock in tests. */
  readonly now?: () => number;
  readonly logger?: Logger;
}

export interface ImageCacheStats {
  /** Reads answered from the snapshot without waiting. */
  hits: number;
  /** Reads that waited on Glance: the cold load, a read past the staleness bound, a get of an unknown id. */
  misses: number;
  refreshes: number;
  failedRefreshes: number;
}

export interface ImageCacheStatus {
  readonly warm: boolean;
  /** Age of the snapshot (ms), undefined when cold. */
  readonly ageMs?: number;
  readonly refreshing: boolean;
  /** The last refresh's failure, cleared by a successful one. */
  readonly lastError?: unknown;
  readonly stats: Readonly<ImageCacheStats>;
}

export class InvalidImageCacheOptions extends Error {
  override readonly name = 'InvalidImageCacheOptions';
}

interface Snapshot<T> {
  readonly entries: Map<string, T>;
  readonly loadedAt: number;
}

type JournalEntry<T> = { readonly id: string; readonly entry?: T };

export class ImageCache<T extends { readonly id: string }> {
  readonly refreshAfterMs: number;
  readonly staleAfterMs: number;
  private readonly now: () => number;
  private snapshot: Snapshot<T> | undefined;
  private inFlight: Promise<void> | undefined;
  private journal: JournalEntry<T>[] | undefined;
  private lastError: unknown;
  private readonly counters: ImageCacheStats = { hits: 0, misses: 0, refreshes: 0, failedRefreshes: 0 };

  constructor(private readonly options: ImageCacheOptions<T>) {
    this.refreshAfterMs = options.refreshAfterMs ?? DEFAULT_REFRESH_AFTER_MS;
    this.staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    // refresh-ahead must start before the bound, or every read past refreshAfter would already be stale
    if (!(this.refreshAfterMs > 0) || !(this.staleAfterMs > this.refreshAfterMs)) {
      throw new InvalidImageCacheOptions(`image cache: refreshAfterMs (${this.refreshAfterMs}) must be positive and less than staleAfterMs (${this.staleAfterMs})`);
    }
    this.now = options.now ?? Date.now;
  }

  /** Every entry. */
  async list(): Promise<T[]> {
    const { snapshot, waited } = await this.current();
    this.count(waited);
    return [...snapshot.entries.values()];
  }

  /** One entry; a miss asks Glance (NotFound when it has none). */
  async get(id: string): Promise<T> {
    const { snapshot, waited } = await this.current();
    const found = snapshot.entries.get(id);
    this.count(waited || found === undefined);
    if (found !== undefined) return found;
    const entry = await this.options.fetchOne(id);
    this.upsert(entry);
    return entry;
  }

  /** A write through the cache added or changed this entry. */
  upsert(entry: T): void {
    this.snapshot?.entries.set(entry.id, entry);
    this.journal?.push({ id: entry.id, entry });
  }

  /** A write through the cache removed this entry. */
  remove(id: string): void {
    this.snapshot?.entries.delete(id);
    this.journal?.push({ id });
  }

  /** Refresh now (shared with one already in flight). Rejects with Glance's error; the snapshot is kept. */
  refresh(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    const sentAt = this.now();
    this.journal = [];
    const run = (async () => {
      try {
        const listing = await this.options.load();
        const entries = new Map(listing.map((e) => [e.id, e] as const));
        for (const j of this.journal ?? []) {
          if (j.entry !== undefined) entries.set(j.id, j.entry);
          else entries.delete(j.id);
        }
        this.snapshot = { entries, loadedAt: sentAt };
        this.lastError = undefined;
        this.counters.refreshes++;
      } catch (error) {
        this.lastError = error;
        this.counters.failedRefreshes++;
        if (this.snapshot) {
          this.options.logger?.warn('image cache: refresh failed; still serving the last good snapshot', { error: describeError(error), snapshotAgeMs: this.now() - this.snapshot.loadedAt, images: this.snapshot.entries.size });
        } else {
          this.options.logger?.warn('image cache: the first load failed; no snapshot to serve yet', { error: describeError(error) });
        }
        throw error;
      } finally {
        this.journal = undefined;
        this.inFlight = undefined;
      }
    })();
    this.inFlight = run;
    return run;
  }

  /** Start a refresh when one is due (what the read path and `keepWarm` call); never waits, never throws. */
  maintain(): void {
    const s = this.snapshot;
    if (!this.inFlight && (s === undefined || this.now() - s.loadedAt >= this.refreshAfterMs)) this.refresh().catch(() => undefined);
  }

  /**
   * Refresh ahead on a real timer every `refreshAfterMs`, so an idle cache never reaches the bound (the
   * control plane's use). Returns the stop function; the timer does not keep the process alive.
   */
  keepWarm(): () => void {
    const timer = setInterval(() => this.maintain(), this.refreshAfterMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  status(): ImageCacheStatus {
    return {
      warm: this.snapshot !== undefined,
      ...(this.snapshot ? { ageMs: this.now() - this.snapshot.loadedAt } : {}),
      refreshing: this.inFlight !== undefined,
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
      stats: { ...this.counters },
    };
  }

  private count(waited: boolean): void {
    if (waited) this.counters.misses++;
    else this.counters.hits++;
  }

  /** The snapshot a read is answered from, and whether the read had to wait on Glance for it. */
  private async current(): Promise<{ snapshot: Snapshot<T>; waited: boolean }> {
    const s = this.snapshot;
    if (s === undefined) {
      // cold: nothing to serve, so this read waits (and throws Glance's typed error when the load fails)
      try {
        await this.refresh();
      } catch (error) {
        this.counters.misses++;
        throw error;
      }
      return { snapshot: this.snapshot as unknown as Snapshot<T>, waited: true };
    }
    const age = this.now() - s.loadedAt;
    if (age >= this.staleAfterMs) {
      // past the bound: wait for fresh data; if Glance fails, the last good snapshot is all there is (logged)
      await this.refresh().catch(() => undefined);
      return { snapshot: this.snapshot ?? s, waited: true };
    }
    if (age >= this.refreshAfterMs) this.maintain();
    return { snapshot: s, waited: false };
  }
}
