// Public entry point: start an OpenStack simulator on 127.0.0.1 and get its URL, credentials, clock,
// call log and control surface. See README.md.
import { dirname } from 'node:path';
import { stringify } from 'yaml';
import type { CallFilter, CallRecord } from './calls.js';
import { manualClock, realClock } from './clock.js';
import type { SimClock } from './clock.js';
import type { SimDelays } from './config.js';
import { SimControl } from './control.js';
import { SimStateOwned, keptSimPort, liveSimStateOwner, loadSimState, saveSimState, takeSimStateOwnership } from './persistence.js';
import type { SimStateOwner, SimStateOwnership } from './persistence.js';
import { credentials, seedIdentity } from './keystone/seed.js';
import type { SeedCredential, SeedUser } from './keystone/seed.js';
import { buildRouter } from './routes.js';
import { seedCloud, seedMinimal, seedWorkloadNetwork } from './seed.js';
import { listen } from './server.js';
import { Sim } from './state.js';

export type { SimClock } from './clock.js';
export type { SimDelays, SimConfig, BootRule } from './config.js';
export type { CallRecord, CallFilter } from './calls.js';
export type { FaultSpec } from './faults.js';
export type { ComputeHostSpec } from './control.js';
export type { SeedCredential } from './keystone/seed.js';
export { SimControl } from './control.js';
export { SEED } from './seed.js';
export { SimStateOwned, SimStateLockUnreadable, lockPathOf, pidAlive, readSimStateOwner, keptSimPort } from './persistence.js';
export type { SimStateOwner } from './persistence.js';

export interface SimulatorOptions {
  /** 0 = ephemeral (default). */
  port?: number;
  /** Default 'manual': time moves only via clock.advance() or POST /_sim/clock/advance. */
  clock?: 'manual' | 'real';
  /** ms per transition; defaults ~300 ms. */
  delays?: Partial<SimDelays>;
  /** Default true: flavors, images, networks, volume types, placement and Ironic inventory. Identity is always seeded. */
  seed?: boolean;
  /** Also the demo's shared workload network and subnet (seedWorkloadNetwork; the built-in simulator of `regent start`). */
  seedWorkloadNetwork?: boolean;
  /** Keystone token lifetime on the sim clock (default 1 h). */
  tokenTtlMs?: number;
  /**
   * Keep the cloud in this file: loaded at start when it exists (instead of the seed), written at
   * once on a fresh start (so the port is kept from the first moment), every few seconds while
   * something changed (a killed process loses at most that), and at close. Meant for the real clock
   * (the demo); see persistence.ts for what is kept.
   *
   * Without an explicit `port`, a kept cloud answers on the port it was saved with: the Regions
   * registered into it name that address. A port another program holds now is SimulatorPortTaken,
   * thrown before anything is written.
   *
   * Only one simulator owns a state file: the start takes `<statePath>.lock` (pid, url, start time) and
   * throws SimStateOwned, having loaded and written nothing, when a live process holds it; the lock of an
   * exited process is taken over (`stateOwnership.staleOwner`). Close saves, then releases the lock.
   */
  statePath?: string;
  /** How often a kept cloud is saved while it changes (default 5 s). */
  saveIntervalMs?: number;
}

/** The port a kept simulated cloud answers on is held by another program: nothing was loaded or written. */
export class SimulatorPortTaken extends Error {
  override readonly name = 'SimulatorPortTaken';
  readonly reason = 'simulator-port-taken';
  constructor(readonly port: number, readonly statePath: string) {
    super(`the built-in OpenStack simulator keeps its cloud on 127.0.0.1:${port} (saved in ${statePath}, which its Regions name), ` +
      `but another program holds that port now; stop it and start again (or delete ${dirname(statePath)}/ to start over on a new cloud)`);
  }
}

