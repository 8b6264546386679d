/**
 * The exit codes the phase and archive scripts read as severities rather than as success flags — nova-operator.md,
 * "Release upgrade" ("Both phase scripts read an exit code as a severity") and "DBArchive" (the archive_deleted_rows
 * codes). Data, so the scripts' case arms, the docs and the tests read one table.
 *
 * Every code maps to one action of the script reading it:
 * - `proceed`: this command is done; the script goes on to its next step (or ends its loop successfully);
 * - `again`: run the command once more (a loop's continue);
 * - `fail`: stop; the script fails (with the command's own code where the script says so).
 * A code not in the table takes the table's `otherwise` action.
 */

export type SeverityAction = 'proceed' | 'again' | 'fail';

export interface ExitCodeMeaning {
  code: number;
  meaning: string;
  action: SeverityAction;
}

export interface SeverityTable {
  /** The command as the spec names it. */
  command: string;
  codes: readonly ExitCodeMeaning[];
  otherwise: { meaning: string; action: SeverityAction };
}

/** nova-status upgrade check (oslo.upgradecheck): the expand phase's first command. */
export const UPGRADE_CHECK_CODES: SeverityTable = {
  command: 'nova-status upgrade check',
  codes: [
    { code: 0, meaning: 'every check passed', action: 'proceed' },
    { code: 1, meaning: 'a check warned; the upgrade goes on', action: 'proceed' },
    { code: 2, meaning: 'a check failed; the upgrade must not go on', action: 'fail' },
    { code: 255, meaning: 'the checks could not run (an unexpected error)', action: 'fail' },
  ],
  otherwise: { meaning: 'an exit code nova-status does not document', action: 'fail' },
};

/** nova-manage db online_data_migrations --max-count N: the contract loop's command. */
export const ONLINE_DATA_MIGRATIONS_CODES: SeverityTable = {
  command: 'nova-manage db online_data_migrations',
  codes: [
    { code: 0, meaning: 'nothing is left to migrate', action: 'proceed' },
    { code: 1, meaning: 'some objects were migrated; more may be left', action: 'again' },
    { code: 2, meaning: 'some migrations failed and none could make progress', action: 'fail' },
    { code: 127, meaning: 'invalid input (the --max-count value)', action: 'fail' },
  ],
  otherwise: { meaning: 'an exit code nova-manage does not document', action: 'fail' },
};

/** nova-manage db archive_deleted_rows: one batch of the archive loop. */
export const ARCHIVE_DELETED_ROWS_CODES: SeverityTable = {
  command: 'nova-manage db archive_deleted_rows',
  codes: [
    { code: 0, meaning: 'nothing was archived', action: 'proceed' },
    { code: 1, meaning: 'rows were archived', action: 'again' },
    { code: 2, meaning: 'the row cap (--max_rows) was invalid', action: 'fail' },
    { code: 3, meaning: 'no API database connection was configured', action: 'fail' },
    { code: 4, meaning: '--before could not be parsed', action: 'fail' },
  ],
  otherwise: { meaning: 'an exit code nova-manage does not document', action: 'fail' },
};

/**
 * The contract script's own code when a pass still answered 1 after its round bound (contract.ts): EX_TEMPFAIL
 * of sysexits.h, "try again later" — the migrations are idempotent and a re-run continues where this one stopped.
 * Distinct from every nova-manage code above so the Job's failure message tells the two apart.
 */
export const CONTRACT_ROUNDS_EXHAUSTED_EXIT = 75;

/** The action a table gives a code. */
export function actionFor(table: SeverityTable, code: number): SeverityAction {
  return table.codes.find((c) => c.code === code)?.action ?? table.otherwise.action;
}
