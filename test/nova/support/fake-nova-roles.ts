/**
 * A stand-in for the installed Nova's roles, for tests that run the embedded default's local workloads without
 * python3-nova (npm test): an executable that the local launcher starts as it would start /usr/bin/python3
 * (`<it> -c <launcher> --config-file … --config-file …/regent-local.conf`). It reads its role from the launcher's
 * program text and its port from regent-local.conf, answers GET / with a version document on that port (the API,
 * metadata, the console proxy), or idles (the conductor, the scheduler); it appends `<role> <pid>` to the file
 * `FAKE_NOVA_STARTS` names at each start when set, and exits on SIGTERM.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const program = (startsFile: string | undefined): string => `#!${process.execPath}
const fs = require('node:fs');
const http = require('node:http');
const args = process.argv.slice(2);
const files = [];
for (let i = 0; i < args.length; i++) if (args[i] === '--config-file') files.push(args[++i]);
const role = (/sys\\.argv\\[0\\] = "([^"]+)"/.exec(args[1] || '') || [])[1] || 'unknown';
const local = files.find((f) => f.endsWith('regent-local.conf'));
const text = local ? fs.readFileSync(local, 'utf8') : '';
const port = /(?:osapi_compute_listen_port|metadata_listen_port|novncproxy_port) = (\\d+)/.exec(text);
${startsFile ? `fs.appendFileSync(${JSON.stringify(startsFile)}, role + ' ' + process.pid + '\\n');` : ''}
process.on('SIGTERM', () => process.exit(0));
if (port) {
  http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ versions: [{ id: 'v2.1', status: 'CURRENT' }] }));
  }).listen(Number(port[1]), '127.0.0.1');
} else {
  setInterval(() => undefined, 1 << 30);
}
`;

/** Writes the stand-in into `dir` and returns its path (give it to novaLauncher({ python })). */
export const writeFakeNovaPython = (dir: string, options: { startsFile?: string } = {}): string => {
  const path = join(dir, 'fake-nova-python');
  writeFileSync(path, program(options.startsFile));
  chmodSync(path, 0o755);
  return path;
};
