/**
 * The part of a NovaCompute's status its pool stream decides: `nova-compute-pool-<uid>` (machines/nova-compute-pool.ts;
 * nova-operator.md, "NovaCompute"; issue 28). The full status renderer composes it with the conditions the pool's
 * pipeline records on its own stream.
 *
 * | field | from |
 * |---|---|
 * | `status.nodes[]` | every node the pool holds, sorted by name: `name`, `phase` (Pending, Active, Draining, Releasing; NP1–NP3, NS1–NS4), `zone` when known, `traits` (the node's record, TR3) when not empty, `servers` (counted while Draining, NS2) once counted |
 * | `status.createdTraits` | the custom traits Regent created (TR2) and has not deleted or dropped yet (TR5, TR6), sorted; a claim not answered yet is not listed |
 *
 * A node dropped from the pool (NS4, NS5) is no longer listed. Pure: the same context renders the same fields.
 */
import type { NovaComputePoolContext } from '../machines/nova-compute-pool.js';

export interface PoolNodeStatus {
  name: string;
  phase: 'Pending' | 'Active' | 'Draining' | 'Releasing';
  zone?: string;
  traits?: string[];
  servers?: number;
}

export interface PoolNodesStatus {
  nodes: PoolNodeStatus[];
  createdTraits: string[];
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `status.nodes` and `status.createdTraits` from the pool stream's folded context (an empty pool before any event). */
export const poolNodesStatus = (context: NovaComputePoolContext | undefined): PoolNodesStatus => {
  if (!context) return { nodes: [], createdTraits: [] };
  const nodes = Object.keys(context.nodes)
    .sort(byName)
    .map((name): PoolNodeStatus => {
      const n = context.nodes[name] as NovaComputePoolContext['nodes'][string];
      return {
        name,
        phase: n.phase,
        ...(n.zone !== null ? { zone: n.zone } : {}),
        ...(n.traits.length > 0 ? { traits: [...n.traits] } : {}),
        ...(n.servers !== null ? { servers: n.servers } : {}),
      };
    });
  return { nodes, createdTraits: [...context.createdTraits].sort(byName) };
};
