import type { Router } from '../router.js';
import { registerPlacement as register } from './routes.js';

export function registerPlacement(router: Router): void {
  register(router.scope('placement', '/placement'));
}
