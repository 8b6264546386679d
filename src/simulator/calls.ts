// Every API call the simulator answered, for tests that count ("exactly one rebuild POST") or assert
// what was NOT sent (key_name/user_data on rebuild). Bounded so a long demo cannot grow it forever.

export interface CallRecord {
  seq: number;
  method: string;
  /** Path without query string. */
  path: string;
  query: string;
  status: number;
  /** Sim-clock time the call arrived. */
  at: number;
  durationMs: number;
  /** Parsed JSON request body of mutating calls (POST/PUT/PATCH). */
  body?: unknown;
  /** For `.../action` calls: the action name (first key of the body), e.g. "rebuild". */
  action?: string;
  /** Set when an injected fault answered instead of the service. */
  fault?: string;
  /**
   * The request's microversion headers, when sent (never the token or any other header), keyed as
   * `OpenStack-API-Version`, `X-OpenStack-Nova-API-Version`, `X-OpenStack-Ironic-API-Version`.
   */
  versions?: Record<string, string>;
}

export interface CallFilter { method?: string; pathIncludes?: string; action?: string }

export class CallLog {
  private entries: CallRecord[] = [];
  private seq = 0;
  private changes = 0;
  constructor(private readonly max = 200_000) {}

  record(c: Omit<CallRecord, 'seq'>): void {
    if (c.method !== 'GET' && c.method !== 'HEAD') this.changes++;
    this.entries.push({ seq: ++this.seq, ...c });
    if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
  }

  list(f: CallFilter = {}): CallRecord[] {
    const method = f.method?.toUpperCase();
    return this.entries.filter((c) =>
      (method === undefined || c.method === method) &&
      (f.pathIncludes === undefined || `${c.path}${c.query ? `?${c.query}` : ''}`.includes(f.pathIncludes)) &&
      (f.action === undefined || c.action === f.action));
  }

  /** How many calls that may have changed the cloud (not GET or HEAD) were answered so far; never reset. */
  mutations(): number {
    return this.changes;
  }

  clear(): void {
    this.entries = [];
  }
}
