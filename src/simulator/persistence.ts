// Keeping the simulated cloud across restarts (`regent serve` on embedded defaults keeps it next to
// its stores), so a restarted control plane finds the servers it created instead of an empty cloud.
//
// What is kept: every service's records (Maps and Sets tagged in JSON). What is not: tokens (clients
// re-authenticate), the call log, faults and knobs, and transitions still pending at save time — the
// save first waits a little for them to settle, and a record caught mid-transition stays as it is.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Sim } from './state.js';

const FORMAT = 1;
const SERVICES = ['keystone', 'nova', 'glance', 'cinder', 'neutron', 'octavia', 'placement', 'ironic'] as const;

const replacer = (_key: string, value: unknown): unknown => {
  if (value instanceof Map) return { $map: [...value.entries()] };
  if (value instanceof Set) return { $set: [...value.values()] };
  return value;
};

const reviver = (_key: string, value: unknown): unknown => {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.$map) && Object.keys(record).length === 1) return new Map(record.$map as Array<[unknown, unknown]>);
    if (Array.isArray(record.$set) && Object.keys(record).length === 1) return new Set(record.$set as unknown[]);
  }
  return value;
};

/** Waits (up to `maxWaitMs`) for pending transitions to come due and run, then writes the records. */
export async function saveSimState(sim: Sim, path: string, maxWaitMs = 3_000): Promise<void> {
  const deadline = Date.now() + maxWaitMs;
  sim.settle();
  while (sim.scheduler.pending() > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    sim.settle();
  }
  const state: Record<string, unknown> = { format: FORMAT, savedAt: new Date().toISOString() };
  for (const service of SERVICES) state[service] = sim[service];
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.tmp`;
  writeFileSync(temp, JSON.stringify(state, replacer), { mode: 0o600 });
  renameSync(temp, path);
}

/** Replaces the records with the saved ones; false when there is no readable save (the caller seeds). */
export function loadSimState(sim: Sim, path: string): boolean {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return false;
  }
  const state = JSON.parse(text, reviver) as Record<string, unknown>;
  if (state.format !== FORMAT) return false;
  for (const service of SERVICES) {
    if (!state[service]) return false;
  }
  sim.scheduler.clear();
  for (const service of SERVICES) (sim as unknown as Record<string, unknown>)[service] = state[service];
  sim.keystone.tokens.clear();
  return true;
}
