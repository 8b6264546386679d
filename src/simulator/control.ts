// Programmatic control of a running simulator: everything /_sim offers over HTTP, callable in-process
// (tests seed 10,000 servers this way without 10,000 POSTs).
import type { CallFilter, CallRecord } from './calls.js';
import { mergeConfig } from './config.js';
import type { SimConfig } from './config.js';
import type { FaultRule, FaultSpec } from './faults.js';
import { SimError } from './http.js';
import { parseIso, uuid } from './ids.js';
import type { Sim } from './state.js';
import { userIdOf } from './keystone/seed.js';
import { createPort } from './neutron/ports.js';
import { createServer } from './nova/create.js';
import { COMPUTE_HOST, startBuild, touch } from './nova/lifecycle.js';
import { POWER } from './nova/model.js';

export interface SeedServers {
  /** Project name or id (default demo). */
  project?: string;
  count?: number;
  /** Exact name for every server (duplicates on purpose), or a prefix numbered from 1. */
  name?: string;
  namePrefix?: string;
  flavor?: string;
  image?: string;
  /** Give each server a port on the project's first network (default false: no addresses). */
  network?: boolean;
  /** ACTIVE and launched (default), or BUILD walking the normal lifecycle. */
  state?: 'ACTIVE' | 'BUILD';
}

/** A nova-compute host (control.computeHost, POST /_sim/compute-hosts). */
export interface ComputeHostSpec {
  host: string;
  /** Availability zone of a new service (default nova). */
  zone?: string;
  /** false: the host has no host mapping (discover_hosts has not run): os-hypervisors leaves it out. Default true. */
  mapped?: boolean;
  /** true: the host's cell does not answer: os-services 2.69+ lists it as status UNKNOWN. Default false. */
  cellDown?: boolean;
}

export interface ForceServer {
  status?: 'ACTIVE' | 'ERROR' | 'SHUTOFF' | 'BUILD';
  vm_state?: string;
  task_state?: string | null;
  power_state?: number;
  /** ISO time, or null to mark the server never launched. */
  launched_at?: string | null;
  image?: string;
  fault?: string;
  /** Keep transitions scheduled before (default: they are cancelled, as a reset does). */
  keepPending?: boolean;
}

export class SimControl {
  constructor(readonly sim: Sim, private readonly reseed: () => void) {}

  /** Back to the seeded cloud: records, pending transitions, faults, calls and config all reset. */
  reset(): void {
    this.reseed();
  }

  advance(ms: number): number {
    if (this.sim.clock.kind !== 'manual') throw new SimError(409, 'the real clock cannot be advanced');
    this.sim.clock.advance(ms);
    this.sim.settle();
    return this.sim.clock.now();
  }

  configure(patch: Record<string, unknown>): SimConfig {
    const copy = structuredClone(this.sim.config);
    try {
      mergeConfig(copy as unknown as Record<string, unknown>, patch);
    } catch (e) {
      throw new SimError(400, (e as Error).message);
    }
    this.sim.config = copy;
    return copy;
  }

  addFault(spec: FaultSpec): FaultRule {
    return this.sim.faults.add(spec);
  }

  clearFaults(): void {
    this.sim.faults.clear();
  }

  calls(filter?: CallFilter): CallRecord[] {
    return this.sim.calls.list(filter);
  }

  private projectId(ref: string | undefined): string {
    const ks = this.sim.keystone;
    const r = ref ?? 'demo';
    if (ks.projects.has(r)) return r;
    const p = [...ks.projects.values()].find((x) => x.name === r);
    if (!p) throw new SimError(404, `no project ${r}`);
    return p.id;
  }

  /** Creates servers directly in the store (no quota, no scheduling): for scale tests and duplicate names. */
  createServers(o: SeedServers = {}): string[] {
    const sim = this.sim;
    sim.settle();
    const projectId = this.projectId(o.project);
    const userId = [...sim.keystone.users.values()].find((u) => u.defaultProjectId === projectId)?.id ?? userIdOf('admin');
    const flavor = sim.nova.flavors.get(o.flavor ?? '1') ?? [...sim.nova.flavors.values()].find((f) => f.name === o.flavor);
    if (!flavor) throw new SimError(404, `no flavor ${o.flavor ?? '1'}`);
    const image = o.image ?? [...sim.glance.images.values()].find((i) => i.visibility === 'public')?.id ?? '';
    const net = o.network ? [...sim.neutron.networks.values()].find((n) => n.projectId === projectId && !n.external) : undefined;
    if (o.network && !net) throw new SimError(404, `project ${projectId} has no network`);
    const count = Math.max(1, o.count ?? 1);
    const active = (o.state ?? 'ACTIVE') === 'ACTIVE';
    const ids: string[] = [];
    for (let i = 1; i <= count; i++) {
      const name = o.name ?? `${o.namePrefix ?? 'server-'}${i}`;
      const s = createServer(sim, { name, projectId, userId, flavor, imageId: image, networks: net ? [{ uuid: net.id }] : [], active });
      if (!active) startBuild(sim, s);
      ids.push(s.id);
    }
    return ids;
  }

