/** A Network's create/delete lifecycle (machines/lifecycle.ts): a Neutron network and its subnet. */
import { lifecycleDefinition } from './lifecycle.js';

export const networkLifecycleDefinition = lifecycleDefinition({
  id: 'networkLifecycle',
  streamPrefix: 'network-lifecycle-',
  createEffect: 'neutron.createNetwork',
  deleteEffect: 'neutron.deleteNetwork',
  description: 'Neutron network + subnet create under a deterministic name, and finalizer-gated delete.',
});

export const networkLifecycleStream = (resourceUid: string): string => `network-lifecycle-${resourceUid}`;
