/**
 * The product machines. Each lifecycle is one file in this folder; add it here to make the engine,
 * the CLI and the audit tools aware of it.
 */
import { MachineRegistry } from './registry.js';
import type { MachineDefinition } from './definition.js';
import { serverRebuildDefinition } from './server-rebuild.js';
import { serverLifecycleDefinition } from './server-lifecycle.js';
import { networkLifecycleDefinition } from './network-lifecycle.js';
import { identityLifecycleDefinition } from './identity-lifecycle.js';
import { regionConnectionDefinition } from './region-connection.js';
import { volumeLifecycleDefinition } from './volume-lifecycle.js';
import { volumeAttachmentDefinition } from './volume-attachment.js';
import { loadBalancerDefinition } from './load-balancer.js';
import { novaUpgradeDefinition } from './nova-upgrade.js';
import { novaDBArchiveDefinition } from './nova-db-archive.js';
import { vlanAllocationDefinition } from './vlan-allocation.js';
import { securityGroupLifecycleDefinition } from './security-group-lifecycle.js';
import { scopeReachabilityDefinition } from './scope-reachability.js';
import { novaComputePipelineDefinition, novaPipelineDefinition } from './nova-pipeline.js';
import { novaFinalizerDefinition } from './nova-finalizer.js';
import { novaComputePoolDefinition } from './nova-compute-pool.js';
import { workloadClusterDefinition } from './workload-cluster.js';
import { workloadMachineDefinition } from './workload-machine.js';

export const productMachines: readonly MachineDefinition[] = [serverRebuildDefinition, serverLifecycleDefinition, networkLifecycleDefinition, identityLifecycleDefinition, regionConnectionDefinition,
  volumeLifecycleDefinition, volumeAttachmentDefinition, loadBalancerDefinition, novaUpgradeDefinition, novaDBArchiveDefinition,
  vlanAllocationDefinition, securityGroupLifecycleDefinition, scopeReachabilityDefinition, novaPipelineDefinition,
  novaFinalizerDefinition, novaComputePoolDefinition, novaComputePipelineDefinition, workloadClusterDefinition, workloadMachineDefinition,
];

export const createProductRegistry = (): MachineRegistry => new MachineRegistry(productMachines);
