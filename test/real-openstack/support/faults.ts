/**
 * The sandbox's fault control (openstack-sandbox README, "Fault control"): each fake driver reads
 * `<dir>/<service>.json` on every call, so a test changes behaviour by rewriting the file. A half-written
 * file counts as `{}`, so we write a temporary file and rename it over the old one; teardown writes `{}`
 * to every file a test touched (also when the test failed).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type FaultService = 'nova' | 'cinder' | 'octavia';

export interface FaultSpec {
  /** Seconds per driver op (`spawn`, `destroy`, `power_off`, `create_volume`, `post_vip_plug`, ...). */
  delay?: Readonly<Record<string, number>>;
  /** Python `re.search` on the resource name (server, volume, or the LB's name), per op. */
  fail?: Readonly<Record<string, string>>;
}

export class FaultControl {
  private readonly touched = new Set<FaultService>();

  constructor(readonly dir: string) {}

  set(service: FaultService, spec: FaultSpec): void {
    this.touched.add(service);
    const path = join(this.dir, `${service}.json`);
    const tmp = `${path}.regent-${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(spec));
    renameSync(tmp, path);
  }

  /** Back to `{}` for every file touched since the last reset. */
  reset(): void {
    for (const service of this.touched) this.set(service, {});
    this.touched.clear();
  }
}

/** A regex that matches exactly one name in the fault-control files (Python `re` syntax). */
export const exactNameRegex = (name: string): string => `^${name.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&')}$`;
