/**
 * Shared pieces of the rendered scripts (nova-operator.md, "The cells sequence", "Release upgrade", "DBArchive"):
 * the preamble every script starts with, the one way nova-manage and nova-status are called, shell quoting, and
 * the case arms a severity table renders to.
 *
 * Every script runs as `/bin/sh -eu -c <script>` under POSIX sh (Debian's dash): no bashisms, no `local`, no
 * `[[`, no `$SECONDS`, no pipefail (which is why a command whose status matters is captured before it is read).
 */
import type { SeverityAction, SeverityTable } from './exit-codes.js';

/** The config directory the Job mounts (the runner may point it elsewhere; the local runner does). */
export const PREAMBLE = 'NOVA_CONFIG_DIR="${NOVA_CONFIG_DIR:-/etc/nova}"';

/**
 * Every nova-manage call. Credentials are not in the config: oslo.config reads OS_API_DATABASE__CONNECTION,
 * OS_DATABASE__CONNECTION and OS_DEFAULT__TRANSPORT_URL from the environment as option overrides.
 */
export const NOVA_MANAGE = 'nova-manage --config-file "$NOVA_CONFIG_DIR/nova.conf"';
export const NOVA_STATUS = 'nova-status --config-file "$NOVA_CONFIG_DIR/nova.conf"';

/** Where a Kubernetes container's termination message is read from. */
export const DEFAULT_TERMINATION_LOG = '/dev/termination-log';

/** One single-quoted shell word holding s verbatim (a quote inside is closed, escaped and reopened). */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * An awk program as one single-quoted shell word. The program itself must not hold a quote: splicing `'\''` into
 * awk source would be correct but unreadable, and a quote there is more likely a mistake than a need.
 */
export function awkProgram(program: string): string {
  if (program.includes("'")) throw new Error('an awk program of a rendered script must not contain a single quote');
  return `'${program}'`;
}

/** A double-quoted shell word expanding only the variables it names; the text around them must be inert. */
function doubleQuoted(text: string): string {
  if (/["`\\$]/.test(text.replace(/\$[A-Za-z_][A-Za-z0-9_]*/g, ''))) throw new Error(`not safe inside double quotes: ${text}`);
  return `"${text}"`;
}

/**
 * The arms of `case "$<variable>" in … esac` for a severity table: one arm per documented code, then `*)`. Each
 * arm logs what the code means on stderr (a 0 stays quiet) and then runs the body its action is given.
 */
export function severityCase(table: SeverityTable, variable: string, body: Readonly<Record<SeverityAction, string>>, indent = ''): string {
  const lines = [`${indent}case "$${variable}" in`];
  for (const c of table.codes) {
    const say = c.code === 0 ? '' : `echo ${shellQuote(`${table.command}: exit ${c.code}: ${c.meaning}`)} >&2; `;
    lines.push(`${indent}  ${c.code}) ${say}${body[c.action]} ;;`);
  }
  const other = doubleQuoted(`${table.command}: exit $${variable}: ${table.otherwise.meaning}`);
  lines.push(`${indent}  *) echo ${other} >&2; ${body[table.otherwise.action]} ;;`, `${indent}esac`);
  return lines.join('\n');
}
