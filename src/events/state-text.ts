/** State values as people read them, in the CLI and the audit pages alike. */
import type { StateValue } from './envelope.js';

/** `{"a": {"b": "c"}}` → `a.b.c`; parallel regions joined with `, `. */
export const formatState = (value: StateValue | null | undefined): string => {
  if (value === null || value === undefined) return '∅';
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .map(([key, child]) => (typeof child === 'string' ? `${key}.${child}` : `${key}.${formatState(child)}`))
    .join(', ');
};
