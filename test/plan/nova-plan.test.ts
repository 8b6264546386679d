/**
 * `regent plan` of the Nova operator kinds (issue 32), on the embedded default's runtime pieces: the local Job runner
 * running the rendered scripts against a scripted nova-manage, the local role workloads running stand-in roles, the
 * local config store, the local pool cluster, and a planted database provisioner (test/plan/support/nova-rig.ts),
 * handed to the planner as its `nova` option (the planner guards it itself).
 *
 *   - the install: the claims (NF1), what the provisioning would create (schemas, users with their passwords as
 *     sha256 digests, grants), the db-sync Job (NU10) with the Job's request as the effect's `calls`, and where the
 *     plan stops (the pass's record after the Job's create quotes its answer: not shown);
 *   - a brand-new Nova: the pass that adds the finalizer decides nothing; the plan goes on to the next pass (the
 *     install's decisions, or, without its Secrets, the record that it waits for them);
 *   - unchanged: nothing to decide, nothing written;
 *   - an upgrade 2025.1 → 2025.2: NU5, then the db-expand Job (NU7);
 *   - a refused change: apply's own message;
 *   - a deletion: the cleanup armed then decided (NF2), destructive, what it would drop;
 *   - a replica change (nothing restarts locally) and a config change (each role restart recorded, the db-sync Job
 *     replaced, the archive CronJob ensured);
 *   - a plan in the control plane's own process does not take the real pass's once-per-Job read of the db-sync report;
 *   - a NovaCompute: the node taken (NP1), its config and DaemonSet recorded, no process started; its pass's Nova
 *     write (the tenant-filter aggregate) refused before the pool's client, recorded, and the plan stops there (what
 *     the pass recorded after catching the refusal is not shown).
 * Each proves nothing was written: the planted runtime pieces trip on any write while the plan runs, and the event
 * store's head, the resources, the Secrets, the files under the data directory, the Jobs, the role and compute
 * processes and the provisioner's statements are as they were.
 *
 * And the rule table's Nova rows: each label is the one the source's comment gives a transition with that outcome.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { applyCheck, parseManifestFiles } from '../../src/kube/cli/manifests.js';
import { exitCodeOf, type Plan, type PlannedDecision, type ResourcePlan } from '../../src/plan/report.js';
import { sha256Of } from '../../src/resource-history/digest-secrets.js';
import { NOVA as NOVA_COVERAGE } from '../../src/plan/coverage/nova.js';
import type { RuleRow } from '../../src/plan/coverage/rule-row.js';
import { scriptCommands } from '../../src/plan/nova-guards.js';
import { NOVA_FINALIZER } from '../../src/controllers/nova/finalizer.js';
import { COMPUTE_DRAIN_FINALIZER } from '../../src/controllers/nova-compute/reconcile.js';
import { TENANT_FILTER_AGGREGATE } from '../../src/controllers/nova-compute/steps/aggregates.js';
import type { NovaCompute } from '../../src/resources/nova-compute.js';
import type { Nova } from '../../src/resources/nova.js';
import { NOVA, SECRETS, novaManifest, secretsManifest, startNovaPlanRig, type NovaPlanRig, type WorldSnapshot } from './support/nova-rig.js';

const nova = (plan: Plan, name = NOVA): ResourcePlan => plan.resources.find((r) => r.kind === 'Nova' && r.name === name) as ResourcePlan;
const row = (d: PlannedDecision) => [d.pass, d.event, d.rule?.id ?? '—', d.effects.map((e) => `${e.type} ${JSON.stringify(e.params)}`).join('; '), d.destructive];
const secretValues = [SECRETS.api.password, SECRETS.cell.password, SECRETS.service.password, 'mq-s3cret-plan-value'];

describe('plan: the Nova operator kinds', function () {
  this.timeout(180_000);
  let rig: NovaPlanRig;

  /** Plans `text` and proves the world is as it was: nothing tripped, nothing written, nothing started, no secret in the plan. */
  const planUntouched = async (text: string, extra: Parameters<NovaPlanRig['plan']>[1] = {}): Promise<Plan> => {
    const untouched: WorldSnapshot = await rig.snapshot();
    const trippedBefore = rig.tripwires.tripped.length;
    const plan = await rig.plan(text, extra);
    expect(rig.tripwires.tripped.slice(trippedBefore), 'no write reached a runtime piece').to.deep.equal([]);
    expect(await rig.snapshot(), 'stores, files, Jobs, processes and statements unchanged').to.deep.equal(untouched);
    const shown = JSON.stringify(plan);
    for (const value of secretValues) expect(shown, 'no secret value in the plan').to.not.contain(value);
    return plan;
  };

  before(async () => {
    rig = await startNovaPlanRig();
    // the Nova applied, before its Secrets: its first pass put the finalizer on and decided nothing yet
    await rig.apply(novaManifest({ release: '2025.1' }));
    expect((await rig.pass()).kind).to.equal('yield');
    expect((await rig.source.get('Nova', 'default', NOVA))?.metadata.finalizers).to.deep.equal([NOVA_FINALIZER]);
  });
  after(async () => rig?.close());

  it("the install (the Secrets and the Nova applied), through the planner's own `nova` option: the claims (NF1), what provisioning would create, the db-sync Job (NU10) with its request as the effect's calls; nothing provisioned, no Job, no role", async () => {
    const plan = await planUntouched(`${secretsManifest()}---\n${novaManifest({ release: '2025.1' })}`);
    expect(plan.resources.filter((r) => r.kind === 'Secret').map((r) => r.verdict)).to.deep.equal(['secret', 'secret', 'secret', 'secret']);
    const n = nova(plan);
    expect(n).to.include({ verdict: 'planned', apply: 'unchanged', destructive: false });
    expect(n.decisions.map(row)).to.deep.equal([
      [1, 'novaFinalizer.claimed', 'NF1', '', false],
      [1, 'novaFinalizer.claimed', 'NF1', '', false],
      [1, 'novaUpgrade.syncJobCreated', 'NU10', `nova.createJob {"job":"sync","hash":"${String(n.decisions[2]?.effects[0]?.params.hash)}"}`, false],
      // the pass's record (NP1) comes after the Job's create and quotes its answer: not shown (planner.ts, recordsShown)
    ]);
    expect(n.stops).to.equal('after the db-sync Job succeeds: installedRelease is promoted and the cells published from its report (30 s polls)');
    expect(exitCodeOf(plan)).to.equal(0);
    // what provisioning would create: each schema, each user with its password as a digest, each grant
    const sql = n.writes.filter((w) => w.kind.startsWith('MariaDB')).map((w) => `${w.kind} ${w.name}`);
    expect(sql).to.deep.equal(['MariaDB database nova_api', 'MariaDB user nova_api', 'MariaDB grant nova_api on nova_api', 'MariaDB database nova', 'MariaDB database nova_cell0', 'MariaDB user nova', 'MariaDB grant nova on nova', 'MariaDB grant nova on nova_cell0']);
    const apiUser = n.writes.find((w) => w.kind === 'MariaDB user' && w.name === 'nova_api');
    expect(apiUser?.detail).to.contain(`password as ${sha256Of(SECRETS.api.password)} (Secret nova-api-db key password)`);
    // the derived Secrets and the rendered config: recorded, not written
    expect(n.writes.filter((w) => w.op === 'putSecret').map((w) => w.name)).to.deep.equal(['nova-api-db-connection', 'nova-db-connection', 'nova-transport-url', 'nova-compute-config']);
    expect(n.writes.filter((w) => w.kind === 'Nova config')).to.have.length(1);
    // the Job the effect would create, as the planner learns it by running the effect's handler against the guard
    const [job] = plan.guarded;
    expect(job).to.deep.include({ service: 'jobs', method: 'create', path: `Job default/${NOVA}-db-sync` });
    expect(n.decisions[2]?.effects[0]?.calls, "the effect's calls: the request the guarded runtime refused").to.deep.equal([job]);
    const body = job?.body as { image: string; commands: string[]; env: Record<string, string>; templateHash: string };
    expect(body.image).to.equal('ghcr.io/c5c3/nova:2025.1');
    expect(body.templateHash).to.equal(n.decisions[2]?.effects[0]?.params.hash);
    expect(body.commands.filter((c) => !c.includes('--'))).to.deep.equal(['nova-manage api_db sync', 'nova-manage cell_v2 list_cells', 'nova-manage db sync', 'nova-manage cell_v2 list_cells']);
    expect(body.env).to.deep.equal({ OS_API_DATABASE__CONNECTION: 'from Secret nova-api-db-connection key connection', OS_DATABASE__CONNECTION: 'from Secret nova-db-connection key connection', OS_DEFAULT__TRANSPORT_URL: 'from Secret nova-transport-url key url' });
    // nothing happened: the real pass then decides what the plan said it would
    expect(rig.provisioner.statements).to.deep.equal([]);
    expect(rig.novaManageCalls()).to.deep.equal([]);
  });

  it("a brand-new Nova: its first pass only puts the finalizer on (recorded, not written); the plan goes on to the pass that runs the pipeline (the install's decisions, on pass 2)", async () => {
    const plan = await planUntouched(`${secretsManifest()}---\n${novaManifest({ release: '2025.1', name: 'nova-new' })}`);
    const n = nova(plan, 'nova-new');
    expect(n).to.include({ verdict: 'planned', apply: 'created' });
    expect(n.writes[0]).to.deep.equal({ op: 'addFinalizer', kind: 'Nova', namespace: 'default', name: 'nova-new', detail: NOVA_FINALIZER });
    expect(n.passes[0]).to.equal(`next pass in 1 s: the finalizer ${NOVA_FINALIZER} was added; the pipeline runs on the next pass`);
    expect(n.decisions.map((d) => [d.pass, d.event, d.rule?.id ?? '—'])).to.deep.equal([
      [2, 'novaFinalizer.claimed', 'NF1'],
      [2, 'novaFinalizer.claimed', 'NF1'],
      [2, 'novaUpgrade.syncJobCreated', 'NU10'],
    ]);
    expect(n.decisions[2]?.effects[0]?.calls.map((c) => `${c.service} ${c.method} ${c.path}`)).to.deep.equal(['jobs create Job default/nova-new-db-sync']);
    expect(n.stops).to.equal('after the db-sync Job succeeds: installedRelease is promoted and the cells published from its report (30 s polls)');
    expect(await rig.source.get('Nova', 'default', 'nova-new')).to.equal(undefined);
  });

  it('a brand-new Nova whose Secrets are not there yet: the finalizer pass, then the pipeline records that it waits for them (NP1); nothing more to decide', async () => {
    const plan = await planUntouched(novaManifest({ release: '2025.1', name: 'nova-new' }));
    const n = nova(plan, 'nova-new');
    expect(n.writes).to.deep.equal([{ op: 'addFinalizer', kind: 'Nova', namespace: 'default', name: 'nova-new', detail: NOVA_FINALIZER }]);
    expect(n.decisions.map((d) => [d.pass, d.event, d.rule?.id ?? '—'])).to.deep.equal([[2, 'novaPipeline.recorded', 'NP1']]);
    expect(n.stops).to.equal('nothing more to decide until the cloud changes (next pass in 15 s: Secrets: SecretsReady WaitingForDBCredentials: waiting for the nova_api database credentials: no Secret nova-api-db)');
  });

  describe('once installed (real passes: the db-sync Job ran, the roles are up)', () => {
    before(async () => {
      await rig.apply(secretsManifest());
      await rig.until(async () => {
        const db = await rig.upgradeContext();
        const lane = await rig.pipelineContext();
        return db.condition?.reason === 'DatabaseSynced' && lane.conditions.DeploymentReady?.status === 'True' && lane.conditions.ConductorReady?.status === 'True' && lane.conditions.NovaAPIReady?.status === 'True';
      }, 'synced at 2025.1 with every role rolled out and the API answering');
      // one more pass so that what the roles say has settled into the record
      await rig.pass();
    });

    it('unchanged: nothing to decide, nothing written, exit 0', async () => {
      const plan = await planUntouched(novaManifest({ release: '2025.1' }));
      const n = nova(plan);
      expect(n).to.include({ verdict: 'planned', apply: 'unchanged', destructive: false });
      expect(n.decisions).to.deep.equal([]);
      expect(n.writes).to.deep.equal([]);
      expect(n.stops).to.match(/^nothing to decide \(next pass in /);
      expect(exitCodeOf(plan)).to.equal(0);
    });

    it('an upgrade 2025.1 → 2025.2: NU5 starts it, the next pass creates the db-expand Job (NU7) with its commands; no Job, no role touched', async () => {
        const plan = await planUntouched(novaManifest({ release: '2025.2' }));
      const n = nova(plan);
      expect(n).to.include({ verdict: 'planned', apply: 'configured', destructive: false });
      const upgrade = n.decisions.filter((d) => d.machine === 'novaUpgrade');
      expect(upgrade.map(row)).to.deep.equal([
        [1, 'novaUpgrade.upgradeStarted', 'NU5', '', false],
        [2, 'novaUpgrade.expandJobCreated', 'NU7', `nova.createJob {"job":"expand","hash":"${String(upgrade[1]?.effects[0]?.params.hash)}"}`, false],
      ]);
      expect(upgrade.map((d) => `${d.from} → ${d.to}`)).to.deep.equal(['steady → expanding', 'expanding → expanding']);
      expect(n.stops).to.equal('after the db-expand Job succeeds: the schemas are expanded and the db-migrate Job comes next');
      const jobs = plan.guarded.filter((c) => c.service === 'jobs');
      expect(jobs.map((c) => `${c.method} ${c.path}`)).to.deep.equal([`create Job default/${NOVA}-db-expand`]);
      expect((jobs[0]?.body as { image: string }).image).to.equal('ghcr.io/c5c3/nova:2025.2');
      expect((jobs[0]?.body as { commands: string[] }).commands.length).to.be.greaterThan(0);
      // the roles are not rolled before the expand and migrate phases: no role write recorded either
      expect(n.writes.filter((w) => w.kind === 'Nova role')).to.deep.equal([]);
    });

    it('a replica change: the new generation noted (NU10 synced, A4, the record); nothing restarts (the embedded default runs one process per role: a scale is not a roll)', async () => {
      const plan = await planUntouched(novaManifest({ release: '2025.1', replicas: 2 }));
      const n = nova(plan);
      expect(n.decisions.map(row)).to.deep.equal([
        [1, 'novaUpgrade.synced', 'NU10', '', false],
        [1, 'novaDBArchive.observed', 'A4', '', false],
        [1, 'novaPipeline.generationNoted', '—', '', false],
      ]);
      expect(n.writes).to.deep.equal([]);
    });

    it('a config change: the new config and each role restart recorded (not restarted), the db-sync Job of the older spec replaced (NU10) and the archive CronJob ensured (A1), their requests recorded', async () => {
        const plan = await planUntouched(novaManifest({ release: '2025.1', debug: true }));
      const n = nova(plan);
      expect(n.decisions.map((d) => [d.event, d.rule?.id, d.effects.map((e) => e.type).join()])).to.deep.equal([
        ['novaUpgrade.syncJobReplaced', 'NU10', 'nova.deleteJobs'],
        ['novaDBArchive.cronJobEnsuring', 'A1', 'nova.ensureArchiveCronJob'],
      ]);
      expect(n.decisions[0]?.then).to.equal('after the db-sync Job of the older spec is deleted: the next pass creates it again');
      // the synced schemas stay synced while the Job runs again for the changed spec (NU10): the roles roll in this pass
      expect(n.writes.map((w) => `${w.op} ${w.kind} ${w.kind === 'Nova role' ? w.name : ''}`.trim())).to.deep.equal([
        'create Nova config',
        `update Nova role ${NOVA}-conductor`,
        `update Nova role ${NOVA}-scheduler`,
        `update Nova role ${NOVA}-metadata`,
        `update Nova role ${NOVA}-api`,
      ]);
      const config = n.writes[0]?.name ?? '';
      expect(n.writes[1]?.detail).to.match(new RegExp(`^restart on image ghcr.io/c5c3/nova:2025.1, config ${config}, .* \\(runs template [0-9a-f]+\\)$`));
      expect(plan.guarded.map((c) => `${c.service} ${c.method} ${c.path}`)).to.deep.equal([`jobs delete Job default/${NOVA}-db-sync`, `jobs ensureCronJob CronJob default/${NOVA}-db-archive`]);
      expect((plan.guarded[1]?.body as { commands: string[] }).commands).to.deep.equal(['nova-manage db archive_deleted_rows --all-cells --max_rows "$MAX_ROWS" $before || rc=$?']);
      expect((await rig.jobs.get('default', `${NOVA}-db-sync`))?.state, 'the Job is still there').to.equal('succeeded');
    });

    it("a plan in the control plane's own process leaves the real pass its db-sync report: the plan reads it (NU10 synced) and the real pass after it still publishes the cells", async () => {
      const name = 'nova-r';
      await rig.apply(novaManifest({ release: '2025.1', name }));
      await rig.pass(name);
      await rig.pass(name);
      await rig.settle(name);
      try {
        expect((await rig.jobs.get('default', `${name}-db-sync`))?.state).to.equal('succeeded');
        const plan = await planUntouched(novaManifest({ release: '2025.1', name }));
        expect(nova(plan, name).decisions.filter((d) => d.machine === 'novaUpgrade').map((d) => [d.event, d.rule?.id])).to.deep.equal([['novaUpgrade.synced', 'NU10']]);
        await rig.pass(name);
        const db = await rig.upgradeContext(name);
        expect(db.condition?.reason).to.equal('DatabaseSynced');
        expect(db.cells?.map((c) => c.name), 'the cells the report names').to.deep.equal(['cell0', 'cell1']);
      } finally {
        await rig.release(name);
      }
    });

    it("a refused change (an immutable schema name): apply's own message, exit 1, nothing run", async () => {
      const text = novaManifest({ release: '2025.1', apiDatabase: 'nova_api2' });
      const [document] = parseManifestFiles([{ file: 'nova.yaml', text }]);
      const stored = await rig.source.get('Nova', 'default', NOVA);
      const check = applyCheck('nova.yaml: document 1', (document as { input: Parameters<typeof applyCheck>[1] }).input, stored);
      expect(check.ok).to.equal(false);
      const plan = await planUntouched(text);
      const n = nova(plan);
      expect(n.verdict).to.equal('refused');
      expect(n.refusal).to.equal(check.ok ? '' : check.refusal.message);
      expect(n.refusal).to.contain('database is immutable');
      expect(n.decisions).to.deep.equal([]);
      expect(exitCodeOf(plan)).to.equal(1);
    });

    it('a deletion: the cleanup armed then decided (NF2), DESTRUCTIVE, naming what it would drop; nothing dropped', async () => {
        const plan = await planUntouched(novaManifest({ release: '2025.1' }), { deleting: true });
      const n = nova(plan);
      expect(n).to.include({ apply: 'deleted', destructive: true });
      expect(n.decisions.filter((d) => d.machine === 'novaFinalizer').map((d) => [d.event, d.rule?.id, d.destructive])).to.deep.equal([
        ['novaFinalizer.cleanupArmed', 'NF2', false],
        ['novaFinalizer.cleanupDecided', 'NF2', true],
      ]);
      expect(n.stops).to.equal('after the cleanup answers: the finalizer is released when nothing was live, else held one more pass (30 s)');
      expect(exitCodeOf(plan)).to.equal(2);
      const drops = plan.guarded.filter((c) => c.service === 'database');
      expect(drops.map((c) => [c.path, (c.body as { drop: string[] }).drop])).to.deep.equal([
        ['default/nova-api', ['database nova_api', 'user nova_api']],
        ['default/nova', ['database nova', 'database nova_cell0', 'user nova']],
      ]);
      expect(rig.provisioner.existing.size, 'every schema and user still there').to.equal(5);
    });
  });

  describe('a NovaCompute', () => {
    before(async () => {
      // the Nova as its status says once synced (the rig renders no status): its release, its contract, its API
      await rig.source.patchStatus('Nova', 'default', NOVA, { installedRelease: '2025.1', computeConfigSecretRef: { name: `${NOVA}-compute-config` }, endpoint: 'http://127.0.0.1:9/' } as never);
      await rig.apply(`apiVersion: v1
kind: Node
metadata: { name: compute-1, labels: { regent.dev/pool: kvm-a } }
---
apiVersion: v1
kind: Node
metadata: { name: compute-2, labels: { regent.dev/pool: kvm-a } }
`);
      await rig.apply(poolManifest);
      await rig.source.addFinalizer('NovaCompute', 'default', 'kvm-a', COMPUTE_DRAIN_FINALIZER);
    });
    const poolManifest = `apiVersion: regent.dev/v1alpha1
kind: NovaCompute
metadata: { name: kvm-a }
spec: { novaRef: { name: ${NOVA} }, nodeSelector: { regent.dev/pool: kvm-a } }
`;

    it("takes the selected nodes (NP1) and records its config and DaemonSet; its pass's Nova write (the tenant-filter aggregate) is refused before it reaches the pool's client, recorded, and the plan stops there; no nova-compute process started", async () => {
      expect(((await rig.source.get('Nova', 'default', NOVA)) as Nova).status?.installedRelease).to.equal('2025.1');
      const readsBefore = rig.computeReads.length;
      const plan = await planUntouched(poolManifest);
      const pool = plan.resources.find((r) => r.kind === 'NovaCompute') as ResourcePlan;
      expect(pool).to.include({ verdict: 'planned', apply: 'unchanged', destructive: false });
      // the pool machine's decision before the refused request; what the pass recorded after catching the refusal is not shown
      expect(pool.decisions.map((d) => [d.pass, d.event, d.rule?.id])).to.deep.equal([[1, 'novaComputePool.nodeTaken', 'NP1']]);
      expect(pool.writes.map((w) => `${w.op} ${w.kind}`)).to.deep.equal(['create ConfigMap', 'create DaemonSet']);
      expect(pool.writes.find((w) => w.kind === 'DaemonSet')?.detail).to.contain('nodes compute-1, compute-2');
      // the Aggregates step read the aggregates through the pool's client, then would create the tenant-filter one
      expect(rig.computeReads.slice(readsBefore)).to.deep.equal(['listAggregates']);
      expect(plan.guarded).to.deep.equal([{ service: 'compute', method: 'POST', path: '/os-aggregates', body: { aggregate: { name: TENANT_FILTER_AGGREGATE } } }]);
      expect(pool.stops).to.equal(`the pass itself would send POST /os-aggregates {"aggregate":{"name":"${TENANT_FILTER_AGGREGATE}"}} to compute: the plan stops before it`);
      // the planted client's writes trip while the plan runs (planUntouched checks no tripwire tripped): none reached it
      expect(rig.computeWrites).to.deep.equal([]);
      expect(((await rig.source.get('NovaCompute', 'default', 'kvm-a')) as NovaCompute).status?.nodes).to.equal(undefined);
    });
  });

  describe('a NovaCompute whose nodes a rival pool selects', () => {
    it("a plan in the control plane's process records the Warning NodeConflict it would announce, and the real pass after it still announces it (the once-per-process memory is per resource source)", async () => {
      await rig.apply(`apiVersion: regent.dev/v1alpha1
kind: NovaCompute
metadata: { name: kvm-b }
spec: { novaRef: { name: ${NOVA} }, nodeSelector: { regent.dev/pool: kvm-a } }
`);
      await rig.source.addFinalizer('NovaCompute', 'default', 'kvm-b', COMPUTE_DRAIN_FINALIZER);
      const plan = await rig.plan(`apiVersion: regent.dev/v1alpha1
kind: NovaCompute
metadata: { name: kvm-b }
spec: { novaRef: { name: ${NOVA} }, nodeSelector: { regent.dev/pool: kvm-a } }
`);
      const pool = plan.resources.find((r) => r.kind === 'NovaCompute') as ResourcePlan;
      expect(pool.writes.filter((w) => w.op === 'recordEvent').map((w) => w.detail)).to.deep.equal([
        `Warning NodeConflict: node compute-1 is selected or held by another NovaCompute of Nova ${NOVA}; this pool does not take it`,
        `Warning NodeConflict: node compute-2 is selected or held by another NovaCompute of Nova ${NOVA}; this pool does not take it`,
      ]);
      await rig.poolPass('kvm-b').catch(() => undefined);
      const announced = (await rig.source.listEvents({ kind: 'NovaCompute', namespace: 'default', name: 'kvm-b' })).filter((e) => e.reason === 'NodeConflict');
      expect(announced.map((e) => e.message)).to.deep.equal([
        `node compute-1 is selected or held by another NovaCompute of Nova ${NOVA}; this pool does not take it`,
        `node compute-2 is selected or held by another NovaCompute of Nova ${NOVA}; this pool does not take it`,
      ]);
    });
  });

  describe("the rule table's Nova rows", () => {
    /** The labels `pattern` finds in a line's comment part. */
    const labelsIn = (text: string, pattern: RegExp): string[] => [...text.matchAll(pattern)].map((m) => m[0]);
    const commentOf = (line: string): string => {
      const at = line.indexOf('//');
      return at < 0 ? '' : line.slice(at);
    };
    const isComment = (line: string): boolean => /^\s*(\/\/|\/\*\*|\*)/.test(line);
    const indentOf = (line: string): number => line.length - line.trimStart().length;

    /**
     * The labels the source gives the transitions with `outcome`: each one's own trailing comment; else the comment
     * heading its group (a comment line above it in its block, at its indentation or less) or its block's opener's
     * comment; plus the doc comment of a helper it is built by (`phaseJob(`, `interrupts(`: called on its line, or
     * enclosing it). A templated outcome (`${spec.job}JobCreated` in phaseJob) stands for each Job a phase spec names.
     */
    const sourceLabels = (file: string, pattern: RegExp) => {
      const lines = readFileSync(file, 'utf8').split('\n');
      // a templated outcome (`${spec.job}JobCreated`) names the Jobs the file's phase specs give (`job: 'expand'`)
      const jobs = new Set(lines.flatMap((line) => [...line.matchAll(/\bjob: '(\w+)'/g)].map((m) => m[1] as string)));
      const docOf = (index: number): string[] => {
        const labels: string[] = [];
        for (let j = index - 1; j >= 0 && isComment(lines[j] as string); j--) labels.push(...labelsIn(lines[j] as string, pattern));
        return labels;
      };
      const helperDocs = new Map<string, string[]>();
      lines.forEach((line, index) => {
        const m = /^(?:export )?(?:function|const) (\w+)/.exec(line);
        if (m) helperDocs.set(m[1] as string, docOf(index));
      });
      const enclosing = (index: number): string[] => {
        for (let j = index; j >= 0; j--) {
          const m = /^(?:export )?(?:function|const) (\w+)/.exec(lines[j] as string);
          if (m) return helperDocs.get(m[1] as string) ?? [];
        }
        return [];
      };
      const governing = (index: number): string[] => {
        const line = lines[index] as string;
        const own = labelsIn(commentOf(line), pattern);
        if (own.length > 0) return own;
        const labels: string[] = [];
        for (let j = index - 1; j >= 0; j--) {
          const above = lines[j] as string;
          if (above.trim() === '') continue;
          if (isComment(above) && indentOf(above) <= indentOf(line)) {
            const found = labelsIn(above, pattern);
            if (found.length > 0) {
              labels.push(...found);
              break;
            }
            continue;
          }
          if (indentOf(above) < indentOf(line)) {
            labels.push(...docOf(j));
            break;
          }
        }
        for (const [helper, docs] of helperDocs) if (line.includes(`${helper}(`)) labels.push(...docs);
        return labels.length > 0 ? labels : enclosing(index);
      };
      return (outcome: string): string[] => {
        const labels: string[] = [];
        lines.forEach((line, index) => {
          const literal = line.includes(`outcome('${outcome}')`);
          const templated = [...line.matchAll(/outcome\(`\$\{[^}]+\}(\w+)`\)/g)].some((m) => outcome.endsWith(m[1] as string) && jobs.has(outcome.slice(0, -(m[1] as string).length)));
          if (literal || templated) labels.push(...governing(index));
        });
        return [...new Set(labels)];
      };
    };

    /** A transition whose line and block carry no label: the header rule that names it (checked to be there). */
    const HEADER_ONLY: Readonly<Record<string, Readonly<Record<string, { rule: string; header: RegExp }>>>> = {
      novaUpgrade: { rollingUpdate: { rule: 'NU8', header: /NU8 RollingUpdate runs no Job and flips to Contracting/ } },
    };

    const SOURCES: ReadonlyArray<[string, string, RegExp]> = [
      ['novaUpgrade', 'machines/nova-upgrade.ts', /\bNU\d+\b/g],
      ['novaDBArchive', 'machines/nova-db-archive.ts', /\bA\d\b/g],
      ['novaFinalizer', 'machines/nova-finalizer.ts', /\bNF\d\b/g],
      ['novaPipeline', 'machines/nova-pipeline.ts', /\bNP\d\b/g],
      ['novaComputePipeline', 'machines/nova-pipeline.ts', /\bNP\d\b/g],
      ['novaComputePool', 'machines/nova-compute-pool.ts', /\b(?:NP\d|NS\d|TR\d|RL)\b/g],
    ];

    for (const [machine, file, pattern] of SOURCES) {
      it(`${machine}: each row's label is the one ${file}'s comment gives a transition with that outcome`, () => {
        const labels = sourceLabels(file, pattern);
        const text = readFileSync(file, 'utf8');
        const wrong: string[] = [];
        const rows = (NOVA_COVERAGE.rules[machine] ?? []) as readonly RuleRow[];
        expect(rows.length, `${machine} has rows`).to.be.greaterThan(0);
        for (const r of rows) {
          const found = labels(r.outcome);
          const header = HEADER_ONLY[machine]?.[r.outcome];
          if (header) {
            if (found.length > 0) wrong.push(`${r.outcome}: the source labels it now (${found.join('/')}); drop it from HEADER_ONLY`);
            else if (header.rule !== r.rule.id || !header.header.test(text)) wrong.push(`${r.outcome}: table ${r.rule.id}, header rule ${header.rule} not found`);
            continue;
          }
          if (!found.includes(r.rule.id)) wrong.push(`${r.outcome}: table ${r.rule.id}, source ${found.join('/') || 'none'}`);
        }
        expect(wrong).to.deep.equal([]);
      });
    }

    it('scriptCommands: the nova-manage and nova-status commands of a script, continuations joined, the config file left out', () => {
      const script = '# 1. comment nova-manage x\nnova-manage --config-file "$NOVA_CONFIG_DIR/nova.conf" api_db sync\ncells=$(nova-manage --config-file "$D/nova.conf" cell_v2 list_cells)\nnova-manage --config-file "$D/nova.conf" cell_v2 create_cell --name cell1 \\\n  --transport-url \'x\'\necho "nova-manage is done"\n';
      expect(scriptCommands(script)).to.deep.equal(['nova-manage api_db sync', 'nova-manage cell_v2 list_cells', "nova-manage cell_v2 create_cell --name cell1 --transport-url 'x'"]);
    });
  });
});
