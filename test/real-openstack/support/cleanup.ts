/**
 * Guaranteed cleanup: every resource a test creates is registered here right after the create call
 * answers, and the root after-hook deletes them last-in first-out (servers before their network, a
 * subnet before its network), also when the test that created them failed. "Already gone" (404) is
 * success. A final sweep by the run's name prefix (sweep.ts) catches anything that escaped
 * registration (a create that answered after its test timed out).
 */
import { NotFound } from '../../../src/openstack/errors.js';

export interface CleanupFailure {
  label: string;
  error: string;
}

interface Entry {
  label: string;
  run: () => Promise<void>;
  group: string | undefined;
}

export class CleanupRegistry {
  private readonly stack: Entry[] = [];
  readonly done: string[] = [];

  /**
   * `group`: neighbouring entries of the same group (e.g. `servers`) are deleted concurrently; the order
   * between groups stays last-in first-out.
   */
  add(label: string, run: () => Promise<void>, group?: string): void {
    this.stack.push({ label, run, group });
  }

  get pending(): number {
    return this.stack.length;
  }

  /** Runs every registered deletion, newest first; returns what could not be deleted. */
  async runAll(): Promise<CleanupFailure[]> {
    const failures: CleanupFailure[] = [];
    const one = async (item: Entry): Promise<void> => {
      try {
        await item.run();
        this.done.push(item.label);
      } catch (error) {
        if (error instanceof NotFound) {
          this.done.push(item.label);
          return;
        }
        failures.push({ label: item.label, error: error instanceof Error ? error.message : String(error) });
      }
    };
    while (this.stack.length > 0) {
      const batch = [this.stack.pop() as Entry];
      const group = batch[0]?.group;
      while (group !== undefined && this.stack.at(-1)?.group === group) batch.push(this.stack.pop() as Entry);
      await Promise.all(batch.map(one));
    }
    return failures;
  }
}
