// Every service's routes in one router.
import { registerKeystone } from './keystone/index.js';
import { Router } from './router.js';
import { registerVersions } from './versions.js';

export function buildRouter(): Router {
  const router = new Router();
  registerVersions(router);
  registerKeystone(router);
  return router;
}
