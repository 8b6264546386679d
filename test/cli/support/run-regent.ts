/** `bin/regent.js` as a child process, for CLI tests against a simulator served by this test process. */
import { spawn } from 'node:child_process';

export interface RegentRun {
  code: number | null;
  out: string;
  err: string;
}

/**
 * Asynchronous on purpose: the simulator answers from this process's event loop, so the child must not
 * block it (no spawnSync).
 */
export const runRegent = (args: readonly string[], env: NodeJS.ProcessEnv): Promise<RegentRun> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/regent.js', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
