/**
 * Which OpenStack the control plane talks to: the cloud the environment configures (OS_CLOUD with a
 * clouds.yaml, or OS_AUTH_URL and friends), or else an OpenStack simulator started on a loopback port
 * with real time, so `npm start` works on a fresh machine with no cloud.
 *
 * With a kept simulator state (`./data/simulator.json`) only one process owns the file (its lock names
 * the owner's pid and url). A second process on the same ./data (a standby replica, a second
 * `npm start` about to fail on its port) does not start an empty cloud of its own — it would write it
 * over the owner's file at exit — but uses the owner's simulator, and never writes the file.
 */
import { loadCloudConfig } from '../openstack/keystone/clouds-reader.js';
import { cloudFromYaml, type CloudConfig } from '../openstack/keystone/clouds-config.js';
import { createServer } from 'node:net';
import { SimStateOwned, SimulatorPortTaken, keptSimPort, readSimStateOwner, pidAlive, simulatorCloudsYaml, startSimulator, type RunningSimulator, type SimStateOwner } from '../simulator/index.js';

export { SimulatorPortTaken };

export interface OpenStackTarget {
  cloud: CloudConfig;
  /** Set only when this process started (and owns) the simulator: the caller closes it. */
  simulator?: RunningSimulator;
  description: string;
}

/** The lock names a simulator that does not answer (a pid reused by another program, a hung owner). */
export class SimulatorOwnerUnreachable extends Error {
  override readonly name = 'SimulatorOwnerUnreachable';
  readonly reason = 'simulator-owner-unreachable';
  constructor(readonly lockPath: string, readonly pid: number, readonly url: string, cause: string) {
    super(`the OpenStack simulator state is owned by pid ${pid} (lock ${lockPath}), but its simulator at ${url} does not answer (${cause}); ` +
      `stop that process, or remove ${lockPath} if pid ${pid} is not a Regent simulator`);
  }
}

export const cloudConfigured = (env: NodeJS.ProcessEnv = process.env): boolean => Boolean(env.OS_CLOUD || env.OS_AUTH_URL);

const SIM_CLOUD = 'sim-demo';

export const openStackTarget = async (
  options: { env?: NodeJS.ProcessEnv; simulatorPort?: number; simulatorStatePath?: string; ownerProbeTimeoutMs?: number } = {},
): Promise<OpenStackTarget> => {
  const env = options.env ?? process.env;
  if (cloudConfigured(env)) {
    const cloud = await loadCloudConfig({ env });
    return { cloud, description: `cloud ${env.OS_CLOUD ?? cloud.authUrl}` };
  }
  // The simulated cloud is kept next to Regent's stores, so a restart finds what Regent created.
  let simulator: RunningSimulator;
  try {
    simulator = await startSimulator({ seedWorkloadNetwork: true, ...(options.simulatorPort !== undefined ? { port: options.simulatorPort } : {}), clock: 'real', ...(options.simulatorStatePath ? { statePath: options.simulatorStatePath } : {}) });
  } catch (error) {
    if (!(error instanceof SimStateOwned)) throw error;
    return ownersSimulator(error.lockPath, error.owner, options.ownerProbeTimeoutMs ?? 3_000);
  }
  const stale = simulator.stateOwnership?.staleOwner;
  const tookOver = stale ? ` (took over the state lock of pid ${stale.pid}, which has exited)` : '';
  return { cloud: cloudFromYaml(simulator.cloudsYaml(), SIM_CLOUD, 'the simulator'), simulator, description: `OpenStack simulator at ${simulator.url}${tookOver}` };
};

/**
 * Before anything under ./data/ is opened: the built-in simulator's kept port must be free, or be the
 * live owner's (a second process uses the owner's simulator). A port another program holds is
 * SimulatorPortTaken, said before the stores are opened, so a failed start leaves ./data/ as it was.
 * (The simulator's own listen checks again: this is the early, write-free answer, not the only one.)
 */
export const checkKeptSimulatorPort = async (options: { env?: NodeJS.ProcessEnv; simulatorStatePath?: string }): Promise<void> => {
  if (cloudConfigured(options.env ?? process.env) || !options.simulatorStatePath) return;
  const port = keptSimPort(options.simulatorStatePath);
  if (port === undefined) return;
  try {
    const owner = readSimStateOwner(options.simulatorStatePath);
    if (owner && pidAlive(owner.pid)) return;
  } catch {
    return; // an unreadable lock is the simulator start's to report
  }
  const free = await new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
  if (!free) throw new SimulatorPortTaken(port, options.simulatorStatePath);
};

/** The owner's simulator as this process's cloud, once its Keystone answers on loopback. */
const ownersSimulator = async (lockPath: string, owner: SimStateOwner, timeoutMs: number): Promise<OpenStackTarget> => {
  const unreachable = (cause: string) => new SimulatorOwnerUnreachable(lockPath, owner.pid, owner.url, cause);
  let url: URL;
  try {
    url = new URL(owner.url);
  } catch {
    throw unreachable('the lock holds no valid url');
  }
  // The lock file is not trusted with the seed credentials: they only ever go to a loopback simulator.
  if (url.protocol !== 'http:' || url.hostname !== '127.0.0.1') throw unreachable('the url is not a loopback simulator');
  try {
    const response = await fetch(`${owner.url}/identity/v3`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await response.json().catch(() => undefined)) as { version?: { id?: unknown } } | undefined;
    if (response.status !== 200 || typeof body?.version?.id !== 'string' || !body.version.id.startsWith('v3')) {
      throw new Error(`GET /identity/v3 answered ${response.status} without a Keystone v3 version document`);
    }
  } catch (error) {
    throw unreachable(error instanceof Error ? error.message : String(error));
  }
  return {
    cloud: cloudFromYaml(simulatorCloudsYaml(owner.url), SIM_CLOUD, `the simulator of pid ${owner.pid}`),
    description: `the OpenStack simulator of pid ${owner.pid} at ${owner.url}`,
  };
};
