/**
 * SecurityGroup: a Neutron security group and its rules, in the project of the Network it belongs
 * to. A security group belongs to exactly one Network (`networkID`, immutable); a Server may list it
 * in `spec.securityGroups` only when the Server is on that same Network (the API's scope rule,
 * src/api/security-group-scope.ts; docs/security-group.md). Objects the API writes carry the
 * owning network in the `regent.dev/network` label, as Servers do.
 */
import type * as t from 'io-ts';
import { AuditURL, Cidr, Conditions, Generation, ObjectName, Phase, Uuid } from './codec/common.js';
import { enumOf, int, str } from './codec/primitives.js';
import { list, struct } from './codec/structure.js';
import { ruleError } from './codec/transitions.js';
import { defineKind, standardColumns, type ResourceObject, type TransitionRule } from './kind.js';

export const SecurityGroupRuleDirection = enumOf('SecurityGroupRuleDirection', ['ingress', 'egress']);
export const SecurityGroupRuleProtocol = enumOf('SecurityGroupRuleProtocol', ['tcp', 'udp', 'icmp', 'any']);
const Port = int('Port', { minimum: 0, maximum: 65535 });

export const SecurityGroupRule = struct(
  'SecurityGroupRule',
  { direction: SecurityGroupRuleDirection, protocol: SecurityGroupRuleProtocol },
  { portRangeMin: Port, portRangeMax: Port, remoteIPPrefix: Cidr },
  {
    rules: [
      { fieldPath: '.portRangeMax', message: 'portRangeMax must be at least portRangeMin', check: (r) => r.portRangeMin === undefined || r.portRangeMax === undefined || r.portRangeMin <= r.portRangeMax },
      { fieldPath: '.portRangeMin', message: 'port ranges need protocol tcp or udp', check: (r) => (r.portRangeMin === undefined && r.portRangeMax === undefined) || r.protocol === 'tcp' || r.protocol === 'udp' },
    ],
  },
);
export type SecurityGroupRule = t.TypeOf<typeof SecurityGroupRule>;

export const SecurityGroupSpec = struct(
  'SecurityGroupSpec',
  { networkID: ObjectName },
  {
    description: str('Description', { maxLength: 255 }),
    rules: list('SecurityGroupRules', SecurityGroupRule, { maxItems: 64, listType: 'atomic' }),
  },
);
export type SecurityGroupSpec = t.TypeOf<typeof SecurityGroupSpec>;

export const SecurityGroupStatus = struct(
  'SecurityGroupStatus',
  {},
  { observedGeneration: Generation, auditURL: AuditURL, phase: Phase, conditions: Conditions, securityGroupID: Uuid },
);
export type SecurityGroupStatus = t.TypeOf<typeof SecurityGroupStatus>;

const networkImmutable: TransitionRule<SecurityGroupSpec, SecurityGroupStatus> = (self, old) =>
  self.spec.networkID === old.spec.networkID ? [] : [ruleError('spec.networkID', self.spec.networkID, 'networkID is immutable')];

export const SecurityGroupKind = defineKind({
  kind: 'SecurityGroup',
  plural: 'securitygroups',
  shortNames: ['sg'],
  spec: SecurityGroupSpec,
  status: SecurityGroupStatus,
  columns: standardColumns('Available'),
  transitions: [networkImmutable],
});
export type SecurityGroup = ResourceObject<'SecurityGroup', SecurityGroupSpec, SecurityGroupStatus>;
export const validateSecurityGroup = SecurityGroupKind.validate;
