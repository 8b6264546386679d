/**
 * The {name}-db-sync script — nova-operator.md, "The cells sequence": eight commands under /bin/sh -eu -c,
 * chained on success, that migrate both schemas, map cell0 and cell1, and report the mapped cells as
 * `<name>=<uuid>` lines on the termination log (src/nova/cells-report.ts reads them back).
 *
 * Env read by the script: NOVA_CONFIG_DIR (optional, default /etc/nova); OS_API_DATABASE__CONNECTION,
 * OS_DATABASE__CONNECTION and OS_DEFAULT__TRANSPORT_URL, read by nova-manage itself (oslo.config option
 * overrides), never by the script. The map_cell0 and create_cell URLs are nova templates that nova expands from
 * those connections, so no URL carrying a password is ever assembled here.
 */
import { awkProgram, DEFAULT_TERMINATION_LOG, NOVA_MANAGE, PREAMBLE, shellQuote } from './shell.js';

/** The schema-name rule the shared provisioning flow enforces (nova-operator.md, "The cells sequence"). */
export const SCHEMA_NAME = /^[A-Za-z0-9_]{1,64}$/;

export interface DbSyncScriptOptions {
  /** The cell schema (spec.database.cell's database); cell0 is `<cellSchema>_cell0`. */
  cellSchema: string;
  /** Where the cells report is written. Default /dev/termination-log; the local runner passes a file. */
  terminationLog?: string;
}

/** `{scheme}://{username}:{password}@{hostname}:{port}/` — the part nova fills from the Job's own connection. */
const URL_TEMPLATE_AUTHORITY = '{scheme}://{username}:{password}@{hostname}:{port}/';

/** The database connection template of a schema (the query, e.g. charset, kept from the Job's connection). */
export function databaseTemplate(schema: string): string {
  return `${URL_TEMPLATE_AUTHORITY}${schema}?{query}`;
}

/** The transport URL template: the bus the Job already talks to, vhost and all. */
export const TRANSPORT_URL_TEMPLATE = `${URL_TEMPLATE_AUTHORITY}{path}`;

/**
 * Step 4, the guard, as an awk program over `list_cells` (fields split on `|`: $2 Name, $3 UUID, $4 Transport URL,
 * $5 Database Connection). Exit 0 when a row's whole, trimmed Name is cell1 or its Database Connection's URL path
 * (after scheme://authority/, query and fragment stripped) is the cell schema; exit 1 when none is; anything else
 * is awk failing. Whole fields, never a grep: the expanded URLs carry the user, the host and the vhost, any of
 * which may contain cell1 as a word. The path match keeps a brownfield cell mapped under another name from being
 * mapped a second time. The header row (UUID field "UUID") is skipped. A table without a single cell row exits 3:
 * cell0 was mapped by step 2, so no rows means output the guard cannot read (a changed format, a truncated
 * listing), and reading it as "no cell1" would create exactly the duplicate the guard exists to prevent.
 */
export const CELL_GUARD_AWK = `
function trim(s) { sub(/^[ \\t]+/, "", s); sub(/[ \\t\\r]+$/, "", s); return s }
function urlpath(u,    i) {
  i = index(u, "://")
  if (i == 0) return ""
  u = substr(u, i + 3)
  if (!match(u, "[/?#]") || substr(u, RSTART, 1) != "/") return ""
  u = substr(u, RSTART + 1)
  sub(/[?#].*$/, "", u)
  return u
}
/^[|]/ && trim($3) != "UUID" {
  rows++
  if (trim($2) == "cell1" || urlpath(trim($5)) == schema) found = 1
}
END {
  if (!rows) { print "list_cells printed no cell rows although cell0 was just mapped; not reading it as an empty table" > "/dev/stderr"; exit 3 }
  exit(found ? 0 : 1)
}
`;

/** Step 8, the report: one `<name>=<uuid>` line per cell row of the table (header and borders dropped). */
export const CELLS_REPORT_AWK = `
function trim(s) { sub(/^[ \\t]+/, "", s); sub(/[ \\t\\r]+$/, "", s); return s }
/^[|]/ {
  name = trim($2); uuid = trim($3)
  if (uuid == "UUID" || name == "" || uuid == "") next
  print name "=" uuid
}
`;

/** Throws unless the cell schema and cell0's derived name both obey ^[A-Za-z0-9_]{1,64}$ (they go into '…' words). */
export function assertCellSchema(cellSchema: string): void {
  for (const name of [cellSchema, `${cellSchema}_cell0`]) {
    if (!SCHEMA_NAME.test(name)) throw new RangeError(`schema name ${JSON.stringify(name)} does not match ${SCHEMA_NAME.source}`);
  }
}

export function renderDbSyncScript(options: DbSyncScriptOptions): string {
  const { cellSchema } = options;
  assertCellSchema(cellSchema);
  const terminationLog = options.terminationLog ?? DEFAULT_TERMINATION_LOG;
  return `# Nova db-sync (nova-operator.md, "The cells sequence"). Run as /bin/sh -eu -c; credentials come from env.
${PREAMBLE}
CELL_SCHEMA='${cellSchema}'
TERMINATION_LOG=${shellQuote(terminationLog)}

# 1. Migrate the nova_api schema.
${NOVA_MANAGE} api_db sync

# 2. Map cell0, the holding pen, before the cell schema is migrated: nova-manage reads the cell map to find it.
${NOVA_MANAGE} cell_v2 map_cell0 \\
  --database_connection '${databaseTemplate(`${cellSchema}_cell0`)}'

# 3. List what is mapped, captured before it is read: under -e a failed listing stops the script here, where a
#    pipe would hand the guard an empty table and create the duplicate cell the guard exists to prevent.
cells=$(${NOVA_MANAGE} cell_v2 list_cells)

# 4. The guard: exit 0 when a row's Name is cell1 or its Database Connection's path is the cell schema, 1 when
#    none is, 3 when the table has no cell row at all (cell0 was just mapped: the listing is unreadable).
#    Whole fields, not a grep: user, host and vhost of the URLs may contain "cell1" as a word.
found=0
printf '%s\\n' "$cells" | awk -F'|' -v schema="$CELL_SCHEMA" ${awkProgram(CELL_GUARD_AWK)} || found=$?

# 5. Create cell1 only when the guard found no such cell: a second create_cell with the same templates maps a
#    second cell instead of failing. An awk that failed (any other code) stops the script.
case "$found" in
  0) echo "a cell named cell1 or mapping schema $CELL_SCHEMA exists; create_cell skipped" ;;
  1)
    ${NOVA_MANAGE} cell_v2 create_cell --name cell1 \\
      --transport-url '${TRANSPORT_URL_TEMPLATE}' \\
      --database_connection '${databaseTemplate(cellSchema)}'
    ;;
  *) echo "the cell guard failed (awk exit $found)" >&2; exit "$found" ;;
esac

# 6. Migrate the cell schema, against a cell the API can already address.
${NOVA_MANAGE} db sync

# 7. List the cells once more, captured the same way: a failed final listing fails the Job rather than
#    completing it with an empty report.
cells=$(${NOVA_MANAGE} cell_v2 list_cells)

# 8. Report one <name>=<uuid> line per cell on the termination log (status.cells is built from it).
printf '%s\\n' "$cells" | awk -F'|' ${awkProgram(CELLS_REPORT_AWK)} > "$TERMINATION_LOG"
cat "$TERMINATION_LOG"
`;
}
