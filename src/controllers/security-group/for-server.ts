/**
 * What a Server's create needs from the SecurityGroups it lists: their Neutron ids, read from each group's
 * lifecycle stream (`present`). A group not realized yet (or gone) holds the create: the Server pass waits
 * for it (the group's status change wakes the Server: ./wiring.ts), so a server is never created without
 * the groups its spec names. The API's scope rule (src/api/security-group-scope.ts) already refused groups
 * of another network; this checks it again, since a resource can be written around the API.
 */
import type { Engine } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import { isDeleting } from '../../kube/object.js';
import type { SecurityGroup } from '../../resources/security-group.js';
import { securityGroupLifecycleDefinition, securityGroupLifecycleStream } from '../../../machines/security-group-lifecycle.js';

export type ServerSecurityGroups = { kind: 'ready'; ids: string[] } | { kind: 'waiting'; why: string };

export const securityGroupIdsFor = async (deps: { engine: Engine; source: ResourceSource }, namespace: string, spec: { networkID: string; securityGroups?: readonly string[] | undefined }): Promise<ServerSecurityGroups> => {
  const ids: string[] = [];
  for (const name of spec.securityGroups ?? []) {
    const group = (await deps.source.get('SecurityGroup', namespace, name)) as SecurityGroup | undefined;
    if (!group || isDeleting(group)) return { kind: 'waiting', why: `waiting for SecurityGroup ${name}: it does not exist` };
    if (group.spec.networkID !== spec.networkID) return { kind: 'waiting', why: `SecurityGroup ${name} belongs to network ${group.spec.networkID}, not ${spec.networkID}` };
    const loaded = await deps.engine.load(securityGroupLifecycleDefinition, securityGroupLifecycleStream(group.metadata.uid));
    const id = loaded.state === 'present' ? loaded.context.resourceId : null;
    if (!id) return { kind: 'waiting', why: `waiting for SecurityGroup ${name} to be created in Neutron` };
    ids.push(id);
  }
  return { kind: 'ready', ids };
};
