/**
 * Issue 30, "who": every decision traces back to a change and its author. A real control plane as `npm start`
 * runs it (built-in simulator, the examples, the server API, the audit pages): the README's rebuild walkthrough
 * changes web-2's image with the `regent` CLI as `--as alice`; the rebuild's authorization chain starts at that
 * change ("spec.image.id A → B, generation 2, by alice via regent CLI") and ends at the settle, and the resource
 * page shows it. A Server created through the REST API records the token's subject as its author, joined to the
 * API's own event by the request id. After a restart on the same data nothing is recorded twice.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { createAuditRoutes } from '../../src/audit/web/routes.js';
import { createTokenIssuer, ENDPOINTS, OPERATIONS } from '../../src/api/auth.js';
import { auditStream } from '../../src/api/audit.js';
import { serverRebuildStream } from '../../machines/server-rebuild.js';
import { SEED } from '../../src/simulator/index.js';
import { resourceStream, type SpecChanged } from '../../src/resource-history/stream.js';
import type { ResolvedChain } from '../../src/audit/history/chain.js';
import { npmStartOptions, until } from './support/plane.js';

const OLD_IMAGE = '05556d98-b4f9-47e9-ae0f-df213876b54c';
const NEW_IMAGE = 'f4d54e13-a591-4e01-a629-1f5bf624d0fd';

describe('e2e: who changed it — the change, its author and the chain from it (issue 30)', function () {
  this.timeout(600_000);
  let dir: string;
  let plane: ControlPlane | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-who-'));
  });
  after(async () => {
    await plane?.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the rebuild of web-2 traces back to alice\'s CLI change, the API records its caller, and a restart records nothing twice', async () => {
    const issuer = await createTokenIssuer();
    const token = await issuer.sign({ sub: 'bob@acme', acl: { global: Object.values(ENDPOINTS).map((name) => ({ name, operations: [...OPERATIONS] })) } });
    const options = npmStartOptions(dir, issuer.jwks, ({ store, engine }) => [createAuditRoutes({ store, registry: engine.registry })]);
    plane = await startControlPlane(options);
    let running = plane;
    await until('leadership', () => running.isLeader(), 30_000);
    const web2 = await until('web-2 running with a Nova server', async () => {
      const o = await running.source.get('Server', 'default', 'web-2');
      const serverID = (o?.status as { serverID?: string } | undefined)?.serverID;
      return o && serverID && (o.status as { provisioningStatus?: string }).provisioningStatus === 'provisioned' ? { uid: o.metadata.uid, serverID } : undefined;
    }, 120_000);

    // the README's walkthrough, as alice: `sed … examples/servers.yaml | regent apply --as alice -f -`
    const manifest = readFileSync('examples/servers.yaml', 'utf8').replaceAll(OLD_IMAGE, NEW_IMAGE);
    const applied = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', 'apply', '--resources', `embedded:${join(dir, 'resources.db')}`, '--as', 'alice', '-f', '-'], { input: manifest, encoding: 'utf8' });
    expect(applied.status, applied.stderr).to.equal(0);
    expect(applied.stdout).to.include('server.regent.dev/web-2 configured');

    const rebuild = serverRebuildStream(web2.serverID);
    await until('the rebuild cleared', async () => (await running.store.readStream(rebuild)).some((e) => e.type === 'serverRebuild.cleared'), 120_000);

    // the change in web-2's own stream, with its author
    const changes = (await running.store.readStream(resourceStream(web2.uid))).filter((e) => e.type === 'resource.specChanged').map((e) => e.data as unknown as SpecChanged);
    expect(changes.map((c) => c.generation)).to.deep.equal([1, 2]);
    expect(changes[0]!.author).to.deep.equal({ name: 'regent', channel: 'examples', verified: true });
    expect(changes[1]!.author).to.deep.equal({ name: 'alice', channel: 'regent-cli', verified: false });
    expect(changes[1]!.changes).to.deep.equal([{ path: 'spec.image.id', from: OLD_IMAGE, to: NEW_IMAGE }]);

    // the authorization chain of the rebuild starts at that change and ends at the settle
    const chains = (await (await fetch(`${running.url}/api/streams/${rebuild}/chains`)).json()) as { chains: ResolvedChain[] };
    const chain = chains.chains.find((c) => c.effect.type === 'nova.rebuild')!;
    expect(chain.authorised).to.equal(true);
    expect(chain.links.map((l) => l.role)).to.deep.equal(['change', 'arm', 'read-back', 'decision', 'result', 'settle']);
    const change = chain.links[0]!;
    expect(change.stream).to.equal(resourceStream(web2.uid));
    expect(change.note).to.include(`web-2: spec.image.id: ${OLD_IMAGE} → ${NEW_IMAGE}, generation 2, by alice via regent CLI`);
    expect(chain.links.at(-1)!.type).to.equal('serverRebuild.cleared');

    // the resource page answers who, when, what Regent did
    const page = await (await fetch(`${running.url}/resources/Server/default/web-2`)).text();
    expect(page).to.include('by alice via regent CLI');
    expect(page).to.include('nova.rebuild');
    expect(page).to.match(/<b>settle<\/b>/);
    // and the spec at generation 1 is still there
    const first = changes.length && (await running.store.readStream(resourceStream(web2.uid))).find((e) => e.type === 'resource.specChanged')!.revision;
    const atFirst = await (await fetch(`${running.url}/resources/Server/default/web-2?rev=${first}`)).text();
    expect(atFirst).to.include(OLD_IMAGE);
    expect(atFirst).to.include(`at revision ${first}`);

    // a Server created through the API: the token's subject, joined to the API's own event by the request id
    const reply = await fetch(`${running.apiUrl}/api/v2/servers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'api-1' }, spec: { networkId: 'net-a', flavorId: '2', imageId: SEED.images.cirros, sshInjection: 'none' } }),
    });
    expect(reply.status).to.equal(201);
    const id = ((await reply.json()) as { metadata: { id: string } }).metadata.id;
    const apiUid = (await running.source.get('Server', 'default', id))!.metadata.uid;
    const apiChange = await until('the API server\'s change recorded', async () => (await running.store.readStream(resourceStream(apiUid))).find((e) => e.type === 'resource.specChanged'), 30_000);
    const apiEvent = (await running.store.readStream(auditStream(apiUid)))[0]!;
    expect((apiChange.data as unknown as SpecChanged).author).to.deep.equal({ name: 'bob@acme', channel: 'api', verified: true, requestId: apiEvent.metadata.correlationId });
    expect(apiChange.metadata.correlationId).to.equal(apiEvent.metadata.correlationId);
    expect(apiChange.metadata.source).to.equal('api');

    // a restart on the same data records nothing twice
    await until('every resource stream settled', async () => {
      const a = (await running.store.listStreams({ streamPrefixes: ['resource-'] })).reduce((n, s) => n + s.head, 0);
      await new Promise((r) => setTimeout(r, 2_000));
      return a === (await running.store.listStreams({ streamPrefixes: ['resource-'] })).reduce((n, s) => n + s.head, 0);
    }, 120_000, 0);
    const before = (await running.store.listStreams({ streamPrefixes: ['resource-'] })).map((s) => `${s.stream}@${s.head}`).sort();
    await running.stop();
    plane = undefined;
    plane = await startControlPlane(options);
    running = plane;
    await until('leadership again', () => running.isLeader(), 30_000);
    await new Promise((r) => setTimeout(r, 4_000));
    const after = (await running.store.listStreams({ streamPrefixes: ['resource-'] })).map((s) => `${s.stream}@${s.head}`).sort();
    expect(after).to.deep.equal(before);
  });
});
