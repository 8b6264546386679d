/** The Cinder client: every block-storage function bound to one session (`os.cinder.getVolume(id)`). */
import type { HttpSession } from '../http.js';
import type { BoundClient } from '../bind.js';
import { bindClient } from '../bind.js';
import { createVolume, deleteVolume, findVolumeByName, getVolume, listVolumes, lookupVolumeByName, resetVolumeStatus, extendVolume } from './volumes.js';
import { getVolumeType, listVolumeTypes } from './types.js';
import { getAttachment, listAttachments } from './attachments.js';
import { getQuotaSet, updateQuotaSet } from './quotas.js';

const cinderFunctions = {
  listVolumes, getVolume, findVolumeByName, lookupVolumeByName, createVolume, deleteVolume, resetVolumeStatus, extendVolume,
  listVolumeTypes, getVolumeType, listAttachments, getAttachment,
  getQuotaSet, updateQuotaSet,
};
export type CinderClient = BoundClient<typeof cinderFunctions>;
export const createCinderClient = (http: HttpSession): CinderClient => bindClient(http, cinderFunctions);

export * from './volumes.js';
export * from './types.js';
export * from './attachments.js';
export * from './quotas.js';
