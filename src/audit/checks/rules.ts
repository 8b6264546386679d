/**
 * The static checks `regent check` runs over every machine's reachable graph (explore.ts). Each
 * failing check keeps its first (shortest) counterexample: the stimuli from the initial state to the
 * offending transition.
 *
 * - destructive-needs-arm: no path reaches a destructive effect without an intent armed by a
 *   reconciler-sourced stimulus in an earlier event (an arm in the same event is not write-ahead).
 * - destructive-by-reconciler: only a reconciler stimulus declares a destructive effect.
 * - monitor-never-authorises: no monitor-sourced transition creates, retargets, clears or parks.
 * - every-state-reachable: every state node is entered by some stimulus sequence of the alphabet.
 * - no-rank-retreat: for one intent target, the rank never decreases.
 *
 * Checks that need a hook the machine does not provide (audit.intentOf, rank, or the whole audit
 * profile) are reported as skipped, never as passed.
 */
import type { AnyMachineSnapshot } from 'xstate';
import { effectTypeOf, type MachineAudit, type MachineDefinition } from '../../../machines/definition.js';
import { activeNodeIds, statechartOfDefinition } from '../graph/statechart.js';
import { auditOf } from '../profile.js';
import { backgroundTurn, exploring, pathTo, runCooperatively, runToEnd, type ExploredEdge, type Exploration, type ExploredState, type PathStep } from './explore.js';

export type CheckId = 'destructive-needs-arm' | 'destructive-by-reconciler' | 'monitor-never-authorises' | 'every-state-reachable' | 'no-rank-retreat';

/** Every check, in the order a report lists them. */
export const CHECK_IDS: readonly CheckId[] = ['destructive-needs-arm', 'destructive-by-reconciler', 'monitor-never-authorises', 'every-state-reachable', 'no-rank-retreat'];

export const CHECK_TITLES: Record<CheckId, string> = {
  'destructive-needs-arm': 'no path reaches a destructive effect without a reconciler-sourced arm recorded in an earlier event',
  'destructive-by-reconciler': 'only a reconciler stimulus declares a destructive effect',
  'monitor-never-authorises': 'no monitor-sourced transition creates, retargets, clears or parks',
  'every-state-reachable': 'every state is reachable',
  'no-rank-retreat': 'no rank retreat for one intent target',
};

export interface Counterexample {
  /** What went wrong on the last step. */
  problem: string;
  /** Stimuli from the initial state; the last one is the offending transition. */
  path: PathStep[];
}

export interface CheckResult {
  id: CheckId;
  title: string;
  status: 'pass' | 'fail' | 'skipped';
  /** Why skipped, or for a pass over an empty domain (e.g. no destructive effect), what was checked. */
  detail: string;
  /** Offending transitions found (the first is the counterexample). */
  violations: number;
  counterexample: Counterexample | undefined;
  /** every-state-reachable: the unreachable state ids. */
  unreachable?: string[];
}

export interface MachineCheckReport {
  machine: string;
  version: number;
  states: number;
  edges: number;
  truncated: boolean;
  results: CheckResult[];
}

interface EdgeRule {
  id: CheckId;
  needs: Array<keyof MachineAudit>;
  judge: (edge: ExploredEdge, audit: MachineAudit, definition: MachineDefinition) => string | undefined;
}

const intent = (audit: MachineAudit, s: AnyMachineSnapshot) => audit.intentOf?.(s) ?? null;
const destructiveIn = (edge: ExploredEdge, definition: MachineDefinition): string[] =>
  edge.actions.map((a) => effectTypeOf(definition, a.type)).filter((t) => definition.destructiveEffects?.includes(t));

const EDGE_RULES: EdgeRule[] = [
  {
    id: 'destructive-needs-arm',
    needs: ['intentOf'],
    judge: (edge, audit, definition) => {
      const effects = destructiveIn(edge, definition);
      if (effects.length === 0) return undefined;
      const before = intent(audit, edge.from.snapshot);
      if (!before) return `${effects.join(', ')} declared with no intent recorded before this event`;
      if (edge.from.armedBy !== 'reconciler') return `${effects.join(', ')} declared on an intent (target ${before.target}) armed by ${edge.from.armedBy}, not the reconciler`;
      return undefined;
    },
  },
  {
    id: 'destructive-by-reconciler',
    needs: [],
    judge: (edge, _audit, definition) => {
      const effects = destructiveIn(edge, definition);
      return effects.length > 0 && edge.event.source !== 'reconciler' ? `${effects.join(', ')} declared by a ${edge.event.source} stimulus` : undefined;
    },
  },
  {
    id: 'monitor-never-authorises',
    needs: ['intentOf'],
    judge: (edge, audit) => {
      if (edge.event.source !== 'monitor') return undefined;
      const before = intent(audit, edge.from.snapshot);
      const after = intent(audit, edge.next);
      if (!before && after) return `a monitor observation created the intent (target ${JSON.stringify(after.target)})`;
      if (before && !after) return `a monitor observation cleared the intent (target ${JSON.stringify(before.target)})`;
      if (before && after && before.target !== after.target) return `a monitor observation retargeted the intent ${before.target} → ${after.target}`;
      if (audit.parked && !audit.parked(edge.from.snapshot) && audit.parked(edge.next)) return 'a monitor observation parked the machine';
      return undefined;
    },
  },
  {
    id: 'no-rank-retreat',
    needs: ['intentOf', 'rank'],
    judge: (edge, audit) => {
      const before = intent(audit, edge.from.snapshot);
      const after = intent(audit, edge.next);
      if (!before || !after || before.target !== after.target || !audit.rank) return undefined;
      const [r0, r1] = [audit.rank(edge.from.snapshot), audit.rank(edge.next)];
      return r1 < r0 ? `rank retreat ${before.state}(${r0}) → ${after.state}(${r1}) for target ${before.target} on ${edge.event.type} from ${edge.event.source}` : undefined;
    },
  },
];

