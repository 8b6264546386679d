// Security groups and rules. Each project gets its "default" group on first use, with Neutron's four
// default rules; a new group starts with the two egress rules.
import { noContent } from '../http.js';
import { isoSeconds, uuid } from '../ids.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { member, optBool, optInt, optNullableStr, optStr, reqStr } from '../validate.js';
import { listResponse, nerr, oneResponse, registerTags, requireMember, stdView, touch, visible } from './common.js';
import type { SecurityGroup, SecurityGroupRule } from './model.js';

export function ruleView(r: SecurityGroupRule): Record<string, unknown> {
  return {
    id: r.id, security_group_id: r.securityGroupId, direction: r.direction, ethertype: r.ethertype, protocol: r.protocol,
    port_range_min: r.portMin, port_range_max: r.portMax, remote_ip_prefix: r.remoteIpPrefix, remote_group_id: r.remoteGroupId,
    remote_address_group_id: null, normalized_cidr: r.remoteIpPrefix, description: r.description, tenant_id: r.projectId,
    project_id: r.projectId, created_at: isoSeconds(r.created), updated_at: isoSeconds(r.updated), revision_number: r.revision,
    tags: [], belongs_to_default_sg: false,
  };
}

function sgView(sim: Sim, sg: SecurityGroup): Record<string, unknown> {
  const rules = [...sim.neutron.rules.values()].filter((r) => r.securityGroupId === sg.id).map(ruleView);
  return { ...stdView(sg), stateful: sg.stateful, shared: false, security_group_rules: rules };
}

function addRule(sim: Sim, sg: SecurityGroup, o: Partial<SecurityGroupRule> & { direction: string; ethertype: string }): SecurityGroupRule {
  const now = sim.now();
  const r: SecurityGroupRule = {
    id: uuid(), securityGroupId: sg.id, direction: o.direction, ethertype: o.ethertype, protocol: o.protocol ?? null,
    portMin: o.portMin ?? null, portMax: o.portMax ?? null, remoteIpPrefix: o.remoteIpPrefix ?? null,
    remoteGroupId: o.remoteGroupId ?? null, description: o.description ?? '', projectId: sg.projectId, created: now, updated: now, revision: 0,
  };
  sim.neutron.rules.set(r.id, r);
  return r;
}

export function createSecurityGroup(sim: Sim, projectId: string, name: string, description = '', isDefault = false): SecurityGroup {
  const now = sim.now();
  const sg: SecurityGroup = { id: uuid(), name, description, projectId, tags: [], created: now, updated: now, revision: 1, stateful: true, isDefault };
  sim.neutron.securityGroups.set(sg.id, sg);
  for (const ethertype of ['IPv4', 'IPv6']) {
    addRule(sim, sg, { direction: 'egress', ethertype });
    if (isDefault) addRule(sim, sg, { direction: 'ingress', ethertype, remoteGroupId: sg.id });
  }
  return sg;
}

export function ensureDefaultSecurityGroup(sim: Sim, projectId: string): SecurityGroup {
  for (const sg of sim.neutron.securityGroups.values()) if (sg.isDefault && sg.projectId === projectId) return sg;
  return createSecurityGroup(sim, projectId, 'default', 'Default security group', true);
}

export function findSecurityGroup(ctx: Ctx, id: string): SecurityGroup {
  const sg = ctx.sim.neutron.securityGroups.get(id);
  if (!sg || !visible(ctx.auth, sg.projectId)) throw nerr(404, 'SecurityGroupNotFound', `Security group ${id} does not exist`);
  return sg;
}

const PROTOCOLS: Record<string, number> = { icmp: 1, tcp: 6, udp: 17, icmpv6: 58, sctp: 132, any: -1 };

