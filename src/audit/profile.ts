/**
 * Which audit hooks a machine has: its own `audit` field, or the built-in hooks of a product machine
 * whose definition file does not carry them yet (keyed by machine id, so a candidate version of the
 * same machine is checked with the same alphabet and marker reading).
 */
import type { MachineAudit, MachineDefinition } from '../../machines/definition.js';
import { serverRebuildAudit } from '../../machines/server-rebuild/audit.js';

const builtin: Readonly<Record<string, MachineAudit>> = { serverRebuild: serverRebuildAudit };

export const auditOf = (definition: MachineDefinition): MachineAudit | undefined => definition.audit ?? builtin[definition.id];
