export interface Volume {
  id: string; name: string | null; description: string | null; projectId: string; userId: string; size: number;
  status: string; attachStatus: 'attached' | 'detached'; migrationStatus: string | null; typeId: string; az: string;
  bootable: boolean; multiattach: boolean; metadata: Record<string, string>; imageMetadata: Record<string, string>;
  created: number; updated: number; gen: number; snapshotId: string | null; sourceVolid: string | null;
  imageId: string | null; seq: number;
}

export interface VolumeAttachment {
  id: string; volumeId: string; instanceId: string; status: string; attachMode: 'rw' | 'ro';
  attachedAt: number | null; detachedAt: number | null; device: string | null; hostName: string | null;
  connector: Record<string, unknown> | null; created: number;
}

export interface VolumeType {
  id: string; name: string; description: string | null; isPublic: boolean; extraSpecs: Record<string, string>;
}

export interface CinderState {
  volumes: Map<string, Volume>;
  attachments: Map<string, VolumeAttachment>;
  types: Map<string, VolumeType>;
  defaultTypeId: string;
  nextSeq: number;
  /** Per-project quota overrides set by PUT /os-quota-sets/{project_id} (defaults in quotas.ts). */
  quotas: Map<string, Record<string, number>>;
}

export const createCinderState = (): CinderState => ({
  volumes: new Map(), attachments: new Map(), types: new Map(), defaultTypeId: '', nextSeq: 1, quotas: new Map(),
});
