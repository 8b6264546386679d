/**
 * `?dryRun=All` on the API's create and update (issue 32, Kubernetes' spelling): every check of a real request runs,
 * in the same order and with the same answers, and then, instead of writing the Server resource (and instead of the
 * audit event of an accepted write), the request answers with the object it would have written and the plan of it —
 * what Regent's machines would decide next because of it (src/plan/planner.ts `plan()`), nothing stored anywhere.
 *
 * The store's own answers are given without writing: `wouldCreate` / `wouldUpdate` run the checks the embedded store
 * runs inside its write (the kind's validation, the name already taken, the object gone or changed since it was read)
 * and throw the same errors it throws, so the API maps them to the same 422 / 409 / 404. The object they return is
 * the one the store would store (src/kube/mutations.ts `created` / `updated`, as the store applies them).
 *
 * The plan runs over the API's own resource source and event store, both only read, and the cloud `regent serve`
 * observes (`DryRunPlanning`); without it a dry run answers 501 after every check.
 */
import { randomUUID } from 'node:crypto';
import type { ResourceSource } from '../kube/port.js';
import type { EventStore } from '../store/port.js';
import type { Logger } from '../log/logger.js';
import { AlreadyExists, Conflict, Invalid, NotFound } from '../kube/errors.js';
import { created, sameObject, updated } from '../kube/mutations.js';
import { storedNamespace } from '../kube/kinds.js';
import type { ManifestDocument } from '../kube/cli/manifest-documents.js';
import { ServerKind, type Server } from '../resources/server.js';
import type { InputOf } from '../resources/index.js';
import { plan, type PlanOptions } from '../plan/planner.js';
import type { ResourcePlan } from '../plan/report.js';
import type { RefusedCall } from '../plan/read-only-cloud.js';
import { badRequest, notImplemented, unprocessable } from './errors.js';

/** The query parameter, and its one value (Kubernetes knows no other). */
export const DRY_RUN_PARAMETER = 'dryRun';
export const DRY_RUN_ALL = 'All';

/**
 * Whether a create or update asks for a dry run: absent → false, `All` → true, anything else (another value, the
 * parameter repeated) → 400 naming the parameter and the value it takes.
 */
export const dryRunRequested = (query: Readonly<Record<string, unknown>>): boolean => {
  const value = query[DRY_RUN_PARAMETER];
  if (value === undefined) return false;
  if (value === DRY_RUN_ALL) return true;
  throw badRequest(`query parameter "${DRY_RUN_PARAMETER}" takes one value, "${DRY_RUN_ALL}" (answer with the plan, store nothing)`);
};

/** What a plan needs besides the API's stores: the cloud `regent serve` observes (as src/cli/commands/plan.ts gives it). */
export interface DryRunPlanning {
  /** Connects a cloud (plain sessions: the planner puts them behind its read-only guard). */
  readonly connect: PlanOptions['connect'];
  /** The process's own cloud, standing for the Region of this name when no Region resource has it. */
  readonly processRegion?: PlanOptions['processRegion'];
  /** Where Regent's Secrets live on Kubernetes; unset on the embedded store. */
  readonly secretNamespace?: string;
  readonly logger?: Logger;
  /** The planner's own options, for tests: the kinds, which of them are planned, how many passes. */
  readonly table?: PlanOptions['table'];
  readonly kinds?: PlanOptions['kinds'];
  readonly maxPasses?: number;
}

/** The plan of the one resource a dry run would write, with the mutating requests the read-only guard stopped. */
export type DryRunPlan = ResourcePlan & { guarded: RefusedCall[] };

/** The answer of a dry run (`ServerV2DryRun` / `ServerV1DryRun` in openapi.yaml). */
export interface DryRunAnswer<View> {
  dryRun: true;
  /** The read view the object would have (v2 or v1, as the route). */
  server: View;
  plan: DryRunPlan;
}

type ServerInput = InputOf<'Server'>;

/** One object the API would write, as the manifest document `regent plan -f` would read (validated as apply validates it). */
export const requestDocument = (input: ServerInput, where: string): ManifestDocument => ({
  where,
  input: { ...input, metadata: { ...input.metadata, namespace: storedNamespace(input.kind, input.metadata.namespace ?? 'default') } },
});

const validated = (input: ServerInput, old: Server | undefined): ServerInput => {
  const result = ServerKind.validate({ ...input, status: undefined }, old);
  if (!result.ok) throw new Invalid(result.message, result.errors);
  return result.value as ServerInput;
};

export interface DryRunDeps {
  readonly source: ResourceSource;
  readonly events: EventStore;
  readonly planning?: DryRunPlanning;
  readonly now: () => Date;
}

export class DryRun {
  constructor(private readonly deps: DryRunDeps) {}

  /** The Server the store's create would store; throws what its create would (Invalid, AlreadyExists). No lock: a plan, not a reservation. */
  async wouldCreate(input: ServerInput): Promise<Server> {
    const value = validated(input, undefined);
    const namespace = storedNamespace('Server', value.metadata.namespace ?? 'default');
    if ((await this.deps.source.get('Server', namespace, value.metadata.name)) !== undefined) throw new AlreadyExists('Server', namespace, value.metadata.name);
    return created<'Server'>(value, namespace, randomUUID(), this.deps.now());
  }

  /** The Server the store's update (a replace) would store; throws what it would (NotFound, Conflict, Invalid). */
  async wouldUpdate(input: ServerInput): Promise<Server> {
    const namespace = storedNamespace('Server', input.metadata.namespace ?? 'default');
    const old = (await this.deps.source.get('Server', namespace, input.metadata.name)) as Server | undefined;
    if (old === undefined) throw new NotFound('Server', namespace, input.metadata.name);
    const expected = input.metadata.resourceVersion;
    if (expected !== undefined && expected !== '' && expected !== old.metadata.resourceVersion) throw new Conflict('Server', namespace, input.metadata.name);
    const next = updated<'Server'>(old, validated(input, old), 'replace');
    return sameObject(next, old) ? old : next;
  }

  /**
   * The plan of writing `input` (the object as the request would write it, author stamp included): 501 without a
   * cloud to plan against; the store's refusal (a race since the checks) is the same 422; a plan that failed is a
   * failure inside Regent (500, its cause logged with the request id, never sent).
   */
  async planOf(input: ServerInput, where: string): Promise<DryRunPlan> {
    const planning = this.deps.planning;
    if (!planning) throw notImplemented(`${DRY_RUN_PARAMETER}=${DRY_RUN_ALL} needs a cloud to plan against, which this API was started without (regent serve gives it one)`);
    const { table, kinds, maxPasses, logger, processRegion, secretNamespace } = planning;
    const result = await plan({
      store: this.deps.events,
      source: this.deps.source,
      documents: [requestDocument(input, where)],
      connect: planning.connect,
      now: this.deps.now,
      ...(processRegion ? { processRegion } : {}),
      ...(secretNamespace !== undefined ? { secretNamespace } : {}),
      ...(logger ? { logger } : {}),
      ...(table ? { table } : {}),
      ...(kinds ? { kinds } : {}),
      ...(maxPasses !== undefined ? { maxPasses } : {}),
    });
    const [resource] = result.resources;
    if (!resource) throw new Error('the dry run planned no resource');
    if (resource.verdict === 'refused') throw unprocessable(resource.refusal ?? 'the store would refuse the server');
    if (resource.verdict === 'failed') throw new Error(`the dry run's plan failed: ${resource.message ?? 'no cause given'}`);
    return { ...resource, guarded: result.guarded };
  }
}
