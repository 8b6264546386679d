/**
 * Issue 24, item 5, as a new user met it on the command line (bin/regent.js, a real process, an embedded store):
 * - "A server created through the REST API appears only as a UUID in `regent get servers`": a DISPLAY NAME column
 *   (the name the API was given: spec.name) right after NAME (the id every command takes), and `get server api-1`
 *   finds it by that name.
 * - "A wrong apiVersion/kind says only 'expected apiVersion regent.dev/v1alpha1': list the kinds. The 'known kinds'
 *   list leaves out flavors, volumeclasses and secrets."
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { serverResourceName } from '../../src/api/model.js';
import { KINDS, KIND_NAMES, STORED_KINDS } from '../../src/resources/index.js';
import { resolveKind } from '../../src/kube/kinds.js';

const ID = serverResourceName('net-a', 'api-1'); // what POST /api/v2/servers names it
const ID_B = serverResourceName('net-b', 'api-1'); // the same name on another network

const server = (name: string, serverName: string, network: string) => `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: ${name}, labels: { regent.dev/api-version: "2" } }
spec: { name: ${serverName}, image: { name: cirros }, flavor: { id: "2" }, networkID: ${network}, sshInjection: none }
`;

describe('regent get servers shows the name the API was given; unknown kinds list every kind (issue 24, item 5)', function () {
  this.timeout(90_000);
  let dir: string;
  let resources: string[];
  const regent = (args: string[], input?: string) => {
    const result = spawnSync(process.execPath, ['bin/regent.js', ...args], { encoding: 'utf8', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' }, ...(input === undefined ? {} : { input }) });
    return { code: result.status, out: result.stdout, err: result.stderr };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-get-servers-'));
    resources = ['--resources', `embedded:${join(dir, 'resources.db')}`];
    const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
    await applyManifests(source, [server('web-1', 'web-1', 'net-a'), server(ID, 'api-1', 'net-a'), server('other', 'api-2', 'net-b')].join('---\n'));
    await source.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('get servers: DISPLAY NAME right after NAME, the name the API was given beside the id every command takes', () => {
    const { code, out } = regent(['get', 'servers', '-n', 'default', ...resources]);
    expect(code).to.equal(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).to.match(/^NAME\s+DISPLAY NAME\s+AVAILABLE\s+REASON\s+PHASE\s+AGE$/);
    expect(lines).to.satisfy((ls: string[]) => ls.some((l) => new RegExp(`^${ID}\\s+api-1\\s`).test(l)));
    expect(lines).to.satisfy((ls: string[]) => ls.some((l) => /^web-1\s+web-1\s/.test(l)));
    // other kinds keep exactly the CRD's columns
    expect(regent(['get', 'networks', ...resources]).out.trim()).to.equal('No resources found.');
  });

  it('get server <the name the API was given> finds it (NAME is its id); its id and a resource name still work', () => {
    const byName = regent(['get', 'server', 'api-1', '-o', 'json', ...resources]);
    expect(byName.code, byName.err).to.equal(0);
    expect((JSON.parse(byName.out) as { metadata: { name: string } }).metadata.name).to.equal(ID);
    const byId = regent(['get', 'server', ID, ...resources]);
    expect(byId.code).to.equal(0);
    expect(byId.out).to.match(new RegExp(`^${ID}\\s+api-1\\s`, 'm'));
    expect(regent(['get', 'server', 'web-1', ...resources]).out).to.match(/^web-1\s+web-1\s/m);
    const none = regent(['get', 'server', 'api-9', ...resources]);
    expect(none.code).to.equal(1);
    expect(none.err).to.match(/^regent: .*api-9.* not found/);
  });

  it('a name two Servers were given (one per network) is refused naming both ids', async () => {
    const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
    await applyManifests(source, server(ID_B, 'api-1', 'net-b'));
    await source.close();
    const both = regent(['get', 'server', 'api-1', ...resources]);
    expect(both.code).to.equal(2);
    expect(both.err.trim()).to.equal(`regent: 2 Servers in default are named api-1 (one per network): get one by its id: ${[ID, ID_B].sort().join(', ')}`);
  });

  it('get <unknown kind> lists every kind get takes — the stored kinds, secrets, volumeclasses, flavors, images — and each one listed is taken', () => {
    const { code, err } = regent(['get', 'sever', ...resources]);
    expect(code).to.equal(2);
    const listed = /known kinds: (.*)$/m.exec(err)?.[1]?.split(', ') ?? [];
    expect(err).to.match(/^regent: unknown kind "sever"; known kinds: /);
    expect(listed).to.include.members([...KINDS.map((k) => k.plural), 'secrets', 'volumeclasses', 'flavors', 'images']);
    // each one listed is taken: a stored kind resolves (in process: a process per kind costs seconds); the others run
    const readElsewhere = listed.filter((kind) => {
      try {
        resolveKind(kind);
        return false;
      } catch {
        return true;
      }
    });
    expect(readElsewhere).to.deep.equal(['secrets', 'volumeclasses', 'flavors', 'images']);
    for (const kind of readElsewhere) {
      const run = regent(['get', kind, ...resources]);
      expect(run.err, `get ${kind}`).to.not.include('unknown kind');
      expect(run.code, `get ${kind}: ${run.err}`).to.equal(0);
    }
  });

  it('delete <unknown kind> lists the kinds delete takes (the stored kinds and secrets)', () => {
    const { code, err } = regent(['delete', 'flavor', 'x', ...resources]);
    expect(code).to.equal(2);
    expect(err.trim()).to.equal(`regent: unknown kind "flavor"; known kinds: ${[...STORED_KINDS.map((k) => k.plural), 'secrets'].join(', ')}`);
  });

  it('apply of a document with a wrong apiVersion or kind names every kind it takes', () => {
    const wrongKind = 'apiVersion: regent.dev/v1alpha1\nkind: Sever\nmetadata: {name: x}\nspec: {}\n';
    const wrongVersion = 'apiVersion: regent.dev/v1\nkind: Server\nmetadata: {name: y}\nspec: {}\n';
    const { code, err } = regent(['apply', '-f', '-', ...resources], `${wrongKind}---\n${wrongVersion}`);
    expect(code).to.equal(1);
    const kinds = `expected apiVersion regent.dev/v1alpha1 and one of the kinds ${KIND_NAMES.join(', ')}; or apiVersion v1 and kind Secret or Node`;
    expect(err.trim().split('\n')).to.deep.equal([
      `regent: -: document 1: not a Regent resource (apiVersion "regent.dev/v1alpha1", kind "Sever"); ${kinds}`,
      `-: document 2: not a Regent resource (apiVersion "regent.dev/v1", kind "Server"); ${kinds}`,
    ]);
    expect(KIND_NAMES).to.include.members(['Server', 'Network', 'Volume', 'SecurityGroup']);
  });
});