export interface RunningSimulator {
  /** http://127.0.0.1:PORT */
  url: string;
  /** `${url}/identity/v3` */
  authUrl: string;
  clock: SimClock;
  credentials: Record<SeedUser, SeedCredential>;
  /** clouds.yaml text with clouds sim-admin, sim-demo, sim-other. */
  cloudsYaml(): string;
  /** The call log (e.g. count rebuild POSTs). */
  calls(filter?: CallFilter): CallRecord[];
  /** Everything /_sim offers, in-process. */
  control: SimControl;
  /** With `statePath`: the lock this simulator holds (and whose stale holder it replaced, if any). */
  stateOwnership?: { lockPath: string; staleOwner?: SimStateOwner };
  close(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const clock = options.clock === 'real' ? realClock() : manualClock();
  const sim = new Sim(clock, options.delays ?? {});
  const seedAll = options.seed ?? true;
  const reseed = (): void => {
    sim.wipe();
    if (options.tokenTtlMs !== undefined) sim.config.keystone.tokenTtlMs = options.tokenTtlMs;
    seedIdentity(sim);
    if (seedAll) seedCloud(sim);
    else seedMinimal(sim);
    if (seedAll && options.seedWorkloadNetwork === true) seedWorkloadNetwork(sim);
  };
  const control = new SimControl(sim, reseed);
  const statePath = options.statePath;
  const kept = statePath && options.port === undefined ? keptSimPort(statePath) : undefined;
  if (statePath && kept !== undefined) {
    // A live owner listens on the kept port itself: it is the owner's cloud to serve, not a port clash.
    const owner = liveSimStateOwner(statePath);
    if (owner) throw new SimStateOwned(owner.lockPath, owner.owner);
  }
  const http = await listen(sim, buildRouter(), control, kept ?? options.port ?? 0).catch((error: NodeJS.ErrnoException) => {
    throw kept !== undefined && statePath && error.code === 'EADDRINUSE' ? new SimulatorPortTaken(kept, statePath) : error;
  });
  const url = `http://127.0.0.1:${http.port}`;
  sim.baseUrl = url;
  // Listening first, so the lock can name the url; nothing between here and the return awaits, so no
  // request is served before the records are loaded or seeded.
  let ownership: SimStateOwnership | undefined;
  let fresh = false;
  try {
    if (statePath) ownership = takeSimStateOwnership(statePath, url);
    if (!statePath || !loadSimState(sim, statePath)) {
      reseed();
      fresh = true;
    }
  } catch (error) {
    ownership?.release();
    await http.close();
    throw error;
  }
  const saver = statePath && ownership ? keptCloudSaver(sim, statePath, options.saveIntervalMs ?? 5_000) : undefined;
  if (saver && fresh) await saver.save();
  const creds = credentials();
  let closing: Promise<void> | undefined;
  return {
    url,
    authUrl: `${url}/identity/v3`,
    clock,
    credentials: creds,
    cloudsYaml: () => cloudsYaml(`${url}/identity/v3`, creds),
    calls: (filter) => sim.calls.list(filter),
    control,
    ...(ownership ? { stateOwnership: { lockPath: ownership.lockPath, ...(ownership.staleOwner ? { staleOwner: ownership.staleOwner } : {}) } } : {}),
    close: () => (closing ??= (async () => {
      await http.close();
      if (!saver || !ownership) return;
      try {
        await saver.close();
      } finally {
        ownership.release();
      }
    })()),
  };
}

/**
 * Saves a kept cloud while it changes: every `intervalMs`, when a call was served or a transition was
 * pending since the last save; one save at a time (the last one, at close, waits for transitions to settle).
 */
const keptCloudSaver = (sim: Sim, statePath: string, intervalMs: number) => {
  let chain: Promise<void> = Promise.resolve();
  let savedCalls = -1;
  const save = (maxWaitMs?: number): Promise<void> => {
    chain = chain.then(async () => {
      const calls = sim.calls.mutations();
      await saveSimState(sim, statePath, maxWaitMs);
      savedCalls = calls;
    });
    return chain;
  };
  const timer = setInterval(() => {
    if (sim.calls.mutations() === savedCalls && sim.scheduler.pending() === 0) return;
    // a failed periodic save keeps the previous file whole (atomic rename); the next tick tries again
    save(0).catch(() => undefined);
  }, intervalMs);
  timer.unref();
  return {
    save: () => save(0),
    close: async () => {
      clearInterval(timer);
      await chain.catch(() => undefined);
      await save();
    },
  };
};

/**
 * The clouds.yaml of a simulator this process did not start (another process owns its state file):
 * the seed users and passwords are fixed (keystone/seed.ts), and a kept cloud keeps them.
 */
export const simulatorCloudsYaml = (url: string): string => cloudsYaml(`${url}/identity/v3`, credentials());

export function cloudsYaml(authUrl: string, creds: Record<SeedUser, SeedCredential>): string {
  const clouds: Record<string, unknown> = {};
  for (const [name, c] of Object.entries(creds)) {
    clouds[`sim-${name}`] = {
      auth: {
        auth_url: authUrl, username: c.username, password: c.password, project_name: c.projectName,
        user_domain_name: c.userDomainName, project_domain_name: c.projectDomainName,
      },
      region_name: 'RegionOne', interface: 'public', identity_api_version: 3,
    };
  }
  return stringify({ clouds });
}
