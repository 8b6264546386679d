/**
 * What every command needs: the store the user named, and the machine registry (the product
 * machines plus any `--machines <module>` the user loads, e.g. a candidate version or a test fixture).
 * Both live below the CLI (src/store/open-existing.ts, src/machine-registry/build.ts) so that the audit
 * code can use them without importing the command line; this module names the CLI's global options.
 */
import type { StoreSelection } from '../store/open-existing.js';
import type { MachineModuleSelection } from '../machine-registry/build.js';

export { storeUrlOf, openExistingStore } from '../store/open-existing.js';
export { loadMachineModule, buildRegistry } from '../machine-registry/build.js';

/** The `regent` program's global options: `--store <url>` and the repeatable `--machines <module>`. */
export interface GlobalOptions extends StoreSelection, MachineModuleSelection {}
