/**
 * Upcasters turn a stored stimulus written under an older payload schema into the current shape, on
 * read. Stored events are never rewritten: history stays as it was recorded, and the upcast is a pure
 * function applied every time it is read.
 */
export interface Upcaster {
  /** Machine id whose events this applies to. */
  readonly machine: string;
  /** Payload schema version this upcaster reads; it produces `fromSchemaVersion + 1`. */
  readonly fromSchemaVersion: number;
  /** What changed, for `regent migrate verify` output. */
  readonly description: string;
  readonly up: (data: Record<string, unknown>) => Record<string, unknown>;
}

export class MissingUpcaster extends Error {
  override readonly name = 'MissingUpcaster';
}

/**
 * Applies upcasters in order from `schemaVersion` to `targetVersion`. A stored version newer than the
 * target (written by a newer Regent) or a missing step is an error: never guess a shape.
 */
export const upcast = (
  upcasters: readonly Upcaster[],
  machine: string,
  data: Record<string, unknown>,
  schemaVersion: number,
  targetVersion: number,
): Record<string, unknown> => {
  if (schemaVersion > targetVersion) {
    throw new MissingUpcaster(`${machine} payload schema v${schemaVersion} is newer than this Regent (v${targetVersion})`);
  }
  let current = data;
  for (let version = schemaVersion; version < targetVersion; version++) {
    const step = upcasters.find((u) => u.machine === machine && u.fromSchemaVersion === version);
    if (!step) throw new MissingUpcaster(`no upcaster for ${machine} payload schema v${version} → v${version + 1}`);
    current = step.up(current);
  }
  return current;
};
