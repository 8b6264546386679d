/**
 * One run of the real-OpenStack suite: a run-unique name prefix (`regent-ci-<pid>-<random>`), the tenant
 * and admin sessions, the fault control, the cleanup registry, and fixtures created once per run (a
 * flavor, two images, a network and subnet). Everything the run creates is named under the prefix and
 * registered for deletion; the root hooks (hooks.ts) open the run before the first test and clean up
 * after the last, whatever happened in between.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import winston from 'winston';
import type { Logger } from '../../../src/log/logger.js';
import type { OpenStackSession } from '../../../src/openstack/session.js';
import { connect } from '../../../src/openstack/session.js';
import { NotFound } from '../../../src/openstack/errors.js';
import { CleanupRegistry } from './cleanup.js';
import { FaultControl } from './faults.js';
import { loadRealTarget, type RealTarget } from './env.js';
import { sleep, waitFor, waitGone } from './wait.js';
import type { ServerObservation } from '../../../src/openstack/decoders/server.js';

export interface Fixtures {
  flavorId: string;
  flavorName: string;
  imageA: string;
  imageB: string;
  networkId: string;
  subnetId: string;
}

export interface TimingRecord {
  file: string;
  title: string;
  /** The test's own duration (mocha). */
  ms: number;
  /** Wall time since the previous test ended (includes before-hooks and fixtures). */
  wallMs: number;
  state: string;
}

export interface RealRun {
  readonly prefix: string;
  readonly target: RealTarget;
  readonly tenant: OpenStackSession;
  readonly admin: OpenStackSession | undefined;
  readonly faults: FaultControl | undefined;
  readonly cleanup: CleanupRegistry;
  readonly logger: Logger;
  readonly logPath: string;
  readonly timings: TimingRecord[];
  readonly phases: Record<string, number>;
  /** `<prefix>-<suffix>`: every name the run gives a cloud resource. */
  name(suffix: string): string;
  fixtures(): Promise<Fixtures>;
  /** Boot a server in the tenant project and register its deletion. */
  bootServer(suffix: string, options?: { imageId?: string; session?: OpenStackSession; networkId?: string; metadata?: Record<string, string> }): Promise<{ id: string; name: string }>;
  /** Delete a server and wait until Nova answers 404. */
  deleteServerAndWait(session: OpenStackSession, id: string): Promise<void>;
  waitActive(id: string, session?: OpenStackSession): Promise<ServerObservation>;
}

let current: Promise<RealRun> | undefined;
let opened: RealRun | undefined;

/** The run of this process (opened by the root before-hook). */
export const realRun = (): Promise<RealRun> => (current ??= openRun());
/** The run if it was opened (for the after-hook: nothing to clean when it never opened). */
export const openedRun = (): RealRun | undefined => opened;

const TIMEOUT_SERVER_MS = 120_000;

const openRun = async (): Promise<RealRun> => {
  const t0 = Date.now();
  const target = await loadRealTarget();
  const prefix = `regent-ci-${process.pid}-${randomBytes(2).toString('hex')}`;
  const logPath = join(tmpdir(), `${prefix}.log`);
  const logger = winston.createLogger({
    level: 'debug',
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.File({ filename: logPath })],
  });
  const tenant = await connect(target.tenantCloud, { logger });
  const admin = target.adminCloud ? await connect(target.adminCloud, { logger }) : undefined;
  const faults = target.faultDir ? new FaultControl(target.faultDir) : undefined;
  const cleanup = new CleanupRegistry();
  const name = (suffix: string): string => `${prefix}-${suffix}`;

  const deleteServerAndWait = async (session: OpenStackSession, id: string): Promise<void> => {
    try {
      await session.nova.deleteServer(id);
    } catch (error) {
      if (error instanceof NotFound) return;
      throw error;
    }
    await waitGone(`server ${id}`, () => session.nova.getServer(id), { timeoutMs: TIMEOUT_SERVER_MS });
  };

  const waitActive = (id: string, session: OpenStackSession = tenant): Promise<ServerObservation> =>
    waitFor(`server ${id} ACTIVE`, () => session.nova.getServer(id), (s) => {
      if (s.status.kind === 'value' && s.status.value === 'ERROR') throw new Error(`server ${id} went to ERROR: ${JSON.stringify(s.fault)}`);
      return s.status.kind === 'value' && s.status.value === 'ACTIVE' && s.taskState.kind === 'value' && s.taskState.value === null;
    }, { timeoutMs: TIMEOUT_SERVER_MS });

  let fixtures: Promise<Fixtures> | undefined;
  const createFixtures = async (): Promise<Fixtures> => {
    const started = Date.now();
    let flavorId: string;
    let flavorName: string;
    if (target.flavorName !== undefined) {
      flavorName = target.flavorName;
      flavorId = (await tenant.nova.findFlavorByName(flavorName)).id;
    } else {
      if (!admin) throw new Error('no flavor: set REGENT_OS_FLAVOR to an existing flavor, or REGENT_OS_ADMIN_CLOUD so the run can create one');
      flavorName = name('flavor');
      const flavor = await admin.nova.createFlavor({ name: flavorName, vcpus: 1, ram: 256, disk: 1, isPublic: true });
      flavorId = flavor.id;
      cleanup.add(`flavor ${flavorName}`, () => admin.nova.deleteFlavor(flavorId));
    }
    const image = async (suffix: string, bytes: string): Promise<string> => {
      const created = await tenant.glance.createImage({ name: name(suffix), diskFormat: 'raw', containerFormat: 'bare' });
      cleanup.add(`image ${name(suffix)}`, () => tenant.glance.deleteImage(created.id));
      await tenant.glance.uploadImageData(created.id, Buffer.from(bytes));
      await waitFor(`image ${suffix} active`, () => tenant.glance.getImage(created.id), (i) => i.status.kind === 'value' && i.status.value === 'active', { timeoutMs: 30_000 });
      return created.id;
    };
    const imageA = await image('image-a', `regent ${prefix} image A`);
    const imageB = await image('image-b', `regent ${prefix} image B`);
    const network = await tenant.neutron.createNetwork({ name: name('net') });
    cleanup.add(`network ${name('net')}`, () => tenant.neutron.deleteNetwork(network.id));
    const subnet = await tenant.neutron.createSubnet({ name: name('subnet'), network_id: network.id, cidr: '192.0.2.0/24', ip_version: 4, enable_dhcp: false });
    cleanup.add(`subnet ${name('subnet')}`, () => tenant.neutron.deleteSubnet(subnet.id));
    phases.fixtures = Date.now() - started;
    return { flavorId, flavorName, imageA, imageB, networkId: network.id, subnetId: subnet.id };
  };

  const phases: Record<string, number> = {};
  const run: RealRun = {
    prefix, target, tenant, admin, faults, cleanup, logger, logPath, timings: [], phases,
    name,
    fixtures: () => (fixtures ??= createFixtures()),
    deleteServerAndWait,
    waitActive,
    bootServer: async (suffix, options = {}) => {
      const fx = await run.fixtures();
      const session = options.session ?? tenant;
      const serverName = name(suffix);
      const { id } = await session.nova.createServer({
        name: serverName,
        flavorRef: fx.flavorId,
        imageRef: options.imageId ?? fx.imageA,
        networks: [{ uuid: options.networkId ?? fx.networkId }],
        ...(options.metadata !== undefined ? { metadata: options.metadata } : {}),
      });
      cleanup.add(`server ${serverName}`, () => deleteServerAndWait(session, id), 'servers');
      return { id, name: serverName };
    },
  };
  phases.connect = Date.now() - t0;
  opened = run;
  return run;
};

export { sleep };
