/** Test helper: what OpenSSH itself makes of a private key Regent handed out. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The public half of an OpenSSH private key, as ssh-keygen derives it (proves OpenSSH can read the key). */
export const publicHalf = (privateKey: string): string => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-key-'));
  try {
    const file = join(dir, 'id');
    writeFileSync(file, privateKey, { mode: 0o600 });
    return execFileSync('ssh-keygen', ['-y', '-f', file], { encoding: 'utf8' }).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
