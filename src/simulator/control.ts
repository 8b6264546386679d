// Programmatic control of a running simulator: everything /_sim offers over HTTP, callable in-process
// (tests seed 10,000 servers this way without 10,000 POSTs).
import type { CallFilter, CallRecord } from './calls.js';
import { mergeConfig } from './config.js';
import type { SimConfig } from './config.js';
import type { FaultRule, FaultSpec } from './faults.js';
import { SimError } from './http.js';
import type { Sim } from './state.js';

export class SimControl {
  constructor(readonly sim: Sim, private readonly reseed: () => void) {}

  /** Back to the seeded cloud: records, pending transitions, faults, calls and config all reset. */
  reset(): void {
    this.reseed();
  }

  advance(ms: number): number {
    if (this.sim.clock.kind !== 'manual') throw new SimError(409, 'the real clock cannot be advanced');
    this.sim.clock.advance(ms);
    this.sim.settle();
    return this.sim.clock.now();
  }

  configure(patch: Record<string, unknown>): SimConfig {
    const copy = structuredClone(this.sim.config);
    try {
      mergeConfig(copy as unknown as Record<string, unknown>, patch);
    } catch (e) {
      throw new SimError(400, (e as Error).message);
    }
    this.sim.config = copy;
    return copy;
  }

  addFault(spec: FaultSpec): FaultRule {
    return this.sim.faults.add(spec);
  }

  clearFaults(): void {
    this.sim.faults.clear();
  }

  calls(filter?: CallFilter): CallRecord[] {
    return this.sim.calls.list(filter);
  }
}
