/**
 * The cross-kind wake graph, in one place (issue 25: it was an if/else chain in the informer callback). Every kind
 * declares, in its wiring, which changes of which kinds wake its passes (src/app/kind.ts WakeRule); this module
 * turns one informer event into the passes to enqueue, and draws the graph for people (`regent kinds --wakes`).
 *
 * A change is `spec` when the object is new, its generation moved or its deletion was requested (our own status
 * writes never are: a pass must not wake itself forever), `any` for every write, `deleted` when it is gone. A rule on
 * `any` with a signature fires only when that value of the object changed since the last event seen for it.
 */
import type { KindName, ObjectOf } from '../resources/index.js';
import { keyOf, type ChangeKind, type KindWiring, type Lookups, type WakeRule } from './kind.js';

export interface InformerChange {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  kind: KindName;
  object: ObjectOf<KindName>;
}

export interface Wake {
  kind: KindName;
  key: string;
}

interface DeclaredRule extends WakeRule {
  /** The kind whose passes the rule wakes (the one that declared it). */
  to: KindName;
}

export class WakeGraph {
  private readonly rules: readonly DeclaredRule[];
  private readonly generations = new Map<string, number>();
  private readonly signatures = new Map<string, string>();

  constructor(wirings: readonly KindWiring[], private readonly lookups: Lookups) {
    this.rules = wirings.flatMap((w) => w.wakes.map((rule) => ({ ...rule, to: w.kind })));
  }

  /**
   * The passes one informer event wakes (the caller enqueues them while leading), and whether it was a `spec`
   * change (a kind without a controller renders its status then); remembers what it saw.
   */
  onChange(change: InformerChange): { wakes: Wake[]; spec: boolean } {
    const { kind, object } = change;
    const id = `${kind}:${keyOf(object)}`;
    if (change.type === 'DELETED') {
      this.generations.delete(id);
      for (const key of [...this.signatures.keys()]) if (key.startsWith(`${id}|`)) this.signatures.delete(key);
      return { wakes: this.fire(kind, object, ['deleted']), spec: false };
    }
    const generation = object.metadata.generation ?? 1;
    const seen = this.generations.get(id);
    this.generations.set(id, generation);
    const spec = change.type === 'ADDED' || seen !== generation || object.metadata.deletionTimestamp !== undefined;
    return { wakes: this.fire(kind, object, spec ? ['spec', 'any'] : ['any'], id), spec };
  }

  /** The passes a change of `object` wakes, as if it changed `on` (the monitor's verdict on a Network's project). */
  dependentsOf(kind: KindName, object: ObjectOf<KindName>, on: ChangeKind): Wake[] {
    return this.fire(kind, object, on === 'spec' ? ['spec', 'any'] : [on]);
  }

  /** Every declared edge, for drawing: from → to, on which change, and why. */
  edges(): Array<{ from: KindName; to: KindName; on: ChangeKind; why: string }> {
    return this.rules.map((r) => ({ from: r.from, to: r.to, on: r.on, why: r.why }));
  }

  private fire(kind: KindName, object: ObjectOf<KindName>, changes: readonly ChangeKind[], id?: string): Wake[] {
    const wakes: Wake[] = [];
    const seen = new Set<string>();
    this.rules.forEach((rule, index) => {
      if (rule.from !== kind || !changes.includes(rule.on)) return;
      if (rule.signature && id !== undefined) {
        const signatureKey = `${id}|${index}`;
        const now = rule.signature(object);
        const before = this.signatures.get(signatureKey);
        this.signatures.set(signatureKey, now);
        // the first sight of an object sets the baseline: its creation is a `spec` change, woken by the spec rules
        if (before === undefined || before === now) return;
      }
      for (const key of rule.keys(object, this.lookups)) {
        const wake = `${rule.to}:${key}`;
        if (seen.has(wake)) continue;
        seen.add(wake);
        wakes.push({ kind: rule.to, key });
      }
    });
    return wakes;
  }
}

/** The wake graph as Graphviz DOT: one edge per rule, labelled with the change and why. */
export const wakeGraphDot = (edges: ReturnType<WakeGraph['edges']>): string => {
  const quote = (s: string) => `"${s.replace(/"/g, '\\"')}"`;
  const lines = edges.map((e) => `  ${quote(e.from)} -> ${quote(e.to)} [label=${quote(e.on)}, tooltip=${quote(e.why)}${e.on === 'deleted' ? ', style=dashed' : ''}];`);
  return `digraph wakes {\n  rankdir=LR;\n  node [shape=box, fontname="sans-serif"];\n  edge [fontname="sans-serif", fontsize=10];\n${lines.join('\n')}\n}\n`;
};
