import type { Router } from '../router.js';
import { registerActions } from './actions.js';
import { registerAdmin } from './admin.js';
import { registerFlavors } from './flavors.js';
import { registerMetadataService } from './metadata-service.js';
import { registerMisc } from './misc.js';
import { registerQuotas } from './quotas.js';
import { registerServerExtras } from './server-extras.js';
import { registerServers } from './servers.js';
import { registerVolumeAttachments } from './volume-attachments.js';

export function registerNova(router: Router): void {
  const r = router.scope('nova', '/compute/v2.1');
  registerServers(r);
  registerServerExtras(r);
  registerActions(r);
  registerVolumeAttachments(r);
  registerFlavors(r);
  registerMisc(r);
  registerQuotas(r);
  registerAdmin(r);
  // nova-api-metadata: its own root, no token (the guest's view, behind the metadata proxy)
  registerMetadataService(router);
}
