/** The Octavia client: every load-balancer function bound to one session (`os.octavia.getLoadBalancer(id)`). */
import type { HttpSession } from '../http.js';
import type { BoundClient } from '../bind.js';
import { bindClient } from '../bind.js';
import { createLoadBalancer, deleteLoadBalancer, findLoadBalancerByName, getLoadBalancer, listLoadBalancers, lookupLoadBalancerByName, updateLoadBalancer } from './load-balancers.js';
import { createListener, deleteListener, findListenerByName, getListener, listListeners, lookupListenerByName, updateListener } from './listeners.js';
import {
  createMember, createPool, deleteMember, deletePool, findPoolByName, getMember, getPool, listMembers, listPools, lookupPoolByName, replaceMembers, updateMember, updatePool,
} from './pools.js';
import { createHealthMonitor, deleteHealthMonitor, findHealthMonitorByName, getHealthMonitor, listHealthMonitors, lookupHealthMonitorByName, updateHealthMonitor } from './health-monitors.js';

const octaviaFunctions = {
  listLoadBalancers, getLoadBalancer, findLoadBalancerByName, lookupLoadBalancerByName, createLoadBalancer, updateLoadBalancer, deleteLoadBalancer,
  listListeners, getListener, findListenerByName, lookupListenerByName, createListener, updateListener, deleteListener,
  listPools, getPool, findPoolByName, lookupPoolByName, createPool, updatePool, deletePool,
  listMembers, getMember, createMember, updateMember, deleteMember, replaceMembers,
  listHealthMonitors, getHealthMonitor, findHealthMonitorByName, lookupHealthMonitorByName, createHealthMonitor, updateHealthMonitor, deleteHealthMonitor,
};
export type OctaviaClient = BoundClient<typeof octaviaFunctions>;
export const createOctaviaClient = (http: HttpSession): OctaviaClient => bindClient(http, octaviaFunctions);

export * from './load-balancers.js';
export * from './listeners.js';
export * from './pools.js';
export * from './health-monitors.js';
