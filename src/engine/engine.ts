/**
 * The engine: the one place where a stimulus becomes a durable decision and a decision becomes I/O.
 *
 *   decide(stream, stimulus) = load → upcast → fold → transition → append one event (expected revision)
 *   dispatch(stream, stimulus) = decide, then run each declared effect through its handler, and feed
 *                                each result back as a stimulus with source `effect`.
 *
 * Guarantees (ARCHITECTURE.md, "Engine contract"):
 * - A stimulus that changes neither state nor context and declares no effect is not stored.
 * - An effect runs only after the event that declared it is appended and acknowledged.
 * - The engine runs an effect only from the decision that declared it, in the same dispatch. It never
 *   re-runs a pending effect found in a stream after a restart: the next pass must re-decide from a
 *   fresh observation, so one decision is executed at most once.
 * - On WrongExpectedVersion the engine reloads and re-decides (bounded), never appends blindly.
 * Chaos runs may kill the process at three failpoints (./failpoints.ts; inert unless REGENT_FAILPOINTS is set).
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { Effect, RecordedEvent, Source } from '../events/envelope.js';
import { newCorrelationId, newEventId } from '../events/ids.js';
import { decodeWith } from '../events/decode.js';
import type { EventStore } from '../store/port.js';
import { WrongExpectedVersion } from '../store/errors.js';
import type { MachineDefinition, Stimulus } from '../../machines/definition.js';
import type { MachineRegistry } from '../../machines/registry.js';
import type { Upcaster } from '../../migrations/upcaster.js';
import { upcasters as shippedUpcasters } from '../../migrations/index.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { ConcurrencyExhausted, EffectChainTooLong, InvalidStimulus, NoEffectHandler, NotLeader } from './errors.js';
import { stateValueOf, step } from './fold.js';
import { KeyedQueue } from './keyed-queue.js';
import { StreamLoader, type LoadedStream } from './load.js';
import { failpoint } from './failpoints.js';

export interface StimulusEnvelope {
  stimulus: Stimulus;
  /** Who sent it, e.g. `reconciler/server`, `monitor/nova`, `operator:alice`. Never a secret. */
  actor: string;
  correlationId?: string;
  causationId?: string | null;
  /**
   * For facts read from the world (a monitor's list): the store's `lastPosition()` noted before the read
   * began. If the stream has an event recorded after that position, the facts may predate the decision
   * it records (an observation read before a rebuild was accepted, delivered after): the stimulus is
   * stale and is not decided (`Decision.stale`); the next read observes again.
   */
  readAfterPosition?: number;
}

/**
 * A snapshot's context as its machine's type: the one place the engine vouches for it (a decision's snapshot is the
 * machine's, since the engine decided it with that definition).
 */
export const contextOf = <TContext>(_definition: MachineDefinition<TContext>, snapshot: AnyMachineSnapshot): TContext => snapshot.context as TContext;

/** A stream's state, loaded with its machine's definition: `context` is that machine's context type. */
export interface TypedLoad<TContext> extends LoadedStream {
  /** The state value as text (`present`, `{"deleting":"armed"}` is rendered by String). */
  state: string;
  /** The state value as the machine has it (a string, or an object for nested states). */
  value: unknown;
  context: TContext;
}

export interface Decision {
  stream: string;
  definition: MachineDefinition;
  /** False when the stimulus changed nothing and was not stored. */
  changed: boolean;
  /** The appended event, when changed. */
  event: RecordedEvent | undefined;
  snapshot: AnyMachineSnapshot;
  /** Head revision after the decision (undefined: the stream still does not exist). */
  revision: number | undefined;
  effects: Effect[];
  /** The outcome the machine named (stored or not): reconcilers map it to a disposition. */
  outcome: string | undefined;
  correlationId: string;
  /** True when the stimulus was older than the stream's last event (`readAfterPosition`) and was not decided. */
  stale?: boolean;
}

export interface EffectContext {
  stream: string;
  /** The event that declared the effect; results carry its id as causationId. */
  decidedBy: RecordedEvent;
  snapshot: AnyMachineSnapshot;
  correlationId: string;
  logger: Logger;
}

/**
 * Executes one effect and returns the stimulus describing its result (source is set to `effect` by
 * the engine), or undefined when the result needs no decision. Map expected failures (a 409, a
 * NotFound) to result stimuli; throw only when the outcome is unknown, so the next pass re-observes.
 */
export type EffectHandler = (effect: Effect, context: EffectContext) => Promise<EffectResult | undefined>;

/** A result stimulus without its source; the engine stamps `effect`. */
export interface EffectResult {
  type: string;
  [key: string]: unknown;
}

export interface EngineObserver {
  decided?(decision: Decision, source: Source): void;
  effectRan?(effect: Effect, outcome: 'ok' | 'error', seconds: number): void;
}

