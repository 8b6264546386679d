/**
 * Nova and Placement as a NovaCompute pool sees them, in memory and stateful: the `ComputeApi` of
 * src/nova/compute/compute-api.ts answered from a small world the test owns — a nova-compute service per host (id,
 * status, state, zone), the hosts Nova has mapped to a cell, the servers on each host, the host aggregates (hosts,
 * availability zone, metadata) and Placement's traits (and which are carried by a resource provider). A write changes
 * the world as Nova or Placement would (a created aggregate is listed next, a deleted service is gone, a trait carried
 * by a provider answers `inUse`); 404 on a delete is success, a duplicate aggregate name is a 409.
 *
 * Knobs the faithfulness test flips between passes: a host's service registered or not, enabled or not, its host
 * mapped or not, its server count, a foreign aggregate, a trait carried, and failures: a method (or every read, or
 * every write) answers a ComputeApiError until the failure is cleared — persistent, so a plan and the real pass after
 * it see the same failures (a "next call fails" counter would be spent by the plan's reads).
 *
 * `writes` lists every write that reached the world, in order, by method: with the plan rig's `computeWritePositions`
 * (one position per write made outside a plan, in the same order) it says which write of a real pass came at which
 * head of the event store.
 */
import { ComputeApiError, type AggregateRow, type ComputeApi, type ComputeApiService, type ComputeServiceRow, type RecordedComputeCall } from '../../../src/nova/compute/compute-api.js';

export const COMPUTE_READS = ['listComputeServices', 'mappedHosts', 'serversOnHost', 'listAggregates', 'traitExists'] as const;
export const COMPUTE_WRITES = ['disableService', 'deleteService', 'createAggregate', 'setAggregateMetadata', 'deleteAggregate', 'createTrait', 'deleteTrait'] as const;
export type ComputeMethod = (typeof COMPUTE_READS)[number] | (typeof COMPUTE_WRITES)[number];
/** The writes a pool's pass makes itself (the others are its effects': disable, delete a service, delete a trait). */
export const PASS_WRITES: readonly ComputeMethod[] = ['createAggregate', 'setAggregateMetadata', 'deleteAggregate', 'createTrait'];

/** What failing calls answer. */
export type Failure = 'unavailable' | 'cellDown';

interface Service {
  id: string;
  status: 'enabled' | 'disabled';
  state: 'up' | 'down';
  zone: string | null;
  disabledReason: string | null;
}

const SERVICE_OF: Readonly<Record<ComputeMethod, ComputeApiService>> = {
  listComputeServices: 'compute', mappedHosts: 'compute', serversOnHost: 'compute', listAggregates: 'compute', traitExists: 'placement',
  disableService: 'compute', deleteService: 'compute', createAggregate: 'compute', setAggregateMetadata: 'compute', deleteAggregate: 'compute', createTrait: 'placement', deleteTrait: 'placement',
};

export class ComputeWorld implements ComputeApi {
  private services = new Map<string, Service>();
  private mapped = new Set<string>();
  private servers = new Map<string, number>();
  private aggregates = new Map<string, AggregateRow>();
  private traits = new Set<string>();
  private carried = new Set<string>();
  private failing = new Map<ComputeMethod | 'reads' | 'writes', Failure>();
  private nextId = 1;
  readonly calls: RecordedComputeCall[] = [];
  /** Every write that reached the world, in order. */
  readonly writes: Array<{ method: ComputeMethod; what: string }> = [];

  /** Forgets everything (a fresh cloud for the next case). */
  reset(): void {
    this.services = new Map();
    this.mapped = new Set();
    this.servers = new Map();
    this.aggregates = new Map();
    this.traits = new Set();
    this.carried = new Set();
    this.failing = new Map();
    this.calls.length = 0;
    this.writes.length = 0;
  }

  // ─── knobs ────────────────────────────────────────────────────────────────────────────────────

  /** The host's nova-compute registers (enabled, up) in `zone`; a registered one keeps its id. */
  register(host: string, zone: string | null = null): void {
    if (this.services.has(host)) return;
    this.services.set(host, { id: `svc-${this.nextId++}`, status: 'enabled', state: 'up', zone, disabledReason: null });
  }

