import type { Router } from '../router.js';
import { registerIronic as register } from './routes.js';

export function registerIronic(router: Router): void {
  register(router.scope('ironic', '/baremetal'));
}