/** A leadership term: the lease holder's identity and how many times the lease had changed hands. */
export interface LeaderTerm {
  holder: string;
  term: number;
}

/**
 * Fencing: the engine asks before every append and before every effect whether this process still
 * holds an unexpired lease (the elector answers synchronously from its monotonic deadline). Without a
 * fence (tests, one-shot tools) nothing is fenced.
 */
export interface Fence {
  /** The term this process leads under, or undefined while it does not lead. */
  current(): LeaderTerm | undefined;
}

export interface EngineOptions {
  store: EventStore;
  registry: MachineRegistry;
  upcasters?: readonly Upcaster[];
  handlers?: Record<string, EffectHandler>;
  logger?: Logger;
  now?: () => Date;
  /** Reload-and-redecide attempts on WrongExpectedVersion before ConcurrencyExhausted. */
  maxAttempts?: number;
  /** Effect results one dispatch may feed back before EffectChainTooLong. */
  maxEffectChain?: number;
  observer?: EngineObserver;
  fence?: Fence;
  /**
   * The resource a stream belongs to (kind, namespace, name), recorded on every event appended to it
   * (`metadata.subject`) when known: the control plane answers from its caches (src/app/stream-subjects.ts).
   */
  subjectOf?: (stream: string) => Subject | undefined;
}

/** The resource a stream belongs to. */
export interface Subject {
  kind: string;
  namespace: string;
  name: string;
}

export class Engine {
  readonly store: EventStore;
  readonly registry: MachineRegistry;
  private readonly loader: StreamLoader;
  private readonly handlers = new Map<string, EffectHandler>();
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly maxAttempts: number;
  private readonly maxEffectChain: number;
  private readonly queue = new KeyedQueue();
  private readonly observer: EngineObserver;
  private readonly fence: Fence | undefined;
  private readonly subjectOf: ((stream: string) => Subject | undefined) | undefined;

  constructor(options: EngineOptions) {
    this.store = options.store;
    this.registry = options.registry;
    this.loader = new StreamLoader(options.store, options.registry, options.upcasters ?? shippedUpcasters);
    this.logger = options.logger ?? silentLogger();
    this.now = options.now ?? (() => new Date());
    this.maxAttempts = options.maxAttempts ?? 5;
    this.maxEffectChain = options.maxEffectChain ?? 16;
    this.observer = options.observer ?? {};
    this.fence = options.fence;
    this.subjectOf = options.subjectOf;
    for (const [type, handler] of Object.entries(options.handlers ?? {})) this.handle(type, handler);
  }

  /** Registers the handler for one effect type (one handler per type). */
  handle(effectType: string, handler: EffectHandler): this {
    if (this.handlers.has(effectType)) throw new Error(`effect ${effectType} already has a handler`);
    this.handlers.set(effectType, handler);
    return this;
  }

  /** The store's newest position: noted before reading the world, it becomes StimulusEnvelope.readAfterPosition. */
  lastPosition(): Promise<number> {
    return this.store.lastPosition();
  }

  /**
   * Current state of a stream (initial state when it does not exist). With the machine's definition, the state comes
   * back typed (`context` is that machine's context) and the stream is checked to be that machine's: a stream name
   * built with the wrong prefix fails here, not as a context read as the wrong type.
   */
  load(stream: string): Promise<LoadedStream>;
  load<TContext>(definition: MachineDefinition<TContext>, stream: string): Promise<TypedLoad<TContext>>;
  async load<TContext>(first: string | MachineDefinition<TContext>, stream?: string): Promise<LoadedStream | TypedLoad<TContext>> {
    if (typeof first === 'string') return this.loader.load(first);
    const loaded = await this.loader.load(stream as string);
    if (loaded.definition.id !== first.id) throw new Error(`stream ${stream} belongs to ${loaded.definition.id}, not ${first.id}`);
    return { ...loaded, state: String(loaded.snapshot.value), value: loaded.snapshot.value as unknown, context: contextOf(first, loaded.snapshot) };
  }

  /** Decides one stimulus and appends the decision; runs no effect. */
  decide(stream: string, envelope: StimulusEnvelope): Promise<Decision> {
    return this.queue.run(stream, () => this.decideNow(stream, envelope));
  }

  /** Decides, then executes the declared effects and feeds their results back, in order. */
  async dispatch(stream: string, envelope: StimulusEnvelope): Promise<Decision[]> {
    const decisions: Decision[] = [];
    const pending: StimulusEnvelope[] = [envelope];
    let chain = 0;
    while (pending.length > 0) {
      const next = pending.shift() as StimulusEnvelope;
      const decision = await this.decide(stream, next);
      decisions.push(decision);
      if (!decision.event || decision.effects.length === 0) continue;
      for (const effect of decision.effects) {
        failpoint('appended-before-effect', stream);
        const result = await this.runEffect(decision, decision.event, effect);
        failpoint('effect-answered-before-result', stream);
        if (!result) continue;
        if (++chain > this.maxEffectChain) throw new EffectChainTooLong(stream, this.maxEffectChain);
        pending.push({
          stimulus: { ...result, source: 'effect' },
          actor: `effect:${effect.type}`,
          correlationId: decision.correlationId,
          causationId: decision.event.id,
        });
      }
    }
    return decisions;
  }

