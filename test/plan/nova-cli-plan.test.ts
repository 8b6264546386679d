/**
 * `regent plan` of the Nova kinds where the plan gets its Nova runtime (issue 32), on the Server's plan rig (the
 * simulator, the embedded store, an sqlite event store):
 *   - a plan without the control plane's Nova runtime (`PlanOptions.nova` unset: the REST dry run's, a tool's) still
 *     plans a Server, and says of a Nova and a NovaCompute that their plan needs the runtime (not-built: nothing is
 *     claimed), rather than failing every plan because the Nova wiring cannot be built;
 *   - the command opens the runtime `regent serve` would (the local Jobs, roles and configs next to the sqlite store),
 *     only when it plans a Nova kind: a Server's plan leaves no folder of it behind; a Nova's plan is the real pass's
 *     (the finalizer's pass, then the pipeline's), and the data folder, the stores and the resources are as they were;
 *   - the control plane's own planner (the audit pages' plan view) hands its plans the runtime it runs the Nova kinds
 *     with: a Nova pasted there is planned.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { exitCodeOf, type Plan } from '../../src/plan/report.js';
import { planText } from '../../src/plan/text.js';
import { needsNovaRuntime } from '../../src/plan/planner.js';
import { openNovaRuntime } from '../../src/app/nova-runtime.js';
import { silentLogger } from '../../src/log/logger.js';
import { NOVA_FINALIZER } from '../../src/controllers/nova/finalizer.js';
import { runRegent } from '../cli/support/run-regent.js';
import { startSimulator } from '../../src/simulator/index.js';
import { startControlPlane } from '../../src/app/control-plane.js';
import { createAuditRoutes } from '../../src/audit/web/routes.js';
import { planeOptions, until } from '../e2e/support/plane.js';
import { IMAGES, serverManifest, startPlanRig, type PlanRig } from './support/rig.js';
import { novaManifest, secretsManifest } from './support/nova-rig.js';

const poolManifest = `apiVersion: regent.dev/v1alpha1
kind: NovaCompute
metadata: { name: kvm-a }
spec: { novaRef: { name: nova }, nodeSelector: { regent.dev/pool: kvm-a } }
`;

/** Every file under `dir`, with its size and mtime (the stores' own files aside: their heads are compared). */
const filesUnder = (dir: string): string[] => {
  const out: string[] = [];
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) {
        out.push(`${relative(dir, full)}/`);
        walk(full);
      } else if (!/\.(db|db-wal|db-shm|db-journal)$/.test(entry.name)) out.push(`${relative(dir, full)} ${statSync(full).size} ${statSync(full).mtimeMs}`);
    }
  };
  walk(dir);
  return out.sort();
};

