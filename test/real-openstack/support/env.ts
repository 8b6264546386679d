/**
 * Which cloud the real-OpenStack suite runs against, from the environment only:
 *
 *   OS_CLIENT_CONFIG_FILE  clouds.yaml (or the usual search path)
 *   OS_CLOUD               the tenant cloud: a project where servers, images, networks, volumes and load
 *                          balancers may be created (the sandbox: sandbox-demo)
 *   REGENT_OS_ADMIN_CLOUD  optional admin cloud (flavors, forced states, a second project, Placement);
 *                          defaults to sandbox-admin when OS_CLOUD is sandbox-demo; "none" disables it
 *   REGENT_OS_FLAVOR       optional existing flavor name (otherwise one is created with the admin cloud)
 *   SANDBOX_CONTROL_DIR    the sandbox's fault-control folder (REGENT_OS_FAULT_DIR overrides); without it
 *                          the tests that inject faults are skipped
 *   REGENT_OS_KEEP=1       keep what the run created (debugging); the default deletes everything
 *
 * Tests that need something the target does not offer (admin, fault control, Octavia, Cinder) call
 * `this.skip()` with the reason, so a user's own cloud runs what it can.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CloudConfig } from '../../../src/openstack/keystone/clouds-config.js';
import { loadCloudConfig } from '../../../src/openstack/keystone/clouds-reader.js';

export interface RealTarget {
  tenantCloud: CloudConfig;
  adminCloud: CloudConfig | undefined;
  /** The folder holding nova.json / cinder.json / octavia.json, when the target has fault control. */
  faultDir: string | undefined;
  flavorName: string | undefined;
  keep: boolean;
  /** One line for the log: which clouds, which features. */
  description: string;
}

export class NoCloudConfigured extends Error {
  override readonly name = 'NoCloudConfigured';
}

export const loadRealTarget = async (env: NodeJS.ProcessEnv = process.env): Promise<RealTarget> => {
  const tenantName = env.OS_CLOUD ?? '';
  if (tenantName === '') {
    throw new NoCloudConfigured(
      'npm run test:openstack needs a cloud: set OS_CLIENT_CONFIG_FILE and OS_CLOUD (for the sandbox: source /var/tmp/regent-openstack/sandbox.env; export OS_CLOUD=sandbox-demo)',
    );
  }
  const tenantCloud = await loadCloudConfig({ env, cloudName: tenantName });
  const adminName = env.REGENT_OS_ADMIN_CLOUD ?? (tenantName === 'sandbox-demo' ? 'sandbox-admin' : undefined);
  const adminCloud = adminName === undefined || adminName === 'none' ? undefined : await loadCloudConfig({ env, cloudName: adminName });
  const dir = env.REGENT_OS_FAULT_DIR ?? env.SANDBOX_CONTROL_DIR;
  const faultDir = dir !== undefined && dir !== '' && existsSync(join(dir)) ? dir : undefined;
  const flavorName = env.REGENT_OS_FLAVOR !== undefined && env.REGENT_OS_FLAVOR !== '' ? env.REGENT_OS_FLAVOR : undefined;
  return {
    tenantCloud,
    adminCloud,
    faultDir,
    flavorName,
    keep: env.REGENT_OS_KEEP === '1',
    description: `tenant ${tenantName} (${tenantCloud.authUrl}), admin ${adminName ?? 'none'}, fault control ${faultDir ?? 'none'}`,
  };
};
