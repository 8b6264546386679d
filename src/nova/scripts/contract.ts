/**
 * The {name}-db-contract script — nova-operator.md, "Release upgrade", phase Contracting: nova-manage db
 * online_data_migrations --max-count 1000 in a loop, read as a severity (exit-codes.ts
 * ONLINE_DATA_MIGRATIONS_CODES: 0 nothing left, the pass is done; 1 some migrated, run again; 2 some failed,
 * 127 invalid input and any other code stop the script with that code), first for the cell schema, then a second
 * pass for cell0 with OS_DATABASE__CONNECTION pointed at NOVA_CELL0_DATABASE_CONNECTION.
 *
 * A persistent 1. nova-manage answers 1 when the batch migrated something, so a pass that keeps answering 1 is
 * either a backlog larger than rounds × 1000 objects or a migration that reports progress without ever finishing
 * (a nova bug; an unbounded loop would then spin until the Job's deadline, or forever without one). The loop is
 * therefore bounded (`maxRounds`, default 1000 rounds, a million objects per pass): a pass still answering 1 after
 * it fails the script with CONTRACT_ROUNDS_EXHAUSTED_EXIT (75) and says so. Nothing is lost: the migrations are
 * idempotent and a re-run of the Job continues where this one stopped.
 *
 * Env read by the script: NOVA_CONFIG_DIR (optional, default /etc/nova); NOVA_CELL0_DATABASE_CONNECTION
 * (required, checked before the first pass so a missing one fails before anything runs); OS_DATABASE__CONNECTION
 * and OS_API_DATABASE__CONNECTION are read by nova-manage itself.
 */
import { CONTRACT_ROUNDS_EXHAUSTED_EXIT, ONLINE_DATA_MIGRATIONS_CODES } from './exit-codes.js';
import { NOVA_MANAGE, PREAMBLE, severityCase } from './shell.js';

/** The batch size of one round (the spec's --max-count 1000). */
export const CONTRACT_MAX_COUNT = 1000;
/** Rounds of one pass before a persistent 1 fails the script (see the header). */
export const CONTRACT_MAX_ROUNDS = 1000;

export interface ContractScriptOptions {
  /** Rounds per pass before a persistent 1 fails the script. Default CONTRACT_MAX_ROUNDS. */
  maxRounds?: number;
}

export function renderContractScript(options: ContractScriptOptions = {}): string {
  const maxRounds = options.maxRounds ?? CONTRACT_MAX_ROUNDS;
  if (!Number.isSafeInteger(maxRounds) || maxRounds < 1) throw new RangeError(`maxRounds must be a positive integer, got ${maxRounds}`);
  const again = `if [ "$round" -ge ${maxRounds} ]; then echo "online_data_migrations ($1): still migrating after ${maxRounds} rounds of ${CONTRACT_MAX_COUNT}; failing so a re-run continues" >&2; exit ${CONTRACT_ROUNDS_EXHAUSTED_EXIT}; fi`;
  return `# Nova db-contract (nova-operator.md, "Release upgrade", Contracting). Run as /bin/sh -eu -c; credentials come from env.
${PREAMBLE}
: "\${NOVA_CELL0_DATABASE_CONNECTION:?the cell0 pass needs NOVA_CELL0_DATABASE_CONNECTION}"

# online_data_migrations in rounds of ${CONTRACT_MAX_COUNT}, each exit code read as a severity: 0 ends the pass,
# 1 runs another round (at most ${maxRounds}: a 1 after that fails with ${CONTRACT_ROUNDS_EXHAUSTED_EXIT}), anything else fails with its code.
# $1 names the pass in the messages.
online_data_migrations() {
  round=0
  while :; do
    round=$((round + 1))
    rc=0
    ${NOVA_MANAGE} db online_data_migrations --max-count ${CONTRACT_MAX_COUNT} || rc=$?
${severityCase(ONLINE_DATA_MIGRATIONS_CODES, 'rc', { proceed: `echo "online_data_migrations ($1): done after $round round(s)"; return 0`, again, fail: 'exit "$rc"' }, '    ')}
  done
}

# 1. The cell schema, through the connection the Job runs with.
online_data_migrations 'cell schema'

# 2. cell0, through its own connection (a subshell, so the override ends with the pass).
(
  OS_DATABASE__CONNECTION="$NOVA_CELL0_DATABASE_CONNECTION"
  export OS_DATABASE__CONNECTION
  online_data_migrations cell0
)
`;
}
