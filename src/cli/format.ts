/** Plain-text rendering for the command's tables. */
import type { StateValue } from '../events/envelope.js';

/** `{"a": {"b": "c"}}` → `a.b.c`; parallel regions joined with `, `. */
export const formatState = (value: StateValue | null | undefined): string => {
  if (value === null || value === undefined) return '∅';
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .map(([key, child]) => (typeof child === 'string' ? `${key}.${child}` : `${key}.${formatState(child)}`))
    .join(', ');
};

/** Left-aligned columns separated by two spaces; the header is the first row. */
export const table = (rows: readonly (readonly string[])[]): string => {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd())
    .join('\n');
};
