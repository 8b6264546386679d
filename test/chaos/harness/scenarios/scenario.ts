/**
 * What a chaos scenario is: a machine's name for the table, the stream prefixes its failpoints count on, and the
 * steps that drive its destructive path (each a change of desired state and when that change counts as settled),
 * plus the helpers every scenario reads status with.
 */
import type { EmbeddedResourceSource as EmbeddedSource } from '../../../../src/kube/embedded/store.js';
import type { SimulatorProcess } from '../simulator-process.js';
import type { CloudState } from '../cloud-state.js';
import type { KindTypes } from '../../../../src/resources/registry.js';
import type { NovaToolCall } from '../../fixtures/fake-nova-bin.js';

export type Kind = keyof KindTypes;

export interface ScenarioContext {
  source: EmbeddedSource;
  sim: SimulatorProcess;
  publicNetworkId: string;
  cloud(): Promise<CloudState>;
  /** The run's data directory (the plane's, and the scenario's own files beside it). */
  dir: string;
  /** The run's seed (a scenario's scratch names carry it, so parallel runs never share one). */
  seed: number;
  /** A value no event or log line may carry (a password the scenario made up). */
  secret(value: string): void;
  /** The cloud faults armed so far in this run (a scenario may accept the refusal a fault causes by design). */
  faults: ReadonlyArray<{ cls: string; landed: boolean }>;
  /** The kills so far in this run (a failpoint's, with the stream it fired on; or the harness's random SIGKILL). */
  kills: ReadonlyArray<{ point: string; stream?: string }>;
}

/** A moment where Regent's status claimed a settle, with the cloud read right after (the false-Provisioned check). */
export interface SettleClaim {
  kind: string;
  name: string;
  generation: number;
  status: Record<string, unknown>;
  spec: Record<string, unknown>;
  uid: string;
  cloud: CloudState;
  /** When the claim was read (ms since the epoch): a scenario's own ground truth is read up to it. */
  at: number;
}

export interface Step {
  name: string;
  act(ctx: ScenarioContext): Promise<void>;
  /** True once the change is realized as Regent's status tells it (and, where cheap, the cloud agrees). */
  settled(ctx: ScenarioContext): Promise<boolean>;
}

export interface Scenario {
  machine: string;
  /** Failpoints count hits only on these stream prefixes (the machine's own streams). */
  streams: string[];
  steps: Step[];
  /** Kinds whose settle claims the false-Provisioned invariant checks (name → kind). */
  watched: Array<{ kind: Kind; name: string }>;
  /** A step's deadline when the default (160 s per planned kill) is too short for the machine's own pace. */
  stepTimeoutMs?: number;
  /**
   * A scenario whose ground truth is not the simulator (the Nova upgrade's: nova-manage and MariaDB): `prepare`
   * writes its stand-ins into the run's directory before the first plane starts and returns the plane's extra
   * environment; `evidence` reads its ground truth after the plane stopped; `cleanup` removes what the run left
   * outside its directory (schemas, processes), also after a failed run.
   */
  own?: {
    prepare(dir: string, seed: number): Record<string, string>;
    /** Read after the plane stopped, before the run's resource store closes. */
    evidence(ctx: ScenarioContext): Promise<ScenarioEvidence>;
    cleanup(ctx: ScenarioContext): Promise<void>;
  };
}

/** A scenario's own ground truth (../../invariants/nova-jobs.ts reads it). */
export interface ScenarioEvidence {
  nova?: {
    name: string;
    /** Every nova-manage / nova-status call the Jobs made (../../fixtures/fake-nova-bin.ts). */
    calls: NovaToolCall[];
    /** The Nova's schemas and SQL users still in MariaDB after the run. */
    left: string[];
    /** What the local JobRunner still holds after the run: `Job <name>`, `CronJob <name>`. */
    jobsLeft: string[];
    /** The run deleted the Nova and saw it gone. */
    deleted: boolean;
  };
}

interface Condition { type: string; status: string; reason?: string }
export interface ObjectView { uid: string; generation: number; spec: Record<string, unknown>; status: Record<string, unknown> }

