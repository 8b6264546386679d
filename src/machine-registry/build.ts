/**
 * The machine registry a command or page works with: the product machines (machines/index.ts) plus
 * the definitions of any `--machines <module>` the user loads (a candidate version, a test fixture).
 * Shared by src/cli and src/audit (which must not import the CLI); refusals are UsageErrors naming the
 * module.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../errors/usage.js';
import { createProductRegistry } from '../../machines/index.js';
import type { MachineDefinition } from '../../machines/definition.js';
import type { MachineRegistry } from '../../machines/registry.js';

/** Which extra machine modules: the repeatable `--machines <module>` option. */
export interface MachineModuleSelection {
  machines?: string[];
}

const isDefinition = (value: unknown): value is MachineDefinition =>
  typeof value === 'object' && value !== null && 'id' in value && 'machine' in value && 'streamPrefix' in value;

/** Loads machine definitions from a module: its `machines` array, `default` array, or any exported definitions. */
export const loadMachineModule = async (path: string): Promise<MachineDefinition[]> => {
  const absolute = resolve(path);
  if (!existsSync(absolute)) throw new UsageError(`machine module ${path} does not exist`);
  const module = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  const candidates = [module.machines, module.default].find(Array.isArray) as unknown[] | undefined;
  const found = (candidates ?? Object.values(module)).filter(isDefinition);
  if (found.length === 0) throw new UsageError(`machine module ${path} exports no machine definitions`);
  return found;
};

export const buildRegistry = async (options: MachineModuleSelection): Promise<MachineRegistry> => {
  const registry = createProductRegistry();
  for (const path of options.machines ?? []) {
    for (const definition of await loadMachineModule(path)) {
      try {
        registry.register(definition);
      } catch (error) {
        // The registry refuses a version registered twice or an overlapping stream prefix with a plain
        // Error; the user's fix is to the --machines they passed, so name it.
        throw new UsageError(`--machines ${path}: ${(error as Error).message}`, { cause: error });
      }
    }
  }
  return registry;
};
