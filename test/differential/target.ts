/**
 * What a differential scenario needs from a cloud, so the same script runs against the simulator and a
 * real OpenStack: sessions, fixtures, a way to let time pass, fault injection in the terms both targets
 * share, and cleanup registration.
 *
 * Fault vocabulary (the sandbox's control files on one side, the simulator's /_sim config on the other):
 * - slowSpawn(s): hold the spawn step of boots and rebuilds (sandbox `delay.spawn`; the simulator's clock
 *   only moves when the scenario ticks, so every state is observable without it);
 * - failSpawn(name, phase): the next boot or rebuild of that server ends in ERROR (sandbox `fail.spawn`,
 *   simulator boot rule `error`);
 * - holdBoot(name, s): the server stays in BUILD/spawning for a while (sandbox `delay.spawn`, simulator
 *   boot rule `never`).
 */
import type { Logger } from '../../src/log/logger.js';
import type { OpenStackSession } from '../../src/openstack/session.js';

export interface DiffFixtures {
  flavorId: string;
  imageA: string;
  imageB: string;
  networkId: string;
  subnetId: string;
}

export interface DiffTarget {
  readonly kind: 'real' | 'simulator';
  /** Names of everything the scenarios create start with it. */
  readonly prefix: string;
  readonly tenant: OpenStackSession;
  readonly admin: OpenStackSession | undefined;
  readonly logger: Logger;
  readonly hasFaultControl: boolean;
  fixtures(): Promise<DiffFixtures>;
  /** Let time pass: real clock sleeps, the simulator's manual clock advances (by its own step). */
  tick(): Promise<void>;
  slowSpawn(seconds: number): Promise<void>;
  failSpawn(serverName: string, phase: 'boot' | 'rebuild'): Promise<void>;
  holdBoot(serverName: string, seconds: number): Promise<void>;
  clearFaults(): Promise<void>;
  /** Register a deletion for the end of the run (real target; the simulator just closes). */
  track(label: string, remove: () => Promise<void>, group?: string): void;
  /** Boot a server named `<prefix>-<suffix>` (registered for deletion). */
  boot(suffix: string, imageId?: string): Promise<{ id: string; name: string }>;
}

/** Python/JS-compatible regex matching exactly one name. */
export const exactRegex = (name: string): string => `^${name.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&')}$`;
