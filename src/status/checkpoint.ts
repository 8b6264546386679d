/**
 * The projection runner's checkpoint: the last event position whose status was written. In a small JSON
 * file next to an sqlite store, in the store itself where it keeps checkpoints (PostgreSQL: the replica
 * that takes over resumes there), or in memory.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CheckpointKeeper } from '../store/port.js';

export interface Checkpoint {
  /** Where it is kept, for the startup log line. */
  readonly description: string;
  load(): Promise<number>;
  save(position: number): Promise<void>;
}

export class FileCheckpoint implements Checkpoint {
  constructor(private readonly path: string) {}

  get description(): string {
    return `file ${this.path}`;
  }

  async load(): Promise<number> {
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as { position?: unknown };
      return typeof parsed.position === 'number' && parsed.position >= 0 ? parsed.position : 0;
    } catch {
      return 0; // missing or unreadable: start over; rendering is idempotent
    }
  }

  /** Write-then-rename, so a crash never leaves a torn checkpoint. */
  async save(position: number): Promise<void> {
    mkdirSync(dirname(this.path), { recursive: true });
    const temp = `${this.path}.tmp`;
    writeFileSync(temp, JSON.stringify({ position }));
    renameSync(temp, this.path);
  }
}

/** Kept in the event store under `name` (one row of its checkpoints table). */
export class StoreCheckpoint implements Checkpoint {
  constructor(
    private readonly store: CheckpointKeeper & { readonly description: string },
    private readonly name: string,
  ) {}

  get description(): string {
    return `${this.name} in ${this.store.description}`;
  }

  async load(): Promise<number> {
    return (await this.store.loadCheckpoint(this.name)) ?? 0;
  }

  async save(position: number): Promise<void> {
    await this.store.saveCheckpoint(this.name, position);
  }
}

export class MemoryCheckpoint implements Checkpoint {
  readonly description = 'memory';
  constructor(private position = 0) {}
  async load(): Promise<number> {
    return this.position;
  }
  async save(position: number): Promise<void> {
    this.position = position;
  }
}
