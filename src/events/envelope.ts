/**
 * The event envelope: the one shape every stored transition has (ARCHITECTURE.md, "Event envelope").
 *
 * `data` is the stimulus that caused the transition, exactly as the machine received it; `metadata`
 * records who sent it (`source`, `actor`), why (`correlationId`, `causationId`), and what the machine
 * decided (`from` → `to`, declared `effects`). Replay re-feeds `data` and must reproduce `to` and
 * `effects`; anything else is a divergence.
 */
import * as t from 'io-ts';

/** Who produced a stimulus. Machines guard on it: only `reconciler` may arm, clear or park. */
export const Source = t.keyof({ reconciler: null, monitor: null, effect: null, api: null, operator: null }, 'Source');
export type Source = t.TypeOf<typeof Source>;
export const SOURCES: readonly Source[] = ['reconciler', 'monitor', 'effect', 'api', 'operator'];

/** An XState state value: a state name, or an object for nested/parallel states. */
export type StateValue = string | { [key: string]: StateValue };
export const StateValue: t.Type<StateValue> = t.recursion('StateValue', () =>
  t.union([t.string, t.record(t.string, StateValue)]),
);

/** A JSON object with a `type`: the shape of stimuli and effects. */
export const Typed = t.intersection([t.type({ type: t.string }), t.UnknownRecord], 'Typed');
export interface Typed {
  type: string;
  [key: string]: unknown;
}

/** An effect a transition declared: data for the engine to execute after the append. */
export type Effect = Typed;
export const Effect = Typed;

export const EventMetadata = t.intersection(
  [
    t.type({
      machine: t.string,
      machineVersion: t.number,
      schemaVersion: t.number,
      source: Source,
      actor: t.string,
      correlationId: t.string,
      causationId: t.union([t.string, t.null]),
      from: t.union([StateValue, t.null]),
      to: StateValue,
      effects: t.array(Effect),
      recordedAt: t.string,
    }),
    t.partial({
      /** Context after the transition, kept only when the machine asks for it (never secrets). */
      note: t.string,
      /** The leadership term the decision was taken under (who held the lease, and its transition count). */
      leader: t.type({ holder: t.string, term: t.number }),
      /**
       * The resource the stream belongs to, as the writer knew it when it decided (kind, namespace, name):
       * so an auditor finds a stream by name, also after the resource is gone (issue 18).
       */
      subject: t.type({ kind: t.string, namespace: t.string, name: t.string }),
    }),
  ],
  'EventMetadata',
);
export type EventMetadata = t.TypeOf<typeof EventMetadata>;

/** What a writer hands to `append`. The store assigns revision and position. */
export interface NewEvent {
  id: string;
  type: string;
  data: Typed;
  metadata: EventMetadata;
}

/** An event as the store returns it. */
export interface RecordedEvent extends NewEvent {
  stream: string;
  /** Per-stream, from 0, no gaps. */
  revision: number;
  /** Global, strictly increasing across all streams in commit order. */
  position: number;
}

export const RecordedEvent: t.Type<RecordedEvent> = t.type(
  {
    id: t.string,
    stream: t.string,
    revision: t.number,
    position: t.number,
    type: t.string,
    data: Typed,
    metadata: EventMetadata,
  },
  'RecordedEvent',
);
