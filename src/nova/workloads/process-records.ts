/**
 * What the embedded default's supervised processes leave on disk so a later Regent finds them (the Nova roles,
 * ./local.ts, and the NovaCompute pools' nova-compute, src/nova/compute/local.ts): `process.json` with the pid and its
 * /proc start time (a pid reused by another process never matches), written atomically; and the stop of the
 * processes an earlier Regent recorded: SIGTERM to the group, SIGKILL after the grace.
 */
import { readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { signalGroup } from './supervisor.js';

export interface ProcessRecordBase {
  pid: number;
  /** The process's start time in clock ticks (/proc/<pid>/stat field 22): with the pid, who the process is. */
  pidStart: string | null;
}

/** The start time of `pid` (/proc/<pid>/stat field 22), or null when there is no such process. */
export const procStart = (pid: number): string | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
};

export const readJson = <T>(path: string): T | undefined => {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
};

/** Written to a temporary file, then renamed: a reader never sees half of it. */
export const writeJson = (path: string, value: unknown, mode = 0o600): void => {
  const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode });
  renameSync(temporary, path);
};

/** The names of the directories in `path` (none when it does not exist). */
export const subdirectories = (path: string): string[] => {
  try {
    return readdirSync(path, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The record at `path` when the process it names still runs as recorded (same pid, same start time), else undefined. */
export const readLiveRecord = <T extends ProcessRecordBase>(path: string): T | undefined => {
  const record = readJson<T>(path);
  return record && typeof record.pid === 'number' && record.pid > 1 && record.pidStart !== null && procStart(record.pid) === record.pidStart ? record : undefined;
};

/**
 * Stops every process the records at `paths` name that still runs as recorded (same pid, same start time), and
 * removes the records: SIGTERM to its process group, SIGKILL once `graceMs` passed.
 */
export const stopRecordedProcesses = async (paths: readonly string[], graceMs: number): Promise<void> => {
  const found: ProcessRecordBase[] = [];
  for (const path of paths) {
    const record = readLiveRecord<ProcessRecordBase>(path);
    if (record) found.push(record);
    rmSync(path, { force: true });
  }
  await Promise.all(
    found.map(async (record) => {
      signalGroup(record.pid, 'SIGTERM');
      for (let waited = 0; waited < graceMs && procStart(record.pid) === record.pidStart; waited += 50) await sleep(50);
      signalGroup(record.pid, 'SIGKILL');
    }),
  );
};