const skipped = (id: CheckId, detail: string): CheckResult => ({ id, title: CHECK_TITLES[id], status: 'skipped', detail, violations: 0, counterexample: undefined });

/** Reports by definition: a check is pure and the graph fixed, so one process explores each definition once. */
const reports = new WeakMap<MachineDefinition, Map<number | undefined, MachineCheckReport>>();

export const checkMachine = (definition: MachineDefinition, options: { maxStates?: number } = {}): MachineCheckReport => {
  const known = reports.get(definition)?.get(options.maxStates);
  if (known) return known;
  const report = runToEnd(checking(definition, options));
  reports.set(definition, (reports.get(definition) ?? new Map()).set(options.maxStates, report));
  return report;
};

/** In flight, by definition: two page views of one machine share one exploration. */
const running = new WeakMap<MachineDefinition, Promise<MachineCheckReport>>();

let explorations = 0;
/** How many explorations this process has started (a test observes that a cached report needed none). */
export const explorationsStarted = (): number => explorations;

/**
 * checkMachine for a serving process (the audit pages): the same report, explored in slices that give the event
 * loop back (explore.ts runCooperatively), so a first machine page never stalls the control plane beside it.
 * `background`: pause on an unref'd timer between slices (explore.ts backgroundTurn), so a process that is done
 * serving exits without waiting for the exploration to end.
 */
export const checkMachineCooperatively = (definition: MachineDefinition, options: { background?: boolean } = {}): Promise<MachineCheckReport> => {
  const known = reports.get(definition)?.get(undefined);
  if (known) return Promise.resolve(known);
  const inFlight = running.get(definition);
  if (inFlight) return inFlight;
  const report = runCooperatively(checking(definition, {}), 10, options.background ? backgroundTurn : undefined).then((r) => {
    reports.set(definition, (reports.get(definition) ?? new Map()).set(undefined, r));
    running.delete(definition);
    return r;
  });
  running.set(definition, report);
  return report;
};

/**
 * The source of what judges a machine (the exploration, the rules, the report): part of the fingerprint a kept
 * report is filed under (cache.ts), so a Regent whose checks changed never shows a report the old ones made.
 */
export const checkerSource = (): string => [exploring, pathTo, checking, destructiveIn, ...EDGE_RULES.map((rule) => `${rule.id}:${rule.needs.join(',')}:${String(rule.judge)}`)].map(String).join('\n');

function* checking(definition: MachineDefinition, options: { maxStates?: number }): Generator<void, MachineCheckReport> {
  explorations++;
  const audit = auditOf(definition);
  const base = { machine: definition.id, version: definition.version };
  const allIds = CHECK_IDS;
  if (!audit) {
    return { ...base, states: 0, edges: 0, truncated: false, results: allIds.map((id) => skipped(id, 'the machine has no audit profile (MachineDefinition.audit: an alphabet of stimuli)')) };
  }
  const active = EDGE_RULES.filter((rule) => rule.needs.every((hook) => audit[hook] !== undefined));
  const found = new Map<CheckId, { count: number; first?: { state: ExploredState; step: PathStep; problem: string } }>();
  let destructiveEdges = 0;
  const exploration: Exploration = yield* exploring(
    definition,
    audit,
    (edge) => {
      if (destructiveIn(edge, definition).length > 0) destructiveEdges++;
      for (const rule of active) {
        const problem = rule.judge(edge, audit, definition);
        if (!problem) continue;
        const entry = found.get(rule.id) ?? { count: 0 };
        entry.count++;
        entry.first ??= { state: edge.from, step: edge.step, problem };
        found.set(rule.id, entry);
      }
    },
    options.maxStates,
  );

  const results: CheckResult[] = [];
  for (const rule of EDGE_RULES) {
    const missing = rule.needs.filter((hook) => audit[hook] === undefined);
    if (missing.length > 0) {
      results.push(skipped(rule.id, `needs audit.${missing.join(' and audit.')}`));
      continue;
    }
    const entry = found.get(rule.id);
    const counterexample = entry?.first ? { problem: entry.first.problem, path: [...pathTo(exploration, entry.first.state), entry.first.step] } : undefined;
    const domain = rule.id.startsWith('destructive') ? `${destructiveEdges} destructive transition(s) explored` : `${exploration.edges} transitions explored`;
    results.push({ id: rule.id, title: CHECK_TITLES[rule.id], status: entry ? 'fail' : 'pass', detail: domain, violations: entry?.count ?? 0, counterexample });
  }

  const chart = statechartOfDefinition(definition);
  const reached = new Set<string>();
  for (const state of exploration.states.values()) for (const id of activeNodeIds(chart, state.snapshot.value)) reached.add(id);
  const unreachable = chart.nodes.map((n) => n.id).filter((id) => !reached.has(id));
  results.push({
    id: 'every-state-reachable',
    title: CHECK_TITLES['every-state-reachable'],
    status: unreachable.length > 0 ? 'fail' : 'pass',
    detail: `${chart.nodes.length} state nodes, ${exploration.states.size} distinct states explored`,
    violations: unreachable.length,
    counterexample: undefined,
    unreachable,
  });
  const order = new Map(allIds.map((id, i) => [id, i]));
  results.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  if (exploration.truncated) {
    results.push({ ...skipped('every-state-reachable', ''), status: 'fail', detail: `exploration stopped at ${exploration.states.size} states: audit.stateKey must fold counters and data out of the state`, title: 'the explored graph is finite' });
  }
  return { ...base, states: exploration.states.size, edges: exploration.edges, truncated: exploration.truncated, results };
}
