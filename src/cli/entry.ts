/** Process entry of the `regent` command (bin/regent.js and the npm scripts run this file). */
import { run } from './main.js';

// `regent history … | head`: the reader went away. Stop quietly, as other command-line tools do,
// instead of dying on an unhandled EPIPE with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await run(process.argv.slice(2));
