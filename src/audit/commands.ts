/**
 * The audit commands (visualizer, static checks, evidence export). Registered into the `regent`
 * program by src/cli/main.ts.
 */
import type { Command } from 'commander';
import type { GlobalOptions } from '../cli/context.js';

export const registerAuditCommands = (_program: Command, _globals: () => GlobalOptions): void => {};