  /** The host's service row is gone (as if deleted by someone else). */
  unregister(host: string): void {
    this.services.delete(host);
  }

  /** An operator (re-)enables the host's service. */
  enable(host: string): void {
    const s = this.services.get(host);
    if (s) Object.assign(s, { status: 'enabled', disabledReason: null });
  }

  /** Host discovery mapped the host to a cell (or the mapping is gone). */
  map(host: string, on = true): void {
    if (on) this.mapped.add(host);
    else this.mapped.delete(host);
  }

  setServers(host: string, count: number): void {
    this.servers.set(host, count);
  }

  /** An aggregate someone else made (or one of Regent's, given its marker in `metadata`). */
  addAggregate(name: string, zone: string | null, hosts: string[] = [], metadata: Record<string, string> = {}): AggregateRow {
    const row: AggregateRow = { id: String(this.nextId++), name, zone, hosts: [...hosts], metadata: { ...metadata, ...(zone ? { availability_zone: zone } : {}) } };
    this.aggregates.set(row.id, row);
    return row;
  }

  /** The operator puts a host into the aggregate of that name. */
  addHost(aggregate: string, host: string): void {
    const row = [...this.aggregates.values()].find((a) => a.name === aggregate);
    if (row && !row.hosts.includes(host)) row.hosts.push(host);
  }

  /** A resource provider carries the trait (Placement refuses its delete with 409). */
  carry(trait: string, on = true): void {
    if (on) {
      this.traits.add(trait);
      this.carried.add(trait);
    } else this.carried.delete(trait);
  }

  /** From now on, `what` answers a ComputeApiError (`null`: answers again). */
  fail(what: ComputeMethod | 'reads' | 'writes', failure: Failure | null = 'unavailable'): void {
    if (failure) this.failing.set(what, failure);
    else this.failing.delete(what);
  }

  clearFailures(): void {
    this.failing.clear();
  }

  /** What the world holds, in words (for a failing case's message). */
  describe(): string {
    const services = [...this.services].map(([h, s]) => `${h}:${s.id}/${s.status}${this.mapped.has(h) ? '/mapped' : ''}${this.servers.get(h) ? `/${this.servers.get(h)} servers` : ''}`);
    const aggregates = [...this.aggregates.values()].map((a) => `${a.name}(${a.zone ?? '-'}; ${a.hosts.join(',')}; ${Object.keys(a.metadata).join(',')})`);
    return `services [${services.join(' ')}] aggregates [${aggregates.join(' ')}] traits [${[...this.traits].join(' ')}] failing [${[...this.failing].map(([m, f]) => `${m}:${f}`).join(' ')}]`;
  }

  get aggregateNames(): string[] {
    return [...this.aggregates.values()].map((a) => a.name).sort();
  }

  hasTrait(trait: string): boolean {
    return this.traits.has(trait);
  }

  // ─── the client ───────────────────────────────────────────────────────────────────────────────

  private call<T>(method: ComputeMethod, path: string, body: () => T): T {
    const write = (COMPUTE_WRITES as readonly string[]).includes(method);
    const entry: RecordedComputeCall = { service: SERVICE_OF[method], method: write ? 'WRITE' : 'GET', path, microversion: null, status: null };
    this.calls.push(entry);
    if (write) this.writes.push({ method, what: path });
    const failure = this.failing.get(method) ?? this.failing.get(write ? 'writes' : 'reads');
    if (failure === 'cellDown' && method === 'listComputeServices') {
      throw new ComputeApiError('compute: a cell did not answer: os-services listed nova-compute with status UNKNOWN', { service: 'compute', reason: 'cell-down', cellDown: true, method: 'GET', path });
    }
    if (failure) {
      entry.status = 503;
      throw new ComputeApiError(`${SERVICE_OF[method]}: ${method} ${path}: 503 Service Unavailable (the world fails it)`, { service: SERVICE_OF[method], reason: 'unavailable', status: 503, path });
    }
    const answer = body();
    entry.status = 200;
    return answer;
  }

