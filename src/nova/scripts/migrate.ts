/**
 * The {name}-db-migrate script — nova-operator.md, "Release upgrade", phase Migrating: nova-manage cell_v2
 * list_cells. Nova has no migrate verb of its own, so the phase is a read that proves the new code can address
 * the nova_api schema the expand phase just migrated; its exit status is the phase's.
 *
 * Env read by the script: NOVA_CONFIG_DIR (optional, default /etc/nova); OS_API_DATABASE__CONNECTION is read by
 * nova-manage itself.
 */
import { NOVA_MANAGE, PREAMBLE } from './shell.js';

export function renderMigrateScript(): string {
  return `# Nova db-migrate (nova-operator.md, "Release upgrade", Migrating). Run as /bin/sh -eu -c; credentials come from env.
${PREAMBLE}

# 1. A read through the new code: it fails unless the new release can address the migrated nova_api schema.
${NOVA_MANAGE} cell_v2 list_cells
`;
}
