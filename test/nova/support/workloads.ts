/**
 * Test support for the role workloads (src/nova/workloads/): a lane pass to build role templates from
 * (roleTemplate), and a stand-in role program for the local adapter, so npm test supervises real child processes
 * without starting Nova (the real Nova runs in test/real-openstack/nova-roles.openstack.ts).
 *
 * The stand-in (`node -e`): records each start's pid and time in `<configDir>/../starts`, then behaves as FAKE_MODE (a
 * literal env of the template) says — `serve` (default): an API that answers GET / with 300 and a version document
 * on its port, or, without a port, just stays up; `crash`: exits 3 at once; `ignore-term`: ignores SIGTERM (only
 * SIGKILL ends it); `fork`: also starts a child in its process group that ignores SIGTERM (a forking server's worker).
 */
import { join } from 'node:path';
import type { RoleLauncher } from '../../../src/nova/workloads/nova-launcher.js';
import type { NovaLanePass } from '../../../src/controllers/nova/pass.js';
import { DIGEST_ANNOTATIONS } from '../../../src/controllers/nova/pass.js';
import type { NovaSpec } from '../../../src/resources/nova.js';

const PROGRAM = `
const fs = require('node:fs');
const http = require('node:http');
const { spawn } = require('node:child_process');
const [port, startsFile] = process.argv.slice(1);
fs.appendFileSync(startsFile, process.pid + ' ' + Date.now() + '\\n');
const mode = process.env.FAKE_MODE || 'serve';
if (mode === 'crash') process.exit(3);
process.on('SIGTERM', () => { if (mode !== 'ignore-term') process.exit(0); });
if (mode === 'fork') spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1e6)"], { stdio: 'ignore' });
if (port !== '-') {
  http.createServer((req, res) => { res.writeHead(300, { 'content-type': 'application/json' }); res.end('{"versions":[]}'); }).listen(Number(port), '127.0.0.1');
}
console.log('stand-in role up, pid ' + process.pid);
setInterval(() => {}, 1e6);
`;

/** Launches the stand-in instead of Nova: the same config directory and port the Nova launcher gets. */
export const standInLauncher: RoleLauncher = (input) => ({
  command: process.execPath,
  args: ['-e', PROGRAM, input.port === undefined ? '-' : String(input.port), join(input.configDir, '..', 'starts')],
  files: { 'stand-in.txt': `${input.role}\n` },
});

export const novaSpec = (extra: Partial<NovaSpec> = {}): NovaSpec => ({
  image: 'ghcr.io/c5c3/nova:2025.1',
  openStackRelease: '2025.1',
  database: { api: { clusterRef: { name: 'mariadb' }, database: 'nova_api', secretRef: { name: 'nova-api-db' } }, cell: { clusterRef: { name: 'mariadb' }, database: 'nova', secretRef: { name: 'nova-db' } } },
  messaging: { secretRef: { name: 'rabbit', key: 'url' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
  metadata: { sharedSecretRef: { name: 'nova-metadata' } },
  consoleProxy: { enabled: true },
  ...extra,
});

/** Every digest a pass of the credential steps stamps. */
export const allDigests = (): Record<string, string> => ({
  [DIGEST_ANNOTATIONS.apiDbConnection]: 'a'.repeat(64),
  [DIGEST_ANNOTATIONS.dbConnection]: 'b'.repeat(64),
  [DIGEST_ANNOTATIONS.authtoken]: 'c'.repeat(64),
  [DIGEST_ANNOTATIONS.transportURL]: 'd'.repeat(64),
  [DIGEST_ANNOTATIONS.metadataSecret]: 'e'.repeat(64),
});

export const CONFIG = {
  name: 'nova-config-0123456789',
  hash: '0123456789',
  files: { 'nova.conf': '[DEFAULT]\n', 'nova-conductor.conf': '[conductor]\nworkers = 1\n', 'nova-scheduler.conf': '', 'nova-metadata.conf': '', 'nova-novncproxy.conf': '', 'nova-api.conf': '', 'api-paste.ini': '' },
};

/** A lane pass as the workload steps see it once the credential and Config steps ran. */
export const lanePass = (options: { spec?: NovaSpec; workloads?: unknown; upgrading?: boolean; name?: string; namespace?: string; digests?: Record<string, string>; config?: typeof CONFIG | undefined } = {}): NovaLanePass => {
  const namespace = options.namespace ?? 'openstack';
  const name = options.name ?? 'nova';
  return {
    nova: { apiVersion: 'regent.dev/v1alpha1', kind: 'Nova', metadata: { name, namespace, uid: 'uid-nova', generation: 1 }, spec: options.spec ?? novaSpec() },
    ref: { namespace, name, uid: 'uid-nova' },
    deps: { workloads: options.workloads, jobs: { databaseTlsDir: (_ns: string, _nova: string, block: string) => `/etc/nova-db-tls/${block}` } } as never,
    values: { digests: options.digests ?? allDigests(), ...('config' in options ? (options.config ? { config: options.config } : {}) : { config: CONFIG }) },
    upgrading: options.upgrading ?? false,
    now: () => new Date(),
  } as unknown as NovaLanePass;
};
