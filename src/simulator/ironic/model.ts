export interface Node {
  uuid: string; name: string | null; instanceUuid: string | null; provisionState: string;
  targetProvisionState: string | null; powerState: string | null; targetPowerState: string | null;
  maintenance: boolean; resourceClass: string | null; driver: string; properties: Record<string, unknown>;
  instanceInfo: Record<string, unknown>; extra: Record<string, unknown>; lastError: string | null;
  created: number; updated: number | null; provisionUpdated: number | null; owner: string | null; gen: number;
}

export interface IronicState { nodes: Map<string, Node> }
export const createIronicState = (): IronicState => ({ nodes: new Map() });