describe('plan: the Nova kinds and the Nova runtime a plan is given', function () {
  this.timeout(120_000);
  let rig: PlanRig;
  let env: NodeJS.ProcessEnv;
  let serverId: string;
  const cli = (args: string[]) => runRegent(['--store', `sqlite:${join(rig.dir, 'regent.db')}`, 'plan', '--resources', `embedded:${join(rig.dir, 'resources.db')}`, ...args], env);
  const file = (name: string, text: string) => {
    const path = join(rig.dir, name);
    writeFileSync(path, text);
    return path;
  };

  before(async () => {
    rig = await startPlanRig();
    serverId = await rig.bringUp('web-2', IMAGES.A);
    env = { ...process.env, OS_CLOUD: 'sim-demo', OS_CLIENT_CONFIG_FILE: file('clouds.yaml', rig.sim.cloudsYaml()), REGENT_LOG_LEVEL: 'warn' };
  });
  after(async () => rig?.close());

  it('without the Nova runtime: a Server is still planned; a Nova and a NovaCompute say their plan needs the runtime and claim nothing', async () => {
    const plan: Plan = await rig.plan(`${serverManifest('web-2', IMAGES.B)}---\n${novaManifest({ release: '2025.1' })}---\n${poolManifest}`);
    expect(plan.resources.map((r) => [r.kind, r.verdict, r.message ?? ''])).to.deep.equal([
      ['Server', 'planned', ''],
      ['Nova', 'not-built', needsNovaRuntime('Nova')],
      ['NovaCompute', 'not-built', needsNovaRuntime('NovaCompute')],
    ]);
    const [server, nova, pool] = plan.resources;
    const rebuild = server?.decisions.filter((d) => d.machine === 'serverRebuild') ?? [];
    expect(rebuild.map((d) => [d.pass, d.event, d.rule?.id])).to.deep.equal([
      [1, 'serverRebuild.armed', 'R3'],
      [2, 'serverRebuild.submitted', 'R11'],
    ]);
    expect(rebuild[1]?.effects[0]?.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal([`POST /servers/${serverId}/action`]);
    expect([nova?.decisions, nova?.writes, pool?.decisions, pool?.writes]).to.deep.equal([[], [], [], []]);
    expect(needsNovaRuntime('Nova')).to.equal("plan of Nova needs the control plane's Nova runtime (its database provisioner, Jobs and role workloads), which this plan was not given: `regent plan` and the audit pages' plan view give it theirs");
    expect(planText(plan)).to.include(`Nova default/nova (plan.yaml: document 2): created\n  ${needsNovaRuntime('Nova')}`);
    expect(exitCodeOf(plan)).to.equal(2);
    expect(plan.failed).to.equal(false);
  });

  it('regent plan opens the Nova runtime only for a Nova kind: a Server-only plan leaves no folder of it', async () => {
    const server = await cli(['-f', file('web-2.yaml', serverManifest('web-2', IMAGES.A))]);
    expect(server.err).to.equal('');
    expect(server.code).to.equal(0);
    for (const folder of ['nova-jobs', 'nova', 'nova-compute']) expect(existsSync(join(rig.dir, folder)), folder).to.equal(false);
  });

  it("regent plan of a new Nova: the runtime regent serve would use, the finalizer's pass, then the pipeline's on pass 2; nothing written (folder, stores, resources)", async () => {
    // the folders a Regent that served on this data directory has (opening the runtime creates them)
    await (await openNovaRuntime(rig.source, { dataDir: rig.dir, env: {}, logger: silentLogger(), installNamespace: 'default' })).close();
    const manifest = file('nova.yaml', `${secretsManifest()}---\n${novaManifest({ release: '2025.1' })}`);
    const files = filesUnder(rig.dir);
    const head = await rig.store.lastPosition();
    const json = await cli(['-f', manifest, '-o', 'json']);
    expect(json.err).to.equal('');
    expect(json.code).to.equal(0);
    const plan = JSON.parse(json.out) as Plan;
    const nova = plan.resources.find((r) => r.kind === 'Nova');
    expect(nova).to.include({ verdict: 'planned', apply: 'created', destructive: false });
    expect(nova?.passes[0]).to.equal(`next pass in 1 s: the finalizer ${NOVA_FINALIZER} was added; the pipeline runs on the next pass`);
    expect(nova?.writes[0]).to.deep.equal({ op: 'addFinalizer', kind: 'Nova', namespace: 'default', name: 'nova', detail: NOVA_FINALIZER });
    expect(nova?.decisions.map((d) => [d.pass, d.event, d.rule?.id])).to.deep.equal([[2, 'novaPipeline.recorded', 'NP1']]);
    // the runtime's own answer (the embedded database endpoint: no Secret mariadb-mariadb names the server)
    expect(nova?.stops).to.match(/^nothing more to decide until the cloud changes \(next pass in 15 s: DBConnectionSecrets: SecretsReady WaitingForDBCredentials: the address of MariaDB mariadb/);
    expect(JSON.stringify(plan)).to.not.include('s3cret');
    expect(filesUnder(rig.dir), 'the data folder as it was').to.deep.equal(files);
    expect(await rig.store.lastPosition()).to.equal(head);
    expect(await rig.source.get('Nova', 'default', 'nova')).to.equal(undefined);
    const table = await cli(['-f', manifest]);
    expect(table.code).to.equal(0);
    expect(table.out).to.include('Nova default/nova').and.not.include('needs the control plane');
  });

  it("the control plane's plan view plans a Nova on the control plane's own Nova runtime (not: the plan needs it)", async () => {
    const sim = await startSimulator({ clock: 'manual' });
    const dir = mkdtempSync(join(tmpdir(), 'regent-nova-plan-view-'));
    const plane = await startControlPlane({ ...planeOptions(dir, sim), routes: ({ store, engine, planner }) => [createAuditRoutes({ store, registry: engine.registry, planner })] });
    try {
      const answer = await until('the plan view, once the cloud and the Nova runtime are reached', async () => {
        const res = await fetch(new URL('api/plan', `${plane.url}/`), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ files: [{ name: 'nova.yaml', text: novaManifest({ release: '2025.1' }) }] }) });
        if (res.status !== 200) return false;
        const plan = (await res.json()) as Plan;
        return plan.resources[0]?.verdict === 'planned' && plan;
      });
      const [nova] = answer.resources;
      expect(nova).to.include({ kind: 'Nova', apply: 'created' });
      expect(nova?.passes[0]).to.equal(`next pass in 1 s: the finalizer ${NOVA_FINALIZER} was added; the pipeline runs on the next pass`);
      expect(nova?.decisions.map((d) => [d.pass, d.event])).to.deep.equal([[2, 'novaPipeline.recorded']]);
      expect(await plane.source.get('Nova', 'default', 'nova')).to.equal(undefined);
    } finally {
      await plane.stop().catch(() => undefined);
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
