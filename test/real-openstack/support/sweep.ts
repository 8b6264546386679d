/**
 * The safety net behind the cleanup registry: find whatever still carries the run's name prefix and
 * delete it, in dependency order (load balancers, servers, volumes, floating IPs, routers, ports,
 * subnets, networks, security groups, keypairs, server groups, images, flavors, then Keystone users,
 * projects and domains, also those `regent region register` named `regent-<prefix>…` for a Region named
 * under the prefix). Anything found here escaped registration; the summary reports it. A domain is
 * disabled before its delete (Keystone refuses to delete an enabled one) and takes whatever is left in it.
 *
 * Lists use the tenant session, plus the admin session (all projects) when there is one, so a server
 * booted in a second project is found too.
 */
import type { OpenStackSession } from '../../../src/openstack/session.js';
import { NotFound } from '../../../src/openstack/errors.js';
import { waitGone } from './wait.js';

export interface SweepReport {
  found: string[];
  failed: string[];
}

const quietly = async (label: string, report: SweepReport, fn: () => Promise<void>): Promise<void> => {
  report.found.push(label);
  try {
    await fn();
  } catch (error) {
    if (error instanceof NotFound) return;
    report.failed.push(`${label}: ${error instanceof Error ? error.message : String(error)}`);
  }
};

/** Lists may fail on a cloud without the service (no Octavia, no Cinder): that is not a sweep failure. */
const listOr = async <T>(list: () => Promise<T[]>): Promise<T[]> => {
  try {
    return await list();
  } catch {
    return [];
  }
};

export const sweepPrefix = async (prefix: string, tenant: OpenStackSession, admin: OpenStackSession | undefined): Promise<SweepReport> => {
  const report: SweepReport = { found: [], failed: [] };
  const ours = (name: string | null | undefined): boolean => typeof name === 'string' && name.startsWith(prefix);
  const broad = admin ?? tenant;
  const allProjects = admin !== undefined;

  for (const lb of (await listOr(() => tenant.octavia.listLoadBalancers())).filter((x) => ours(x.name))) {
    await quietly(`load balancer ${lb.name}`, report, async () => {
      await tenant.octavia.deleteLoadBalancer(lb.id, { cascade: true });
      await waitGone(`load balancer ${lb.id}`, () => tenant.octavia.getLoadBalancer(lb.id), { timeoutMs: 120_000 });
    });
  }
  const servers = await listOr(() => broad.nova.listServers({ name: `^${prefix}`, ...(allProjects ? { all_tenants: true } : {}) }));
  for (const server of servers.filter((s) => ours(s.name))) {
    await quietly(`server ${server.name}`, report, async () => {
      await broad.nova.deleteServer(server.id);
      await waitGone(`server ${server.id}`, () => broad.nova.getServer(server.id), { timeoutMs: 120_000 });
    });
  }
  for (const volume of (await listOr(() => tenant.cinder.listVolumes())).filter((v) => ours(v.name))) {
    await quietly(`volume ${volume.name}`, report, async () => {
      await tenant.cinder.deleteVolume(volume.id, { cascade: true });
      await waitGone(`volume ${volume.id}`, () => tenant.cinder.getVolume(volume.id), { timeoutMs: 60_000 });
    });
  }
  const neutron = broad.neutron;
  const networks = (await listOr(() => neutron.listNetworks())).filter((n) => ours(n.name));
  const networkIds = new Set(networks.map((n) => n.id));
  for (const fip of (await listOr(() => neutron.listFloatingIps())).filter((f) => ours(f.description))) {
    await quietly(`floating ip ${fip.id}`, report, () => neutron.deleteFloatingIp(fip.id));
  }
  for (const router of (await listOr(() => neutron.listRouters())).filter((r) => ours(r.name))) {
    await quietly(`router ${router.name}`, report, async () => {
      for (const port of await neutron.listPorts({ device_id: router.id, device_owner: 'network:router_interface' })) {
        for (const ip of port.fixed_ips ?? []) await neutron.removeRouterInterface(router.id, { subnet_id: ip.subnet_id });
      }
      await neutron.deleteRouter(router.id);
    });
  }
  for (const port of (await listOr(() => neutron.listPorts())).filter((p) => ours(p.name) || (networkIds.has(p.network_id) && p.device_owner === ''))) {
    await quietly(`port ${port.name || port.id}`, report, () => neutron.deletePort(port.id));
  }
  for (const subnet of (await listOr(() => neutron.listSubnets())).filter((s) => ours(s.name))) {
    await quietly(`subnet ${subnet.name}`, report, () => neutron.deleteSubnet(subnet.id));
  }
  for (const network of networks) await quietly(`network ${network.name}`, report, () => neutron.deleteNetwork(network.id));
  for (const group of (await listOr(() => neutron.listSecurityGroups())).filter((g) => ours(g.name))) {
    await quietly(`security group ${group.name}`, report, () => neutron.deleteSecurityGroup(group.id));
  }
  for (const keypair of (await listOr(() => tenant.nova.listKeypairs())).filter((k) => ours(k.name))) {
    await quietly(`keypair ${keypair.name}`, report, () => tenant.nova.deleteKeypair(keypair.name));
  }
  for (const group of (await listOr(() => tenant.nova.listServerGroups())).filter((g) => ours(g.name))) {
    await quietly(`server group ${group.name}`, report, () => tenant.nova.deleteServerGroup(group.id));
  }
  for (const image of (await listOr(() => broad.glance.listImages())).filter((i) => ours(i.name))) {
    await quietly(`image ${image.name}`, report, () => broad.glance.deleteImage(image.id));
  }
  if (admin) {
    for (const flavor of (await listOr(() => admin.nova.listFlavors({ is_public: 'None' }))).filter((f) => ours(f.name))) {
      await quietly(`flavor ${flavor.name}`, report, () => admin.nova.deleteFlavor(flavor.id));
    }
    const identity = admin.http('identity');
    // `regent region register` names a Region's Keystone scaffolding `regent-<Region name>` (domain, user) and
    // `regent-<Region name>-service` (project): a Region named under the prefix leaves names under `regent-<prefix>`
    const registered = (name: string | null | undefined): boolean => ours(name) || (typeof name === 'string' && name.startsWith(`regent-${prefix}`));
    const users = await listOr(async () => ((await identity.get('/users')).data as { users: Array<{ id: string; name: string }> }).users);
    for (const user of users.filter((u) => registered(u.name))) await quietly(`user ${user.name}`, report, async () => void (await identity.delete(`/users/${user.id}`)));
    const projects = await listOr(async () => ((await identity.get('/projects')).data as { projects: Array<{ id: string; name: string }> }).projects);
    for (const project of projects.filter((p) => registered(p.name))) {
      await quietly(`project ${project.name}`, report, async () => {
        await identity.patch(`/projects/${project.id}`, { project: { enabled: false } });
        await identity.delete(`/projects/${project.id}`);
      });
    }
    const domains = await listOr(async () => ((await identity.get('/domains')).data as { domains: Array<{ id: string; name: string }> }).domains);
    for (const domain of domains.filter((d) => registered(d.name))) await quietly(`domain ${domain.name}`, report, () => admin.identityAdmin.deleteDomain(domain.id));
  }
  return report;
};

