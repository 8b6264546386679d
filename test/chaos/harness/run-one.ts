/**
 * One chaos run: a fresh data directory, the simulator process reset, a control-plane child (failpoints armed for
 * the run's crash point), the scenario's steps applied while faults land and the plane is killed, paused and
 * restarted as planned; then the plane is stopped and the evidence gathered for the invariants: the simulator's
 * call log and state (ground truth), every stored event, the settle claims, the log lines, and each stream's replay.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource } from '../../../src/kube/embedded/store.js';
import { applyManifests } from '../../../src/kube/cli/manifests.js';
import { openStore } from '../../../src/store/open.js';
import { verifyStream } from '../../../src/engine/replay.js';
import { createProductRegistry } from '../../../machines/index.js';
import { readCloud } from './cloud-state.js';
import { injectFault, planFaults, type InjectedFault, type PlannedFault } from './faults.js';
import { startPlaneProcess, type PlaneProcess } from './plane-process.js';
import { rngFrom } from './rng.js';
import type { SimulatorProcess } from './simulator-process.js';
import { foundation } from './scenarios/manifests.js';
import { objectView, phaseIs, type Scenario, type ScenarioContext, type ScenarioEvidence, type SettleClaim } from './scenarios/scenario.js';
import { FAULT_TARGETS } from './targets.js';
import { sleep, until, WaitTimedOut } from './wait.js';
import type { InvariantInput } from '../invariants/types.js';

export const CRASH_POINTS = ['decided-before-append', 'appended-before-effect', 'effect-answered-before-result', 'random'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];
export const PAUSE_KINDS = ['stop-with-standby', 'stop-alone'] as const;
export type PauseKind = (typeof PAUSE_KINDS)[number];

export interface RunPlan {
  seed: number;
  scenario: Scenario;
  /** The kills of the run, in order: each failpoint arms one life of the plane (the next life arms the next), a `random` one is the harness's SIGKILL during its step. */
  crashes: CrashPlan[];
  faults: PlannedFault[];
  pause: { kind: PauseKind; step: number; delayMs: number } | undefined;
}

export interface CrashPlan {
  point: CrashPoint;
  nth: number;
  randomAtMs: number;
  step: number;
}

export interface RunOptions {
  /** How many kills to plan (0: none). */
  crashes: number;
  faults: number;
  pause: boolean;
  /** Force the crash points, in order (quick form: each point once per machine). */
  points?: CrashPoint[];
  /** With `points`: the hit each one fires at (default drawn from the seed). */
  nths?: number[];
  pauseKind?: PauseKind;
}

/** A run's plan from its seed alone: the same seed and options plan the same run. */
export const planRun = (seed: number, scenario: Scenario, options: RunOptions): RunPlan => {
  const rng = rngFrom(seed);
  const steps = scenario.steps.length;
  const points = options.points ?? Array.from({ length: options.crashes }, () => rng.pick(CRASH_POINTS));
  const crashes = points.map((point, i) => ({ point, nth: options.nths?.[i] ?? rng.int(1, point === 'decided-before-append' ? 8 : 3), randomAtMs: rng.int(200, 4_000), step: rng.int(0, steps - 1) }));
  const target = FAULT_TARGETS[scenario.machine];
  const faults = target && options.faults > 0 ? planFaults(rng, target, steps, options.faults) : [];
  const pause = options.pause ? { kind: options.pauseKind ?? rng.pick(PAUSE_KINDS), step: rng.int(0, steps - 1), delayMs: rng.int(0, 1_500) } : undefined;
  return { seed, scenario, crashes, faults, pause };
};

export interface Kill {
  point: CrashPoint;
  stream?: string;
}

/** A run's evidence: what the invariants read (all but the made-up ids, which come from its faults), and the run. */
export interface RunEvidence extends Omit<InvariantInput, 'madeUpIds'> {
  plan: RunPlan;
  dir: string;
  kills: Kill[];
  pauses: PauseKind[];
  faults: InjectedFault[];
  durationMs: number;
}

/**
 * A step's deadline: longer than the machines' evidence windows (120 s: a create or rebuild whose answer was lost
 * is not sent again before then, LB12 / U1), which a kill between append and effect opens.
 */
const STEP_TIMEOUT_MS = Number(process.env.CHAOS_STEP_TIMEOUT_MS ?? 160_000);

/** The fault classes that each lengthen a step's deadline by one more step timeout (see executeRun). */
export const WINDOW_FAULTS: readonly string[] = ['5xx', 'timeout', 'duplicate'];

