/**
 * Cinder volumes named `volume-<uid>` (a Volume's Cinder name, machines/volume-lifecycle.ts V1): the uid
 * carries the run prefix, so the names start with `volume-` and the suite's sweep (support/sweep.ts), which
 * matches names that *start* with a run prefix, never sees them. The files that create them remove each by
 * exact name (removeVolumeByName) and sweep `volume-<prefix>` names themselves (sweepRunVolumes).
 */
import { BadRequest, NotFound } from '../../../src/openstack/errors.js';
import type { RealRun } from './run.js';
import { waitFor, waitGone } from './wait.js';

/** Statuses a removal waits out before it deletes (Cinder refuses a delete in them). */
const TRANSIENT = ['creating', 'reserved', 'attaching', 'detaching', 'downloading', 'extending'];

export interface RemoveOptions {
  /**
   * Detach the volume from every server Cinder shows it on (through Nova) before deleting it: a volume
   * attached to a server cannot be deleted, not even force-deleted.
   */
  detachFirst?: boolean;
}

/**
 * Every volume named exactly `name` deleted and gone (404), whatever a failed test left it in: with
 * `detachFirst`, each server Cinder shows it on is asked (Nova) to detach it until no attachment row is left;
 * a transient status is waited out; one Cinder refuses to delete (a forced `maintenance`) is force-deleted by
 * the admin.
 */
export const removeVolumeByName = async (run: RealRun, name: string, options: RemoveOptions = {}): Promise<void> => {
  const { cinder, nova } = run.tenant;
  for (const v of (await cinder.listVolumes({ name })).filter((x) => x.name === name)) {
    if (options.detachFirst) {
      await waitFor(`volume ${name} detached`, async () => {
        const rows = await cinder.listAttachments({ volumeId: v.id }).catch((e: unknown) => (e instanceof NotFound ? [] : Promise.reject(e)));
        for (const row of rows) {
          const instance = row.instance.kind === 'value' ? row.instance.value : null;
          if (instance) await nova.detachVolume(instance, v.id).catch(() => undefined); // 404 gone, 400 detaching already, 409 busy: retried
        }
        return rows.length;
      }, (n) => n === 0, { timeoutMs: 90_000, intervalMs: 1_000 });
    }
    const now = await waitFor(`volume ${name} out of a transient status`, () => cinder.getVolume(v.id).catch((e: unknown) => (e instanceof NotFound ? null : Promise.reject(e))),
      (x) => x === null || !TRANSIENT.includes(x.status.kind === 'value' ? x.status.value : ''), { timeoutMs: 60_000 });
    if (now === null) continue;
    if (now.status.kind !== 'value' || now.status.value !== 'deleting') {
      try {
        await cinder.deleteVolume(v.id, { cascade: true });
      } catch (error) {
        if (error instanceof NotFound) continue;
        if (!(error instanceof BadRequest) || !run.admin) throw error;
        await run.admin.cinder.deleteVolume(v.id, { force: true });
      }
    }
    await waitGone(`volume ${name}`, () => cinder.getVolume(v.id), { timeoutMs: 60_000 });
  }
};

/** `volume-regent-ci-<pid>-<hex>…`: the names the volume files give Cinder; groups: the run prefix, its pid. */
const OURS = /^volume-(regent-ci-(\d+)-[0-9a-f]{4})-/;

/** Whether the process `pid` (a run's) still runs. */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Removes the tenant's `volume-<prefix>` volumes whose run prefix and pid `keep` does not keep; the names
 * removed. `options` are removeVolumeByName's.
 */
export const sweepRunVolumes = async (run: RealRun, keep: (prefix: string, pid: number) => boolean, options: RemoveOptions = {}): Promise<string[]> => {
  const names = new Set<string>();
  for (const v of await run.tenant.cinder.listVolumes()) {
    const m = v.name ? OURS.exec(v.name) : null;
    if (m && !keep(m[1] as string, Number(m[2]))) names.add(v.name as string);
  }
  for (const name of names) await removeVolumeByName(run, name, options);
  return [...names];
};
