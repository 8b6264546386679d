/**
 * The {name}-db-expand script — nova-operator.md, "Release upgrade", phase Expanding: nova-status upgrade check,
 * read as a severity (exit-codes.ts UPGRADE_CHECK_CODES: 0 and 1 go on, 1 logged as a warning; 2, 255 and any
 * other code stop the script with that code, before anything is migrated), then nova-manage api_db sync and
 * nova-manage db sync. Both migrations are additive: the old release keeps running against the widened schema.
 *
 * Env read by the script: NOVA_CONFIG_DIR (optional, default /etc/nova); the connections are read by nova-status
 * and nova-manage themselves (OS_API_DATABASE__CONNECTION, OS_DATABASE__CONNECTION, OS_DEFAULT__TRANSPORT_URL).
 */
import { UPGRADE_CHECK_CODES } from './exit-codes.js';
import { NOVA_MANAGE, NOVA_STATUS, PREAMBLE, severityCase } from './shell.js';

export function renderExpandScript(): string {
  return `# Nova db-expand (nova-operator.md, "Release upgrade", Expanding). Run as /bin/sh -eu -c; credentials come from env.
${PREAMBLE}

# 1. The upgrade checks of the new release, read as a severity rather than as a success flag: a warning goes on,
#    a failure or an error stops the phase with nova-status's own code before anything is migrated.
rc=0
${NOVA_STATUS} upgrade check || rc=$?
${severityCase(UPGRADE_CHECK_CODES, 'rc', { proceed: ':', again: ':', fail: 'exit "$rc"' })}

# 2. Widen the nova_api schema (additive: the old release keeps running against it).
${NOVA_MANAGE} api_db sync

# 3. Widen the cell schema.
${NOVA_MANAGE} db sync
`;
}
