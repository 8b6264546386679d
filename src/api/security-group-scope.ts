/**
 * The security-group scope rule (server-api.md: "a referenced security group must belong to the same
 * network as the server"). The RBAC read that finds a reference only proves the caller may see it; a
 * caller authorized across several tenancies could otherwise attach another tenancy's group. So every
 * name in a Server's `securityGroups` must be a SecurityGroup in the server's namespace whose
 * `spec.networkID` is the server's network — else one 422 naming each offending group and why, before
 * anything is written. A group the caller could read on another network is refused all the same.
 */
import type { ResourceSource } from '../kube/port.js';
import type { SecurityGroup } from '../resources/security-group.js';
import { unprocessable } from './errors.js';

export interface SecurityGroupScopeInput {
  readonly namespace: string;
  /** The server's network (its `spec.networkID`: the Network's name). */
  readonly networkID: string;
  readonly securityGroups: readonly string[] | undefined;
}

/** Resolves when every referenced group is on the server's network; throws a 422 ApiError otherwise. */
export const checkSecurityGroupScope = async (source: ResourceSource, input: SecurityGroupScopeInput): Promise<void> => {
  const problems: string[] = [];
  for (const name of input.securityGroups ?? []) {
    const group = (await source.get('SecurityGroup', input.namespace, name)) as SecurityGroup | undefined;
    if (!group || group.metadata.deletionTimestamp) problems.push(`security group "${name}" not found`);
    else if (group.spec.networkID !== input.networkID) problems.push(`security group "${name}" belongs to network ${group.spec.networkID}, not ${input.networkID}`);
  }
  if (problems.length > 0) throw unprocessable(`spec.securityGroups: ${problems.join('; ')}`);
};
