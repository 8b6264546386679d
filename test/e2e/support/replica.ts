/**
 * A control-plane replica in a child process (test/fixtures/plane-child.ts) for multi-process tests: its
 * leadership changes as they are printed, and `ready` once it has started. The event store is the sqlite file in
 * `dir` unless `storeUrl` names another.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface Replica {
  proc: ChildProcess;
  lines: Array<{ leading: boolean; at: string; term: { holder: string; term: number } | null }>;
  ready: Promise<void>;
}

export const startReplica = (clouds: string, dir: string, storeUrl?: string): Replica => {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/plane-child.ts', clouds, dir, ...(storeUrl ? [storeUrl] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Replica['lines'] = [];
  let buffer = '';
  let err = '';
  const ready = new Promise<void>((resolve, reject) => {
    proc.stdout?.on('data', (d: Buffer) => {
      buffer += d.toString();
      for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        if (line === 'ready') resolve();
        else if (line.startsWith('{')) lines.push(JSON.parse(line) as Replica['lines'][number]);
      }
    });
    proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('exit', (code) => reject(new Error(`replica exited (${code}) before ready: ${err}`)));
  });
  return { proc, lines, ready };
};
