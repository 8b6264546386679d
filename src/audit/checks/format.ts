/** Plain-text rendering of `regent check` results, with counterexample paths. */
import { formatState } from '../../events/state-text.js';
import type { StateValue } from '../../events/envelope.js';
import type { PathStep } from './explore.js';
import type { MachineCheckReport } from './rules.js';

const MARK = { pass: '✓', fail: '✗', skipped: '-' } as const;

const stimulusData = (step: PathStep): string => {
  const { type: _type, source: _source, ...rest } = step.event;
  const text = JSON.stringify(rest);
  return text.length > 220 ? `${text.slice(0, 219)}…` : text;
};

export const formatPath = (path: readonly PathStep[], indent = '      '): string[] => {
  const out: string[] = [];
  path.forEach((step, i) => {
    const tail = [step.outcome ? `/ ${step.outcome}` : '', ...step.effects.map((e) => `! ${e}`)].filter(Boolean).join(' ');
    out.push(`${indent}${i + 1}. ${step.event.type} (${step.event.source})  ${formatState(step.from as StateValue)} → ${formatState(step.to as StateValue)}${tail ? `  ${tail}` : ''}`);
    out.push(`${indent}   ${stimulusData(step)}`);
  });
  return out;
};

export const formatCheckReport = (report: MachineCheckReport): string => {
  const details = new Set(report.results.map((r) => r.detail));
  if (report.results.every((r) => r.status === 'skipped') && details.size === 1) {
    return `${report.machine} v${report.version}: every check skipped: ${[...details][0]}`;
  }
  const out = [`${report.machine} v${report.version}: ${report.states} states, ${report.edges} transitions explored${report.truncated ? ' (TRUNCATED)' : ''}`];
  for (const result of report.results) {
    out.push(`  ${MARK[result.status]} ${result.title}  [${result.id}]${result.status === 'skipped' ? ` skipped: ${result.detail}` : result.status === 'pass' ? ` (${result.detail})` : ''}`);
    if (result.status === 'fail' && result.counterexample) {
      out.push(`      ${result.counterexample.problem} (${result.violations} offending transition(s); shortest counterexample, ${result.counterexample.path.length} event(s) from the initial state):`);
      out.push(...formatPath(result.counterexample.path, '      '));
    }
    if (result.status === 'fail' && result.unreachable?.length) out.push(`      unreachable: ${result.unreachable.join(', ')} (no stimulus sequence of the alphabet enters them)`);
    if (result.status === 'fail' && !result.counterexample && !result.unreachable?.length) out.push(`      ${result.detail}`);
  }
  return out.join('\n');
};
