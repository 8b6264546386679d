/**
 * The LISTEN connection that wakes subscriptions when another connection or process commits an
 * append. Open only while the store has subscriptions. A wake-up carries nothing: subscriptions
 * re-read by position, so a lost notification can delay delivery but never lose an event, and the
 * listener fires once more every time it (re)connects, covering whatever committed while it was down.
 */
import type pg from 'pg';
import { quoteIdent } from './url.js';

const MAX_BACKOFF_MS = 2_000;

export class Listener {
  private wanted = false;
  private client: pg.Client | undefined;
  private running: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  /** Backend pid of the current LISTEN connection (tests terminate it to prove the reconnect). */
  backendPid: number | undefined;

  constructor(
    private readonly connect: () => pg.Client,
    private readonly channel: string,
    private readonly onWake: () => void,
  ) {}

  /** Keeps the listener connected while `subscriptions` > 0. */
  update(subscriptions: number): void {
    if (subscriptions > 0 && !this.wanted) {
      this.wanted = true;
      this.start();
    } else if (subscriptions === 0 && this.wanted) {
      void this.stop();
    }
  }

  async stop(): Promise<void> {
    this.wanted = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const client = this.client;
    this.client = undefined;
    await this.running?.catch(() => undefined);
    await client?.end().catch(() => undefined);
  }

  private start(): void {
    if (!this.wanted || this.client) return;
    const client = this.connect();
    this.client = client;
    let dead = false;
    const lost = (): void => {
      if (dead) return;
      dead = true;
      if (this.client === client) this.client = undefined;
      this.backendPid = undefined;
      void client.end().catch(() => undefined);
      if (!this.wanted) return;
      // Subscriptions read again now: they find the server back (and nothing lost), or find it gone
      // and fail after their reconnect timeout instead of sleeping on a dead connection forever.
      this.onWake();
      this.failures += 1;
      this.retryTimer = setTimeout(() => this.start(), Math.min(25 * 2 ** this.failures, MAX_BACKOFF_MS));
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', () => this.onWake());
    this.running = (async () => {
      try {
        await client.connect();
        await client.query(`LISTEN ${quoteIdent(this.channel)}`);
        const pid = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        if (dead) return;
        this.backendPid = pid.rows[0]?.pid;
        this.failures = 0;
        // Anything committed before LISTEN took effect sent no notification to us: re-read once.
        this.onWake();
      } catch {
        lost();
      }
    })();
  }
}
