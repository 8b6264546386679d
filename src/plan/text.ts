/**
 * A plan as a person reads it on a terminal: per resource, what `apply` would do, then one row per decision (the
 * pass, the machine, the decision and its state change, the rule, the effect with the OpenStack request it would
 * send, DESTRUCTIVE), then where the plan stops and why; the rules' meanings under the table; a last line counting
 * the destructive decisions. `-o json` prints the Plan itself (./report.ts).
 */
import type { Plan, PlannedDecision, PlannedEffect, ResourcePlan } from './report.js';
import { describeCall } from './planner.js';

/** Left-aligned columns separated by two spaces (the CLI's tables, src/cli/format.ts, which this layer does not import). */
const columns = (rows: readonly (readonly string[])[]): string[] => {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd());
};

const effectText = (effect: PlannedEffect): string => {
  const calls = effect.calls.map((c) => describeCall(c)).join('; ');
  return calls === '' ? `${effect.type} ${JSON.stringify(effect.params)}` : `${effect.type}: ${calls}`;
};

const decisionRow = (d: PlannedDecision, index: number): string[] => [
  String(index + 1),
  String(d.pass),
  d.machine,
  `${d.event.slice(d.machine.length + 1)} (${d.from} → ${d.to})`,
  d.rule?.id ?? '—',
  d.effects.length === 0 ? '—' : d.effects.map(effectText).join(', '),
  d.destructive ? 'DESTRUCTIVE' : '',
];

const header = (r: ResourcePlan): string => `${r.kind} ${r.namespace}/${r.name} (${r.where})${r.apply ? `: ${r.apply}` : ''}`;

const resourceText = (r: ResourcePlan): string[] => {
  switch (r.verdict) {
    case 'refused':
      return [header(r), `  REFUSED: apply would refuse it: ${r.refusal ?? ''}`];
    case 'not-applied':
    case 'not-built':
    case 'secret':
      return [header(r), `  ${r.message ?? r.verdict}`];
    case 'failed':
      return [header(r), `  the plan of this resource failed: ${r.message ?? 'unknown error'}`];
    case 'planned':
      break;
  }
  const out = [header(r)];
  if (r.decisions.length > 0) {
    out.push(...columns([['#', 'PASS', 'MACHINE', 'DECISION', 'RULE', 'EFFECT', ''], ...r.decisions.map(decisionRow)]).map((line) => `  ${line}`));
    const rules = new Map(r.decisions.flatMap((d) => (d.rule ? [[d.rule.id, d.rule.says] as const] : [])));
    if (rules.size > 0) out.push(`  rules: ${[...rules].map(([id, says]) => `${id} ${says}`).join('; ')}`);
  } else {
    out.push('  no decision');
  }
  if (r.refusedBy === 'controller') out.push(`  REFUSED: ${r.kind}'s pass would record it and create nothing: ${r.refusal ?? ''}`);
  if (r.stops) out.push(`  then: ${r.stops}`);
  const finalizers = r.writes.filter((w) => w.op === 'addFinalizer' || w.op === 'removeFinalizer');
  for (const w of finalizers) out.push(`  and: ${w.op === 'addFinalizer' ? 'adds' : 'removes'} the finalizer ${w.detail ?? ''}`);
  return out;
};

export const planText = (plan: Plan): string => {
  const out: string[] = [];
  for (const resource of plan.resources) out.push(...resourceText(resource), '');
  const destructive = plan.resources.flatMap((r) => r.decisions.filter((d) => d.destructive).map((d) => `${d.effects.filter((e) => e.destructive).map((e) => e.type).join(', ')} on ${r.kind} ${r.namespace}/${r.name}`));
  const refused = plan.resources.filter((r) => r.verdict === 'refused').length;
  const refusedByPass = plan.resources.filter((r) => r.refusedBy === 'controller').length;
  const notBuilt = plan.resources.filter((r) => r.verdict === 'not-built').length;
  const summary = [
    `${plan.resources.length} resource(s)`,
    destructive.length === 0 ? 'no destructive decision' : `${destructive.length} destructive decision(s): ${destructive.join('; ')}`,
    ...(refused > 0 ? [`${refused} refused by apply`] : []),
    ...(refusedByPass > 0 ? [`${refusedByPass} refused by their pass`] : []),
    ...(notBuilt > 0 ? [`${notBuilt} not planned (see each)`] : []),
    ...(plan.failed ? ['some plans failed'] : []),
  ];
  out.push(`Plan: ${summary.join(', ')}.`);
  return out.join('\n');
};