  forceServer(id: string, o: ForceServer): Record<string, unknown> {
    const sim = this.sim;
    sim.settle();
    const s = sim.nova.servers.get(id);
    if (!s) throw new SimError(404, `no server ${id}`);
    if (!o.keepPending) s.gen++;
    switch (o.status) {
      case 'ACTIVE': s.vmState = 'active'; s.taskState = null; s.powerState = POWER.RUNNING; s.fault = null; s.launchedAt ??= sim.now(); s.host ??= COMPUTE_HOST; break;
      case 'ERROR': s.vmState = 'error'; s.taskState = null; s.fault = { code: 500, message: o.fault ?? 'Simulated failure (forced by /_sim)', created: sim.now() }; break;
      case 'SHUTOFF': s.vmState = 'stopped'; s.taskState = null; s.powerState = POWER.SHUTDOWN; break;
      case 'BUILD': s.vmState = 'building'; s.taskState = 'spawning'; s.powerState = POWER.NOSTATE; break;
      case undefined: break;
      default: throw new SimError(400, `status must be ACTIVE, ERROR, SHUTOFF or BUILD`);
    }
    if (o.vm_state !== undefined) s.vmState = o.vm_state;
    if (o.task_state !== undefined) s.taskState = o.task_state;
    if (o.power_state !== undefined) s.powerState = o.power_state;
    if (o.image !== undefined) s.imageId = o.image;
    if (o.fault !== undefined && s.fault) s.fault.message = o.fault;
    if (o.launched_at !== undefined) {
      const t = o.launched_at === null ? null : parseIso(o.launched_at);
      if (t !== null && Number.isNaN(t)) throw new SimError(400, `bad launched_at ${String(o.launched_at)}`);
      s.launchedAt = t;
    }
    touch(sim, s);
    return { id: s.id, vm_state: s.vmState, task_state: s.taskState, power_state: s.powerState, launched_at: s.launchedAt, image: s.imageId };
  }

  forceVolume(id: string, o: { status?: string; attach_status?: 'attached' | 'detached'; keepPending?: boolean }): Record<string, unknown> {
    this.sim.settle();
    const v = this.sim.cinder.volumes.get(id);
    if (!v) throw new SimError(404, `no volume ${id}`);
    if (!o.keepPending) v.gen++;
    if (o.status !== undefined) v.status = o.status;
    if (o.attach_status !== undefined) v.attachStatus = o.attach_status;
    v.updated = this.sim.now();
    return { id: v.id, status: v.status, attach_status: v.attachStatus };
  }

  /**
   * ERROR, or a PENDING_* state that never settles (nothing is scheduled to end it); or a VIP address or VIP
   * port id no Octavia should report (an empty or non-IP address, an empty port id): the record only, the
   * VIP port itself is left as it is, so setting the old values back restores the load balancer.
   */
  forceLoadBalancer(id: string, o: { provisioning_status?: string; operating_status?: string; vip_address?: string; vip_port_id?: string; keepPending?: boolean }): Record<string, unknown> {
    this.sim.settle();
    const lb = this.sim.octavia.lbs.get(id);
    if (!lb) throw new SimError(404, `no load balancer ${id}`);
    for (const key of ['vip_address', 'vip_port_id'] as const) if (o[key] !== undefined && typeof o[key] !== 'string') throw new SimError(400, `${key} must be a string`);
    if (!o.keepPending) lb.gen++;
    if (o.provisioning_status !== undefined) lb.provisioningStatus = o.provisioning_status;
    if (o.operating_status !== undefined) lb.operatingStatus = o.operating_status;
    if (o.vip_address !== undefined) lb.vipAddress = o.vip_address;
    if (o.vip_port_id !== undefined) lb.vipPortId = o.vip_port_id;
    lb.updated = this.sim.now();
    return { id: lb.id, provisioning_status: lb.provisioningStatus, operating_status: lb.operatingStatus, vip_address: lb.vipAddress, vip_port_id: lb.vipPortId };
  }

  /** A floating IP's address as no Neutron should report it (empty, not an IP); the pool's allocation is untouched. */
  forceFloatingIp(id: string, o: { floating_ip_address?: string }): Record<string, unknown> {
    this.sim.settle();
    const f = this.sim.neutron.floatingIps.get(id);
    if (!f) throw new SimError(404, `no floating IP ${id}`);
    if (o.floating_ip_address !== undefined && typeof o.floating_ip_address !== 'string') throw new SimError(400, 'floating_ip_address must be a string');
    if (o.floating_ip_address !== undefined) f.floatingIpAddress = o.floating_ip_address;
    return { id: f.id, floating_ip_address: f.floatingIpAddress, port_id: f.portId };
  }

