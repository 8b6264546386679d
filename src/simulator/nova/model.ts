// Nova's records. A server keeps vm_state/task_state/power_state like Nova's instances table; the API
// status is derived from them (see view.ts), never stored, so the two can never disagree.

export interface FlavorSnapshot {
  id: string; name: string; vcpus: number; ram: number; disk: number; ephemeral: number; swap: number;
  extraSpecs: Record<string, string>;
}

export interface Bdm {
  id: string;
  volumeId: string;
  device: string;
  bootIndex: number | null;
  deleteOnTermination: boolean;
  tag: string | null;
  attachmentId: string;
}

export interface InstanceAction {
  action: string; requestId: string; userId: string; projectId: string; startTime: number; message: string | null;
}

export interface Server {
  id: string;
  seq: number;
  name: string;
  projectId: string;
  userId: string;
  created: number;
  updated: number;
  /** Bumped whenever state is forced, so transitions scheduled before are dropped. */
  gen: number;
  vmState: string;
  taskState: string | null;
  powerState: number;
  launchedAt: number | null;
  imageId: string;
  flavor: FlavorSnapshot;
  keyName: string | null;
  userData: string | null;
  metadata: Record<string, string>;
  tags: string[];
  description: string | null;
  host: string | null;
  nodeName: string | null;
  az: string;
  configDrive: string;
  securityGroups: string[];
  portIds: string[];
  /** Ports Nova created for `networks: [{uuid}]`; deleted with the server. Pre-existing ports are only unbound. */
  ownedPortIds: string[];
  bdms: Bdm[];
  fault: { code: number; message: string; created: number } | null;
  locked: boolean;
  lockedReason: string | null;
  accessIPv4: string;
  accessIPv6: string;
  serverGroupId: string | null;
  reservationId: string;
  actions: InstanceAction[];
  /** Resource provider the scheduler placed it on (placement consumer = server id). */
  rpUuid: string | null;
  /** 2.74 requested destination (admin only): the scheduler only considers this host / node. */
  requestedHost: string | null;
  requestedNode: string | null;
}

export interface Flavor {
  id: string; name: string; vcpus: number; ram: number; disk: number; ephemeral: number; swap: number;
  rxtxFactor: number; isPublic: boolean; disabled: boolean; description: string | null; extraSpecs: Record<string, string>;
}

export interface Keypair {
  name: string; userId: string; publicKey: string; fingerprint: string; type: string; created: number; id: number;
}

export interface ServerGroup {
  id: string; name: string; policy: string; rules: Record<string, unknown>; members: string[]; projectId: string; userId: string;
}

export interface Aggregate {
  id: number; uuid: string; name: string; az: string | null; hosts: string[]; metadata: Record<string, string>;
  created: number; updated: number | null;
}

export interface ComputeService {
  id: string; legacyId: number; binary: string; host: string; zone: string; status: 'enabled' | 'disabled';
  state: 'up' | 'down'; disabledReason: string | null; forcedDown: boolean;
  /** Its cell does not answer (control.computeHost): 2.69+ lists it as {binary, host, status: UNKNOWN}, older versions omit it. */
  cellDown?: boolean;
}

export interface Hypervisor {
  id: string; legacyId: number; hostname: string; host: string; type: string; hostIp: string; serviceId: string;
  vcpus: number; memoryMb: number; localGb: number;
  /** false: its host has no host mapping yet (discover_hosts has not run), so os-hypervisors leaves it out. */
  mapped?: boolean;
}

export interface NovaState {
  servers: Map<string, Server>;
  flavors: Map<string, Flavor>;
  keypairs: Map<string, Keypair>;
  serverGroups: Map<string, ServerGroup>;
  aggregates: Map<number, Aggregate>;
  services: Map<string, ComputeService>;
  hypervisors: Map<string, Hypervisor>;
  quotas: Map<string, Record<string, number>>;
  /** Per-project instances/cores/ram in use, kept in step with servers (quota checks stay O(1)). */
  usage: Map<string, { instances: number; cores: number; ram: number }>;
  nextSeq: number;
  nextAggregateId: number;
  nextKeypairId: number;
}

export const createNovaState = (): NovaState => ({
  servers: new Map(), flavors: new Map(), keypairs: new Map(), serverGroups: new Map(), aggregates: new Map(),
  services: new Map(), hypervisors: new Map(), quotas: new Map(), usage: new Map(), nextSeq: 1, nextAggregateId: 1, nextKeypairId: 1,
});

export const keypairKey = (userId: string, name: string): string => `${userId}/${name}`;

export const DEFAULT_QUOTAS: Record<string, number> = {
  instances: 200, cores: 400, ram: 1024000, key_pairs: 100, metadata_items: 128, server_groups: 10,
  server_group_members: 10, injected_files: 5, injected_file_content_bytes: 10240, injected_file_path_bytes: 255,
};

export const POWER = { NOSTATE: 0, RUNNING: 1, PAUSED: 3, SHUTDOWN: 4, CRASHED: 6, SUSPENDED: 7 } as const;
