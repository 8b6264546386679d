/**
 * The NovaCompute pipeline's step table (nova-operator.md, "NovaCompute pipeline"; issue 28): eight sequential steps
 * on the Nova's lane runner (src/controllers/nova/lane.ts), each owning one condition. The first step that returns a
 * requeue or an error ends the pass; a step that sets its condition False for a reason that is not a wait on an
 * input (NoMatchingNodes, NodeConflict, DaemonSetProgressing, NodesWithoutZone, AggregateZoneMismatch) returns a zero
 * result so the later steps still run. The Services step hands its periodic poll to Traits, which returns the shorter
 * of the two: a full pass always ends at Traits with a requeue.
 *
 * Once a deleting pool holds no node, only NovaRef, Aggregates and Traits run (TEARDOWN_LANE), so a pass from a stale
 * copy of the CR cannot recreate what the sweep removed.
 */
import type { NovaStep } from '../nova/lane.js';
import type { NovaComputePass } from './pass.js';
import { novaRefStep } from './steps/nova-ref.js';
import { nodesStep } from './steps/nodes.js';
import { poolConfigStep } from './steps/pool-config.js';
import { daemonSetStep } from './steps/daemon-set.js';
import { computeVPAStep } from './steps/compute-vpa.js';
import { aggregatesStep } from './steps/aggregates.js';
import { servicesStep } from './steps/services.js';
import { traitsStep } from './steps/traits.js';

export const NOVA_COMPUTE_LANE: ReadonlyArray<NovaStep<NovaComputePass>> = [novaRefStep, nodesStep, poolConfigStep, daemonSetStep, computeVPAStep, aggregatesStep, servicesStep, traitsStep];

export const TEARDOWN_LANE: ReadonlyArray<NovaStep<NovaComputePass>> = [novaRefStep, aggregatesStep, traitsStep];
