/** Process entry of the `regent` command (bin/regent.js and the npm scripts run this file). */
import { run } from './main.js';

process.exitCode = await run(process.argv.slice(2));
