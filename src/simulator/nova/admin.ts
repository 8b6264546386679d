// Admin-only compute inventory: os-services, os-hypervisors, os-aggregates.
import { requireAdmin } from '../auth.js';
import { SimError, noContent, ok } from '../http.js';
import { isoMicros, uuid } from '../ids.js';
import { atLeast } from '../microversion.js';
import type { Ctx, Registrar } from '../router.js';
import { isObj, member, optNullableStr, optStr, optStrMap, reqStr } from '../validate.js';
import type { Aggregate, ComputeService, Hypervisor } from './model.js';

function serviceView(ctx: Ctx, s: ComputeService): Record<string, unknown> {
  return {
    id: atLeast(ctx.mv, '2.53') ? s.id : s.legacyId, binary: s.binary, host: s.host, zone: s.zone, status: s.status, state: s.state,
    updated_at: isoMicros(ctx.sim.now()), disabled_reason: s.disabledReason, ...(atLeast(ctx.mv, '2.11') ? { forced_down: s.forcedDown } : {}),
  };
}

function hypervisorView(ctx: Ctx, h: Hypervisor, detail: boolean): Record<string, unknown> {
  const sim = ctx.sim;
  const svc = sim.nova.services.get(h.serviceId);
  const servers = [...sim.nova.servers.values()].filter((s) => s.nodeName === h.hostname);
  const out: Record<string, unknown> = {
    id: atLeast(ctx.mv, '2.53') ? h.id : h.legacyId, hypervisor_hostname: h.hostname,
    state: svc?.state ?? 'up', status: svc?.status ?? 'enabled',
  };
  if (atLeast(ctx.mv, '2.53') && ctx.q('with_servers') === 'true') out.servers = servers.map((s) => ({ uuid: s.id, name: `instance-${s.seq.toString(16).padStart(8, '0')}` }));
  if (!detail) return out;
  Object.assign(out, {
    host_ip: h.hostIp, hypervisor_type: h.type, hypervisor_version: 1002003,
    service: { host: h.host, id: atLeast(ctx.mv, '2.53') ? svc?.id : svc?.legacyId, disabled_reason: svc?.disabledReason ?? null },
  });
  if (atLeast(ctx.mv, '2.88')) {
    out.uptime = null;
  } else {
    const vcpusUsed = servers.reduce((a, s) => a + s.flavor.vcpus, 0);
    const ramUsed = servers.reduce((a, s) => a + s.flavor.ram, 0) + 512;
    const diskUsed = servers.reduce((a, s) => a + s.flavor.disk, 0);
    Object.assign(out, {
      vcpus: h.vcpus, memory_mb: h.memoryMb, local_gb: h.localGb, vcpus_used: vcpusUsed, memory_mb_used: ramUsed, local_gb_used: diskUsed,
      free_ram_mb: h.memoryMb - ramUsed, free_disk_gb: h.localGb - diskUsed, current_workload: 0, running_vms: servers.length,
      disk_available_least: h.localGb - diskUsed, cpu_info: JSON.stringify({ arch: 'x86_64', model: 'sim', vendor: 'simulator' }),
    });
  }
  return out;
}

function aggregateView(ctx: Ctx, a: Aggregate): Record<string, unknown> {
  return {
    id: a.id, ...(atLeast(ctx.mv, '2.41') ? { uuid: a.uuid } : {}), name: a.name, availability_zone: a.az, hosts: [...a.hosts],
    metadata: { ...a.metadata, ...(a.az ? { availability_zone: a.az } : {}) }, created_at: isoMicros(a.created),
    updated_at: a.updated === null ? null : isoMicros(a.updated), deleted: false, deleted_at: null,
  };
}

function findService(ctx: Ctx, id: string): ComputeService {
  const s = ctx.sim.nova.services.get(id) ?? [...ctx.sim.nova.services.values()].find((x) => String(x.legacyId) === id);
  if (!s) throw new SimError(404, `Service ${id} could not be found.`);
  return s;
}

function findHypervisor(ctx: Ctx, id: string): Hypervisor {
  const h = ctx.sim.nova.hypervisors.get(id) ?? [...ctx.sim.nova.hypervisors.values()].find((x) => String(x.legacyId) === id);
  if (!h) throw new SimError(404, `Hypervisor with ID '${id}' could not be found.`);
  return h;
}

