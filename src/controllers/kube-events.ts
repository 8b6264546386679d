/**
 * Kubernetes Events for the decisions an operator wants to see in `kubectl describe`: one per stored
 * decision with a notable outcome. Events are a courtesy (they expire); the event store is the record.
 */
import type { Decision } from '../engine/engine.js';
import type { EventType, ResourceSource } from '../kube/port.js';
import type { KindName, ObjectOf } from '../resources/index.js';
import type { Logger } from '../log/logger.js';
import { describeError } from '../log/logger.js';

const NOTABLE: Record<string, [EventType, string, string]> = {
  createSubmitted: ['Normal', 'Creating', 'create requested from OpenStack'],
  created: ['Normal', 'Created', 'OpenStack accepted the create'],
  adopted: ['Normal', 'Adopted', 'an existing OpenStack resource with this resource\'s name and owner was adopted'],
  createRejected: ['Warning', 'CreateFailed', 'OpenStack refused the create'],
  createExhausted: ['Warning', 'CreateFailed', 'the create did not land after repeated attempts'],
  deleteSubmitted: ['Normal', 'Deleting', 'delete requested from OpenStack'],
  deleted: ['Normal', 'Deleted', 'the OpenStack resource is gone; releasing the finalizer'],
  specRejected: ['Warning', 'InvalidSpec', 'the spec does not decode; nothing will be done until it does'],
  armed: ['Normal', 'RebuildArmed', 'a rebuild to the new image is armed (write-ahead)'],
  rearmed: ['Normal', 'RebuildArmed', 'the rebuild intent was re-armed for a different image'],
  accepted: ['Normal', 'RebuildAccepted', 'Nova accepted the rebuild: the root disk is being recreated'],
  conflict: ['Normal', 'RebuildDeferred', 'Nova answered 409 (a task holds the server); will retry'],
  cleared: ['Normal', 'RebuildSucceeded', 'the server runs the new image'],
  parked: ['Warning', 'RebuildFailed', 'the rebuild failed; choose another image or replace the server'],
  outcomeUnknown: ['Warning', 'RebuildOutcomeUnknown', "Nova's answer to the rebuild never came; nothing is submitted again without evidence"],
  resubmittedOnEvidence: ['Normal', 'RebuildResubmitted', 'Nova shows no rebuild since the unanswered one and the window has passed: submitted again'],
  outcomeUnresolvable: ['Warning', 'RebuildOutcomeUnknown', 'no evidence can show whether Nova accepted the rebuild; choose another image or replace the server'],
  createRetriesExhausted: ['Warning', 'CreateRetriesExhausted', 'Nova put the server in ERROR before it booted, as often as the create bound allows'],
  deleteResubmitted: ['Warning', 'DeleteRetrying', 'the resource is still there after its delete; the delete was sent again'],
  recreateDeleteResubmitted: ['Warning', 'DeleteRetrying', 'the errored server is still there after its delete; the delete was sent again'],
  // workload clusters and machines (docs/workload-cluster.md)
  preconditionRefused: ['Warning', 'PreconditionFailed', 'a precondition of the cluster failed; nothing was created (see the Available condition)'],
  guardViolated: ['Warning', 'EndpointChangeRefused', 'a guarded endpoint field changed after creation; refused, not applied (see EndpointGuard)'],
  inconsistent: ['Warning', 'ConsistencyError', 'OpenStack shows duplicates or a part Regent cannot converge; nothing is created meanwhile'],
  securityGroupCreateDecided: ['Normal', 'Creating', 'a security group create was sent to Neutron'],
  serverGroupCreateDecided: ['Normal', 'Creating', "the control plane's server group create was sent to Nova"],
  portCreateDecided: ['Normal', 'Creating', "the port create was sent to Neutron (on the cluster's subnet)"],
  serverCreateDecided: ['Normal', 'Creating', 'the server create was sent to Nova (its port is in every API pool it must be in)'],
  running: ['Normal', 'Running', 'the server is ACTIVE'],
  consistencyProblem: ['Warning', 'ConsistencyError', 'OpenStack shows a duplicate, a server of this name that is not Regent\'s, or a port in use; nothing is decided meanwhile'],
  leavingPools: ['Normal', 'LeavingPools', 'the server is deleted once its address has left every API pool'],
  desiredUnresolvable: ['Warning', 'DesiredUnresolvable', 'an image or flavor in the spec resolves to nothing or to more than one; nothing was sent to OpenStack'],
};

export const recordDecisionEvents = async (source: ResourceSource, object: ObjectOf<KindName>, decisions: readonly Decision[], logger: Logger): Promise<void> => {
  for (const decision of decisions) {
    if (!decision.changed || !decision.outcome) continue;
    const notable = NOTABLE[decision.outcome];
    if (!notable) continue;
    const [type, reason, message] = notable;
    try {
      await source.recordEvent(object, type, reason, message);
    } catch (error) {
      logger.debug('could not record a Kubernetes event', describeError(error));
    }
  }
};
