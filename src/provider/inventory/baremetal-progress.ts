/**
 * Baremetal build progress from Ironic (openstack-provider.md, "Baremetal server progress uses Ironic …"):
 * while Nova reports BUILD for a flavor the Region marks baremetal, the node's provision state tells
 * Queued (waiting on hardware: not yet picked up, enrolling, inspecting, cleaning, available, …) from
 * Building (the provider actively deploying). The post-deploy `error` state and every transient `* failed`
 * state count as Building: "the node is still in the build pipeline as far as the platform is concerned,
 * and the failure signal belongs on the Healthy condition rather than on the Active condition".
 *
 * Pure. Every provision state Ironic documents (ironic/common/states.py, the Bare Metal API's state
 * machine) is in one of the two tables; a state this table does not know falls back to Building, the
 * VM default, as a failed lookup does.
 */

export type BaremetalProgress = 'Queued' | 'Building';

/** Before the deploy starts: the node is not (yet) working on this instance. */
export const QUEUED_STATES: readonly string[] = [
  'enroll', // registered, not yet managed
  'verifying', // enroll → manageable: checking driver credentials
  'manageable',
  'inspecting',
  'inspect wait',
  'available', // claimed by Nova's ironic driver, not yet picked up for deploy
  'cleaning',
  'clean wait',
  'clean hold',
  'adopting',
];

/** The deploy pipeline: deploying, waiting on the ramdisk, held, finished, or failed inside it. */
export const BUILDING_STATES: readonly string[] = [
  'deploying',
  'wait call-back',
  'deploy hold',
  'active', // Ironic is done; Nova has not flipped the instance to ACTIVE yet
  'rebuild',
  'error', // the post-deploy error state
  'deploy failed',
  'clean failed',
  'inspect failed',
  'adopt failed',
  'rescue failed',
  'unrescue failed',
  'service failed',
  // states Nova's BUILD should never see, listed so the table is total over Ironic's documented states
  'deleting',
  'deleted',
  'rescuing',
  'rescue wait',
  'rescue',
  'unrescuing',
  'servicing',
  'service wait',
  'service hold',
];

const queued = new Set(QUEUED_STATES);

/**
 * Queued or Building for a provision state. No node bound to the instance yet is Queued ("not yet picked
 * up"); an unknown state is Building (the fallback).
 */
export const baremetalProgress = (provisionState: string | undefined): BaremetalProgress => {
  if (provisionState === undefined) return 'Queued';
  return queued.has(provisionState) ? 'Queued' : 'Building';
};
