/**
 * The simulator as a differential target: a fresh in-process simulator with a manual clock (each tick
 * advances it 25 ms and settles, finer than any transition, so every state is seen), fixtures created through the same clients as on the real cloud, and
 * the fault vocabulary mapped onto /_sim configuration (boot rules).
 */
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { resolveCloudConfig } from '../../src/openstack/keystone/clouds-config.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { silentLogger, type Logger } from '../../src/log/logger.js';
import type { BootRule } from '../../src/simulator/config.js';
import { exactRegex, type DiffFixtures, type DiffTarget } from './target.js';

export const SIM_TICK_MS = 25;

export interface SimTarget extends DiffTarget {
  readonly sim: RunningSimulator;
  close(): Promise<void>;
}

export const startSimTarget = async (prefix: string, logger: Logger = silentLogger()): Promise<SimTarget> => {
  const sim = await startSimulator({ clock: 'manual' });
  const session = (who: 'demo' | 'admin'): Promise<OpenStackSession> =>
    connect(resolveCloudConfig({ env: { OS_CLOUD: `sim-${who}` }, cloudsYaml: { path: 'sim-clouds.yaml', contents: sim.cloudsYaml() } }), {
      logger,
      retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    });
  const tenant = await session('demo');
  const admin = await session('admin');
  let rules: BootRule[] = [];
  const setRules = (next: BootRule[]): void => {
    rules = next;
    sim.control.configure({ nova: { bootRules: rules } });
  };
  let fixtures: Promise<DiffFixtures> | undefined;
  const target: SimTarget = {
    kind: 'simulator',
    prefix,
    sim,
    tenant,
    admin,
    logger,
    hasFaultControl: true,
    fixtures: () =>
      (fixtures ??= (async () => {
        const flavor = await admin.nova.createFlavor({ name: `${prefix}-flavor`, vcpus: 1, ram: 256, disk: 1, isPublic: true });
        const image = async (suffix: string): Promise<string> => {
          const created = await tenant.glance.createImage({ name: `${prefix}-${suffix}`, diskFormat: 'raw', containerFormat: 'bare' });
          await tenant.glance.uploadImageData(created.id, Buffer.from(suffix));
          return created.id;
        };
        const imageA = await image('image-a');
        const imageB = await image('image-b');
        const network = await tenant.neutron.createNetwork({ name: `${prefix}-net` });
        const subnet = await tenant.neutron.createSubnet({ name: `${prefix}-subnet`, network_id: network.id, cidr: '192.0.2.0/24', ip_version: 4, enable_dhcp: false });
        return { flavorId: flavor.id, imageA, imageB, networkId: network.id, subnetId: subnet.id };
      })()),
    tick: async () => {
      sim.control.advance(SIM_TICK_MS);
    },
    slowSpawn: async () => undefined,
    failSpawn: async (name, phase) => setRules([...rules, { match: exactRegex(name), outcome: 'error', phase }]),
    holdBoot: async (name) => setRules([...rules, { match: exactRegex(name), outcome: 'never', phase: 'boot' }]),
    clearFaults: async () => setRules([]),
    track: () => undefined,
    boot: async (suffix, imageId) => {
      const fx = await target.fixtures();
      const name = `${prefix}-${suffix}`;
      const { id } = await tenant.nova.createServer({ name, flavorRef: fx.flavorId, imageRef: imageId ?? fx.imageA, networks: [{ uuid: fx.networkId }] });
      return { id, name };
    },
    close: () => sim.close(),
  };
  return target;
};
