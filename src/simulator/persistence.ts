// Keeping the simulated cloud across restarts (`regent serve` on embedded defaults keeps it next to
// its stores), so a restarted control plane finds the servers it created instead of an empty cloud.
//
// What is kept: every service's records (Maps and Sets tagged in JSON), and the loopback port the
// simulator answered on. What is not: tokens (clients re-authenticate), the call log, faults and knobs,
// and transitions still pending at save time — the save first waits a little for them to settle, and a
// record caught mid-transition stays as it is.
//
// The port is kept because the cloud's address is part of the cloud: the Region registered into it
// names its Keystone by URL, so a restart on a new random port left region-one pointing at nothing and
// every resource in it Errored until someone edited the Region by hand (issue 24, item 1).
//
// Only one process owns a state file: the one holding `<statePath>.lock`. Without that, a second
// `npm start` that failed (port in use) and a standby replica on the same ./data each started an empty
// cloud and wrote it over the owner's file at exit. The owner alone loads and saves; a save goes through
// a temporary file of its own (never a fixed `.tmp` another writer could share), fsynced, then renamed
// over the target, so a crash mid-save leaves the previous file whole.
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Sim } from './state.js';

const FORMAT = 1;
const SERVICES = ['keystone', 'nova', 'glance', 'cinder', 'neutron', 'octavia', 'placement', 'ironic'] as const;

const replacer = (_key: string, value: unknown): unknown => {
  if (value instanceof Map) return { $map: [...value.entries()] };
  if (value instanceof Set) return { $set: [...value.values()] };
  return value;
};

const reviver = (_key: string, value: unknown): unknown => {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.$map) && Object.keys(record).length === 1) return new Map(record.$map as Array<[unknown, unknown]>);
    if (Array.isArray(record.$set) && Object.keys(record).length === 1) return new Set(record.$set as unknown[]);
  }
  return value;
};

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

// ---------------------------------------------------------------------------------------------------
// Atomic writes

