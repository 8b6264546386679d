/**
 * A machine's statechart as data: every state node and every transition, read by walking XState's
 * state nodes (not `machine.toJSON()`, which drops `always` transitions and inline guards).
 *
 * Each transition gets a stable edge id from where it is declared — source state node, event type
 * and its index in that event's priority list — so the same machine version always draws the same
 * ids, and an overlay can name the exact transition a stored event took.
 */
import type { AnyStateMachine } from 'xstate';
import { OUTCOME_ACTION, type MachineDefinition } from '../../../machines/definition.js';

export interface ChartNode {
  /** XState state node id, e.g. `serverRebuild.Failed.stamped`. */
  id: string;
  key: string;
  parent: string | null;
  type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  /** Initial child's id for a compound state. */
  initial: string | null;
  children: string[];
}

export interface ChartEdge {
  /** `e--<source>--<event>--<index>`: stable for one machine version, safe as an SVG/HTML id. */
  id: string;
  source: string;
  /** Target state node ids; empty for a targetless (internal) transition. */
  targets: string[];
  event: string;
  /** Position in the source's list for this event: XState takes the first enabled one. */
  index: number;
  guard: string | null;
  outcome: string | null;
  effects: string[];
  destructive: string[];
  /** Every action type, in order (for tooltips and the evidence file). */
  actions: string[];
  reenter: boolean;
}

export interface Statechart {
  machine: string;
  version: number;
  root: string;
  nodes: ChartNode[];
  edges: ChartEdge[];
}

interface XStateNode {
  id: string;
  key: string;
  type: ChartNode['type'];
  parent?: XStateNode;
  states: Record<string, XStateNode>;
  initial?: { target?: XStateNode[] };
  transitions: Map<string, XTransition[]>;
  always?: XTransition[];
}

interface XTransition {
  eventType: string;
  guard?: unknown;
  target?: XStateNode[];
  actions: unknown[];
  reenter?: boolean;
}

const safe = (text: string): string => text.replace(/[^A-Za-z0-9_.-]/g, '_');

export const edgeIdOf = (source: string, event: string, index: number): string => `e--${safe(source)}--${safe(event)}--${index}`;
export const nodeDomId = (id: string): string => `n--${safe(id)}`;

/** A readable guard name: the named guard, a parameterised guard's type, or `and(a, b)`, `not(x)`. */
export const guardName = (guard: unknown): string | null => {
  if (guard === undefined || guard === null) return null;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && 'type' in guard && typeof guard.type === 'string') return guard.type;
  if (typeof guard === 'function') {
    const composite = guard as { guards?: unknown[]; name?: string };
    if (Array.isArray(composite.guards)) {
      const kind = composite.name && /^(and|or|not)$/.test(composite.name) ? composite.name : 'guard';
      return `${kind}(${composite.guards.map((g) => guardName(g) ?? '?').join(', ')})`;
    }
    return composite.name ? composite.name : 'inline';
  }
  return 'inline';
};

const actionType = (action: unknown): string => {
  if (typeof action === 'string') return action;
  if (action && (typeof action === 'object' || typeof action === 'function') && 'type' in action && typeof action.type === 'string') return action.type;
  if (typeof action === 'function' && action.name) return action.name;
  return 'inline';
};

const outcomeName = (action: unknown): string | null => {
  if (!action || typeof action !== 'object' || actionType(action) !== OUTCOME_ACTION) return null;
  const params = (action as { params?: unknown }).params;
  return params && typeof params === 'object' && 'name' in params && typeof params.name === 'string' ? params.name : null;
};