  /**
   * Registers a nova-compute service and its hypervisor on `host` (or, when the host has one, changes its flags):
   * the seed for host-mapping and down-cell cases. Omitted flags keep their value (new hosts: mapped, cell up).
   */
  computeHost(o: ComputeHostSpec): { serviceId: string; hypervisorId: string; host: string; mapped: boolean; cellDown: boolean } {
    const nova = this.sim.nova;
    if (typeof o.host !== 'string' || o.host === '') throw new SimError(400, 'host must be a non-empty string');
    if (o.zone !== undefined && typeof o.zone !== 'string') throw new SimError(400, 'zone must be a string');
    if (o.mapped !== undefined && typeof o.mapped !== 'boolean') throw new SimError(400, 'mapped must be a boolean');
    if (o.cellDown !== undefined && typeof o.cellDown !== 'boolean') throw new SimError(400, 'cellDown must be a boolean');
    let svc = [...nova.services.values()].find((x) => x.binary === 'nova-compute' && x.host === o.host);
    if (svc === undefined) {
      const legacyId = Math.max(0, ...[...nova.services.values()].map((x) => x.legacyId)) + 1;
      svc = { id: uuid(), legacyId, binary: 'nova-compute', host: o.host, zone: o.zone ?? 'nova', status: 'enabled', state: 'up', disabledReason: null, forcedDown: false };
      nova.services.set(svc.id, svc);
    }
    const serviceId = svc.id;
    let hyp = [...nova.hypervisors.values()].find((h) => h.serviceId === serviceId);
    if (hyp === undefined) {
      const legacyId = Math.max(0, ...[...nova.hypervisors.values()].map((h) => h.legacyId)) + 1;
      hyp = { id: uuid(), legacyId, hostname: o.host, host: o.host, type: 'QEMU', hostIp: '127.0.0.1', serviceId, vcpus: 64, memoryMb: 262144, localGb: 1000 };
      nova.hypervisors.set(hyp.id, hyp);
    }
    if (o.mapped !== undefined) hyp.mapped = o.mapped;
    if (o.cellDown !== undefined) svc.cellDown = o.cellDown;
    return { serviceId, hypervisorId: hyp.id, host: o.host, mapped: hyp.mapped !== false, cellDown: svc.cellDown === true };
  }

  /** A second record with the same exact name (and project) as an existing one. */
  duplicate(kind: string, id: string): string {
    const sim = this.sim;
    sim.settle();
    const now = sim.now();
    switch (kind) {
      case 'server': {
        const s = sim.nova.servers.get(id);
        if (!s) throw new SimError(404, `no server ${id}`);
        const flavor = sim.nova.flavors.get(s.flavor.id) ?? { ...s.flavor, rxtxFactor: 1, isPublic: true, disabled: false, description: null };
        const c = createServer(sim, { name: s.name, projectId: s.projectId, userId: s.userId, flavor, imageId: s.imageId, metadata: { ...s.metadata }, active: s.vmState === 'active' });
        return c.id;
      }
      case 'volume': {
        const v = sim.cinder.volumes.get(id);
        if (!v) throw new SimError(404, `no volume ${id}`);
        const c = { ...structuredClone(v), id: uuid(), created: now, updated: now, seq: sim.cinder.nextSeq++, status: v.status === 'in-use' ? 'available' : v.status, attachStatus: 'detached' as const };
        sim.cinder.volumes.set(c.id, c);
        return c.id;
      }
      case 'network': {
        const n = sim.neutron.networks.get(id);
        if (!n) throw new SimError(404, `no network ${id}`);
        const c = { ...structuredClone(n), id: uuid(), subnetIds: [], created: now, updated: now };
        sim.neutron.networks.set(c.id, c);
        return c.id;
      }
      case 'loadbalancer': {
        const lb = sim.octavia.lbs.get(id);
        if (!lb) throw new SimError(404, `no load balancer ${id}`);
        const newId = uuid();
        const port = createPort(sim, { networkId: lb.vipNetworkId, projectId: lb.projectId, name: `octavia-lb-${newId}`, deviceId: `lb-${newId}`, deviceOwner: 'Octavia', fixedIps: [{ subnet_id: lb.vipSubnetId }] });
        sim.octavia.lbs.set(newId, { ...structuredClone(lb), id: newId, vipPortId: port.id, vipAddress: port.fixedIps[0]?.ip_address ?? '', created: now, gen: 0 });
        return newId;
      }
      case 'image': {
        const i = sim.glance.images.get(id);
        if (!i) throw new SimError(404, `no image ${id}`);
        const c = { ...i, id: uuid(), tags: [...i.tags], properties: { ...i.properties }, created: now, updated: now };
        sim.glance.images.set(c.id, c);
        return c.id;
      }
      default:
        throw new SimError(400, `cannot duplicate kind ${kind}: server, volume, network, loadbalancer or image`);
    }
  }
}
