/** Per scenario: where its mutating calls go and which cloud object faults may disturb or duplicate (./faults.ts). */
import type { FaultTarget } from './faults.js';

const regentNamed = (prefix: string) => (names: Array<{ id: string; name: string; status?: string }>) => names.find((n) => n.name.startsWith(prefix));

export const FAULT_TARGETS: Record<string, FaultTarget> = {
  server: {
    mutationPath: '/compute/v2.1/servers',
    object: { kind: 'server', find: (c) => regentNamed('web-1')(c.servers) },
    classes: ['409', '5xx', 'timeout', 'latency', 'duplicate', 'unknown-status', 'hidden-task-state'],
  },
  volume: {
    mutationPath: '/volume/v3/.*/volumes',
    object: { kind: 'volume', find: (c) => regentNamed('volume-')(c.volumes) },
    classes: ['409', '5xx', 'timeout', 'latency', 'duplicate', 'unknown-status'],
  },
  attachment: {
    mutationPath: 'os-volume_attachments|/attachments',
    object: { kind: 'volume', find: (c) => regentNamed('volume-')(c.volumes) },
    classes: ['409', '5xx', 'timeout', 'latency', 'unknown-status', 'hidden-task-state'],
  },
  'load-balancer': {
    mutationPath: '/lbaas/|/floatingips',
    object: { kind: 'loadbalancer', find: (c) => regentNamed('lb-')(c.loadBalancers) },
    classes: ['409', '5xx', 'timeout', 'latency', 'duplicate', 'unknown-status', 'pending-forever'],
  },
  'security-group': {
    mutationPath: '/security-group',
    classes: ['409', '5xx', 'timeout', 'latency'],
  },
  vlan: {
    mutationPath: '/network/v2.0/(networks|subnets)',
    object: { kind: 'network', find: (c) => regentNamed('network-')(c.networks) },
    classes: ['409', '5xx', 'timeout', 'latency', 'duplicate'],
  },
  identity: {
    mutationPath: '/identity/v3/(projects|users|credentials|.*application_credentials)',
    classes: ['409', '5xx', 'timeout', 'latency'],
  },
};
