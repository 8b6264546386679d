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

export class CleanupRegistry {
  private readonly stack: Array<{ label: string; run: () => Promise<void> }> = [];
  readonly done: string[] = [];

  add(label: string, run: () => Promise<void>): void {
    this.stack.push({ label, run });
  }

  get pending(): number {
    return this.stack.length;
  }

  /** Runs every registered deletion, newest first; returns what could not be deleted. */
  async runAll(): Promise<CleanupFailure[]> {
    const failures: CleanupFailure[] = [];
    for (let item = this.stack.pop(); item !== undefined; item = this.stack.pop()) {
      try {
        await item.run();
        this.done.push(item.label);
      } catch (error) {
        if (error instanceof NotFound) {
          this.done.push(item.label);
          continue;
        }
        failures.push({ label: item.label, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return failures;
  }
}
