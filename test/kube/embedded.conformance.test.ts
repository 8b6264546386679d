/** The conformance suites (resources and secrets) against the embedded SQLite adapter, one fresh file per test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import { runConformance, type ConformanceTarget } from './conformance.js';
import { runSecretConformance } from './secrets.conformance.js';

const CHANGE_LOG_LIMIT = 20;

const target: ConformanceTarget = {
  name: 'embedded',
  changeLogLimit: CHANGE_LOG_LIMIT,
  eventuallyMs: 3000,
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'regent-kube-'));
    const path = join(dir, 'resources.db');
    const source = openEmbeddedSource({ path, changeLogLimit: CHANGE_LOG_LIMIT, pollIntervalMs: 25 });
    return {
      source,
      namespace: 'conformance',
      spec: `embedded:${path}`,
      connect: async () => openEmbeddedSource({ path, changeLogLimit: CHANGE_LOG_LIMIT, pollIntervalMs: 25 }),
      async cleanup() {
        await source.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

runConformance(target);
runSecretConformance(target);
