/**
 * The server monitor: one paged Nova detail list per project per poll (never one GET per server; one
 * project per Identity Regent works in),
 * each managed server's observation fed to its stream as a `monitor` stimulus. The machine decides
 * what an observation may do (rank-advance a marker, record health, latch provisionedAt, record the
 * MAC); an observation that changes nothing leaves no event.
 *
 * An observation is only as new as the read it came from. The store's newest position is noted before the
 * list is sent, and a server whose rebuild stream has an event recorded after it is not observed this poll
 * (the engine's `readAfterPosition`): the list may predate that decision. A list in flight while a rebuild
 * was accepted still shows the old image with no task — delivered after the acceptance, it would read as a
 * supersession (M4) and park a healthy rebuild. The next poll observes it again.
 *
 * Observations are stimulus, and they wake the reconciler at once (not at the next resync):
 * - `onMarkerAdvanced` when an observation moves a rebuild marker: the pass that settles (clears) or
 *   parks must follow the monitor's stamp;
 * - `onErrored` when it records Healthy=Errored for a server that never booted (launched_at empty now and no
 *   provisionedAt latched before): the bounded delete-and-retry keys off that stamp and "takes effect at worst one
 *   poll later" (openstack-provider.md). A server latched booted is never woken for it.
 *
 * A steady poll reads no stream (issue 31): the heads of all rebuild streams come from one `listStreams` query after
 * the list, and an observation that would change nothing on the snapshot the monitor already holds at that head is
 * not sent to the engine (./known-streams.ts). A stream with a newer head is loaded; a stream whose head is after the
 * noted position is stale, as the engine would find it; the same facts again at the same head are not stepped again;
 * anything that changes something is decided by the engine.
 */
import { contextOf, type Engine } from '../../engine/engine.js';
import { initialSnapshot } from '../../engine/fold.js';
import type { NovaClient } from '../../openstack/nova/index.js';
import type { Logger } from '../../log/logger.js';
import { describeError } from '../../log/logger.js';
import { serverFacts } from '../../provider/server-facts.js';
import { serverRebuildDefinition, serverRebuildStream } from '../../../machines/server-rebuild.js';
import type { ServerFacts } from '../../../machines/server-rebuild/observation.js';
import type { BaremetalProgress } from '../../provider/inventory/baremetal-progress.js';
import { isCurrent, isStale, KnownStreams, wouldStoreNothing, type KnownStream, type StreamHead } from './known-streams.js';

export interface ServerMonitorOptions {
  engine: Engine;
  /** One project's Nova; or `novas` for every project Regent works in (one list per project per poll). */
  nova?: Pick<NovaClient, 'listServers'>;
  novas?: () => Promise<ReadonlyArray<Pick<NovaClient, 'listServers'>>>;
  logger: Logger;
  /** Which Nova servers Regent manages (the others in the project are not Regent's to observe). */
  isManaged: (serverId: string) => boolean | Promise<boolean>;
  onMarkerAdvanced?: (serverId: string) => void;
  onErrored?: (serverId: string) => void;
  /**
   * For a server Nova reports BUILD: Queued or Building from Ironic when its flavor is baremetal, undefined
   * otherwise (./baremetal.ts). A failure is logged and the observation falls back to Building.
   */
  baremetalProgress?: (serverId: string) => Promise<BaremetalProgress | undefined>;
  now?: () => Date;
  /** Nova page size for the detail list. */
  pageSize?: number;
}

export interface PollResult {
  listed: number;
  observed: number;
  changed: number;
  advanced: string[];
  /** Servers newly recorded Healthy=Errored that never booted (woken for the delete-and-retry). */
  errored: string[];
  errors: number;
  /** Servers not observed this poll: their stream recorded a decision after the list was sent. */
  stale: number;
}

export class ServerMonitor {
  private readonly known = new KnownStreams();

  constructor(private readonly options: ServerMonitorOptions) {}

