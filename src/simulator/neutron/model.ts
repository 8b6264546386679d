export interface Std {
  id: string; name: string; description: string; projectId: string; tags: string[]; created: number;
  updated: number; revision: number;
}

export interface Network extends Std {
  adminStateUp: boolean; shared: boolean; external: boolean; mtu: number; portSecurity: boolean;
  providerType: string; providerPhysnet: string | null; providerSegment: number | null; subnetIds: string[];
  isDefault: boolean;
}

export interface Subnet extends Std {
  networkId: string; cidr: string; ipVersion: 4 | 6; gatewayIp: string | null;
  pools: Array<{ start: string; end: string }>; enableDhcp: boolean; dnsNameservers: string[];
  hostRoutes: Array<{ destination: string; nexthop: string }>;
  /** Allocation bookkeeping: used addresses and the scan cursor (an offset into the pools). */
  used: Set<string>; cursor: number;
}

export interface Port extends Std {
  networkId: string; macAddress: string; fixedIps: Array<{ subnet_id: string; ip_address: string }>;
  deviceId: string; deviceOwner: string; adminStateUp: boolean; securityGroups: string[];
  allowedAddressPairs: Array<{ ip_address: string; mac_address: string }>; portSecurity: boolean;
  vnicType: string; hostId: string; status: string;
}

export interface SecurityGroup extends Std { stateful: boolean; isDefault: boolean }

export interface SecurityGroupRule {
  id: string; securityGroupId: string; direction: string; ethertype: string; protocol: string | null;
  portMin: number | null; portMax: number | null; remoteIpPrefix: string | null; remoteGroupId: string | null;
  description: string; projectId: string; created: number; updated: number; revision: number;
}

export interface FloatingIp extends Std {
  floatingNetworkId: string; floatingIpAddress: string; portId: string | null; fixedIpAddress: string | null;
  routerId: string | null; status: string;
}

export interface Router extends Std {
  adminStateUp: boolean; externalNetworkId: string | null; interfacePortIds: string[]; status: string;
}

export interface NeutronState {
  networks: Map<string, Network>;
  subnets: Map<string, Subnet>;
  ports: Map<string, Port>;
  securityGroups: Map<string, SecurityGroup>;
  rules: Map<string, SecurityGroupRule>;
  floatingIps: Map<string, FloatingIp>;
  routers: Map<string, Router>;
  macs: Set<string>;
  /** Per-project quota overrides set by PUT /quotas/{project_id} (defaults in quotas.ts). */
  quotas: Map<string, Record<string, number>>;
}

export const createNeutronState = (): NeutronState => ({
  networks: new Map(), subnets: new Map(), ports: new Map(), securityGroups: new Map(), rules: new Map(),
  floatingIps: new Map(), routers: new Map(), macs: new Set(), quotas: new Map(),
});
