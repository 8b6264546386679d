// Every service's routes in one router.
import { registerCinder } from './cinder/index.js';
import { registerGlance } from './glance/index.js';
import { registerIronic } from './ironic/index.js';
import { registerKeystone } from './keystone/index.js';
import { registerNeutron } from './neutron/index.js';
import { registerNova } from './nova/index.js';
import { registerOctavia } from './octavia/index.js';
import { registerPlacement } from './placement/index.js';
import { Router } from './router.js';
import { registerVersions } from './versions.js';

export function buildRouter(): Router {
  const router = new Router();
  registerVersions(router);
  registerKeystone(router);
  registerNova(router);
  registerGlance(router);
  registerCinder(router);
  registerNeutron(router);
  registerOctavia(router);
  registerPlacement(router);
  registerIronic(router);
  return router;
}