  /** The term to record, or NotLeader when a fence says this process no longer leads. */
  private fenced(stream: string, step: 'append' | 'effect'): LeaderTerm | undefined {
    if (!this.fence) return undefined;
    const term = this.fence.current();
    if (!term) throw new NotLeader(stream, step);
    return term;
  }

  private async runEffect(decision: Decision, decidedBy: RecordedEvent, effect: Effect) {
    const handler = this.handlers.get(effect.type);
    if (!handler) throw new NoEffectHandler(effect.type);
    // An effect starts only while this process holds an unexpired lease (checked at the last moment).
    this.fenced(decision.stream, 'effect');
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const result = await handler(effect, {
        stream: decision.stream,
        decidedBy,
        snapshot: decision.snapshot,
        correlationId: decision.correlationId,
        logger: this.logger,
      });
      this.observer.effectRan?.(effect, 'ok', seconds());
      return result;
    } catch (error) {
      this.observer.effectRan?.(effect, 'error', seconds());
      throw error;
    }
  }

  private async decideNow(stream: string, envelope: StimulusEnvelope): Promise<Decision> {
    const definition = this.registry.forStream(stream);
    const decoded = decodeWith(definition.stimulus, envelope.stimulus);
    if (!decoded.ok) throw new InvalidStimulus(stream, decoded.problems);
    const stimulus = decoded.value;
    const correlationId = envelope.correlationId ?? newCorrelationId();

    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      const loaded = await this.loader.load(stream);
      if (envelope.readAfterPosition !== undefined && loaded.last !== undefined && loaded.last.position > envelope.readAfterPosition) {
        const decision: Decision = { stream, definition, correlationId, effects: [], outcome: undefined, changed: false, event: undefined, snapshot: loaded.snapshot, revision: loaded.revision, stale: true };
        this.logger.debug('stale stimulus not decided: the stream has a later event than the read', { stream, type: stimulus.type, source: stimulus.source, readAfterPosition: envelope.readAfterPosition, lastPosition: loaded.last.position });
        return decision;
      }
      const result = step(definition, loaded.snapshot, stimulus);
      const base = { stream, definition, correlationId, effects: result.effects, outcome: result.outcome };
      if (!result.changed && result.effects.length === 0) {
        const decision: Decision = { ...base, changed: false, event: undefined, snapshot: loaded.snapshot, revision: loaded.revision };
        this.observer.decided?.(decision, stimulus.source);
        return decision;
      }
      const leader = this.fenced(stream, 'append');
      const subject = this.subjectOf?.(stream);
      const event = {
        id: newEventId(),
        type: `${definition.id}.${result.outcome ?? stimulus.type}`,
        data: stimulus,
        metadata: {
          machine: definition.id,
          machineVersion: definition.version,
          schemaVersion: definition.schemaVersion,
          source: stimulus.source,
          actor: envelope.actor,
          correlationId,
          causationId: envelope.causationId ?? null,
          from: loaded.revision === undefined ? null : stateValueOf(loaded.snapshot),
          to: stateValueOf(result.snapshot),
          effects: result.effects,
          recordedAt: this.now().toISOString(),
          ...(leader ? { leader: { holder: leader.holder, term: leader.term } } : {}),
          ...(subject ? { subject: { kind: subject.kind, namespace: subject.namespace, name: subject.name } } : {}),
        },
      };
      failpoint('decided-before-append', stream);
      try {
        const appended = await this.store.append(stream, [event], { expectedRevision: loaded.revision ?? 'no_stream' });
        const recorded: RecordedEvent = { ...event, stream, revision: appended.nextExpectedRevision, position: appended.position };
        this.loader.remember(stream, { definition, snapshot: result.snapshot, revision: recorded.revision, last: recorded });
        const decision: Decision = { ...base, changed: true, event: recorded, snapshot: result.snapshot, revision: recorded.revision };
        this.logger.debug('decided', { stream, type: event.type, source: stimulus.source, revision: recorded.revision, correlationId, effects: result.effects.map((e) => e.type) });
        this.observer.decided?.(decision, stimulus.source);
        return decision;
      } catch (error) {
        if (!(error instanceof WrongExpectedVersion)) throw error;
        this.logger.debug('lost the append race; reloading', { stream, attempt, actual: error.actualRevision });
        this.loader.forget(stream);
      }
    }
    throw new ConcurrencyExhausted(stream, this.maxAttempts);
  }
}
