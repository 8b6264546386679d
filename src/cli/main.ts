/**
 * The `regent` command: operator and auditor entry point. Every subcommand shares `--store` and
 * `--machines`; failures print one line and exit non-zero (src/cli/errors.ts).
 */
import { Command, CommanderError } from 'commander';
import { describeFailure, exitCodeFor } from './errors.js';
import type { GlobalOptions } from './context.js';
import { registerStreams } from './commands/streams.js';
import { registerHistory } from './commands/history.js';
import { registerReplay } from './commands/replay.js';
import { registerMigrate } from './commands/migrate.js';
import { registerStore } from './commands/store.js';
import { registerStart } from './commands/start.js';
import { registerAuditCommands } from '../audit/commands.js';
import { registerResourceCommands } from './commands/resources.js';
import { registerSimulator } from './commands/simulator.js';
import { registerRegionCommands } from './commands/region.js';
import { registerVlanCommands } from './commands/vlan.js';
import { registerKinds } from './commands/kinds.js';
import { registerTimeline } from './commands/timeline.js';
import { registerPlan } from './commands/plan.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export const buildProgram = (): Command => {
  const program = new Command('regent')
    .description('Regent: an event-sourced control plane for OpenStack regions')
    .option('--store <url>', 'event store: sqlite:<path> (default sqlite:./data/regent.db, or $REGENT_STORE) | memory:')
    .option('--machines <module>', 'also load machine definitions from this module (repeatable)', collect)
    .showHelpAfterError('(run regent --help for usage)')
    .exitOverride();
  const globals = () => program.opts<GlobalOptions>();
  registerStart(program, globals);
  registerStreams(program, globals);
  registerHistory(program, globals);
  registerReplay(program, globals);
  registerMigrate(program, globals);
  registerStore(program, globals);
  registerResourceCommands(program, globals);
  registerSimulator(program);
  registerRegionCommands(program);
  registerVlanCommands(program, globals);
  registerKinds(program);
  registerAuditCommands(program, globals);
  registerTimeline(program, globals);
  for (const command of program.commands) command.exitOverride();
  // after the loop: plan's own exit override keeps exit 2 for "destructive" (src/cli/commands/plan.ts)
  registerPlan(program, globals);
  return program;
};

export const run = async (argv: readonly string[]): Promise<number> => {
  try {
    await buildProgram().parseAsync(argv as string[], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander already printed its message (help, version, or a usage error)
      return error.exitCode === 0 ? 0 : 2;
    }
    process.stderr.write(`regent: ${describeFailure(error)}\n`);
    if (process.env.REGENT_LOG_LEVEL === 'debug' && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    return exitCodeFor(error);
  }
};