/** How many step timeouts a step of this run may take: one per kill and per fault of WINDOW_FAULTS, at least one. */
export const evidenceWindows = (plan: Pick<RunPlan, 'crashes' | 'faults'>): number => Math.max(1, plan.crashes.length + plan.faults.filter((f) => WINDOW_FAULTS.includes(f.cls)).length);

/** The control plane under supervision: restarted (without failpoints) whenever it dies, each death recorded. */
class Supervisor {
  readonly planes: PlaneProcess[] = [];
  readonly kills: Kill[] = [];
  /** Exits no one asked for (neither a failpoint nor the harness): a crash of the control plane itself. */
  readonly unexpectedExits: string[] = [];
  private stopped = false;
  private current: PlaneProcess | undefined;
  standby: PlaneProcess | undefined;

  /** Failpoint specs for the next lives of the plane, one per life. */
  private readonly lives: string[];

  constructor(private readonly clouds: string, private readonly dir: string, lives: string[], readonly env: Record<string, string>) {
    this.lives = [...lives];
  }

  start(): PlaneProcess {
    const plane = startPlaneProcess(this.clouds, this.dir, this.lives.shift(), this.env);
    this.planes.push(plane);
    this.current = plane;
    void plane.exited.then(async (exit) => {
      if (this.stopped || this.current !== plane) return;
      if (exit.failpoint) this.kills.push({ point: exit.failpoint.name as CrashPoint, stream: exit.failpoint.stream });
      else if (exit.signal !== 'SIGKILL') this.unexpectedExits.push(`exited ${exit.code ?? exit.signal}: ${plane.logLines.slice(-3).join(' | ')}`);
      await sleep(100);
      if (!this.stopped) this.start();
    });
    return plane;
  }

  leader(): PlaneProcess | undefined {
    return this.current;
  }

  /** SIGKILL from the harness (the `random` crash point). */
  killNow(): void {
    if (!this.current?.isRunning()) return;
    this.kills.push({ point: 'random' });
    this.current.kill('SIGKILL');
  }

  async stopAll(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.planes, ...(this.standby ? [this.standby] : [])].map((p) => p.stop()));
  }

  logLines(): string[] {
    return [...this.planes, ...(this.standby ? [this.standby] : [])].flatMap((p) => p.logLines);
  }
}

/** One REGENT_FAILPOINTS value per failpoint kill, in order: each arms one life of the plane. */
const failpointLives = (plan: RunPlan): string[] =>
  plan.crashes.filter((c) => c.point !== 'random').map((c) => `${c.point}=@${c.nth};streams=${plan.scenario.streams.join(',')}`);

/** SIGSTOPs the leader past its lease (1.5 s), with or without a standby running, then resumes it. */
const pauseLeader = async (supervisor: Supervisor, kind: PauseKind, clouds: string, dir: string): Promise<boolean> => {
  const leader = supervisor.leader();
  if (!leader?.isRunning()) return false;
  if (kind === 'stop-with-standby' && !supervisor.standby) {
    supervisor.standby = startPlaneProcess(clouds, dir, undefined, supervisor.env);
    await supervisor.standby.ready.catch(() => undefined);
  }
  leader.kill('SIGSTOP');
  await sleep(kind === 'stop-with-standby' ? 3_000 : 2_500);
  leader.kill('SIGCONT');
  return true;
};

