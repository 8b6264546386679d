/**
 * Breadth-first exploration of a machine's reachable states under its audit alphabet, with XState's
 * pure `transition()` (the same function the engine decides with). Each explored state also carries
 * the source of the stimulus that armed its standing intent, so path properties ("armed by the
 * reconciler in an earlier event") become properties of single edges. BFS order makes every
 * counterexample a shortest one.
 */
import { initialTransition, transition, type AnyMachineSnapshot } from 'xstate';
import type { Source } from '../../events/envelope.js';
import { effectTypeOf, OUTCOME_ACTION, type MachineAudit, type MachineDefinition, type Stimulus } from '../../../machines/definition.js';

export type ArmedBy = Source | 'none';

export interface ExploredState {
  key: string;
  snapshot: AnyMachineSnapshot;
  /** Source of the stimulus that recorded the standing intent ('none' without one). */
  armedBy: ArmedBy;
  /** How BFS first reached it. */
  parent: { key: string; step: PathStep } | undefined;
  depth: number;
}

export interface PathStep {
  event: Stimulus;
  from: unknown;
  to: unknown;
  outcome: string | undefined;
  effects: string[];
}

export interface ExploredEdge {
  from: ExploredState;
  event: Stimulus;
  next: AnyMachineSnapshot;
  nextArmedBy: ArmedBy;
  /** Action types the transition executed (effects and outcome included). */
  actions: Array<{ type: string; params?: unknown }>;
  step: PathStep;
}

export interface Exploration {
  states: Map<string, ExploredState>;
  edges: number;
  truncated: boolean;
}

export const AUDIT_STREAM_SUFFIX = 'audit';

const defaultKey = (snapshot: AnyMachineSnapshot): string => JSON.stringify([snapshot.value, snapshot.context]);

/** Explores every state reachable under `audit.alphabet()`; calls `onEdge` for every (state, stimulus). */
export const explore = (definition: MachineDefinition, audit: MachineAudit, onEdge: (edge: ExploredEdge) => void, maxStates = 100_000): Exploration =>
  runToEnd(exploring(definition, audit, onEdge, maxStates));

/** Runs a stepwise computation to its end at once (the CLI: nothing else waits on this process). */
export const runToEnd = <T>(steps: Generator<void, T>): T => {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
};

/** Gives the event loop back until its next turn (the default pause between slices). */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A pause that never keeps the process alive (an unref'd timer): for work in the background (the audit pages
 * warming their checks, checks/cache.ts), so a control plane that stopped exits without waiting for it.
 */
export const backgroundTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0).unref());

/**
 * Runs a stepwise computation, giving the event loop back every `sliceMs`: the audit pages explore a machine in
 * the process that also renews the leader's lease and serves the API, and a whole exploration (16 s for the
 * rebuild machine on a busy 2-core machine) in one go would stall them long enough to lose the lease.
 */
export const runCooperatively = async <T>(steps: Generator<void, T>, sliceMs = 10, pause: () => Promise<void> = nextTurn): Promise<T> => {
  let sliceStart = Date.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (Date.now() - sliceStart >= sliceMs) {
      await pause();
      sliceStart = Date.now();
    }
  }
};

/** The exploration, one explored state per step (yield), for runToEnd or runCooperatively. */
export function* exploring(
  definition: MachineDefinition,
  audit: MachineAudit,
  onEdge: (edge: ExploredEdge) => void,
  maxStates = 100_000,
): Generator<void, Exploration> {
  const stateKey = audit.stateKey ?? defaultKey;
  const stream = `${definition.streamPrefix}${AUDIT_STREAM_SUFFIX}`;
  const input = definition.input ? definition.input(stream) : { stream };
  const [initial] = initialTransition(definition.machine, input) as [AnyMachineSnapshot, unknown];
  const alphabet = audit.alphabet();
  const keyOf = (snapshot: AnyMachineSnapshot, armedBy: ArmedBy) => `${stateKey(snapshot)}|${armedBy}`;
  const first: ExploredState = { key: keyOf(initial, 'none'), snapshot: initial, armedBy: 'none', parent: undefined, depth: 0 };
  const states = new Map([[first.key, first]]);
  const queue: ExploredState[] = [first];
  let edges = 0;
  let truncated = false;
  for (let i = 0; i < queue.length; i++) {
    const state = queue[i] as ExploredState;
    for (const event of alphabet) {
      const [next, actions] = transition(definition.machine, state.snapshot, event) as unknown as [AnyMachineSnapshot, Array<{ type: string; params?: unknown }>];
      edges++;
      const before = audit.intentOf?.(state.snapshot) ?? null;
      const after = audit.intentOf?.(next) ?? null;
      const nextArmedBy: ArmedBy = !after ? 'none' : before && before.target === after.target ? state.armedBy : event.source;
      const outcome = actions.find((a) => a.type === OUTCOME_ACTION)?.params as { name?: string } | undefined;
      const step: PathStep = {
        event,
        from: state.snapshot.value,
        to: next.value,
        outcome: outcome?.name,
        effects: actions.filter((a) => definition.effects.includes(a.type)).map((a) => effectTypeOf(definition, a.type)),
      };
      onEdge({ from: state, event, next, nextArmedBy, actions, step });
      const key = keyOf(next, nextArmedBy);
      if (states.has(key)) continue;
      if (states.size >= maxStates) {
        truncated = true;
        continue;
      }
      const explored: ExploredState = { key, snapshot: next, armedBy: nextArmedBy, parent: { key: state.key, step }, depth: state.depth + 1 };
      states.set(key, explored);
      queue.push(explored);
    }
    yield;
  }
  return { states, edges, truncated };
}

/** The stimuli from the initial state to `state`, in order. */
export const pathTo = (exploration: Exploration, state: ExploredState): PathStep[] => {
  const steps: PathStep[] = [];
  for (let s: ExploredState | undefined = state; s?.parent; s = exploration.states.get(s.parent.key)) steps.unshift(s.parent.step);
  return steps;
};
