/**
 * The real cloud as a differential target: the suite's run (test/real-openstack/support/run.ts) with its
 * sessions, fixtures and cleanup, real time (a tick sleeps 150 ms), and the fault vocabulary mapped onto
 * the sandbox's nova.json (one file for all servers: `delay.spawn` is global, `fail.spawn` a name regex).
 */
import type { RealRun } from '../real-openstack/support/run.js';
import { sleep } from '../real-openstack/support/wait.js';
import { exactRegex, type DiffTarget } from './target.js';

export const REAL_TICK_MS = 150;

export const realTarget = (run: RealRun): DiffTarget => {
  let delay: number | undefined;
  let failing: string[] = [];
  const write = (): void => {
    if (!run.faults) throw new Error('this scenario needs fault control (SANDBOX_CONTROL_DIR)');
    run.faults.set('nova', {
      ...(delay !== undefined ? { delay: { spawn: delay } } : {}),
      ...(failing.length > 0 ? { fail: { spawn: failing.join('|') } } : {}),
    });
  };
  const target: DiffTarget = {
    kind: 'real',
    prefix: run.prefix,
    tenant: run.tenant,
    admin: run.admin,
    logger: run.logger,
    hasFaultControl: run.faults !== undefined,
    fixtures: () => run.fixtures(),
    tick: () => sleep(REAL_TICK_MS),
    slowSpawn: async (seconds) => {
      delay = seconds;
      write();
    },
    // The sandbox's regex fails every spawn of the server (boot and rebuild): scenarios set it only
    // after the boot they want to succeed.
    failSpawn: async (name) => {
      failing = [...failing, exactRegex(name)];
      write();
    },
    holdBoot: async (_name, seconds) => {
      delay = seconds;
      write();
    },
    clearFaults: async () => {
      delay = undefined;
      failing = [];
      run.faults?.reset();
    },
    track: (label, remove, group) => run.cleanup.add(label, remove, group),
    boot: (suffix, imageId) => run.bootServer(suffix, imageId !== undefined ? { imageId } : {}),
  };
  return target;
};
