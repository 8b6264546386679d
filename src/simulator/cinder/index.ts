import type { Router } from '../router.js';
import { registerAttachments } from './attachments.js';
import { registerQuotas } from './quotas.js';
import { registerTypes } from './types.js';
import { registerVolumeActions, registerVolumes } from './volumes.js';

export function registerCinder(router: Router): void {
  const r = router.scope('cinder', '/volume/v3/:project_id');
  registerVolumes(r);
  registerVolumeActions(r);
  registerAttachments(r);
  registerTypes(r);
  registerQuotas(r);
}
