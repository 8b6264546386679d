/**
 * Which declared effects a plan flags **destructive**: a decision that declares one of them can lose data or a cloud
 * resource (a rebuild wipes the root disk, a delete, a cascade delete, a detach, the delete half of a replace).
 *
 * The list is Regent's own, as the chaos suite's invariant "no destructive effect without an arm read back" names it
 * (test/chaos/invariants/destructive-after-arm.ts; src/ imports nothing from test/, so it is stated again here), and
 * every effect a machine definition itself declares destructive (`destructiveEffects`, machines/definition.ts) counts
 * too: a machine that adds one is flagged without touching this file.
 */
import type { MachineDefinition } from '../../machines/definition.js';

export const DESTRUCTIVE_EFFECTS: readonly string[] = [
  'nova.rebuild',
  'nova.deleteServer',
  'cinder.deleteVolume',
  'octavia.deleteLoadBalancer',
  'neutron.deleteSecurityGroup',
  'neutron.deleteNetwork',
  'keystone.deleteProject',
  'nova.detachVolume',
];

/** Whether an effect of `type`, declared by a decision of `definition`, is destructive. */
export const isDestructive = (type: string, definition?: Pick<MachineDefinition, 'destructiveEffects'>): boolean =>
  DESTRUCTIVE_EFFECTS.includes(type) || (definition?.destructiveEffects ?? []).includes(type);
