/**
 * What changed between two revisions of a stream (issue 18, "Compare: pick two revisions and see what
 * changed in state and context between them (a structural diff)"). Pure: two JSON values in, the changed
 * leaves out, by path (`context.marker.state`, `context.attempts[2]`), in document order. Objects are compared
 * key by key, arrays index by index (an array that grew shows the added indexes), anything else by value.
 */
export interface Change {
  /** Dotted path from the compared root: `state`, `context.marker.targetImageId`, `context.holdings[3].id`. */
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const walk = (path: string, before: unknown, after: unknown, out: Change[]): void => {
  if (Array.isArray(before) && Array.isArray(after)) {
    const n = Math.max(before.length, after.length);
    for (let i = 0; i < n; i++) {
      const p = `${path}[${i}]`;
      if (i >= before.length) out.push({ path: p, kind: 'added', after: after[i] });
      else if (i >= after.length) out.push({ path: p, kind: 'removed', before: before[i] });
      else walk(p, before[i], after[i], out);
    }
    return;
  }
  if (isObject(before) && isObject(after)) {
    const keys = [...Object.keys(before), ...Object.keys(after).filter((k) => !(k in before))];
    for (const key of keys) {
      const p = path === '' ? key : `${path}.${key}`;
      if (!(key in after)) out.push({ path: p, kind: 'removed', before: before[key] });
      else if (!(key in before)) out.push({ path: p, kind: 'added', after: after[key] });
      else walk(p, before[key], after[key], out);
    }
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) out.push({ path, kind: 'changed', before, after });
};

/** The changed leaves between `before` and `after` (empty when they are equal). */
export const structuralDiff = (before: unknown, after: unknown): Change[] => {
  const out: Change[] = [];
  walk('', before, after, out);
  return out;
};
