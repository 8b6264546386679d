/**
 * The JSONPath subset CRD printer columns use: `.a.b`, `[0]`, and `[?(@.field=="value")]` filters,
 * evaluated the way kubectl does for additionalPrinterColumns (the first match is printed).
 */
type Step = { field: string } | { index: number } | { filter: { path: string[]; value: string } };

const parse = (path: string): Step[] => {
  const steps: Step[] = [];
  const re = /\.([A-Za-z0-9_-]+)|\[(\d+)\]|\[\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*==\s*["']([^"']*)["']\)\]/gy;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(path)) !== null) {
    consumed = re.lastIndex;
    if (m[1] !== undefined) steps.push({ field: m[1] });
    else if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else steps.push({ filter: { path: (m[3] ?? '').split('.').filter(Boolean), value: m[4] ?? '' } });
  }
  if (consumed !== path.length) throw new Error(`unsupported JSONPath ${path}`);
  return steps;
};

const get = (value: unknown, path: readonly string[]): unknown => path.reduce<unknown>((v, key) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined), value);

/** Every value the path selects (filters may select several). */
export const evaluateJsonPath = (root: unknown, path: string): unknown[] => {
  let current: unknown[] = [root];
  for (const step of parse(path)) {
    current = current.flatMap((v): unknown[] => {
      if ('field' in step) return typeof v === 'object' && v !== null && !Array.isArray(v) && step.field in v ? [(v as Record<string, unknown>)[step.field]] : [];
      if ('index' in step) return Array.isArray(v) && step.index < v.length ? [v[step.index]] : [];
      return Array.isArray(v) ? v.filter((item) => String(get(item, step.filter.path)) === step.filter.value) : [];
    });
  }
  return current;
};
