/** The projection runner's checkpoint: the last event position whose status was written, in a small JSON file. */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface Checkpoint {
  load(): number;
  save(position: number): void;
}

export class FileCheckpoint implements Checkpoint {
  constructor(private readonly path: string) {}

  load(): number {
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as { position?: unknown };
      return typeof parsed.position === 'number' && parsed.position >= 0 ? parsed.position : 0;
    } catch {
      return 0; // missing or unreadable: start over; rendering is idempotent
    }
  }

  /** Write-then-rename, so a crash never leaves a torn checkpoint. */
  save(position: number): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const temp = `${this.path}.tmp`;
    writeFileSync(temp, JSON.stringify({ position }));
    renameSync(temp, this.path);
  }
}

export class MemoryCheckpoint implements Checkpoint {
  constructor(private position = 0) {}
  load(): number {
    return this.position;
  }
  save(position: number): void {
    this.position = position;
  }
}