function findAggregate(ctx: Ctx): Aggregate {
  const a = ctx.sim.nova.aggregates.get(Number(ctx.p('id')));
  if (!a) throw new SimError(404, `Aggregate ${ctx.p('id')} could not be found.`);
  return a;
}

export function registerAdmin(r: Registrar): void {
  const admin = (ctx: Ctx, p: string) => requireAdmin(ctx.auth, p);
  r.get('/os-services', (ctx) => {
    admin(ctx, 'os_compute_api:os-services:list');
    const rows = [...ctx.sim.nova.services.values()].filter((s) => (ctx.q('binary') === undefined || s.binary === ctx.q('binary')) && (ctx.q('host') === undefined || s.host === ctx.q('host')));
    // A service of a cell that did not answer: 2.69+ shows the minimal construct Nova builds, older versions skip it.
    const downCell = atLeast(ctx.mv, '2.69');
    return ok({ services: rows.filter((s) => downCell || s.cellDown !== true).map((s) => (s.cellDown === true ? { binary: s.binary, host: s.host, status: 'UNKNOWN' } : serviceView(ctx, s))) });
  });
  r.put('/os-services/:id', (ctx) => {
    admin(ctx, 'os_compute_api:os-services:update');
    const b = isObj(ctx.req.body) ? ctx.req.body : {};
    if (!atLeast(ctx.mv, '2.53')) {
      const s = [...ctx.sim.nova.services.values()].find((x) => x.host === b.host && x.binary === (b.binary ?? 'nova-compute'));
      if (!s) throw new SimError(404, `Host '${String(b.host)}' is not mapped to any cell`);
      if (ctx.p('id') === 'disable' || ctx.p('id') === 'disable-log-reason') { s.status = 'disabled'; s.disabledReason = typeof b.disabled_reason === 'string' ? b.disabled_reason : null; }
      else if (ctx.p('id') === 'enable') { s.status = 'enabled'; s.disabledReason = null; }
      else throw new SimError(404, 'Unknown action');
      return ok({ service: { host: s.host, binary: s.binary, status: s.status, ...(s.disabledReason ? { disabled_reason: s.disabledReason } : {}) } });
    }
    const s = findService(ctx, ctx.p('id'));
    if (b.status === 'disabled' || b.status === 'enabled') s.status = b.status;
    if ('disabled_reason' in b) s.disabledReason = optNullableStr(b, 'disabled_reason') ?? null;
    if (s.status === 'enabled') s.disabledReason = null;
    if (typeof b.forced_down === 'boolean') { s.forcedDown = b.forced_down; s.state = b.forced_down ? 'down' : 'up'; }
    return ok({ service: serviceView(ctx, s) });
  });
  r.del('/os-services/:id', (ctx) => {
    admin(ctx, 'os_compute_api:os-services:delete');
    const s = findService(ctx, ctx.p('id'));
    if (s.binary === 'nova-compute') {
      // as Nova (Zed): refused while the host holds servers; otherwise the host leaves every aggregate, and its
      // compute nodes go with their resource providers (docs/simulator-differences.md §21)
      if ([...ctx.sim.nova.servers.values()].some((server) => server.host === s.host)) throw new SimError(409, 'Unable to delete compute service that is hosting instances. Migrate or delete the instances first.');
      for (const aggregate of ctx.sim.nova.aggregates.values()) aggregate.hosts = aggregate.hosts.filter((h) => h !== s.host);
      for (const [id, h] of ctx.sim.nova.hypervisors) {
        if (h.serviceId !== s.id) continue;
        ctx.sim.nova.hypervisors.delete(id);
        for (const [uuid, rp] of ctx.sim.placement.rps) if (rp.name === h.hostname) ctx.sim.placement.rps.delete(uuid);
      }
    }
    ctx.sim.nova.services.delete(s.id);
    return noContent();
  });

  const hyperList = (ctx: Ctx, detail: boolean) => {
    admin(ctx, 'os_compute_api:os-hypervisors:list');
    const pattern = atLeast(ctx.mv, '2.53') ? ctx.q('hypervisor_hostname_pattern') : undefined;
    // Nova leaves out a compute node whose host has no host mapping (HostMappingNotFound) or whose cell is down.
    const listed = (h: Hypervisor) => h.mapped !== false && ctx.sim.nova.services.get(h.serviceId)?.cellDown !== true;
    const rows = [...ctx.sim.nova.hypervisors.values()].filter((h) => listed(h) && (pattern === undefined || h.hostname.includes(pattern)));
    if (pattern !== undefined && rows.length === 0) throw new SimError(404, `No hypervisor matching '${pattern}' could be found.`);
    return ok({ hypervisors: rows.map((h) => hypervisorView(ctx, h, detail)) });
  };
  r.get('/os-hypervisors', (ctx) => hyperList(ctx, false));
  r.get('/os-hypervisors/detail', (ctx) => hyperList(ctx, true));
  r.get('/os-hypervisors/:id', (ctx) => {
    admin(ctx, 'os_compute_api:os-hypervisors:show');
    return ok({ hypervisor: hypervisorView(ctx, findHypervisor(ctx, ctx.p('id')), true) });
  });

  r.get('/os-aggregates', (ctx) => {
    admin(ctx, 'os_compute_api:os-aggregates:index');
    return ok({ aggregates: [...ctx.sim.nova.aggregates.values()].map((a) => aggregateView(ctx, a)) });
  });
  r.post('/os-aggregates', (ctx) => {
    admin(ctx, 'os_compute_api:os-aggregates:create');
    const b = member(ctx.req.body, 'aggregate');
    const name = reqStr(b, 'name', 255);
    if ([...ctx.sim.nova.aggregates.values()].some((a) => a.name === name)) throw new SimError(409, `Aggregate ${name} already exists.`);
    const a: Aggregate = { id: ctx.sim.nova.nextAggregateId++, uuid: uuid(), name, az: optNullableStr(b, 'availability_zone') ?? null, hosts: [], metadata: {}, created: ctx.sim.now(), updated: null };
    ctx.sim.nova.aggregates.set(a.id, a);
    return ok({ aggregate: aggregateView(ctx, a) });
  });
  r.get('/os-aggregates/:id', (ctx) => {
    admin(ctx, 'os_compute_api:os-aggregates:show');
    return ok({ aggregate: aggregateView(ctx, findAggregate(ctx)) });
  });
  r.put('/os-aggregates/:id', (ctx) => {
    admin(ctx, 'os_compute_api:os-aggregates:update');
    const a = findAggregate(ctx);
    const b = member(ctx.req.body, 'aggregate');
    a.name = optStr(b, 'name', 255) ?? a.name;
    if ('availability_zone' in b) a.az = optNullableStr(b, 'availability_zone') ?? null;
    a.updated = ctx.sim.now();
    return ok({ aggregate: aggregateView(ctx, a) });
  });
  r.del('/os-aggregates/:id', (ctx) => {
    admin(ctx, 'os_compute_api:os-aggregates:delete');
    const a = findAggregate(ctx);
    if (a.hosts.length) throw new SimError(400, `Cannot remove aggregate ${a.id}: Host aggregate is not empty`);
    ctx.sim.nova.aggregates.delete(a.id);
    return { status: 200 };
  });
  r.post('/os-aggregates/:id/action', (ctx) => {
    admin(ctx, 'os_compute_api:os-aggregates:add_host');
    const a = findAggregate(ctx);
    const b = isObj(ctx.req.body) ? ctx.req.body : {};
    const hosts = new Set([...ctx.sim.nova.services.values()].filter((s) => s.binary === 'nova-compute').map((s) => s.host));
    if (isObj(b.add_host)) {
      const host = reqStr(b.add_host, 'host');
      if (!hosts.has(host)) throw new SimError(404, `Compute host ${host} could not be found.`);
      if (a.hosts.includes(host)) throw new SimError(409, `Aggregate ${a.id} already has host ${host}.`);
      a.hosts.push(host);
    } else if (isObj(b.remove_host)) {
      const host = reqStr(b.remove_host, 'host');
      if (!a.hosts.includes(host)) throw new SimError(404, `Cannot remove host ${host} in aggregate ${a.id}: not found`);
      a.hosts = a.hosts.filter((h) => h !== host);
    } else if (isObj(b.set_metadata)) {
      const md = isObj(b.set_metadata.metadata) ? b.set_metadata.metadata : {};
      for (const [k, v] of Object.entries(md)) {
        if (v === null) delete a.metadata[k];
        else a.metadata[k] = String(v);
      }
      const az = optStrMap({ m: Object.fromEntries(Object.entries(a.metadata)) }, 'm')?.availability_zone;
      if (az !== undefined) a.az = az;
    } else {
      throw new SimError(400, `There is no such action: ${Object.keys(b)[0] ?? '(none)'}`);
    }
    a.updated = ctx.sim.now();
    return ok({ aggregate: aggregateView(ctx, a) });
  });
}
