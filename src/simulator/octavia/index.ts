import type { Router } from '../router.js';
import { registerChildren } from './children.js';
import { registerLoadBalancers } from './loadbalancers.js';

export function registerOctavia(router: Router): void {
  // Octavia serves the same API under /v2 and the legacy /v2.0 prefix.
  for (const prefix of ['/load-balancer/v2', '/load-balancer/v2.0']) {
    const r = router.scope('octavia', prefix);
    registerLoadBalancers(r);
    registerChildren(r);
  }
}
