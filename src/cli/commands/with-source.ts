/**
 * The resource source a command works on (`--resources`, `$REGENT_RESOURCES`, or the embedded default), opened
 * for the duration of one piece of work. `create: false` for commands that only read or remove: opening a
 * missing embedded store would create it (and its folders), so a typo in --resources left an empty store behind
 * and answered "No resources found." Same rule, and same exit 2, as a missing event store (context.ts).
 * Kept apart from the commands so that each of them (get, the inventories, vlan leaks) loads fast.
 */
import { existsSync } from 'node:fs';
import type { ResourceSource } from '../../kube/port.js';
import { UsageError } from '../errors.js';

/** Same default as src/kube/open.ts DEFAULT_SOURCE (not imported: this module must load fast). */
export const resourcesUrlOf = (options: { resources?: string }): string => options.resources ?? process.env.REGENT_RESOURCES ?? 'embedded:./data/resources.db';

export const withSource = async <T>(options: { resources?: string }, access: { create: boolean }, work: (source: ResourceSource) => Promise<T>): Promise<T> => {
  const { openResourceSource, parseSourceSpec } = await import('../../kube/open.js');
  const spec = resourcesUrlOf(options);
  const location = parseSourceSpec(spec);
  if (!access.create && location.kind === 'embedded' && location.path !== ':memory:' && !existsSync(location.path)) {
    throw new UsageError(`no resource store at ${location.path} (apply a manifest with \`regent apply -f\`, start Regent with \`npm start\`, or pass --resources embedded:<path>)`);
  }
  const source = await openResourceSource(spec);
  try {
    return await work(source);
  } finally {
    await source.close();
  }
};
