/**
 * The {name}-db-archive CronJob's script — nova-operator.md, "DBArchive": a loop of batches of
 * `nova-manage db archive_deleted_rows --all-cells --max_rows "$MAX_ROWS" $before`, each exit code read as a
 * severity (exit-codes.ts ARCHIVE_DELETED_ROWS_CODES: 0 nothing archived, 1 rows archived, 2 invalid max_rows,
 * 3 no API DB connection, 4 --before unparseable).
 *
 * - Another batch after a 1, pausing $SLEEP seconds first; the loop stops on a 0, on anything above 1, or once
 *   the ARCHIVE_BUDGET_SECONDS budget is spent: no batch starts once the budget is spent (checked before the
 *   pause and again after it), so a batch in flight is never killed half done by the active deadline ten minutes
 *   later, and the next run continues where this one stopped.
 * - `test "$rc" -le 1` ends the script, so the Job fails only when the last batch failed; it then exits with
 *   nova-manage's own code (2, 3, 4, …) so the failure message names the reason.
 * - `$before` is `--before <YYYY-MM-DD> --task-log` while RETENTION_DAYS is set, computed once per run with
 *   `date -u -d "-${RETENTION_DAYS} days" +%Y-%m-%d`, and left unquoted on purpose: an unset window adds no
 *   argument at all rather than an empty one. --task-log travels only with the date (task_log rows are never
 *   soft-deleted, so without a date the flag would move the current audit period away). Never --purge (it would
 *   empty the shadow tables the archive promises to keep), never --until-complete (it runs until the backlog is
 *   empty, which on a neglected database outlasts the active deadline and fails every run).
 * - The budget is measured with `date -u +%s` (POSIX sh has no $SECONDS). The tests drive it with a fake `date`
 *   on PATH; there is no override knob, the budget is the spec's constant.
 *
 * Env read by the script: MAX_ROWS and SLEEP (required; archiveEnv gives them), RETENTION_DAYS (optional: unset or
 * empty means no --before window; otherwise a whole number of days), NOVA_CONFIG_DIR (optional, default
 * /etc/nova); OS_API_DATABASE__CONNECTION and OS_DATABASE__CONNECTION are read by nova-manage itself.
 */
import type { JobEnv } from '../jobs/port.js';
import { ARCHIVE_DELETED_ROWS_CODES } from './exit-codes.js';
import { NOVA_MANAGE, PREAMBLE, severityCase } from './shell.js';

/** Seconds after which no new batch starts ("its 3000-second budget"). */
export const ARCHIVE_BUDGET_SECONDS = 3000;
/** The CronJob's activeDeadlineSeconds; the budget stops starting batches ten minutes before it. */
export const ARCHIVE_ACTIVE_DEADLINE_SECONDS = 3600;

/** nova-manage's own default for --max_rows. */
export const ARCHIVE_DEFAULT_MAX_ROWS = 1000;
/** No pause between batches by default (nova-manage's own default for --sleep is 0 too). */
export const ARCHIVE_DEFAULT_SLEEP_SECONDS = 0;

export interface ArchiveEnvOptions {
  /** Rows per batch (MAX_ROWS). Default ARCHIVE_DEFAULT_MAX_ROWS. A positive integer. */
  maxRows?: number;
  /** Pause before each further batch (SLEEP). Default ARCHIVE_DEFAULT_SLEEP_SECONDS. A non-negative integer. */
  sleepSeconds?: number;
  /** Archive only rows deleted more than this many days ago (RETENTION_DAYS); unset archives every deleted row. */
  retentionDays?: number;
}

function wholeNumber(name: string, v: number, min: number): string {
  if (!Number.isSafeInteger(v) || v < min) throw new RangeError(`${name} must be an integer ≥ ${min}, got ${v}`);
  return String(v);
}

/** The archive container's env entries for the script (RETENTION_DAYS only when a window is set). */
export function archiveEnv(options: ArchiveEnvOptions = {}): JobEnv[] {
  const env: JobEnv[] = [
    { name: 'MAX_ROWS', value: wholeNumber('maxRows', options.maxRows ?? ARCHIVE_DEFAULT_MAX_ROWS, 1) },
    { name: 'SLEEP', value: wholeNumber('sleepSeconds', options.sleepSeconds ?? ARCHIVE_DEFAULT_SLEEP_SECONDS, 0) },
  ];
  if (options.retentionDays !== undefined) env.push({ name: 'RETENTION_DAYS', value: wholeNumber('retentionDays', options.retentionDays, 0) });
  return env;
}

export function renderArchiveScript(): string {
  return `# Nova db-archive (nova-operator.md, "DBArchive"). Run as /bin/sh -eu -c; credentials come from env.
${PREAMBLE}
: "\${MAX_ROWS:?MAX_ROWS (rows per batch) is required}"
: "\${SLEEP:?SLEEP (seconds between batches) is required}"
BUDGET_SECONDS=${ARCHIVE_BUDGET_SECONDS}

# 1. The retention window, once per run: --before <date> --task-log while RETENTION_DAYS is set, nothing otherwise.
#    --task-log only ever travels with the date: task_log rows are never soft-deleted.
before=''
if [ -n "\${RETENTION_DAYS:-}" ]; then
  case "$RETENTION_DAYS" in
    *[!0-9]*) echo "RETENTION_DAYS must be a whole number of days, got '$RETENTION_DAYS'" >&2; exit 4 ;;
  esac
  before_date=$(date -u -d "-\${RETENTION_DAYS} days" +%Y-%m-%d)
  before="--before $before_date --task-log"
fi

# 2. The budget clock (POSIX sh has no $SECONDS).
started=$(date -u +%s)
budget_spent() {
  now=$(date -u +%s)
  if [ $((now - started)) -ge "$BUDGET_SECONDS" ]; then
    echo "archive budget of $BUDGET_SECONDS s spent; the next run continues" >&2
    return 0
  fi
  return 1
}

# 3. Batches. $before is unquoted on purpose: unset, it adds no argument at all (not an empty one); set, it is
#    three words. Never --purge (the shadow tables are kept), never --until-complete (the loop is ours, bounded).
rc=0
while :; do
  rc=0
  ${NOVA_MANAGE} db archive_deleted_rows --all-cells --max_rows "$MAX_ROWS" $before || rc=$?
${severityCase(ARCHIVE_DELETED_ROWS_CODES, 'rc', { proceed: 'break', again: ':', fail: 'break' }, '  ')}
  # Rows were archived: another batch, after the pause, unless the budget is spent (no batch starts after it).
  if budget_spent; then break; fi
  sleep "$SLEEP"
  if budget_spent; then break; fi
done

# 4. The Job fails only when the last batch failed, and then with nova-manage's own code.
test "$rc" -le 1 || exit "$rc"
`;
}
