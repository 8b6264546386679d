/**
 * The plan's rule table (src/plan/rules.ts) against the machines it labels:
 * - complete: every decision each tabled machine's audit graph can take (every reachable state under its whole
 *   audit alphabet, `regent check`'s exploration) gets a rule, except the transitions the source gives no label
 *   (each coverage group's `unlabelled`, with why);
 * - true to the source: each serverRebuild row's label is the one machines/server-rebuild.ts's comment gives a
 *   transition with that outcome.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { explore } from '../../src/audit/checks/explore.js';
import { auditOf } from '../../src/audit/profile.js';
import { sameJson } from '../../src/engine/fold.js';
import type { StateValue } from '../../src/events/envelope.js';
import { createProductRegistry } from '../../machines/index.js';
import { RULE_TABLES, ruleOf } from '../../src/plan/rules.js';
import { COVERED_UNLABELLED } from '../../src/plan/coverage/index.js';

/** Decisions the machines' sources give no rule label, and why they have none (each group's `unlabelled`). */
const UNLABELLED = COVERED_UNLABELLED;

describe('plan: the rule table', function () {
  this.timeout(300_000);
  const registry = createProductRegistry();

  for (const machine of Object.keys(RULE_TABLES)) {
    it(`${machine}: every decision of its explored graph has a rule, but the unlabelled ones its coverage names`, () => {
      const definition = registry.get(machine);
      const audit = auditOf(definition);
      if (!audit) throw new Error(`${machine} has no audit alphabet`);
      const missing = new Set<string>();
      const labelled = new Set<string>();
      const unlabelledSeen = new Set<string>();
      let decisions = 0;
      explore(definition, audit, (edge) => {
        const before = edge.from.snapshot;
        const changed = !sameJson(before.value, edge.next.value) || !sameJson(before.context, edge.next.context);
        if (!changed && edge.step.effects.length === 0) return;
        decisions++;
        const type = `${machine}.${edge.step.outcome ?? edge.event.type}`;
        const rule = ruleOf({ type, data: edge.event, metadata: { machine, from: before.value as StateValue } as never });
        if (rule) labelled.add(`${type} from ${JSON.stringify(before.value)} → ${rule.id}`);
        else if (UNLABELLED[machine]?.[type]) unlabelledSeen.add(type);
        else missing.add(`${type} from ${JSON.stringify(before.value)}`);
      });
      console.log(`      ${machine}: ${decisions} decisions explored, ${labelled.size} (outcome, state, rule) kinds labelled, unlabelled by design: ${[...unlabelledSeen].join(', ') || 'none'}`);
      expect([...missing]).to.deep.equal([]);
    });
  }

  it("serverRebuild: each row's label is the one the source's comment gives a transition with that outcome", () => {
    const lines = readFileSync('machines/server-rebuild.ts', 'utf8').split('\n');
    const labelsNear = (outcome: string): string[] => {
      const labels: string[] = [];
      lines.forEach((line, index) => {
        if (!line.includes(`outcome('${outcome}')`)) return;
        // the transition's own lines: this one and those above it, back to the previous transition's outcome
        for (let i = index; i >= Math.max(0, index - 6); i--) {
          const text = lines[i] as string;
          if (i < index && text.includes('outcome(')) break;
          for (const match of text.matchAll(/\/\/\s*([RMEU]\d+)/g)) labels.push(match[1] as string);
        }
      });
      return labels;
    };
    const wrong: string[] = [];
    for (const row of RULE_TABLES.serverRebuild ?? []) {
      if (row.outcome.includes('.')) continue; // a stimulus type (LATE_RESULTS): no outcome is named in the source
      const labels = labelsNear(row.outcome);
      if (!labels.includes(row.rule.id)) wrong.push(`${row.outcome}: table ${row.rule.id}, source ${labels.join('/') || 'none'}`);
    }
    expect(wrong).to.deep.equal([]);
  });
});
