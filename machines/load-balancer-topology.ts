/**
 * Where the load balancer's topology diff used to live. It moved into the machine's folder (issue 25):
 * machines/load-balancer/topology.ts (the plan: planPass, planDeletion, listenerRows), names.ts (LB2's names,
 * statuses, addresses), observation.ts (the desired and observed codecs) and effects.ts (the effect vocabulary
 * and params). This file only re-exports them, so the provider, the controller and the tests that import it need
 * not change.
 */
export * from './load-balancer/names.js';
export * from './load-balancer/observation.js';
export * from './load-balancer/effects.js';
export * from './load-balancer/topology.js';
