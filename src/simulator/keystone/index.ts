import type { Router } from '../router.js';
import { registerAppCreds } from './appcreds.js';
import { registerResources } from './resources.js';
import { registerTokens } from './tokens.js';

export function registerKeystone(router: Router): void {
  const r = router.scope('keystone', '/identity/v3');
  registerTokens(r);
  registerResources(r);
  registerAppCreds(r);
}
