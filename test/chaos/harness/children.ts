/**
 * Every child process the chaos harness starts, so that none outlives it: each is registered here, and on the
 * harness's exit (normal, an uncaught error, SIGINT/SIGTERM) the survivors are SIGCONTed and SIGKILLed by pid.
 * Children also watch their stdin and exit when it closes, for the case where the harness itself is SIGKILLed.
 */
import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();

/** Kills every registered child still running (by its own pid, never by name). */
export const killAllChildren = (): void => {
  for (const child of live) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    try {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  live.clear();
};

let hooked = false;
const hookExit = () => {
  if (hooked) return;
  hooked = true;
  process.on('exit', killAllChildren);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAllChildren();
      process.exit(130);
    });
  }
};

/** Registers a child for cleanup; it leaves the set when it exits. */
export const track = (child: ChildProcess): ChildProcess => {
  hookExit();
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
};
