/**
 * What a machine module exports so the engine can run it: the XState machine, its version, the codec
 * of the stimuli it accepts (stored as event `data`), and the stream prefix it owns.
 *
 * Conventions every machine follows (so the engine can read a transition's result as data):
 * - an **effect** is a custom action whose type is listed in `effects` (e.g. `nova.rebuild`); its
 *   params are the effect's payload. The engine executes it only after the deciding event is appended.
 * - an **outcome** is the `outcome` action with params `{ name }` (e.g. `armed`); it names the stored
 *   event (`serverRebuild.armed`). Without one, the event is named after the stimulus type.
 * - every stimulus carries `source`; guards use it to keep observation from authorising anything.
 */
import type * as t from 'io-ts';
import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import type { Source, Typed } from '../src/events/envelope.js';

/** A machine event as stored: a type, its source, and payload. */
export interface Stimulus extends Typed {
  type: string;
  source: Source;
}

export interface MachineDefinition<TContext = unknown> {
  /**
   * Never set: carries the machine's context type, so `engine.load(definition, stream)` returns it typed (no casts
   * where a pass or a status reads a machine's context).
   */
  readonly contextType?: TContext;
  /** Stable id, also the event-type prefix: `serverRebuild` → `serverRebuild.armed`. */
  readonly id: string;
  /** Bumped whenever the machine's decisions change; recorded on every event. */
  readonly version: number;
  /** Version of the stimulus payload schema; older stored payloads are upcast by migrations/. */
  readonly schemaVersion: number;
  /** Streams this machine owns start with this prefix, e.g. `server-rebuild-`. */
  readonly streamPrefix: string;
  readonly machine: AnyStateMachine;
  /**
   * Codec of every stimulus the machine accepts; stored data must decode with it. Plain codecs only
   * (no transformations): the engine uses the codec's `is` guard as the fast path on read.
   */
  readonly stimulus: t.Decoder<unknown, Stimulus> & { is: (u: unknown) => u is Stimulus };
  /** Action types that are effects (executed by handlers after the append). */
  readonly effects: readonly string[];
  /**
   * Optional renaming of effect action types to the effect types handlers are registered for, for
   * machines built by a factory (machines/lifecycle.ts: `createResource` → `nova.createServer`).
   */
  readonly effectNames?: Readonly<Record<string, string>>;
  /** Effect types (after effectNames renaming) that destroy or delete something; audits show who authorised each one. */
  readonly destructiveEffects?: readonly string[];
  /** The machine's input, derived from the stream id only, so replay reproduces it. */
  readonly input?: (stream: string) => unknown;
  /** One paragraph for humans: what lifecycle this is and which spec section it implements. */
  readonly description: string;
  /** What the audit tools need to explore and judge this machine's graph (src/audit/README.md). */
  readonly audit?: MachineAudit;
}

/**
 * Optional audit hooks (`regent check`, `regent viz`, authorization chains). All pure. A machine
 * without them is still drawn and replayed; the static checks that need them are reported as skipped.
 */
export interface MachineAudit {
  /** A finite set of stimuli covering every decision-relevant case; checks explore every state it reaches. */
  alphabet: () => readonly Stimulus[];
  /** Folds data (counters, health) out of a snapshot so the explored graph stays finite. Default: value and context. */
  stateKey?: (snapshot: AnyMachineSnapshot) => string;
  /** The write-ahead intent a destructive effect needs (e.g. the rebuild marker), or null when none stands. */
  intentOf?: (snapshot: AnyMachineSnapshot) => { target: string; state: string } | null;
  /** Rank of the intent's state; for one target it never decreases ("no rank retreat"). */
  rank?: (snapshot: AnyMachineSnapshot) => number;
  /** True once the machine has parked (terminal, user action required). */
  parked?: (snapshot: AnyMachineSnapshot) => boolean;
  /**
   * In words, the evidence a destructive decision was taken on, from the state read back and the
   * decision's stimulus (e.g. why a rebuild was submitted again after an unanswered one). Shown by
   * `regent chain`.
   */
  evidenceOf?: (before: AnyMachineSnapshot, stimulus: Stimulus) => string | undefined;
}

/** The effect type an effect action is executed (and recorded, and audited) as. */
export const effectTypeOf = (definition: Pick<MachineDefinition, 'effectNames'>, actionType: string): string =>
  definition.effectNames?.[actionType] ?? actionType;

/** The action type machines use to name what happened. */
export const OUTCOME_ACTION = 'outcome';

/** `actions: outcome('armed')` names the stored event `<machine>.armed`. */
export const outcome = (name: string) => ({ type: OUTCOME_ACTION, params: { name } }) as const;

/** No-op implementations for setup({ actions }): effects and outcomes are data, never executed here. */
export const declaredAction =
  <TParams>() =>
  (_args: unknown, _params: TParams): void => {};
