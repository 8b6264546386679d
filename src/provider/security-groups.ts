/**
 * SecurityGroup provider: a Neutron security group under a deterministic name (`security-group-<uid>`) in
 * its Network's Identity's project (the Identity's session: the token's project), re-found by exact name.
 * Creation ensures the group (an existing one is adopted) and makes its rules exactly `spec.rules`: missing
 * rules are created, others — Neutron's default egress rules included — are deleted, so the group allows
 * what the spec says and nothing more. Deletion removes the group; Neutron refuses (409) while a port still
 * uses it, which the lifecycle records and retries (L8).
 */
import type { EffectHandler } from '../engine/engine.js';
import type { OpenStackSession } from '../openstack/session.js';
import { NotFound } from '../openstack/errors.js';
import type { SecurityGroupRule as NeutronRule } from '../openstack/decoders/network.js';
import type { Observed } from '../../machines/lifecycle.js';
import type { SecurityGroupRule } from '../resources/security-group.js';
import { isRefusal, refusal } from './effect-results.js';

export const securityGroupName = (uid: string): string => `security-group-${uid}`;

export interface SecurityGroupCreateRequest {
  uid: string;
  description?: string;
  rules: SecurityGroupRule[];
  [key: string]: unknown;
}

type Neutron = Pick<OpenStackSession['neutron'], 'listSecurityGroups' | 'createSecurityGroup' | 'deleteSecurityGroup' | 'listSecurityGroupRules' | 'createSecurityGroupRule' | 'deleteSecurityGroupRule'>;

const byName = async (neutron: Neutron, uid: string) => (await neutron.listSecurityGroups({ name: securityGroupName(uid) })).filter((g) => g.name === securityGroupName(uid));

export const observeSecurityGroup = async (neutron: Neutron, uid: string): Promise<Observed> => {
  const found = await byName(neutron, uid);
  return found[0] ? { kind: 'present', id: found[0].id } : { kind: 'absent' };
};

/** The Neutron rule body for one spec rule (no security_group_id). */
export const neutronRule = (rule: SecurityGroupRule) => ({
  direction: rule.direction,
  ethertype: rule.remoteIPPrefix?.includes(':') ? ('IPv6' as const) : ('IPv4' as const),
  protocol: rule.protocol === 'any' ? null : rule.protocol,
  port_range_min: rule.portRangeMin ?? (rule.portRangeMax !== undefined ? rule.portRangeMax : null),
  port_range_max: rule.portRangeMax ?? (rule.portRangeMin !== undefined ? rule.portRangeMin : null),
  remote_ip_prefix: rule.remoteIPPrefix ?? null,
});

const keyOf = (r: { direction: string; ethertype?: string; protocol?: string | null; port_range_min?: number | null; port_range_max?: number | null; remote_ip_prefix?: string | null; remote_group_id?: string | null }): string =>
  JSON.stringify([r.direction, r.ethertype ?? 'IPv4', r.protocol ?? null, r.port_range_min ?? null, r.port_range_max ?? null, r.remote_ip_prefix ?? null, r.remote_group_id ?? null]);

/** neutron.createSecurityGroup: ensure the group, then its rules exactly as desired. */
export const createSecurityGroupHandler = (os: Pick<OpenStackSession, 'neutron'>): EffectHandler => async (effect, context) => {
  const desired = effect.desired as SecurityGroupCreateRequest;
  try {
    const group = (await byName(os.neutron, desired.uid))[0] ?? (await os.neutron.createSecurityGroup({ name: securityGroupName(desired.uid), ...(desired.description !== undefined ? { description: desired.description } : {}) }));
    const existing: NeutronRule[] = await os.neutron.listSecurityGroupRules({ security_group_id: group.id });
    const wanted = new Map(desired.rules.map((r) => [keyOf(neutronRule(r)), neutronRule(r)]));
    const have = new Set<string>();
    for (const rule of existing) {
      const key = keyOf(rule);
      if (wanted.has(key) && !have.has(key)) have.add(key);
      else await os.neutron.deleteSecurityGroupRule(rule.id);
    }
    let created = 0;
    for (const [key, rule] of wanted) {
      if (have.has(key)) continue;
      await os.neutron.createSecurityGroupRule({ security_group_id: group.id, ...rule });
      created += 1;
    }
    context.logger.info('neutron security group ready', { securityGroupId: group.id, name: securityGroupName(desired.uid), rules: wanted.size, rulesCreated: created });
    return { type: 'created', id: group.id };
  } catch (error) {
    if (isRefusal(error)) return refusal('createRejected', error);
    throw error;
  }
};

/** neutron.deleteSecurityGroup: a group already gone (404) is success; in use (409) is a refusal L8 retries. */
export const deleteSecurityGroupHandler = (os: Pick<OpenStackSession, 'neutron'>): EffectHandler => async (effect) => {
  try {
    await os.neutron.deleteSecurityGroup(String(effect.id));
    return { type: 'deleteAccepted' };
  } catch (error) {
    if (error instanceof NotFound) return { type: 'deleteAccepted' };
    if (isRefusal(error)) return refusal('deleteRejected', error);
    throw error;
  }
};
