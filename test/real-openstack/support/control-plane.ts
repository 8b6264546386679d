/**
 * The whole control plane (startControlPlane: informers, controllers, engine, monitor, status runner) in
 * this process against the real cloud, for the end-to-end files: memory stores, the run's tenant cloud as
 * the process's own (Region `default` only), a Region registered into its resource source from the admin
 * cloud with everything Keystone creates for it registered for deletion, a public image for its identities
 * to boot, and the deletion of an identity's Network and Server.
 */
import { startControlPlane, type ControlPlane } from '../../../src/app/control-plane.js';
import type { ResourceSource } from '../../../src/kube/port.js';
import { connect, connectAsUser, type OpenStackSession } from '../../../src/openstack/session.js';
import { networkName } from '../../../src/provider/networks.js';
import { registerRegion, type RegistrationReport } from '../../../src/provider/regions/register.js';
import type { RealRun } from './run.js';
import { sleep, waitFor } from './wait.js';

/** The run's admin session; these helpers need the admin cloud (a caller skips without it). */
const adminOf = (run: RealRun): OpenStackSession => {
  if (run.admin === undefined) throw new Error('needs the admin cloud (REGENT_OS_ADMIN_CLOUD)');
  return run.admin;
};

/** How long `until` polls unless told. */
export const WAIT_MS = 180_000;

/** Polls until `probe` answers something truthy; the error names `what` and the last thing seen. */
export const until = async <T>(what: string, probe: () => Promise<T | undefined | false>, seen: () => Promise<unknown> = async () => undefined, timeoutMs = WAIT_MS): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(await seen())}`);
    await sleep(500);
  }
};

/**
 * A control plane on memory stores with a short lease, once it leads. The process's own cloud (the demo
 * tenant) stands for Region `default` only; a registered Region is a resource. Stopped again if it never
 * leads (the error is rethrown); otherwise the caller stops it.
 */
export const startRealPlane = async (run: RealRun): Promise<ControlPlane> => {
  const plane = await startControlPlane({
    storeUrl: 'memory:',
    resourcesUrl: 'embedded::memory:',
    logger: run.logger,
    port: 0,
    monitorIntervalMs: 1_000,
    openstack: { cloud: run.target.tenantCloud, description: `cloud ${process.env.OS_CLOUD ?? run.target.tenantCloud.authUrl} (real OpenStack)` },
    processRegionName: 'default',
    lease: { durationMs: 5_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 },
  });
  try {
    await until('leadership', async () => plane.isLeader(), undefined, 30_000);
  } catch (error) {
    await plane.stop();
    throw error;
  }
  return plane;
};

/**
 * `regent region register` (registerRegion) of Region `name` from the run's admin cloud into `source`. The
 * domain and the roles it creates are registered for deletion the moment Keystone has them (the domain takes
 * the identities' projects, users and credentials). Needs the admin cloud (a caller skips without it).
 */
export const registerRegionWithCleanup = async (run: RealRun, source: ResourceSource, name: string): Promise<RegistrationReport> => {
  const admin = adminOf(run);
  const cloud = run.target.adminCloud;
  if (cloud === undefined) throw new Error('needs the admin cloud (REGENT_OS_ADMIN_CLOUD)');
  return registerRegion({ name, cloud, endpoint: cloud.authUrl, dryRun: false }, {
    source,
    connect: (c) => connect(c, { logger: run.logger }),
    connectAsUser: (c, login) => connectAsUser(c, login, { logger: run.logger }),
    onStep: (step) => {
      if (step.outcome !== 'created' || step.id === undefined) return;
      const id = step.id;
      if (step.what === 'domain') run.cleanup.add(`domain ${step.name}`, () => admin.identityAdmin.deleteDomain(id));
      if (step.what === 'role') run.cleanup.add(`role ${step.name}`, async () => void (await admin.http('identity').delete(`/roles/${id}`)));
    },
  });
};

/**
 * A public image the admin uploads, active, its deletion registered; its id. Public, so an identity's project
 * can boot it (the fixture images are the demo tenant's, private by default). `what` names it
 * (`<prefix>-<what>-image`).
 */
export const publicImage = async (run: RealRun, what: string): Promise<string> => {
  const admin = adminOf(run);
  const imageName = run.name(`${what}-image`);
  const image = await admin.glance.createImage({ name: imageName, diskFormat: 'raw', containerFormat: 'bare', visibility: 'public' });
  run.cleanup.add(`image ${imageName}`, () => admin.glance.deleteImage(image.id));
  await admin.glance.uploadImageData(image.id, Buffer.from(`regent ${run.prefix} ${what} image`));
  await waitFor(`${what} image active`, () => admin.glance.getImage(image.id), (i) => i.status.kind === 'value' && i.status.value === 'active', { timeoutMs: 30_000 });
  return image.id;
};

/**
 * Registers the deletion of an identity's Network (by its deterministic Neutron name) and of its Server (by
 * name across tenants), as the admin; deleted newest first: the server (any project) before its network.
 */
export const cleanupNetworkAndServer = (run: RealRun, networkUid: string, serverName: string): void => {
  const admin = adminOf(run);
  run.cleanup.add(`network ${networkName(networkUid)}`, async () => {
    const found = await admin.neutron.lookupNetworkByName(networkName(networkUid));
    if (found) await admin.neutron.deleteNetwork(found.id);
  });
  run.cleanup.add(`server ${serverName}`, async () => {
    const found = await admin.nova.lookupServerByName(serverName, { all_tenants: true });
    if (found) await run.deleteServerAndWait(admin, found.id);
  }, 'servers');
};