export const objectView = async (ctx: ScenarioContext, kind: Kind, name: string): Promise<ObjectView | undefined> => {
  const object = await ctx.source.get(kind, 'default', name);
  if (!object) return undefined;
  return { uid: object.metadata.uid ?? '', generation: object.metadata.generation ?? 1, spec: (object.spec ?? {}) as Record<string, unknown>, status: (object.status ?? {}) as Record<string, unknown> };
};

/** Available=True at the object's current generation. */
export const availableNow = (view: ObjectView | undefined): boolean => {
  if (!view) return false;
  const available = (view.status.conditions as Condition[] | undefined)?.find((c) => c.type === 'Available');
  return available?.status === 'True' && view.status.observedGeneration === view.generation;
};

export const settledAvailable = (kind: Kind, name: string) => async (ctx: ScenarioContext) => availableNow(await objectView(ctx, kind, name));
export const gone = (kind: Kind, name: string) => async (ctx: ScenarioContext) => (await ctx.source.get(kind, 'default', name)) === undefined;
export const phaseIs = (kind: Kind, name: string, phase: string) => async (ctx: ScenarioContext) => (await objectView(ctx, kind, name))?.status.phase === phase;

/**
 * Ready, or the visible refusal a planned 409 causes by design: Neutron answers 409 to a create that conflicts (a
 * VLAN segment or an address in use, a security group rule that exists), which Regent reports as Available=False CreateRejected with the cloud's
 * message and parks until a new generation (machines/lifecycle.ts L6; docs/chaos.md). Only when the run armed a 409.
 */
export const readyOrRefused409 = (kind: Kind, name: string) => async (ctx: ScenarioContext) => {
  const view = await objectView(ctx, kind, name);
  return view?.status.phase === 'Ready' || refusedBy409(ctx, view);
};

/** Available=True at the generation, or (as readyOrRefused409) the visible refusal of a create Neutron answered 409. */
export const availableOrRefused409 = (kind: Kind, name: string) => async (ctx: ScenarioContext) => {
  const view = await objectView(ctx, kind, name);
  return availableNow(view) || refusedBy409(ctx, view);
};

/** A create's attempts (machines/lifecycle.ts L2, machines/volume-lifecycle.ts V6: MAX_CREATE_ATTEMPTS). */
const CREATE_ATTEMPTS = 3;

/**
 * Available=True at the generation, or (as availableOrRefused409) a planned 409's visible refusal, or the visible end
 * of the bounded create by design (L2 / V6): Available=False Errored "N creates were attempted, but the … never appeared",
 * parked until a new generation — accepted only when the run's interruptions can account for every attempt: a kill
 * (a create decided and appended, its answer lost with the process) or a landed 5xx or timeout (an answer that never
 * came), at least CREATE_ATTEMPTS of them (`server:2200136`: two kills after the create's append, then a 503).
 */
export const availableOrCreateExhausted = (kind: Kind, name: string) => async (ctx: ScenarioContext) => {
  const view = await objectView(ctx, kind, name);
  if (availableNow(view) || refusedBy409(ctx, view)) return true;
  const interruptions = ctx.kills.length + ctx.faults.filter((f) => f.landed && (f.cls === '5xx' || f.cls === 'timeout')).length;
  const available = (view?.status.conditions as Condition[] | undefined)?.find((c) => c.type === 'Available') as (Condition & { message?: string }) | undefined;
  return interruptions >= CREATE_ATTEMPTS && available?.status === 'False' && available.reason === 'Errored' && /^\d+ creates were attempted, but the .* never appeared$/.test(available.message ?? '');
};

const refusedBy409 = (ctx: ScenarioContext, view: ObjectView | undefined): boolean => {
  if (!ctx.faults.some((f) => f.cls === '409' && f.landed)) return false;
  const available = (view?.status.conditions as Condition[] | undefined)?.find((c) => c.type === 'Available') as (Condition & { message?: string }) | undefined;
  // the message names the cloud's answer: Neutron's fault text (`Injected fault N: HTTP 409`), Cinder's status (`HTTP 409`)
  return available?.status === 'False' && available.reason === 'CreateRejected' && /HTTP 409/.test(available.message ?? '');
};