export function registerSecurityGroups(r: Registrar): void {
  r.get('/security-groups', (ctx) => {
    if (ctx.auth.projectId) ensureDefaultSecurityGroup(ctx.sim, ctx.auth.projectId);
    return listResponse(ctx, 'security_groups', [...ctx.sim.neutron.securityGroups.values()].filter((s) => visible(ctx.auth, s.projectId)), (s) => sgView(ctx.sim, s));
  });
  r.get('/security-groups/:id', (ctx) => oneResponse(ctx, 'security_group', sgView(ctx.sim, findSecurityGroup(ctx, ctx.p('id')))));
  r.post('/security-groups', (ctx) => {
    requireMember(ctx.auth);
    const b = member(ctx.req.body, 'security_group');
    // Zed: a security group takes its tags only through the tags sub-resource (measured on the sandbox, §22)
    if ('tags' in b) throw nerr(400, 'HTTPBadRequest', "Attribute 'tags' not allowed in POST");
    const projectId = (ctx.auth.isAdmin ? optStr(b, 'project_id') ?? optStr(b, 'tenant_id') : undefined) ?? ctx.auth.projectId ?? '';
    ensureDefaultSecurityGroup(ctx.sim, projectId);
    const name = reqStr(b, 'name', 255);
    if (name === 'default') throw nerr(409, 'SecurityGroupDefaultAlreadyExists', 'Default security group already exists.');
    const sg = createSecurityGroup(ctx.sim, projectId, name, optStr(b, 'description', 255) ?? '');
    sg.stateful = optBool(b, 'stateful') ?? true;
    return oneResponse(ctx, 'security_group', sgView(ctx.sim, sg), 201);
  });
  r.put('/security-groups/:id', (ctx) => {
    const sg = findSecurityGroup(ctx, ctx.p('id'));
    requireMember(ctx.auth);
    const b = member(ctx.req.body, 'security_group');
    const name = optStr(b, 'name', 255);
    if (sg.isDefault && name !== undefined && name !== 'default') throw nerr(409, 'SecurityGroupCannotUpdateDefault', 'Updating default security group not allowed.');
    sg.name = name ?? sg.name;
    sg.description = optStr(b, 'description', 255) ?? sg.description;
    touch(ctx.sim, sg);
    return oneResponse(ctx, 'security_group', sgView(ctx.sim, sg));
  });
  r.del('/security-groups/:id', (ctx) => {
    const nt = ctx.sim.neutron;
    const sg = findSecurityGroup(ctx, ctx.p('id'));
    requireMember(ctx.auth);
    if (sg.isDefault && !ctx.auth.isAdmin) throw nerr(409, 'SecurityGroupCannotRemoveDefault', 'Insufficient rights for removing default security group.');
    if ([...nt.ports.values()].some((p) => p.securityGroups.includes(sg.id))) throw nerr(409, 'SecurityGroupInUse', `Security Group ${sg.id} in use.`);
    for (const [id, rule] of nt.rules) if (rule.securityGroupId === sg.id) nt.rules.delete(id);
    nt.securityGroups.delete(sg.id);
    return noContent();
  });
  registerTags(r, 'security-groups', findSecurityGroup);

  const findRule = (ctx: Ctx, id: string) => {
    const rule = ctx.sim.neutron.rules.get(id);
    if (!rule || !visible(ctx.auth, rule.projectId)) throw nerr(404, 'SecurityGroupRuleNotFound', `Security group rule ${id} does not exist`);
    return rule;
  };
  r.get('/security-group-rules', (ctx) => listResponse(ctx, 'security_group_rules', [...ctx.sim.neutron.rules.values()].filter((x) => visible(ctx.auth, x.projectId)), ruleView));
  r.get('/security-group-rules/:id', (ctx) => oneResponse(ctx, 'security_group_rule', ruleView(findRule(ctx, ctx.p('id')))));
  r.post('/security-group-rules', (ctx) => {
    requireMember(ctx.auth);
    const b = member(ctx.req.body, 'security_group_rule');
    const sg = findSecurityGroup(ctx, reqStr(b, 'security_group_id'));
    const direction = reqStr(b, 'direction');
    if (direction !== 'ingress' && direction !== 'egress') throw nerr(400, 'InvalidInput', `Invalid input for direction. Reason: '${direction}' is not in ['ingress', 'egress'].`);
    const ethertype = optStr(b, 'ethertype') ?? 'IPv4';
    if (ethertype !== 'IPv4' && ethertype !== 'IPv6') throw nerr(400, 'SecurityGroupRuleInvalidEtherType', `Security group rule for ethertype '${ethertype}' not supported. Allowed values are ['IPv4', 'IPv6'].`);
    const protocol = optNullableStr(b, 'protocol') ?? null;
    if (protocol !== null && !(protocol.toLowerCase() in PROTOCOLS) && !/^\d+$/.test(protocol)) {
      throw nerr(400, 'SecurityGroupRuleInvalidProtocol', `Security group rule protocol ${protocol} not supported. Only protocol values [None, tcp, udp, icmp, icmpv6, sctp, any] and integer representations [0 to 255] are supported.`);
    }
    const portMin = optInt(b, 'port_range_min', 0, 65535) ?? null;
    const portMax = optInt(b, 'port_range_max', 0, 65535) ?? null;
    if (portMin !== null && portMax !== null && portMin > portMax) throw nerr(400, 'SecurityGroupInvalidPortRange', 'For TCP/UDP protocols, port_range_min must be <= port_range_max');
    if ((portMin !== null || portMax !== null) && protocol === null) throw nerr(400, 'SecurityGroupProtocolRequiredWithPorts', 'Must also specify protocol if port range is given.');
    const remoteIpPrefix = optNullableStr(b, 'remote_ip_prefix') ?? null;
    const remoteGroupId = optNullableStr(b, 'remote_group_id') ?? null;
    if (remoteIpPrefix !== null && remoteGroupId !== null) throw nerr(400, 'SecurityGroupRemoteGroupAndRemoteIpPrefix', 'Only remote_ip_prefix or remote_group_id may be provided.');
    const dup = [...ctx.sim.neutron.rules.values()].find((x) => x.securityGroupId === sg.id && x.direction === direction && x.ethertype === ethertype &&
      x.protocol === protocol && x.portMin === portMin && x.portMax === portMax && x.remoteIpPrefix === remoteIpPrefix && x.remoteGroupId === remoteGroupId);
    if (dup) throw nerr(409, 'SecurityGroupRuleExists', `Security group rule already exists. Rule id is ${dup.id}.`);
    const rule = addRule(ctx.sim, sg, { direction, ethertype, protocol, portMin, portMax, remoteIpPrefix, remoteGroupId, description: optStr(b, 'description', 255) ?? '' });
    touch(ctx.sim, sg);
    return oneResponse(ctx, 'security_group_rule', ruleView(rule), 201);
  });
  r.del('/security-group-rules/:id', (ctx) => {
    const rule = findRule(ctx, ctx.p('id'));
    requireMember(ctx.auth);
    ctx.sim.neutron.rules.delete(rule.id);
    return noContent();
  });
}
