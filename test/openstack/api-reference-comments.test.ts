import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// Every client function names the API-reference operation it implements on the line above it
// (`// Compute API: Rebuild Server (rebuild Action) — POST /servers/{server_id}/action`).
const ROOT = join(process.cwd(), 'src/openstack');
const CLIENT_FILES = [
  ...['nova', 'cinder', 'neutron', 'octavia'].flatMap((dir) => readdirSync(join(ROOT, dir)).filter((f) => f.endsWith('.ts') && f !== 'index.ts' && f !== 'resource.ts').map((f) => join(dir, f))),
  'glance.ts', 'placement.ts', 'ironic.ts', 'keystone/auth.ts',
  // the Keystone administration client (common.ts, decoders.ts and user-session.ts call no API of their own)
  ...readdirSync(join(ROOT, 'keystone/admin')).filter((f) => f.endsWith('.ts') && !['index.ts', 'common.ts', 'decoders.ts', 'user-session.ts'].includes(f)).map((f) => join('keystone/admin', f)),
];
const FUNCTION = /^export const (\w+) = (async )?\(http: HttpSession|^export const (issueToken) = async/;
const REFERENCE = /^\/\/ [A-Z][\w ]*API[\w .]*: .+ — (GET|HEAD|POST|PUT|PATCH|DELETE) \//;

describe('API reference comments', () => {
  for (const file of CLIENT_FILES) {
    it(`every client function in ${file} carries its API-reference line`, () => {
      const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
      const missing: string[] = [];
      let count = 0;
      lines.forEach((line, i) => {
        const m = FUNCTION.exec(line);
        if (!m || /^create\w+Client$/.test(m[1] ?? '')) return;
        count++;
        const previous = lines[i - 1] ?? '';
        if (!REFERENCE.test(previous)) missing.push(m[1] ?? m[3] ?? line);
      });
      expect(count, 'client functions found').to.be.greaterThan(0);
      expect(missing).to.deep.equal([]);
    });
  }
});
