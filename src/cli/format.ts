/** Plain-text rendering for the command's tables. */
// formatState lives with the state values (src/events) so lower layers need not import the CLI.
export { formatState } from '../events/state-text.js';

/** Left-aligned columns separated by two spaces; the header is the first row. */
export const table = (rows: readonly (readonly string[])[]): string => {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd())
    .join('\n');
};
