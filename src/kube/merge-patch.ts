/**
 * JSON merge patch (RFC 7386), what `Content-Type: application/merge-patch+json` means to the API
 * server: objects merge recursively, `null` deletes a key, anything else (arrays included) replaces.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const applyMergePatch = (target: unknown, patch: unknown): unknown => {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (value !== undefined) out[key] = applyMergePatch(out[key], value);
  }
  return out;
};

/** A patch for T: any subset of its fields, with `null` to delete one. */
export type MergePatch<T> = T extends Json[] ? T : T extends object ? { [K in keyof T]?: MergePatch<T[K]> | null } : T;
