/**
 * What a chaos scenario is: a machine's name for the table, the stream prefixes its failpoints count on, and the
 * steps that drive its destructive path (each a change of desired state and when that change counts as settled),
 * plus the helpers every scenario reads status with.
 */
import type { EmbeddedResourceSource as EmbeddedSource } from '../../../../src/kube/embedded/store.js';
import type { SimulatorProcess } from '../simulator-process.js';
import type { CloudState } from '../cloud-state.js';
import type { KindTypes } from '../../../../src/resources/registry.js';

export type Kind = keyof KindTypes;

export interface ScenarioContext {
  source: EmbeddedSource;
  sim: SimulatorProcess;
  publicNetworkId: string;
  cloud(): Promise<CloudState>;
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
