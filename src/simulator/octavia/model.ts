export interface LbCommon {
  id: string; name: string; description: string; projectId: string; provisioningStatus: string;
  operatingStatus: string; adminStateUp: boolean; tags: string[]; created: number; updated: number | null;
  /**
   * Created by a fully populated create that Zed's worker never saw (it reads the LB before the API commits its
   * children): stays PENDING_CREATE through every settle until a change's flow marks it (children.ts, mutate).
   */
  unseen?: boolean;
}

export interface LoadBalancer extends LbCommon {
  vipAddress: string; vipPortId: string; vipSubnetId: string; vipNetworkId: string; provider: string;
  flavorId: string | null; az: string | null; gen: number;
}

export interface Listener extends LbCommon {
  lbId: string; protocol: string; protocolPort: number; defaultPoolId: string | null; connectionLimit: number;
  allowedCidrs: string[] | null; timeoutClientData: number; timeoutMemberConnect: number; timeoutMemberData: number;
  timeoutTcpInspect: number; insertHeaders: Record<string, string>; defaultTlsContainerRef: string | null;
}

export interface Pool extends LbCommon {
  lbId: string; listenerIds: string[]; protocol: string; lbAlgorithm: string;
  sessionPersistence: Record<string, unknown> | null; healthmonitorId: string | null; tlsEnabled: boolean;
}

export interface Member extends LbCommon {
  poolId: string; address: string; protocolPort: number; subnetId: string | null; weight: number; backup: boolean;
  monitorAddress: string | null; monitorPort: number | null;
}

export interface HealthMonitor extends LbCommon {
  poolId: string; type: string; delay: number; timeout: number; maxRetries: number; maxRetriesDown: number;
  httpMethod: string | null; urlPath: string | null; expectedCodes: string | null; httpVersion: number | null;
  domainName: string | null;
}

export interface OctaviaState {
  lbs: Map<string, LoadBalancer>;
  listeners: Map<string, Listener>;
  pools: Map<string, Pool>;
  members: Map<string, Member>;
  healthmonitors: Map<string, HealthMonitor>;
}

export const createOctaviaState = (): OctaviaState => ({
  lbs: new Map(), listeners: new Map(), pools: new Map(), members: new Map(), healthmonitors: new Map(),
});