export const executeRun = async (sim: SimulatorProcess, plan: RunPlan): Promise<RunEvidence> => {
  const started = Date.now();
  await sim.reset();
  const dir = mkdtempSync(join(tmpdir(), `regent-chaos-${plan.scenario.machine}-${plan.seed}-`));
  const clouds = join(dir, 'clouds.yaml');
  writeFileSync(clouds, sim.cloudsYaml);
  const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  const cloud = () => readCloud(sim.url, adminPasswordOf(sim));
  const publicNetworkId = (await cloud()).networks.find((n) => n.name === 'public')?.id ?? '';
  const secrets = new Set(sim.passwords);
  const faults: InjectedFault[] = [];
  const own = plan.scenario.own;
  const env = own?.prepare(dir, plan.seed) ?? {};
  const supervisor = new Supervisor(clouds, dir, failpointLives(plan), env);
  const ctx: ScenarioContext = { source, sim, publicNetworkId, cloud, dir, seed: plan.seed, secret: (value) => void secrets.add(value), faults, kills: supervisor.kills };
  await source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml, cloud: 'sim-demo' });
  await applyManifests(source, foundation(sim.url, publicNetworkId));

  const stepTimeout = plan.scenario.stepTimeoutMs ?? STEP_TIMEOUT_MS;
  // each kill, and each 5xx or timeout (an answer that never came: the request may have landed), can open one 120 s
  // evidence window before the machine decides again (volume:1100029: two kills and a 502 on one extend); a duplicate
  // exact name parks the machine until its inconsistent recheck (60 s for a volume) before the step's own decision
  // even starts (volume:2000137: the duplicate, then the extend killed after its append, waited out its 120 s window)
  const windows = evidenceWindows(plan);
  const first = supervisor.start();
  const pauses: PauseKind[] = [];
  const claims: SettleClaim[] = [];
  const stuck: RunEvidence['stuck'] = [];
  let scenarioEvidence: ScenarioEvidence = {};
  /** Every value the control plane wrote into a Secret (an Identity's application credential): none may appear in events or logs. */
  const collectSecrets = async () => {
    for (const summary of await source.secrets.list('default')) {
      const secret = await source.secrets.get('default', summary.name);
      for (const [key, value] of Object.entries(secret?.data ?? {})) if (value.length >= 8 && /secret|password|token|private/i.test(key) && !/public/i.test(key)) secrets.add(value);
    }
  };
  try {
    await first.ready.catch(() => undefined);
    await until('net-a Ready', () => phaseIs('Network', 'net-a', 'Ready')(ctx), STEP_TIMEOUT_MS, 150);
    for (const [index, step] of plan.scenario.steps.entries()) {
      const background: Array<Promise<unknown>> = [];
      for (const fault of plan.faults.filter((f) => f.step === index)) {
        background.push(injectFault(sim, FAULT_TARGETS[plan.scenario.machine] as NonNullable<(typeof FAULT_TARGETS)[string]>, fault, cloud).then((f) => faults.push(f), (e: unknown) => faults.push({ cls: fault.cls, step: index, detail: String(e), landed: false, madeUpIds: [] })));
      }
      for (const crash of plan.crashes.filter((c) => c.point === 'random' && c.step === index)) background.push(sleep(crash.randomAtMs).then(() => supervisor.killNow()));
      if (plan.pause && plan.pause.step === index) {
        const { kind, delayMs } = plan.pause;
        background.push(sleep(delayMs).then(() => pauseLeader(supervisor, kind, clouds, dir)).then((paused) => paused && pauses.push(kind)));
      }
      await step.act(ctx);
      try {
        await until(step.name, () => step.settled(ctx), stepTimeout * windows, 150);
      } catch (error) {
        if (!(error instanceof WaitTimedOut)) throw error;
        stuck.push({ step: step.name, detail: `not settled within ${stepTimeout * windows} ms` });
        await Promise.allSettled(background);
        break;
      }
      await Promise.allSettled(background);
      await collectSecrets();
      for (const watched of plan.scenario.watched) {
        const view = await objectView(ctx, watched.kind, watched.name);
        if (!view) continue;
        claims.push({ kind: watched.kind, name: watched.name, generation: view.generation, status: view.status, spec: view.spec, uid: view.uid, cloud: await cloud(), at: Date.now() });
      }
    }
  } finally {
    await supervisor.stopAll();
    try {
      if (own) scenarioEvidence = await own.evidence(ctx);
    } finally {
      await own?.cleanup(ctx);
      source.close();
    }
  }

  const store = await openStore(`sqlite:${join(dir, 'regent.db')}`);
  const events = await store.readAll({});
  const registry = createProductRegistry();
  const divergences: RunEvidence['divergences'] = [];
  for (const stream of [...new Set(events.map((e) => e.stream))]) {
    try {
      const report = await verifyStream(store, registry, stream);
      if (report.divergence) divergences.push({ stream, detail: JSON.stringify(report.divergence) });
      if (report.quarantined) divergences.push({ stream, detail: `quarantined: ${report.quarantined.message}` });
    } catch (error) {
      if (!String(error).includes('no machine')) divergences.push({ stream, detail: String(error) });
    }
  }
  await store.close();
  return {
    plan, dir, kills: supervisor.kills, pauses, faults, calls: await sim.calls(), events, claims, logLines: supervisor.logLines(),
    secrets: [...secrets], divergences, unexpectedExits: supervisor.unexpectedExits, cloud: await cloud(), stuck, durationMs: Date.now() - started, scenario: scenarioEvidence,
  };
};

/** The admin's password: the seed's credentials list admin first (keystone/seed.ts). */
const adminPasswordOf = (sim: SimulatorProcess): string => sim.passwords[0] ?? '';

export const removeRunDir = (evidence: RunEvidence): void => rmSync(evidence.dir, { recursive: true, force: true });
