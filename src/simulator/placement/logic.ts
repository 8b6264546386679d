// Placement's arithmetic: capacity, usage, allocation and candidate search over (non-nested) providers.
// Nova's scheduler in this simulator calls the same functions, so what /allocation_candidates says fits
// is exactly what a server create can land on.
import { SimError } from '../http.js';
import type { Sim } from '../state.js';
import type { Consumer, Inventory, ResourceProvider } from './model.js';

export const capacity = (inv: Inventory): number => Math.floor((inv.total - inv.reserved) * inv.allocation_ratio);

export function used(sim: Sim, rp: string, rc: string): number {
  return sim.placement.usage.get(rp)?.get(rc) ?? 0;
}

/** Why `amount` of `rc` does not fit on `rp`, or null when it fits. */
export function misfit(sim: Sim, rp: ResourceProvider, rc: string, amount: number): string | null {
  const inv = rp.inventories.get(rc);
  if (!inv) return `resource provider ${rp.uuid} has no inventory of ${rc}`;
  if (amount < inv.min_unit || amount > inv.max_unit || amount % inv.step_size !== 0) {
    return `Unable to allocate inventory: Unable to create allocation for '${rc}' on resource provider '${rp.uuid}'. The requested amount would violate inventory constraints.`;
  }
  if (used(sim, rp.uuid, rc) + amount > capacity(inv)) {
    return `Unable to allocate inventory: Unable to create allocation for '${rc}' on resource provider '${rp.uuid}'. The requested amount would exceed the capacity.`;
  }
  return null;
}

function adjustUsage(sim: Sim, allocations: Map<string, Record<string, number>>, sign: 1 | -1): void {
  for (const [rp, res] of allocations) {
    let m = sim.placement.usage.get(rp);
    if (!m) sim.placement.usage.set(rp, (m = new Map()));
    for (const [rc, n] of Object.entries(res)) m.set(rc, (m.get(rc) ?? 0) + sign * n);
  }
}

export function removeConsumer(sim: Sim, consumerId: string): void {
  const c = sim.placement.consumers.get(consumerId);
  if (!c) return;
  adjustUsage(sim, c.allocations, -1);
  for (const rp of c.allocations.keys()) {
    const p = sim.placement.rps.get(rp);
    if (p) p.generation++;
  }
  sim.placement.consumers.delete(consumerId);
}

/** Replaces a consumer's allocations atomically; 409 when anything does not fit (nothing changes then). */
export function setAllocations(sim: Sim, consumerId: string, projectId: string, userId: string, allocations: Map<string, Record<string, number>>): Consumer {
  const prev = sim.placement.consumers.get(consumerId);
  if (prev) adjustUsage(sim, prev.allocations, -1);
  for (const [rpId, res] of allocations) {
    const rp = sim.placement.rps.get(rpId);
    const problem = !rp ? `No resource provider with uuid ${rpId} found` : Object.entries(res).map(([rc, n]) => misfit(sim, rp, rc, n)).find((x) => x !== null);
    if (problem) {
      if (prev) adjustUsage(sim, prev.allocations, 1);
      throw new SimError(409, problem, 'placement.undefined_code');
    }
  }
  const c: Consumer = { uuid: consumerId, projectId, userId, generation: (prev?.generation ?? -1) + 1, allocations };
  sim.placement.consumers.set(consumerId, c);
  adjustUsage(sim, allocations, 1);
  for (const rp of new Set([...allocations.keys(), ...(prev?.allocations.keys() ?? [])])) {
    const p = sim.placement.rps.get(rp);
    if (p) p.generation++;
  }
  return c;
}

export interface TraitQuery {
  /** Every group must be satisfied; a group is any-of (a single trait is a group of one). */
  required: string[][];
  forbidden: string[];
}

export function satisfiesTraits(rp: ResourceProvider, t: TraitQuery): boolean {
  return t.required.every((g) => g.some((x) => rp.traits.has(x))) && t.forbidden.every((x) => !rp.traits.has(x));
}

/** Providers on which every requested resource fits and the traits hold. */
export function candidates(sim: Sim, resources: Record<string, number>, traits: TraitQuery, limit?: number): ResourceProvider[] {
  const out: ResourceProvider[] = [];
  for (const rp of sim.placement.rps.values()) {
    if (!satisfiesTraits(rp, traits)) continue;
    if (Object.entries(resources).some(([rc, n]) => misfit(sim, rp, rc, n) !== null)) continue;
    out.push(rp);
    if (limit !== undefined && out.length >= limit) break;
  }
  return out;
}

/** A flavor's Placement request, as Nova builds it from the flavor and its resources:/trait: extra specs. */
export function flavorRequest(f: { vcpus: number; ram: number; disk: number; ephemeral: number; swap: number; extraSpecs: Record<string, string> }): {
  resources: Record<string, number>; traits: TraitQuery;
} {
  const resources: Record<string, number> = { VCPU: f.vcpus, MEMORY_MB: f.ram + 0, DISK_GB: f.disk + f.ephemeral + Math.ceil(f.swap / 1024) };
  const traits: TraitQuery = { required: [], forbidden: [] };
  for (const [k, v] of Object.entries(f.extraSpecs)) {
    const res = /^resources\d*:(.+)$/.exec(k);
    if (res?.[1]) resources[res[1]] = Number(v);
    const tr = /^trait\d*:(.+)$/.exec(k);
    if (tr?.[1]) {
      if (v === 'required') traits.required.push([tr[1]]);
      else if (v === 'forbidden') traits.forbidden.push(tr[1]);
    }
  }
  for (const [k, v] of Object.entries(resources)) if (!(v > 0)) delete resources[k];
  return { resources, traits };
}
