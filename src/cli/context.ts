/**
 * What every command needs: the store the user named, and the machine registry (the product
 * machines plus any `--machines <module>` the user loads, e.g. a candidate version or a test fixture).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_STORE_URL, openStore, parseStoreUrl } from '../store/open.js';
import type { EventStore } from '../store/port.js';
import { createProductRegistry } from '../../machines/index.js';
import type { MachineDefinition } from '../../machines/definition.js';
import type { MachineRegistry } from '../../machines/registry.js';
import { UsageError } from './errors.js';

export interface GlobalOptions {
  store?: string;
  machines?: string[];
}

export const storeUrlOf = (options: GlobalOptions): string => options.store ?? process.env.REGENT_STORE ?? DEFAULT_STORE_URL;

/** Opens the store; for commands that only read, a missing sqlite file is an error, not a new store. */
export const openExistingStore = async (options: GlobalOptions): Promise<EventStore> => {
  const url = storeUrlOf(options);
  const location = parseStoreUrl(url);
  if (location.kind === 'sqlite' && !existsSync(location.path)) {
    throw new UsageError(`no store at ${location.path} (start Regent first with \`npm start\`, or pass --store sqlite:<path>)`);
  }
  return openStore(url);
};

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

export const buildRegistry = async (options: GlobalOptions): Promise<MachineRegistry> => {
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
