/**
 * The one error every entry point (the `regent` command, the audit commands, the store and machine
 * loaders below them) raises when the caller asked for something that cannot be done as asked: a bad
 * argument, a missing store, a machine module that exports nothing. It lives below the CLI so that code
 * the CLI uses (src/audit, src/store/open-existing.ts, src/machine-registry) need not import the CLI;
 * src/cli/errors.ts maps it to exit code 2.
 */

/** The user asked for something that cannot be done as asked (bad argument, missing store). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
