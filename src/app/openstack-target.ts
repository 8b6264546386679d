/**
 * Which OpenStack the control plane talks to: the cloud the environment configures (OS_CLOUD with a
 * clouds.yaml, or OS_AUTH_URL and friends), or else an OpenStack simulator started on a loopback port
 * with real time, so `npm start` works on a fresh machine with no cloud.
 */
import { loadCloudConfig } from '../openstack/keystone/clouds-reader.js';
import { cloudFromYaml, type CloudConfig } from '../openstack/keystone/clouds-config.js';
import { startSimulator, type RunningSimulator } from '../simulator/index.js';

export interface OpenStackTarget {
  cloud: CloudConfig;
  /** Set when Regent started its own simulator. */
  simulator?: RunningSimulator;
  description: string;
}

export const cloudConfigured = (env: NodeJS.ProcessEnv = process.env): boolean => Boolean(env.OS_CLOUD || env.OS_AUTH_URL);

export const openStackTarget = async (options: { env?: NodeJS.ProcessEnv; simulatorPort?: number; simulatorStatePath?: string } = {}): Promise<OpenStackTarget> => {
  const env = options.env ?? process.env;
  if (cloudConfigured(env)) {
    const cloud = await loadCloudConfig({ env });
    return { cloud, description: `cloud ${env.OS_CLOUD ?? cloud.authUrl}` };
  }
  // The simulated cloud is kept next to Regent's stores, so a restart finds what Regent created.
  const simulator = await startSimulator({ port: options.simulatorPort ?? 0, clock: 'real', ...(options.simulatorStatePath ? { statePath: options.simulatorStatePath } : {}) });
  return { cloud: cloudFromYaml(simulator.cloudsYaml(), 'sim-demo', 'the simulator'), simulator, description: `OpenStack simulator at ${simulator.url}` };
};
