/**
 * A SecurityGroup's create/delete lifecycle (machines/lifecycle.ts): a Neutron security group and its
 * rules, created under a deterministic name (`security-group-<uid>`) in its Network's Identity's project,
 * adopted by exact name, deleted only under a deletion request (finalizer-gated, write-ahead).
 */
import { lifecycleDefinition } from './lifecycle.js';

export const securityGroupLifecycleDefinition = lifecycleDefinition({
  id: 'securityGroupLifecycle',
  streamPrefix: 'security-group-lifecycle-',
  createEffect: 'neutron.createSecurityGroup',
  deleteEffect: 'neutron.deleteSecurityGroup',
  description: 'Neutron security group + rules create under a deterministic name, and finalizer-gated delete.',
});

export const securityGroupLifecycleStream = (resourceUid: string): string => `security-group-lifecycle-${resourceUid}`;
