/**
 * Neutron records: typed views of the wire shape (OpenStack's field names). Listed keys are checked, extra keys
 * ignored; a listed key of the wrong type makes the answer unreadable.
 */
import * as t from 'io-ts';
import { nullable } from './field.js';

const tagged = { tags: t.array(t.string), project_id: t.string, description: nullable(t.string) };

export const networkCodec = t.intersection([
  t.type({ id: t.string, name: t.string }),
  t.partial({
    ...tagged, status: t.string, subnets: t.array(t.string), admin_state_up: t.boolean, shared: t.boolean,
    'router:external': t.boolean, mtu: t.number, 'provider:network_type': nullable(t.string),
    'provider:segmentation_id': nullable(t.number), 'provider:physical_network': nullable(t.string),
  }),
]);
export type Network = t.TypeOf<typeof networkCodec>;

export const subnetCodec = t.intersection([
  t.type({ id: t.string, name: t.string, network_id: t.string, cidr: t.string, ip_version: t.number }),
  t.partial({
    ...tagged, gateway_ip: nullable(t.string), enable_dhcp: t.boolean, dns_nameservers: t.array(t.string),
    allocation_pools: t.array(t.type({ start: t.string, end: t.string })),
  }),
]);
export type Subnet = t.TypeOf<typeof subnetCodec>;

export const fixedIpCodec = t.type({ subnet_id: t.string, ip_address: t.string });

export const portCodec = t.intersection([
  t.type({ id: t.string, name: t.string, network_id: t.string }),
  t.partial({
    ...tagged, mac_address: t.string, fixed_ips: t.array(fixedIpCodec), device_id: t.string, device_owner: t.string,
    status: t.string, security_groups: t.array(t.string), admin_state_up: t.boolean, 'binding:vnic_type': t.string,
    allowed_address_pairs: t.array(t.intersection([t.type({ ip_address: t.string }), t.partial({ mac_address: t.string })])),
  }),
]);
export type Port = t.TypeOf<typeof portCodec>;

export const securityGroupRuleCodec = t.intersection([
  t.type({ id: t.string, security_group_id: t.string, direction: t.string }),
  t.partial({
    ethertype: t.string, protocol: nullable(t.string), port_range_min: nullable(t.number), port_range_max: nullable(t.number),
    remote_ip_prefix: nullable(t.string), remote_group_id: nullable(t.string), description: nullable(t.string), project_id: t.string,
  }),
]);
export type SecurityGroupRule = t.TypeOf<typeof securityGroupRuleCodec>;

export const securityGroupCodec = t.intersection([
  t.type({ id: t.string, name: t.string }),
  t.partial({ ...tagged, security_group_rules: t.array(securityGroupRuleCodec), stateful: t.boolean }),
]);
export type SecurityGroup = t.TypeOf<typeof securityGroupCodec>;

export const floatingIpCodec = t.intersection([
  t.type({ id: t.string, floating_ip_address: t.string, floating_network_id: t.string }),
  t.partial({
    ...tagged, port_id: nullable(t.string), fixed_ip_address: nullable(t.string), status: t.string, router_id: nullable(t.string),
  }),
]);
export type FloatingIp = t.TypeOf<typeof floatingIpCodec>;

export const routerCodec = t.intersection([
  t.type({ id: t.string, name: t.string }),
  t.partial({
    ...tagged, status: t.string, admin_state_up: t.boolean,
    external_gateway_info: nullable(t.intersection([t.type({ network_id: t.string }), t.partial({ enable_snat: t.boolean, external_fixed_ips: t.array(fixedIpCodec) })])),
  }),
]);
export type Router = t.TypeOf<typeof routerCodec>;
