/**
 * Pure folding of stimuli through a machine with XState's `initialTransition`/`transition`: no
 * actions are executed, effects and outcomes come back as data.
 */
import { initialTransition, transition, type AnyMachineSnapshot } from 'xstate';
import type { Effect, StateValue } from '../events/envelope.js';
import { effectTypeOf, OUTCOME_ACTION, type MachineDefinition, type Stimulus } from '../../machines/definition.js';

export interface Step {
  snapshot: AnyMachineSnapshot;
  /** True when state value or context differ from the previous snapshot. */
  changed: boolean;
  effects: Effect[];
  outcome: string | undefined;
}

export const initialSnapshot = (definition: MachineDefinition, stream: string): AnyMachineSnapshot => {
  const input = definition.input ? definition.input(stream) : { stream };
  const [snapshot] = initialTransition(definition.machine, input);
  return snapshot as AnyMachineSnapshot;
};

interface ExecutableAction {
  type: string;
  params?: unknown;
}

/** One stimulus through the machine. */
export const step = (definition: MachineDefinition, previous: AnyMachineSnapshot, stimulus: Stimulus): Step => {
  const [snapshot, actions] = transition(definition.machine, previous, stimulus) as [AnyMachineSnapshot, ExecutableAction[]];
  const effects: Effect[] = [];
  let outcome: string | undefined;
  for (const action of actions) {
    if (definition.effects.includes(action.type)) {
      effects.push({ ...(action.params as Record<string, unknown> | undefined), type: effectTypeOf(definition, action.type) });
    } else if (action.type === OUTCOME_ACTION) {
      outcome = (action.params as { name: string }).name;
    }
  }
  // A handled transition with only declared actions returns the same snapshot object: unchanged.
  const changed = snapshot !== previous && (!sameJson(snapshot.value, previous.value) || !sameJson(snapshot.context, previous.context));
  return { snapshot, changed, effects, outcome };
};

/** Only the next snapshot: for loading and replay, where effects and change detection are not needed. */
export const advance = (definition: MachineDefinition, previous: AnyMachineSnapshot, stimulus: Stimulus): AnyMachineSnapshot =>
  transition(definition.machine, previous, stimulus)[0] as AnyMachineSnapshot;

/** Folds a sequence of stimuli from the initial snapshot. */
export const foldStimuli = (definition: MachineDefinition, stream: string, stimuli: Iterable<Stimulus>): AnyMachineSnapshot => {
  let snapshot = initialSnapshot(definition, stream);
  for (const stimulus of stimuli) snapshot = advance(definition, snapshot, stimulus);
  return snapshot;
};

export const stateValueOf = (snapshot: AnyMachineSnapshot): StateValue => snapshot.value as StateValue;

/** Structural equality of JSON-shaped values (contexts are plain data by convention). */
export const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameJson(item, b[i]));
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bkeys = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (keys.length !== bkeys.length) return false;
  return keys.every((k) => sameJson(ao[k], bo[k]));
};