/** `regent-ci-<pid>-<hex>`: a run's prefix, also inside `regent-<prefix>…` (region registration). */
const RUN_PREFIX = /(?:^|^regent-)(regent-ci-(\d+)-[0-9a-f]{4})/;

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * The prefixes of earlier runs on this machine whose process is gone (killed before its after-all
 * cleanup: Ctrl-C, a CI timeout). Their leftovers fill the project's quotas (Cinder's 413 after a few
 * killed runs), so each run sweeps them first. A prefix whose pid is alive is another run: left alone.
 */
export const stalePrefixes = async (current: string, tenant: OpenStackSession, admin: OpenStackSession | undefined): Promise<string[]> => {
  const broad = admin ?? tenant;
  const names: Array<string | null | undefined> = [
    ...(await listOr(() => tenant.cinder.listVolumes())).map((v) => v.name),
    ...(await listOr(() => broad.nova.listServers({ name: '^regent-ci-', ...(admin ? { all_tenants: true } : {}) }))).map((s) => s.name),
    ...(await listOr(() => tenant.neutron.listNetworks())).map((n) => n.name),
    ...(await listOr(() => tenant.octavia.listLoadBalancers())).map((l) => l.name),
    ...(await listOr(() => broad.glance.listImages())).map((i) => i.name),
  ];
  if (admin) {
    const identity = admin.http('identity');
    names.push(...(await listOr(async () => ((await identity.get('/domains')).data as { domains: Array<{ name: string }> }).domains)).map((d) => d.name));
    names.push(...(await listOr(async () => ((await identity.get('/projects')).data as { projects: Array<{ name: string }> }).projects)).map((p) => p.name));
  }
  const stale = new Set<string>();
  for (const name of names) {
    const m = typeof name === 'string' ? RUN_PREFIX.exec(name) : null;
    if (m && m[1] !== current && !isRunning(Number(m[2]))) stale.add(m[1]!);
  }
  return [...stale].sort();
};
