/**
 * `regent plan` of a Server (issue 32): an image change plans the write-ahead rebuild — the arm (R3), then, on the
 * pass that reads it back, the submission (R11) declaring nova.rebuild with the image as Nova's request would carry it,
 * DESTRUCTIVE, and what follows ("after Nova accepts the rebuild: waits for task_state to clear"). The command prints
 * it as a table and exits 2, `-o json` parses; an unchanged manifest exits 0; a kind not built says so; a change
 * `apply` refuses (an immutable flavor) is shown with apply's own message and exits 1.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyManifestFiles } from '../../src/kube/cli/manifests.js';
import { exitCodeOf, type Plan } from '../../src/plan/report.js';
import { planText } from '../../src/plan/text.js';
import { runRegent } from '../cli/support/run-regent.js';
import { IMAGES, NETWORK, serverManifest, startPlanRig, type PlanRig } from './support/rig.js';

describe('plan: a Server', function () {
  this.timeout(60_000);
  let rig: PlanRig;
  let serverId: string;
  let env: NodeJS.ProcessEnv;
  const cli = (args: string[]) => runRegent(['--store', `sqlite:${join(rig.dir, 'regent.db')}`, 'plan', '--resources', `embedded:${join(rig.dir, 'resources.db')}`, ...args], env);
  const file = (name: string, text: string) => {
    const path = join(rig.dir, name);
    writeFileSync(path, text);
    return path;
  };

  before(async () => {
    rig = await startPlanRig();
    serverId = await rig.bringUp('web-2', IMAGES.A);
    const clouds = file('clouds.yaml', rig.sim.cloudsYaml());
    // the environment's cloud stands for Region `default`, the Identity's, as for `regent serve`
    env = { ...process.env, OS_CLOUD: 'sim-demo', OS_CLIENT_CONFIG_FILE: clouds, REGENT_LOG_LEVEL: 'warn' };
  });
  after(async () => rig?.close());

  it('an image change: arm (R3), then on the read-back pass the submission (R11) declaring nova.rebuild, DESTRUCTIVE, then the wait', async () => {
    const plan = await rig.plan(serverManifest('web-2', IMAGES.B));
    const [server] = plan.resources;
    expect(server).to.include({ kind: 'Server', namespace: 'default', name: 'web-2', verdict: 'planned', apply: 'configured', destructive: true });
    const rebuild = server?.decisions.filter((d) => d.machine === 'serverRebuild') ?? [];
    expect(rebuild.map((d) => [d.pass, d.event, d.rule?.id, d.destructive])).to.deep.equal([
      [1, 'serverRebuild.armed', 'R3', false],
      [2, 'serverRebuild.submitted', 'R11', true],
    ]);
    expect(rebuild[0]?.effects).to.deep.equal([]);
    expect(rebuild[1]?.effects).to.deep.equal([
      {
        type: 'nova.rebuild',
        params: { serverId, imageId: IMAGES.B },
        destructive: true,
        calls: [{ service: 'compute', method: 'POST', path: `/servers/${serverId}/action`, body: { rebuild: { imageRef: IMAGES.B } } }],
      },
    ]);
    expect(rebuild[1]?.then).to.equal('after Nova accepts the rebuild: waits for task_state to clear');
    expect(server?.stops).to.equal('after Nova accepts the rebuild: waits for task_state to clear');
    expect(exitCodeOf(plan)).to.equal(2);
    // nothing happened: the next real pass arms, as the plan's first pass did
    expect(rig.sim.calls({ method: 'POST' }).filter((c) => c.action === 'rebuild')).to.have.length(0);
  });

  it('regent plan prints the table and exits 2; -o json parses', async () => {
    const manifest = file('web-2-b.yaml', serverManifest('web-2', IMAGES.B));
    const firstCall = rig.sim.calls().length;
    const table = await cli(['-f', manifest]);
    expect(table.err).to.equal('');
    expect(table.code).to.equal(2);
    console.log(`      regent plan -f web-2-b.yaml (exit ${table.code}):\n${table.out.replace(/^/gm, '        ')}`);
    const lines = table.out.split('\n');
    expect(lines[0]).to.equal(`Server default/web-2 (${manifest}: document 1): configured`);
    expect(lines[1]).to.match(/^ {2}#\s+PASS\s+MACHINE\s+DECISION\s+RULE\s+EFFECT$/);
    expect(table.out).to.match(/serverRebuild\s+armed \(noMarker → Initiated\)\s+R3\s+—/);
    expect(table.out).to.include(`R11   nova.rebuild: POST /servers/${serverId}/action {"rebuild":{"imageRef":"${IMAGES.B}"}}  DESTRUCTIVE`);
    expect(table.out).to.include('  then: after Nova accepts the rebuild: waits for task_state to clear');
    expect(table.out).to.include(`Plan: 1 resource(s), 1 destructive decision(s): nova.rebuild on Server default/web-2.`);
    const json = await cli(['-f', manifest, '-o', 'json']);
    expect(json.code).to.equal(2);
    const parsed = JSON.parse(json.out) as Plan;
    expect(parsed.destructive).to.equal(true);
    expect(parsed.resources[0]?.decisions.some((d) => d.rule?.id === 'R11' && d.effects[0]?.type === 'nova.rebuild')).to.equal(true);
    // the command sent nothing but reads (a process of its own: its token is issued once, which creates nothing)
    const sent = rig.sim.calls().slice(firstCall);
    expect(sent.filter((c) => c.method !== 'GET' && c.path !== '/identity/v3/auth/tokens').map((c) => `${c.method} ${c.path}`)).to.deep.equal([]);
    expect(sent.filter((c) => c.method === 'GET').length).to.be.greaterThan(0);
  });

  it('the manifest as it is: no decision, exit 0; --resource narrows; a kind not built yet says so', async () => {
    const same = await cli(['-f', file('web-2-a.yaml', serverManifest('web-2', IMAGES.A))]);
    expect(same.code).to.equal(0);
    expect(same.out).to.include('Server default/web-2');
    expect(same.out).to.include('no destructive decision');
    const both = file('both.yaml', `${NETWORK}---\n${serverManifest('web-2', IMAGES.B)}`);
    const all = await cli(['-f', both]);
    expect(all.code).to.equal(2);
    expect(all.out).to.include('Network default/net-a');
    // the tenancy kinds are planned too (test/plan/tenancy-plan.test.ts): the Identity on the process's region stands on its project (U)
    expect(all.out).to.not.include('plan is not built');
    expect(all.out).to.match(/identityLifecycle\s+regionProject \(∅ → realized\)\s+U\s/);
    // a kind whose plan is not built says so and claims nothing (here only the Server is planned: PlanOptions.kinds)
    const narrowed = await rig.plan(`${NETWORK}---\n${serverManifest('web-2', IMAGES.B)}`, { kinds: ['Server'] });
    expect(narrowed.resources.map((r) => [r.kind, r.verdict, r.message ?? '', r.decisions.length > 0])).to.deep.equal([
      ['Identity', 'not-built', 'plan is not built for Identity yet', false],
      ['Network', 'not-built', 'plan is not built for Network yet', false],
      ['Server', 'planned', '', true],
    ]);
    // a directory: its manifests in name order
    const dir = join(rig.dir, 'manifests');
    mkdirSync(dir);
    writeFileSync(join(dir, '1-network.yaml'), NETWORK);
    writeFileSync(join(dir, '2-web-2.yaml'), serverManifest('web-2', IMAGES.B));
    writeFileSync(join(dir, 'notes.txt'), 'not a manifest');
    const fromDir = await cli(['-f', dir]);
    expect(fromDir.code).to.equal(2);
    expect(fromDir.out).to.include(`Server default/web-2 (${join(dir, '2-web-2.yaml')}: document 1): configured`);
    const network = await cli(['-f', both, '--resource', 'Network/default/net-a']);
    expect(network.code).to.equal(0);
    expect(network.out).to.not.include('Server default/web-2');
    expect(network.out).to.include('Network default/net-a');
    expect(network.out).to.include('nothing to decide (done: present)');
  });

  it('a new Server: the create (L2) with the request Nova would get, its user data as a sha256: digest, never the value', async () => {
    const userData = Buffer.from('#cloud-config\npassword: hunter2').toString('base64');
    const plan = await rig.plan(serverManifest('web-3', IMAGES.B).replace('sshInjection: none', `sshInjection: none\n  userData: ${userData}`));
    const [server] = plan.resources;
    expect(server).to.include({ apply: 'created', destructive: false });
    const create = server?.decisions[0];
    expect([create?.event, create?.rule?.id, create?.then]).to.deep.equal(['serverLifecycle.createSubmitted', 'L2', 'after Nova accepts the create: waits for the server to become ACTIVE']);
    const body = create?.effects[0]?.calls[0]?.body as { server: { user_data: string; imageRef: string } };
    expect(body.server.imageRef).to.equal(IMAGES.B);
    expect(body.server.user_data).to.equal(`sha256:${createHash('sha256').update(userData).digest('hex')}`);
    expect(JSON.stringify(plan)).to.not.include(userData).and.not.include('hunter2');
    expect(server?.writes.filter((w) => w.op === 'addFinalizer').map((w) => w.detail)).to.deep.equal(['regent.dev/server']);
    expect(await rig.source.get('Server', 'default', 'web-3')).to.equal(undefined);
  });

  it("a change apply refuses (an immutable flavor) is shown with apply's own message, later documents not applied; exit 1", async () => {
    const text = `${serverManifest('web-2', IMAGES.B, 'm1.medium')}---\n${NETWORK}`;
    let applied: string | undefined;
    try {
      await applyManifestFiles(rig.source, [{ file: 'refused.yaml', text }]);
    } catch (error) {
      applied = (error as Error).message;
    }
    expect(applied).to.match(/^refused\.yaml: document 1: .*flavor is immutable/);
    const planned = await rig.plan(text);
    expect(planned.resources.map((r) => [r.kind, r.verdict])).to.deep.equal([
      ['Server', 'refused'],
      ['Identity', 'not-applied'],
      ['Network', 'not-applied'],
    ]);
    expect(planned.resources[0]?.refusal).to.equal(applied?.replace(/^refused\.yaml/, 'plan.yaml'));
    expect(exitCodeOf(planned)).to.equal(1);
    expect(planText(planned)).to.include(`REFUSED: apply would refuse it: ${planned.resources[0]?.refusal ?? ''}`);
    const command = await cli(['-f', file('refused.yaml', text)]);
    expect(command.code).to.equal(1);
    expect(command.out).to.include(`REFUSED: apply would refuse it: ${applied}`.replace('refused.yaml', join(rig.dir, 'refused.yaml')));
  });
});
