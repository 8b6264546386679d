/** The Neutron client: every networking function bound to one session (`os.neutron.findNetworkByName(n)`). */
import type { HttpSession } from '../http.js';
import type { BoundClient } from '../bind.js';
import { bindClient } from '../bind.js';
import {
  createNetwork, createSubnet, deleteNetwork, deleteSubnet, findNetworkByName, findSubnetByName, getNetwork, getSubnet, listNetworks, listSubnets,
  lookupNetworkByName, updateNetwork, updateSubnet,
} from './networks.js';
import { createPort, deletePort, findPortByName, getPort, listPorts, updatePort } from './ports.js';
import {
  createSecurityGroup, createSecurityGroupRule, deleteSecurityGroup, deleteSecurityGroupRule, findSecurityGroupByName, getSecurityGroup,
  listSecurityGroupRules, listSecurityGroups, updateSecurityGroup,
} from './security-groups.js';
import { associateFloatingIp, createFloatingIp, deleteFloatingIp, getFloatingIp, listFloatingIps } from './floating-ips.js';
import { addTag, listTags, removeTag, replaceTags } from './tags.js';
import { addRouterInterface, createRouter, deleteRouter, findRouterByName, getRouter, listRouters, removeRouterInterface, updateRouter } from './routers.js';
import { getQuota, updateQuota } from './quotas.js';

const neutronFunctions = {
  listNetworks, getNetwork, findNetworkByName, lookupNetworkByName, createNetwork, updateNetwork, deleteNetwork,
  listSubnets, getSubnet, findSubnetByName, createSubnet, updateSubnet, deleteSubnet,
  listPorts, getPort, findPortByName, createPort, updatePort, deletePort,
  listSecurityGroups, getSecurityGroup, findSecurityGroupByName, createSecurityGroup, updateSecurityGroup, deleteSecurityGroup,
  listSecurityGroupRules, createSecurityGroupRule, deleteSecurityGroupRule,
  listFloatingIps, getFloatingIp, createFloatingIp, associateFloatingIp, deleteFloatingIp,
  listTags, replaceTags, addTag, removeTag,
  listRouters, getRouter, findRouterByName, createRouter, updateRouter, deleteRouter, addRouterInterface, removeRouterInterface,
  getQuota, updateQuota,
};
export type NeutronClient = BoundClient<typeof neutronFunctions>;
export const createNeutronClient = (http: HttpSession): NeutronClient => bindClient(http, neutronFunctions);

export * from './networks.js';
export * from './ports.js';
export * from './security-groups.js';
export * from './floating-ips.js';
export * from './tags.js';
export * from './routers.js';
export * from './quotas.js';
