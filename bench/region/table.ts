/**
 * The printed table of the region benchmark: one row per figure, each beside the baseline measured in the same run,
 * their ratio and the goal (where the issue names one). Pure: results in, text out.
 */
export interface Row {
  figure: string;
  value: string;
  baseline: string;
  ratio: string;
  goal: string;
}

export const ms = (n: number): string => (Number.isFinite(n) ? (n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`) : 'n/a');
export const times = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}×` : 'n/a');
export const num = (n: number, digits = 1): string => (Number.isFinite(n) ? (Number.isInteger(n) ? String(n) : n.toFixed(digits)) : 'n/a');
export const spread = (s: { min: number; median: number; max: number }, unit: (n: number) => string = (n) => num(n)): string => `${unit(s.min)} / ${unit(s.median)} / ${unit(s.max)}`;

/** Renders rows as an aligned text table with a header. */
export const renderTable = (rows: readonly Row[]): string => {
  const header: Row = { figure: 'figure', value: 'value', baseline: 'baseline (same run)', ratio: 'ratio', goal: 'goal' };
  const all = [header, ...rows];
  const columns: Array<keyof Row> = ['figure', 'value', 'baseline', 'ratio', 'goal'];
  const widths = columns.map((c) => Math.max(...all.map((r) => r[c].length)));
  const line = (r: Row) => columns.map((c, i) => r[c].padEnd(widths[i] as number)).join(' | ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)].join('\n');
};

/** Renders rows as a Markdown table (docs/benchmarks.md). */
export const renderMarkdown = (rows: readonly Row[]): string =>
  ['| figure | value | baseline (same run) | ratio | goal |', '|---|---|---|---|---|', ...rows.map((r) => `| ${r.figure} | ${r.value} | ${r.baseline} | ${r.ratio} | ${r.goal} |`)].join('\n');