  private notFound(method: ComputeMethod, path: string): ComputeApiError {
    return new ComputeApiError(`${SERVICE_OF[method]}: ${path}: 404 Not Found`, { service: SERVICE_OF[method], reason: 'not-found', status: 404, path });
  }

  async listComputeServices(): Promise<ComputeServiceRow[]> {
    return this.call('listComputeServices', '/os-services', () =>
      [...this.services].sort(([a], [b]) => (a < b ? -1 : 1)).map(([host, s]) => ({ id: s.id, host, status: s.status, state: s.state, zone: s.zone, disabledReason: s.disabledReason })),
    );
  }

  async mappedHosts(): Promise<Set<string>> {
    return this.call('mappedHosts', '/os-hypervisors/detail', () => new Set([...this.mapped].filter((h) => this.services.has(h))));
  }

  async serversOnHost(host: string): Promise<number> {
    return this.call('serversOnHost', '/servers/detail', () => this.servers.get(host) ?? 0);
  }

  async listAggregates(): Promise<AggregateRow[]> {
    return this.call('listAggregates', '/os-aggregates', () => [...this.aggregates.values()].map((a) => ({ ...a, hosts: [...a.hosts], metadata: { ...a.metadata } })));
  }

  async traitExists(name: string): Promise<boolean> {
    return this.call('traitExists', `/traits/${name}`, () => this.traits.has(name));
  }

  async disableService(id: string, reason: string): Promise<void> {
    this.call('disableService', `/os-services/${id}`, () => {
      const service = [...this.services.values()].find((s) => s.id === id);
      if (!service) throw this.notFound('disableService', `/os-services/${id}`);
      Object.assign(service, { status: 'disabled', disabledReason: reason });
    });
  }

  async deleteService(id: string): Promise<void> {
    this.call('deleteService', `/os-services/${id}`, () => {
      for (const [host, s] of this.services) if (s.id === id) this.services.delete(host);
    });
  }

  async createAggregate(name: string, zone: string | null): Promise<AggregateRow> {
    return this.call('createAggregate', '/os-aggregates', () => {
      if ([...this.aggregates.values()].some((a) => a.name === name)) {
        throw new ComputeApiError(`compute: aggregate ${name} exists: 409 Conflict`, { service: 'compute', reason: 'conflict', status: 409, method: 'POST', path: '/os-aggregates' });
      }
      const row = this.addAggregate(name, zone);
      return { ...row, hosts: [], metadata: { ...row.metadata } };
    });
  }

  async setAggregateMetadata(id: string, metadata: Record<string, string | null>): Promise<AggregateRow> {
    return this.call('setAggregateMetadata', `/os-aggregates/${id}/action`, () => {
      const row = this.aggregates.get(id);
      if (!row) throw this.notFound('setAggregateMetadata', `/os-aggregates/${id}/action`);
      for (const [key, value] of Object.entries(metadata)) {
        if (value === null) delete row.metadata[key];
        else row.metadata[key] = value;
      }
      return { ...row, hosts: [...row.hosts], metadata: { ...row.metadata } };
    });
  }

  async deleteAggregate(id: string): Promise<void> {
    this.call('deleteAggregate', `/os-aggregates/${id}`, () => {
      const row = this.aggregates.get(id);
      if (row && row.hosts.length > 0) {
        throw new ComputeApiError(`compute: aggregate ${row.name} still has hosts: 400 Bad Request`, { service: 'compute', reason: 'bad-request', status: 400, path: `/os-aggregates/${id}` });
      }
      this.aggregates.delete(id);
    });
  }

  async createTrait(name: string): Promise<'created' | 'existed'> {
    return this.call('createTrait', `/traits/${name}`, () => {
      if (this.traits.has(name)) return 'existed' as const;
      this.traits.add(name);
      return 'created' as const;
    });
  }

  async deleteTrait(name: string): Promise<'deleted' | 'absent' | 'inUse'> {
    return this.call('deleteTrait', `/traits/${name}`, () => {
      if (this.carried.has(name)) return 'inUse' as const;
      if (!this.traits.has(name)) return 'absent' as const;
      this.traits.delete(name);
      return 'deleted' as const;
    });
  }
}
