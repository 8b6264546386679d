import type { Router } from '../router.js';
import { registerGlance as registerImages } from './images.js';

export function registerGlance(router: Router): void {
  registerImages(router.scope('glance', '/image'));
}
