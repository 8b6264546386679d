/**
 * What a kind gives the status runner: a function from the resource and its event streams to the status it
 * renders (issue 25: "each kind contributes … its status renderer — from its own folder"). The runner owns the
 * subscription, the checkpoint and the write (only the keys that changed; the kind's owned keys removed when a
 * render leaves them out; the audit link); the kind owns what its status says.
 */
import type { Engine } from '../engine/engine.js';
import type { ResourceSource } from '../kube/port.js';
import type { EventStore } from '../store/port.js';
import type { KindName, ObjectOf } from '../resources/index.js';
import type { Condition } from '../../projections/conditions.js';
import { withReachability } from '../../projections/scope-reachability-status.js';
import { scopeReachabilityDefinition, scopeReachabilityStream } from '../../machines/scope-reachability.js';
import type { ReachabilityView } from '../../projections/scope-reachability-status.js';

/** What a renderer reads with: the event store through the engine's fold, the resource store, the runner's clock. */
export interface StatusEnv {
  engine: Engine;
  store: EventStore;
  source: ResourceSource;
  /** The runner's clock (RFC 3339): only for a status no event dates yet. */
  now(): string;
}

export interface StatusRenderer {
  /** Status keys the kind owns: absent from a render means "remove" (a merge-patch null). */
  ownedKeys: readonly string[];
  /** The rendered status, or undefined when there is nothing to write (the object went away). */
  render(env: StatusEnv, object: ObjectOf<KindName>): Promise<Record<string, unknown> | undefined>;
  /** Writes the kind does itself after the status patch (a Server's derived gate list, patched with its resourceVersion). */
  afterPatch?(env: StatusEnv, object: ObjectOf<KindName>): Promise<void>;
}

/** The latest of some RFC 3339 times (each an event's recordedAt), or undefined when none is given. */
export const latest = (...times: Array<string | undefined>): string | undefined => times.filter((t): t is string => t !== undefined).sort().at(-1);

/**
 * The kind's status with DependenciesReady and, while its resource cannot be observed, its success claim withdrawn
 * (projections/scope-reachability-status.ts): the last step of every render of a kind worked with through a
 * Network's Identity. `what` names the cloud resource ("Nova server").
 */
export const withScopeReachability = async <S extends { conditions: Condition[]; observedGeneration: number }>(
  env: StatusEnv,
  uid: string,
  status: S,
  input: { what: string; at: string; previous: unknown },
): Promise<S> => {
  const loaded = await env.engine.load(scopeReachabilityDefinition, scopeReachabilityStream(uid));
  const view: ReachabilityView | undefined =
    loaded.revision === undefined ? undefined : { state: loaded.state as ReachabilityView['state'], context: loaded.context };
  const at = latest(input.at, loaded.last?.metadata.recordedAt) ?? input.at;
  return withReachability(status, view, { what: input.what, at, previous: (input.previous as { conditions?: Condition[] } | undefined)?.conditions });
};
