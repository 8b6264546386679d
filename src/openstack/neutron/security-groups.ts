/** Neutron security groups and their rules. */
import type { HttpSession, Query } from '../http.js';
import type { PageOptions } from '../paging.js';
import type { SecurityGroup, SecurityGroupRule } from '../decoders/network.js';
import { securityGroupCodec, securityGroupRuleCodec } from '../decoders/network.js';
import type { NeutronResource } from './resource.js';
import { createOne, deleteOne, findOne, getOne, listOf, updateOne } from './resource.js';

export const SECURITY_GROUP: NeutronResource<SecurityGroup> = { kind: 'security group', path: '/security-groups', collection: 'security_groups', single: 'security_group', codec: securityGroupCodec };
export const SECURITY_GROUP_RULE: NeutronResource<SecurityGroupRule> = { kind: 'security group rule', path: '/security-group-rules', collection: 'security_group_rules', single: 'security_group_rule', codec: securityGroupRuleCodec };

// Networking API v2.0: List Security Groups — GET /v2.0/security-groups
export const listSecurityGroups = (http: HttpSession, filters: Query = {}, page: PageOptions = {}): Promise<SecurityGroup[]> => listOf(http, SECURITY_GROUP, filters, page);
// Networking API v2.0: Show Security Group — GET /v2.0/security-groups/{security_group_id}
export const getSecurityGroup = (http: HttpSession, id: string): Promise<SecurityGroup> => getOne(http, SECURITY_GROUP, id);
// Networking API v2.0: List Security Groups — GET /v2.0/security-groups?name=…, post-filtered to the exact name
export const findSecurityGroupByName = (http: HttpSession, name: string, filters: Query = {}): Promise<SecurityGroup> => findOne(http, SECURITY_GROUP, name, filters);
// Networking API v2.0: Create Security Group — POST /v2.0/security-groups
export const createSecurityGroup = (http: HttpSession, body: { name: string; description?: string; stateful?: boolean; [k: string]: unknown }): Promise<SecurityGroup> => createOne(http, SECURITY_GROUP, body);
// Networking API v2.0: Update Security Group — PUT /v2.0/security-groups/{security_group_id}
export const updateSecurityGroup = (http: HttpSession, id: string, body: Readonly<Record<string, unknown>>): Promise<SecurityGroup> => updateOne(http, SECURITY_GROUP, id, body);
// Networking API v2.0: Delete Security Group — DELETE /v2.0/security-groups/{security_group_id}
export const deleteSecurityGroup = (http: HttpSession, id: string): Promise<void> => deleteOne(http, SECURITY_GROUP, id);

// Networking API v2.0: List Security Group Rules — GET /v2.0/security-group-rules
export const listSecurityGroupRules = (http: HttpSession, filters: Query = {}, page: PageOptions = {}): Promise<SecurityGroupRule[]> => listOf(http, SECURITY_GROUP_RULE, filters, page);
// Networking API v2.0: Create Security Group Rule — POST /v2.0/security-group-rules
export const createSecurityGroupRule = (http: HttpSession, body: {
  security_group_id: string; direction: 'ingress' | 'egress'; ethertype?: 'IPv4' | 'IPv6'; protocol?: string | null;
  port_range_min?: number | null; port_range_max?: number | null; remote_ip_prefix?: string | null; remote_group_id?: string | null; description?: string;
}): Promise<SecurityGroupRule> => createOne(http, SECURITY_GROUP_RULE, body);
// Networking API v2.0: Delete Security Group Rule — DELETE /v2.0/security-group-rules/{security_group_rule_id}
export const deleteSecurityGroupRule = (http: HttpSession, id: string): Promise<void> => deleteOne(http, SECURITY_GROUP_RULE, id);
