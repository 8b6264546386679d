/**
 * An immutable config directory on the embedded default (the Nova's `{name}-config-<hash>` and a NovaCompute pool's):
 * its files written into a temporary directory that is renamed into place, so a reader sees all of it or none; a
 * directory of that name is never rewritten (the name is its content).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** True when this call wrote `target`; false when another writer was first. Any other failure throws `fail(code)`. */
export const writeConfigDirectory = (target: string, files: Readonly<Record<string, string>>, fail: (code: string) => Error): boolean => {
  const temporary = `${target}.${process.pid}.${randomUUID()}.tmp`;
  try {
    mkdirSync(temporary, { mode: 0o755 });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(temporary, file), text, { mode: 0o644 });
    renameSync(temporary, target);
    return true;
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if ((code === 'ENOTEMPTY' || code === 'EEXIST') && existsSync(target)) return false;
    throw fail(code ?? 'error');
  }
};
