/**
 * The SecurityGroup controller's pass: a Neutron security group and its rules per SecurityGroup resource
 * (provider/security-groups.ts), in the project of its Network's Identity (the pass runs with that
 * Identity's session: src/app/control-plane.ts). Gated on its Network realized (the Network's lifecycle
 * `present`): until then nothing is decided, the pass looks again every 2 s (and the Network's change wakes
 * it). Created under the deterministic name `security-group-<uid>`, adopted by exact name, deleted only under
 * a deletion request while the finalizer holds the resource (machines/security-group-lifecycle.ts).
 */
import type { Engine } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import type { OpenStackSession } from '../../openstack/session.js';
import { isDeleting } from '../../kube/object.js';
import { validateSecurityGroup, type SecurityGroup } from '../../resources/index.js';
import { networkLifecycleDefinition, networkLifecycleStream } from '../../../machines/network-lifecycle.js';
import { securityGroupLifecycleDefinition, securityGroupLifecycleStream } from '../../../machines/security-group-lifecycle.js';
import { observeSecurityGroup, type SecurityGroupCreateRequest } from '../../provider/security-groups.js';
import { done, yieldFor, type Disposition } from '../disposition.js';
import { runLifecyclePass } from '../lifecycle-pass.js';
import { recordDecisionEvents } from '../kube-events.js';
import { silentLogger } from '../../log/logger.js';

export const SECURITY_GROUP_FINALIZER = 'regent.dev/security-group';
/** How often a group waiting for its Network looks again (the Network's change also wakes it). */
export const SECURITY_GROUP_NETWORK_WAIT_MS = 2_000;

export interface SecurityGroupControllerDeps {
  engine: Engine;
  source: ResourceSource;
  /** The session of the Identity of the group's Network. */
  os: Pick<OpenStackSession, 'neutron'>;
  now?: () => Date;
}

/** True once the Network's lifecycle has its Neutron network (`present`). */
export const networkRealized = async (deps: Pick<SecurityGroupControllerDeps, 'engine' | 'source'>, namespace: string, name: string): Promise<boolean> => {
  const network = await deps.source.get('Network', namespace, name);
  if (!network || isDeleting(network)) return false;
  const loaded = await deps.engine.load(networkLifecycleDefinition, networkLifecycleStream(network.metadata.uid));
  return loaded.state === 'present' && loaded.context.resourceId !== null;
};

export const reconcileSecurityGroup = async (deps: SecurityGroupControllerDeps, namespace: string, name: string): Promise<Disposition> => {
  const object = await deps.source.get('SecurityGroup', namespace, name);
  if (!object) return done('gone');
  const group = object as SecurityGroup;
  const uid = group.metadata.uid;
  const validation = validateSecurityGroup(group);
  if (validation.ok && !isDeleting(group) && !(await networkRealized(deps, namespace, group.spec.networkID)))
    return yieldFor(SECURITY_GROUP_NETWORK_WAIT_MS, `waiting for Network ${group.spec.networkID}`);
  const result = await runLifecyclePass({
    engine: deps.engine,
    source: deps.source,
    kind: 'SecurityGroup',
    object,
    definition: securityGroupLifecycleDefinition,
    stream: securityGroupLifecycleStream(uid),
    finalizer: SECURITY_GROUP_FINALIZER,
    what: 'Neutron security group',
    specProblems: validation.ok ? [] : validation.errors.map((e) => `${e.path}: ${e.message}`),
    observe: () => observeSecurityGroup(deps.os.neutron, uid),
    desired: async (): Promise<SecurityGroupCreateRequest> => ({ uid, ...(group.spec.description !== undefined ? { description: group.spec.description } : {}), rules: (group.spec.rules ?? []).map((r) => ({ ...r })) }),
    ...(deps.now ? { now: deps.now } : {}),
  });
  await recordDecisionEvents(deps.source, object, result.decisions, silentLogger());
  return result.disposition;
};