  async pollOnce(): Promise<PollResult> {
    const { engine, logger } = this.options;
    const now = this.options.now ?? (() => new Date());
    const projects = this.options.novas ? await this.options.novas() : this.options.nova ? [this.options.nova] : [];
    const readAfterPosition = await engine.lastPosition();
    const servers = (await Promise.all(projects.map((nova) => nova.listServers({}, { pageSize: this.options.pageSize ?? 1000 })))).flat();
    const result: PollResult = { listed: servers.length, observed: 0, changed: 0, advanced: [], errored: [], errors: 0, stale: 0 };
    const heads = await this.rebuildStreamHeads();
    const seen = new Set<string>();
    for (const server of servers) {
      if (!(await this.options.isManaged(server.id))) continue;
      result.observed++;
      const stream = serverRebuildStream(server.id);
      seen.add(stream);
      try {
        const head = heads.get(stream);
        // the engine would find the same: a decision after the list was sent, so the observation is not decided
        if (isStale(head, readAfterPosition)) {
          result.stale++;
          continue;
        }
        const facts = await this.factsOf(server);
        const stimulus = { type: 'observed', source: 'monitor', server: facts, observedAt: server.observedAt ?? now().toISOString() } as const;
        const known = await this.knownAt(stream, head);
        // a server's first observation (no stream yet) goes to the engine at once: stepping it here first is wasted
        if (head !== undefined) {
          const factsJson = JSON.stringify(facts);
          if (known.quietFacts === factsJson) continue;
          if (wouldStoreNothing(serverRebuildDefinition, known.snapshot, stimulus)) {
            known.quietFacts = factsJson;
            continue;
          }
        }
        const before = contextOf(serverRebuildDefinition, known.snapshot);
        const decision = await engine.decide(stream, { stimulus, actor: 'monitor/nova', readAfterPosition });
        this.known.set(stream, { revision: decision.revision, snapshot: decision.snapshot });
        if (decision.stale) result.stale++;
        if (!decision.changed) continue;
        result.changed++;
        const after = contextOf(serverRebuildDefinition, decision.snapshot);
        if (before.marker?.state !== after.marker?.state) {
          result.advanced.push(server.id);
          this.options.onMarkerAdvanced?.(server.id);
        }
        // never booted means never seen booted: a server this stream latched provisionedAt for (it booted once) and
        // that now reads ERROR with launched_at empty is not a create failure, and waking its pass for the
        // delete-and-retry would invite destroying a booted server (L10, machines/lifecycle.ts)
        if (before.health?.healthy.reason !== 'Errored' && after.health?.healthy.reason === 'Errored' && facts.launchedAt.kind === 'never' && after.provisionedAt === null) {
          result.errored.push(server.id);
          this.options.onErrored?.(server.id);
        }
      } catch (error) {
        // One unreadable stream must not blind the monitor to every other server.
        this.known.forget(stream);
        result.errors++;
        logger.error('monitor could not record an observation', { serverId: server.id, ...describeError(error) });
      }
    }
    this.known.keepOnly(seen);
    logger.debug('monitor poll', { ...result, advanced: result.advanced.length, errored: result.errored.length });
    return result;
  }

  /** Every rebuild stream's head, in one query, read after the list (so no later than what the list may show). */
  private async rebuildStreamHeads(): Promise<Map<string, StreamHead>> {
    const streams = await this.options.engine.store.listStreams({ streamPrefixes: [serverRebuildDefinition.streamPrefix] });
    return new Map(streams.map((s) => [s.stream, { head: s.head, lastPosition: s.lastPosition }]));
  }

  /** The stream's snapshot at `head`: the one already known, the initial one when there is no stream, else loaded (and remembered). */
  private async knownAt(stream: string, head: StreamHead | undefined): Promise<KnownStream> {
    const known = this.known.get(stream);
    if (isCurrent(known, head)) return known;
    // no stream yet (a server's first poll): its initial state, with nothing to read
    const fresh: KnownStream = head === undefined
      ? { revision: undefined, snapshot: initialSnapshot(serverRebuildDefinition, stream) }
      : await this.options.engine.load(serverRebuildDefinition, stream).then((loaded) => ({ revision: loaded.revision, snapshot: loaded.snapshot }));
    this.known.set(stream, fresh);
    return fresh;
  }

  /** The observation's facts; a BUILD server on a baremetal flavor also carries Ironic's Queued/Building. */
  private async factsOf(server: Parameters<typeof serverFacts>[0]): Promise<ServerFacts> {
    const facts = serverFacts(server);
    if (facts.status !== 'BUILD' || !this.options.baremetalProgress) return facts;
    try {
      const progress = await this.options.baremetalProgress(server.id);
      return progress ? { ...facts, baremetal: progress } : facts;
    } catch (error) {
      this.options.logger.warn('Ironic lookup failed: the baremetal server reads Building', { serverId: server.id, ...describeError(error) });
      return facts;
    }
  }
}
