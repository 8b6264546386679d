/**
 * Child processes for the multi-process cases: each fixture is a real `node --import tsx` process
 * opening the store by URL, so locking, WAL visibility and crash recovery are SQLite's own, not a
 * simulation. Children talk in lines on stdout; the parent says `go` on stdin to start them together.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

export interface Child {
  process: ChildProcess;
  lines: string[];
  /** Resolves with the first line (already received or future) that satisfies `match`. */
  waitForLine(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  send(line: string): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

const running = new Set<ChildProcess>();

export const spawnFixture = (fixture: string, args: readonly string[]): Child => {
  const child = spawn(process.execPath, ['--import', 'tsx', `${FIXTURES}${fixture}`, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  const lines: string[] = [];
  const waiters: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.match(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // 'close', not 'exit': it fires after stdout is drained, so `lines` holds everything the child printed.
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  return {
    process: child,
    lines,
    exited,
    stderr: () => errors,
    send: (line) => child.stdin?.write(`${line}\n`),
    // a liveness bound, not a speed claim: a child started through tsx on a starved 2-core machine took 5.5 s to say ready
    waitForLine: (match, timeoutMs = 45_000) => {
      const seen = lines.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`child ${fixture} sent no matching line within ${timeoutMs} ms; stderr: ${errors}`)),
          timeoutMs,
        );
        waiters.push({
          match,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`child ${fixture} exited before a matching line; stderr: ${errors}`));
        });
      });
    },
  };
};

/** Kills (by pid, SIGKILL) every fixture child still running: for `after` hooks of failing tests. */
export const killStrayChildren = (): void => {
  for (const child of running) child.kill('SIGKILL');
};