/** Walks the machine; `effects`/`destructive` classify action types as the definition declares them. */
export const statechartOf = (
  machine: AnyStateMachine,
  meta: { id: string; version: number; effects?: readonly string[]; destructiveEffects?: readonly string[]; effectNames?: Readonly<Record<string, string>> },
): Statechart => {
  // Effects are shown and classified as the types they execute as (a factory machine's
  // `deleteResource` is `nova.deleteServer`).
  const rename = (type: string): string => meta.effectNames?.[type] ?? type;
  const nodes: ChartNode[] = [];
  const edges: ChartEdge[] = [];
  const effects = new Set([...(meta.effects ?? []), ...(meta.effects ?? []).map((type) => meta.effectNames?.[type] ?? type)]);
  const destructive = new Set(meta.destructiveEffects ?? []);
  const visit = (node: XStateNode): void => {
    const children = Object.values(node.states ?? {});
    nodes.push({
      id: node.id,
      key: node.key,
      parent: node.parent?.id ?? null,
      type: node.type,
      initial: node.initial?.target?.[0]?.id ?? null,
      children: children.map((c) => c.id),
    });
    const lists: Array<[string, XTransition[]]> = [...node.transitions.entries()];
    if (node.always && node.always.length > 0) lists.push(['always', node.always]);
    for (const [event, transitions] of lists) {
      transitions.forEach((t, index) => {
        const types = t.actions.map(actionType).map((type) => (effects.has(type) ? rename(type) : type));
        edges.push({
          id: edgeIdOf(node.id, event, index),
          source: node.id,
          targets: (t.target ?? []).map((target) => target.id),
          event,
          index,
          guard: guardName(t.guard),
          outcome: t.actions.map(outcomeName).find((name) => name !== null) ?? null,
          effects: types.filter((type) => effects.has(type)),
          destructive: types.filter((type) => destructive.has(type)),
          actions: types,
          reenter: Boolean(t.reenter),
        });
      });
    }
    for (const child of children) visit(child);
  };
  visit((machine as unknown as { root: XStateNode }).root);
  return { machine: meta.id, version: meta.version, root: nodes[0]?.id ?? meta.id, nodes, edges };
};

export const statechartOfDefinition = (definition: MachineDefinition): Statechart =>
  statechartOf(definition.machine, { id: definition.id, version: definition.version, effects: definition.effects, destructiveEffects: definition.destructiveEffects, ...(definition.effectNames ? { effectNames: definition.effectNames } : {}) });

/**
 * The transitions of the chart keyed by XState's own transition objects, so the transition XState
 * selects for an event (`machine.getTransitionData`) maps back to its edge id by identity.
 */
export const transitionIndex = (machine: AnyStateMachine): Map<unknown, string> => {
  const index = new Map<unknown, string>();
  const visit = (node: XStateNode): void => {
    for (const [event, transitions] of node.transitions) transitions.forEach((t, i) => index.set(t, edgeIdOf(node.id, event, i)));
    (node.always ?? []).forEach((t, i) => index.set(t, edgeIdOf(node.id, 'always', i)));
    for (const child of Object.values(node.states ?? {})) visit(child);
  };
  visit((machine as unknown as { root: XStateNode }).root);
  return index;
};

/**
 * State node ids a state value is in, ancestors included: `{Failed: 'parked'}` → root, Failed,
 * Failed.parked. Walks the chart by keys (not by id strings: a state may declare its own id). Keys
 * the chart does not know (a value recorded by another machine version) are skipped.
 */
export const activeNodeIds = (chart: Statechart, value: unknown): string[] => {
  const byId = new Map(chart.nodes.map((n) => [n.id, n]));
  const out = [chart.root];
  const childByKey = (parent: string, key: string): ChartNode | undefined =>
    byId.get(parent)?.children.map((id) => byId.get(id)).find((n) => n?.key === key);
  const walk = (parent: string, v: unknown): void => {
    const entries: Array<[string, unknown]> = typeof v === 'string' ? [[v, undefined]] : v && typeof v === 'object' ? Object.entries(v) : [];
    for (const [key, child] of entries) {
      const node = childByKey(parent, key);
      if (!node) continue;
      out.push(node.id);
      if (child !== undefined) walk(node.id, child);
    }
  };
  walk(chart.root, value);
  return out;
};

/** One line: `reconcile [quiescentOffTarget] / submitted ⚠nova.rebuild`. */
export const edgeLabel = (edge: ChartEdge): string => {
  const head = edge.guard ? `${edge.event} [${edge.guard}]` : edge.event;
  const tail = [edge.outcome ? `/ ${edge.outcome}` : '', ...edge.effects.map((e) => (edge.destructive.includes(e) ? `⚠ ${e}` : `! ${e}`))].filter(Boolean).join(' ');
  return tail ? `${head} ${tail}` : head;
};