/** `<name>.<pid>.<12 hex>.tmp` next to the target: unique per write, so two writers never share one. */
const tempName = (path: string): string => join(dirname(path), `${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
const isTempOf = (path: string, file: string): boolean => {
  const base = basename(path);
  return file.startsWith(`${base}.`) && /^\.\d+\.[0-9a-f]{12}\.tmp$/.test(file.slice(base.length));
};

const writeSynced = (path: string, data: string): void => {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};

/** The directory entry of a rename survives a power cut only once the directory is synced (Linux). */
const syncDirectory = (dir: string): void => {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic for readers.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
};

/** Write `data` to a uniquely named temp file in the target's directory, fsync it, rename it over `path`. */
export function writeFileAtomic(path: string, data: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = tempName(path);
  try {
    writeSynced(temp, data);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncDirectory(dirname(path));
}

// ---------------------------------------------------------------------------------------------------
// Ownership

/** What the owner's lock file holds. The url is where its simulator answers (loopback). */
export interface SimStateOwner {
  pid: number;
  url: string;
  startedAt: string;
  /** Liveness of `pid` can only be judged on the same host (pid namespace). */
  host: string;
}

/** The state file is owned by a live process: use its simulator (`owner.url`) instead of starting one. */
export class SimStateOwned extends Error {
  override readonly name = 'SimStateOwned';
  constructor(readonly lockPath: string, readonly owner: SimStateOwner) {
    super(`the simulator state next to ${lockPath} is owned by pid ${owner.pid} (simulator at ${owner.url}, since ${owner.startedAt})`);
  }
}

/** The lock file exists but does not say who owns it: never taken over, since the owner may be alive. */
export class SimStateLockUnreadable extends Error {
  override readonly name = 'SimStateLockUnreadable';
  constructor(readonly lockPath: string) {
    super(`the simulator state lock ${lockPath} is unreadable; remove it if no simulator uses that state file`);
  }
}

export const lockPathOf = (statePath: string): string => `${statePath}.lock`;

/** Whether a process with this pid exists on this host (EPERM: it exists, under another user). */
export const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errno(error) === 'EPERM';
  }
};

const parseOwner = (text: string): SimStateOwner | undefined => {
  try {
    const v = JSON.parse(text) as Partial<SimStateOwner>;
    // pid 0 or negative would make kill(pid, 0) probe a process group: such a lock is unreadable.
    if (!Number.isInteger(v.pid) || (v.pid as number) <= 0 || typeof v.url !== 'string' || typeof v.startedAt !== 'string') return undefined;
    return { pid: v.pid as number, url: v.url, startedAt: v.startedAt, host: typeof v.host === 'string' ? v.host : hostname() };
  } catch {
    return undefined;
  }
};

/** The owner named by the lock next to `statePath`; undefined when there is no lock. */
export function readSimStateOwner(statePath: string): SimStateOwner | undefined {
  const lockPath = lockPathOf(statePath);
  let text: string;
  try {
    text = readFileSync(lockPath, 'utf8');
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw error;
  }
  const owner = parseOwner(text);
  if (!owner) throw new SimStateLockUnreadable(lockPath);
  return owner;
}

const isStale = (owner: SimStateOwner): boolean => owner.host === hostname() && !pidAlive(owner.pid);

/** The owner named by the lock next to `statePath` when it is alive (a stale or missing lock: undefined); reads only. */
export function liveSimStateOwner(statePath: string): { lockPath: string; owner: SimStateOwner } | undefined {
  const owner = readSimStateOwner(statePath);
  return owner && !isStale(owner) ? { lockPath: lockPathOf(statePath), owner } : undefined;
}

export interface SimStateOwnership {
  lockPath: string;
  /** Set when the lock of an exited process was taken over. */
  staleOwner?: SimStateOwner;
  /** Removes the lock, if it is still ours. */
  release(): void;
}

/**
 * Take the owner lock of `statePath` for a simulator answering at `url`, or throw SimStateOwned.
 *
 * The lock is created exclusively and whole: its content is written and fsynced to a temp file first,
 * then hard-linked to the lock name (link(2) fails with EEXIST like O_EXCL, and a reader never sees a
 * half-written lock). A lock whose pid no longer runs on this host is stale: it is renamed aside
 * (atomic, so of two processes taking over only one gets it) and checked to be the one judged stale.
 */
export function takeSimStateOwnership(statePath: string, url: string): SimStateOwnership {
  const lockPath = lockPathOf(statePath);
  const mine: SimStateOwner = { pid: process.pid, url, startedAt: new Date().toISOString(), host: hostname() };
  const text = `${JSON.stringify(mine)}\n`;
  mkdirSync(dirname(lockPath), { recursive: true });
  const temp = tempName(lockPath);
  writeSynced(temp, text);
  let staleOwner: SimStateOwner | undefined;
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(temp, lockPath);
        syncDirectory(dirname(lockPath));
        removeLeftoverTemps(statePath);
        return {
          lockPath,
          ...(staleOwner ? { staleOwner } : {}),
          release: () => {
            try {
              if (readFileSync(lockPath, 'utf8') === text) rmSync(lockPath, { force: true });
            } catch {
              // already gone
            }
          },
        };
      } catch (error) {
        if (errno(error) !== 'EEXIST') throw error;
      }
      let currentText: string;
      try {
        currentText = readFileSync(lockPath, 'utf8');
      } catch (error) {
        if (errno(error) === 'ENOENT') continue; // released meanwhile
        throw error;
      }
      const current = parseOwner(currentText);
      if (!current) throw new SimStateLockUnreadable(lockPath);
      if (!isStale(current)) throw new SimStateOwned(lockPath, current);
      const aside = tempName(`${lockPath}.stale`);
      try {
        renameSync(lockPath, aside);
      } catch (error) {
        if (errno(error) === 'ENOENT') continue; // another process took it over first
        throw error;
      }
      if (readFileSync(aside, 'utf8') !== currentText) {
        // A live owner's lock replaced the stale one between our read and our rename: put it back.
        try {
          linkSync(aside, lockPath);
        } catch {
          // a third process holds the name now; the next attempt reads whoever it is
        }
      } else {
        staleOwner = current;
      }
      rmSync(aside, { force: true });
    }
    throw new Error(`could not take the simulator state lock ${lockPath}: it kept changing`);
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Temp files of saves that died before their rename (only the lock holder writes, so none is in flight). */
function removeLeftoverTemps(statePath: string): void {
  let files: string[];
  try {
    files = readdirSync(dirname(statePath));
  } catch {
    return;
  }
  for (const file of files) if (isTempOf(statePath, file)) rmSync(join(dirname(statePath), file), { force: true });
}

// ---------------------------------------------------------------------------------------------------
// Save and load (the owner's)

/** Waits (up to `maxWaitMs`) for pending transitions to come due and run, then writes the records atomically. */
export async function saveSimState(sim: Sim, path: string, maxWaitMs = 3_000): Promise<void> {
  const deadline = Date.now() + maxWaitMs;
  sim.settle();
  while (sim.scheduler.pending() > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    sim.settle();
  }
  const state: Record<string, unknown> = { format: FORMAT, savedAt: new Date().toISOString(), ...portField(sim.baseUrl) };
  for (const service of SERVICES) state[service] = sim[service];
  writeFileAtomic(path, JSON.stringify(state, replacer));
}

const portField = (baseUrl: string): { port?: number } => {
  const port = Number(/^http:\/\/127\.0\.0\.1:(\d+)$/.exec(baseUrl)?.[1]);
  return Number.isInteger(port) && port > 0 ? { port } : {};
};

/**
 * The port the simulator kept in `path` answered on, for the next start to take again; undefined when
 * there is no readable save or it predates kept ports (that start picks a free port, as a first start does).
 */
export function keptSimPort(path: string): number | undefined {
  let state: { format?: unknown; port?: unknown };
  try {
    state = JSON.parse(readFileSync(path, 'utf8')) as typeof state;
  } catch {
    return undefined;
  }
  const port = state.port;
  return state.format === FORMAT && typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
}

/** Replaces the records with the saved ones; false when there is no readable save (the caller seeds). */
export function loadSimState(sim: Sim, path: string): boolean {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return false;
  }
  const state = JSON.parse(text, reviver) as Record<string, unknown>;
  if (state.format !== FORMAT) return false;
  for (const service of SERVICES) {
    if (!state[service]) return false;
  }
  sim.scheduler.clear();
  for (const service of SERVICES) (sim as unknown as Record<string, unknown>)[service] = state[service];
  sim.keystone.tokens.clear();
  return true;
}
