/**
 * The rendered shell scripts of the Nova Jobs (nova-operator.md, "The cells sequence", "Release upgrade",
 * "DBArchive"), one file per script; see README.md in this folder for the rules they share.
 */
export { renderDbSyncScript, assertCellSchema, databaseTemplate, TRANSPORT_URL_TEMPLATE, SCHEMA_NAME, CELL_GUARD_AWK, CELLS_REPORT_AWK, type DbSyncScriptOptions } from './db-sync.js';
export { renderExpandScript } from './expand.js';
export { renderMigrateScript } from './migrate.js';
export { renderContractScript, CONTRACT_MAX_COUNT, CONTRACT_MAX_ROUNDS, type ContractScriptOptions } from './contract.js';
export {
  renderArchiveScript,
  archiveEnv,
  ARCHIVE_BUDGET_SECONDS,
  ARCHIVE_ACTIVE_DEADLINE_SECONDS,
  ARCHIVE_DEFAULT_MAX_ROWS,
  ARCHIVE_DEFAULT_SLEEP_SECONDS,
  type ArchiveEnvOptions,
} from './archive.js';
export {
  UPGRADE_CHECK_CODES,
  ONLINE_DATA_MIGRATIONS_CODES,
  ARCHIVE_DELETED_ROWS_CODES,
  CONTRACT_ROUNDS_EXHAUSTED_EXIT,
  actionFor,
  type SeverityTable,
  type SeverityAction,
  type ExitCodeMeaning,
} from './exit-codes.js';
export { DEFAULT_TERMINATION_LOG, NOVA_MANAGE, NOVA_STATUS, PREAMBLE, shellQuote } from './shell.js';
