/**
 * `regent plan`'s core: what Regent would do to the cloud for a set of desired objects, before it does it.
 *
 * For each document, in order (or, with `deleting`, each document's resource marked for deletion), the store's own check first (the refusal `apply` would give, same message; `apply`
 * stops at the first, so later documents are "not applied"). Then, for a kind whose plan is built, the kind's real
 * pass — `wiring.build(services).reconcile(key)`, as the control plane runs it — over:
 *   - the desired objects in place of the stored ones (a read-only resource source that records every write),
 *   - a fork of the event store in memory (each stream copied on first touch; the stored store is only read),
 *   - OpenStack clients behind the read-only guard (GET/HEAD go to the cloud; a mutation stops the branch),
 *   - an engine whose effect handlers never execute: they record nothing but that the effect was declared, and
 *     answer nothing, so a branch whose next decision needs an effect's result stops there.
 * Passes are repeated while the last one decided something, declared no effect and would yield (the next pass reads a
 * write-ahead intent back: the rebuild's arm, then its submission), or decided nothing but put the resource's own
 * finalizer on (a Nova's and a NovaCompute's first pass; their pipeline runs on the next); the plan's clock moves by
 * each yield.
 *
 * The Nova and NovaCompute passes run on the control plane's Nova runtime (`nova`), behind its read-only guard
 * (src/plan/nova-guards.ts): a write a pass makes through it is recorded with the source's writes; a request an effect
 * would send (a Job, a drop) lands in the same guard log as the cloud's, so it shows as the effect's `calls`. Without
 * the runtime those kinds are not planned and say why.
 *
 * What each declared effect would send is learnt by running the kind's own handler against the guard, which stops the
 * request before it leaves and keeps it (method, path, body with secrets as digests).
 */
import { randomUUID } from 'node:crypto';
import type { EventStore } from '../store/port.js';
import type { ResourceSource } from '../kube/port.js';
import type { RecordedEvent } from '../events/envelope.js';
import type { Logger } from '../log/logger.js';
import { silentLogger, describeError } from '../log/logger.js';
import type { OpenStackSession } from '../openstack/session.js';
import type { CloudConfig } from '../openstack/keystone/clouds-config.js';
import { Engine, type EffectHandler } from '../engine/engine.js';
import { createProductRegistry } from '../../machines/index.js';
import { effectTypeOf } from '../../machines/definition.js';
import type { MachineRegistry } from '../../machines/registry.js';
import { applyCheck, type ManifestDocument } from '../kube/cli/manifest-documents.js';
import { created, markedForDeletion, sameObject, updated } from '../kube/mutations.js';
import { NotFound } from '../kube/errors.js';
import { storedNamespace } from '../kube/kinds.js';
import type { KindName, ObjectOf } from '../resources/index.js';
import type { KindRuntime, KindWiring } from '../controllers/kind.js';
import type { Disposition } from '../controllers/disposition.js';
import { kindTable } from '../app/kinds.js';
import { digestSecrets } from '../resource-history/digest-secrets.js';
import { BranchStops, GuardLog, readOnlyConnect, readOnlySession, type RefusedCall } from './read-only-cloud.js';
import { ReadOnlySource, type RecordedWrite } from './read-only-source.js';
import { readOnlyExports } from './read-only-exports.js';
import { ForkedEventStore } from './fork-store.js';
import { assemblePlane } from './plane.js';
import { readOnlyNovaRuntime } from './nova-guards.js';
import type { NovaRuntime } from '../controllers/nova/runtime.js';
import { ruleOf, stateText } from './rules.js';
import { waitAfter } from './waits.js';
import { isDestructive } from './destructive.js';
import { COVERED_KINDS } from './coverage/index.js';
import type { Plan, PlannedDecision, PlannedEffect, ResourcePlan } from './report.js';

/** The kinds whose plan is built: their passes run against the fork. Every other kind says so, and claims nothing. */
export const PLANNED_KINDS: readonly KindName[] = COVERED_KINDS;

/**
 * The machines that record what a pass's steps said (their conditions can quote an effect's answer). Such a record
 * decided after a decision that declared an effect is not shown: see `recordsShown`.
 */
export const STEP_RECORDS: readonly string[] = ['novaPipeline', 'novaComputePipeline'];

/**
 * What a pass decided that a plan can show, in order: a step record (STEP_RECORDS) decided after a decision that
 * declared an effect quotes that effect's answer (the real engine runs an effect as it is decided and the pass reads
 * on with its answer; the plan's handlers answer nothing), so it is left out. The faithfulness tests cut the real
 * pass's events with the same rule.
 */
export const recordsShown = <E extends { metadata: { machine: string; effects: readonly unknown[] } }>(events: readonly E[]): E[] => {
  let effectDeclared = false;
  return events.filter((e) => {
    const shown = !(effectDeclared && STEP_RECORDS.includes(e.metadata.machine));
    if (e.metadata.effects.length > 0) effectDeclared = true;
    return shown;
  });
};

/** How many passes of one resource a plan runs at most (an arm, its read-back, and room for a kind's next step). */
export const MAX_PASSES = 4;

/** The kinds whose passes run on the control plane's Nova runtime (`PlanOptions.nova`): without it they are not planned. */
export const NOVA_RUNTIME_KINDS: readonly KindName[] = ['Nova', 'NovaCompute'];

/** What a plan without the Nova runtime says for a kind that needs it (verdict not-built: nothing is claimed). */
export const needsNovaRuntime = (kind: string): string =>
  `plan of ${kind} needs the control plane's Nova runtime (its database provisioner, Jobs and role workloads), which this plan was not given: \`regent plan\` and the audit pages' plan view give it theirs`;

export interface PlanOptions {
  /** The stored events: only read. */
  store: EventStore;
  /** The stored resources: only read. */
  source: ResourceSource;
  /** The manifests' documents, validated as `apply` validates them (src/kube/cli/manifests.ts parseManifestFiles). */
  documents: readonly ManifestDocument[];
  /** Connects a cloud (plain sessions: the planner puts them behind its read-only guard). */
  connect: (cloud: CloudConfig) => Promise<OpenStackSession>;
  /** The process's own cloud, standing for the Region of this name when no Region resource has it. */
  processRegion?: { name: string; cloud: CloudConfig; session: OpenStackSession };
  /** Where Regent's Secrets live on Kubernetes; unset on the embedded store. */
  secretNamespace?: string;
  /**
   * Plan `regent delete` of each document's resource instead of its `apply` (`regent plan --delete`): the stored
   * object marked for deletion as the resource source would mark it, then its passes (the finalizer's cloud deletes).
   */
  deleting?: boolean;
  /** Only this resource (`--resource Kind/ns/name`). */
  only?: { kind: KindName; namespace: string; name: string };
  logger?: Logger;
  now?: () => Date;
  maxPasses?: number;
  /**
   * The Nova runtime the control plane runs the Nova and NovaCompute passes with (src/app/nova-runtime.ts
   * `openNovaRuntime`): the planner puts it behind its read-only guard (src/plan/nova-guards.ts), never starts or
   * closes it. Absent: those kinds are not planned (`needsNovaRuntime`), and no pass of theirs is built.
   */
  nova?: NovaRuntime;
  /** The kinds (default: the control plane's table) and which of them are planned (default PLANNED_KINDS). */
  table?: readonly KindWiring[];
  kinds?: readonly KindName[];
}

/** Handlers that run nothing: the effect was declared, its answer is what the branch waits for. */
const declaredOnly = (registry: MachineRegistry): Record<string, EffectHandler> => {
  const handlers: Record<string, EffectHandler> = {};
  for (const definition of registry.list()) for (const action of definition.effects) handlers[effectTypeOf(definition, action)] = async () => undefined;
  return handlers;
};

const describeDisposition = (d: Disposition): string => {
  switch (d.kind) {
    case 'done':
      return `done: ${d.why}`;
    case 'yield':
      return `next pass in ${d.afterMs >= 1_000 ? `${d.afterMs / 1_000} s` : `${d.afterMs} ms`}: ${d.why}`;
    case 'park':
      return `parked (${d.reason}): ${d.message}`;
    case 'fail':
      return `failed: ${d.error.message}`;
  }
};

export const describeCall = (call: RefusedCall): string => `${call.method} ${call.path}${call.query ?? ''}${call.body === undefined ? '' : ` ${JSON.stringify(call.body)}`}`;

const outcomeOf = (event: RecordedEvent): string => event.type.slice(event.metadata.machine.length + 1);

const decisionOf = (registry: MachineRegistry, event: RecordedEvent, pass: number): PlannedDecision => {
  const definition = registry.get(event.metadata.machine);
  const effects: PlannedEffect[] = event.metadata.effects.map(({ type, ...params }) => ({ type, params: digestSecrets(params), destructive: isDestructive(type, definition), calls: [] }));
  const rule = ruleOf(event);
  const then = waitAfter(event.metadata.machine, outcomeOf(event));
  return {
    pass,
    stream: event.stream,
    machine: event.metadata.machine,
    event: event.type,
    from: stateText(event.metadata.from),
    to: stateText(event.metadata.to),
    ...(rule ? { rule } : {}),
    effects,
    destructive: effects.some((e) => e.destructive),
    ...(then ? { then } : {}),
  };
};

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

interface Entry {
  plan: ResourcePlan;
  object?: ObjectOf<KindName>;
}

/**
 * What `regent delete` would do to a document's resource: not found (delete's own message); gone at once (no
 * finalizer: nothing of Regent's runs); or marked for deletion as the resource source marks it (deletionTimestamp,
 * the generation bumped), which the passes then see.
 */
const deletionEntry = async (document: ManifestDocument, stored: ResourceSource, source: ReadOnlySource, clock: () => Date): Promise<Entry> => {
  const base = { where: document.where, decisions: [], passes: [], writes: [], destructive: false };
  if ('secret' in document) {
    const { namespace, name } = document.secret;
    return { plan: { ...base, kind: 'Secret', namespace, name, verdict: 'secret', message: 'deleted from the secret store' } };
  }
  const { input } = document;
  const namespace = storedNamespace(input.kind, input.metadata.namespace ?? 'default');
  const name = input.metadata.name;
  const plan: ResourcePlan = { ...base, kind: input.kind, namespace, name, verdict: 'planned' };
  const object = await stored.get(input.kind, namespace, name);
  if (!object) return { plan: { ...plan, verdict: 'refused', refusal: new NotFound(input.kind, namespace, name).message } };
  if (object.metadata.deletionTimestamp === undefined && (object.metadata.finalizers ?? []).length === 0) {
    // never reconciled (a controlled object carries its finalizer from its first pass): nothing of it in the cloud
    return { plan: { ...plan, apply: 'deleted', stops: 'deleted at once: it has no finalizer, so no pass of Regent runs' } };
  }
  const marked = object.metadata.deletionTimestamp === undefined ? markedForDeletion(object, clock()) : object;
  source.assume(marked);
  return { plan: { ...plan, apply: 'deleted' }, object: marked };
};

/** The unresolvable reasons that refuse the spec as written (the others are waits: gates, placement, a free VLAN). */
const REFUSING_REASONS = ['ImageNotFound', 'ImageAmbiguous', 'FlavorNotFound', 'FlavorAmbiguous'];

/**
 * A refusal the kind's pass would record rather than `apply` (an image or flavor that resolves to no or two
 * objects, L9; a spec its pass cannot decode): the message its status would show, for the plan to print as a refusal.
 */
const controllerRefusal = (events: readonly RecordedEvent[]): string | undefined => {
  for (const event of events) {
    const data = event.data as { type?: string; reason?: string; message?: string; problems?: string[] };
    if (data.type === 'desiredUnresolvable' && REFUSING_REASONS.includes(data.reason ?? '')) return `${data.reason}: ${data.message ?? ''}`;
    if (data.type === 'specRejected') return `the spec is invalid: ${(data.problems ?? []).join('; ')}`;
  }
  return undefined;
};

/** The pass put the resource's own finalizer on (recorded by the plan's source, which the next pass reads). */
const addedOwnFinalizer = (writes: readonly RecordedWrite[], r: ResourcePlan): boolean =>
  writes.some((w) => w.op === 'addFinalizer' && w.kind === r.kind && w.namespace === r.namespace && w.name === r.name);

const matches = (only: PlanOptions['only'], kind: string, namespace: string, name: string): boolean =>
  only === undefined || (only.kind === kind && storedNamespace(only.kind, only.namespace) === namespace && only.name === name);

export const plan = async (options: PlanOptions): Promise<Plan> => {
  const logger = options.logger ?? silentLogger();
  const started = (options.now ?? (() => new Date()))().getTime();
  let elapsed = 0;
  const clock = () => new Date(started + elapsed);
  const log = new GuardLog();
  const connect = readOnlyConnect(options.connect, log);
  const fork = new ForkedEventStore(options.store);
  const source = new ReadOnlySource(options.source);
  const registry = createProductRegistry();
  // how many requests the guards had refused when each decision was taken (a pass that goes on after a refusal)
  const refusedAtDecision = new Map<string, number>();
  const observer = { decided: (decision: { event: RecordedEvent | undefined }) => void (decision.event && refusedAtDecision.set(decision.event.id, log.refused.length)) };
  const engine = new Engine({ store: fork, registry, handlers: declaredOnly(registry), logger, now: clock, observer });
  const table = options.table ?? kindTable();
  const planned = options.kinds ?? PLANNED_KINDS;

  // What apply would do to each document, in order: refused, stopped, or the desired object the passes will see.
  const entries: Entry[] = [];
  let refusedAt: string | undefined;
  for (const document of options.documents) {
    if (options.deleting) {
      entries.push(await deletionEntry(document, options.source, source, clock));
      continue;
    }
    if ('secret' in document) {
      const { secret } = document;
      const plan: ResourcePlan = { kind: 'Secret', namespace: secret.namespace, name: secret.name, where: document.where, verdict: refusedAt ? 'not-applied' : 'secret', decisions: [], passes: [], writes: [], destructive: false, message: refusedAt ? `apply stops at the refusal of ${refusedAt}` : `to the secret store (keys ${Object.keys(secret.data).sort().join(', ')})` };
      if (!refusedAt) source.assumeSecret(secret.namespace, secret.name, secret.data, secret.labels);
      entries.push({ plan });
      continue;
    }
    const { where, input } = document;
    const namespace = storedNamespace(input.kind, input.metadata.namespace ?? 'default');
    const name = input.metadata.name;
    const plan: ResourcePlan = { kind: input.kind, namespace, name, where, verdict: 'planned', decisions: [], passes: [], writes: [], destructive: false };
    if (refusedAt) {
      entries.push({ plan: { ...plan, verdict: 'not-applied', message: `apply stops at the refusal of ${refusedAt}` } });
      continue;
    }
    const stored = await options.source.get(input.kind, namespace, name);
    const check = applyCheck(where, input, stored);
    if (!check.ok) {
      refusedAt = where;
      entries.push({ plan: { ...plan, verdict: 'refused', refusal: check.refusal.message } });
      continue;
    }
    type Input = Parameters<typeof updated>[1];
    const value = check.value as unknown as Input;
    const object = stored ? updated(stored, value, 'apply') : created(value, namespace, randomUUID(), clock());
    source.assume(object);
    entries.push({ plan: { ...plan, apply: stored === undefined ? 'created' : sameObject(object, stored) ? 'unchanged' : 'configured' }, object });
  }

  const shown = entries.filter((e) => matches(options.only, e.plan.kind, e.plan.namespace, e.plan.name));
  // a planned entry without an object is settled already (a deletion with no finalizer): no pass runs
  const toRun = shown.filter((e) => e.plan.verdict === 'planned' && e.object !== undefined);
  for (const entry of toRun) {
    if (!planned.includes(entry.plan.kind as KindName)) Object.assign(entry.plan, { verdict: 'not-built', message: `plan is not built for ${entry.plan.kind} yet` });
    else if (!options.nova && NOVA_RUNTIME_KINDS.includes(entry.plan.kind as KindName)) Object.assign(entry.plan, { verdict: 'not-built', message: needsNovaRuntime(entry.plan.kind) });
  }

  if (toRun.some((e) => e.plan.verdict === 'planned')) {
    const processRegion = options.processRegion ? { ...options.processRegion, session: readOnlySession(options.processRegion.session, log) } : undefined;
    const nova = options.nova ? { nova: readOnlyNovaRuntime(options.nova, { log, source }) } : {};
    const plane = await assemblePlane({ engine, store: fork, source, logger, connect, table, clock, exports: readOnlyExports(options.source, source), ...nova, ...(processRegion ? { processRegion } : {}), ...(options.secretNamespace !== undefined ? { secretNamespace: options.secretNamespace } : {}) });
    // a kind on the Nova runtime is built only with one (its wiring reads the runtime as it builds)
    const builds = (kind: KindName) => planned.includes(kind) && (options.nova !== undefined || !NOVA_RUNTIME_KINDS.includes(kind));
    const runtimes = new Map<string, KindRuntime>();
    for (const wiring of table) if (builds(wiring.kind) && wiring.build) runtimes.set(wiring.kind, wiring.build(plane.services));
    const maxPasses = options.maxPasses ?? MAX_PASSES;
    const eventOf = new Map<PlannedDecision, RecordedEvent>();

    for (const entry of toRun) {
      if (entry.plan.verdict !== 'planned') continue;
      const runtime = runtimes.get(entry.plan.kind);
      const { plan: p } = entry;
      const key = `${p.namespace}/${p.name}`;
      const writesBefore = source.writes.length;
      try {
        for (let pass = 1; ; pass++) {
          if (pass > maxPasses) {
            p.stops = `the plan ran ${maxPasses} passes; what later passes would decide is not shown (${p.passes[p.passes.length - 1] ?? ''})`;
            break;
          }
          await plane.refresh();
          for (const object of plane.services.lookups.list(p.kind as KindName)) runtime?.onObject?.(object);
          const appendedBefore = fork.appended.length;
          const guardedBefore = log.refused.length;
          const writtenBefore = source.writes.length;
          let disposition: Disposition | undefined;
          let thrown: unknown;
          try {
            disposition = await (runtime?.reconcile ?? (async () => ({ kind: 'done', why: 'no pass' }) as Disposition))(key);
          } catch (error) {
            thrown = error;
          }
          const tried = log.since(guardedBefore);
          // what the pass decided after a refused request (it caught the refusal and went on) is not what the real
          // pass would decide, which had the request's answer: the branch stops at the request, and so does the plan
          // and a step record decided after an effect quotes the effect's answer, which the plan does not have (recordsShown)
          const events = recordsShown(fork.appended.slice(appendedBefore)).filter((e) => (refusedAtDecision.get(e.id) ?? guardedBefore) === guardedBefore);
          for (const e of events) {
            const decision = decisionOf(registry, e, pass);
            eventOf.set(decision, e);
            p.decisions.push(decision);
          }
          if (tried.length > 0 || thrown instanceof BranchStops) {
            const call = tried[0] ?? (thrown as BranchStops).call;
            p.stops = `the pass itself would send ${describeCall(call)} to ${call.service}: the plan stops before it`;
            break;
          }
          if (thrown !== undefined) throw thrown;
          const d = disposition as Disposition;
          p.passes.push(describeDisposition(d));
          const effectful = [...p.decisions].reverse().find((x) => x.pass === pass && x.effects.length > 0);
          if (effectful) {
            p.stops = effectful.then ?? `after ${effectful.effects.map((e) => e.type).join(', ')} is answered: the next decision depends on the answer`;
            break;
          }
          if (events.length === 0 && d.kind === 'yield' && addedOwnFinalizer(source.writes.slice(writtenBefore), p)) {
            // a first pass that only puts the resource's finalizer on (Nova, NovaCompute): its pipeline runs on the next
            elapsed += d.afterMs;
            continue;
          }
          if (events.length === 0) {
            // the last decision's own wait, when it is one ("waits for Octavia's PENDING_* to clear"), says more than "nothing more"
            const last = p.decisions[p.decisions.length - 1]?.then;
            const waits = last?.startsWith('waits') ? last : undefined;
            p.stops = p.decisions.length === 0 ? `nothing to decide (${describeDisposition(d)})` : waits ? `${waits} (${describeDisposition(d)})` : `nothing more to decide until the cloud changes (${describeDisposition(d)})`;
            break;
          }
          const previous = p.decisions.filter((x) => x.pass === pass - 1).map((x) => `${x.stream} ${x.event}`);
          if (pass > 1 && sameList(previous, events.map((e) => `${e.stream} ${e.type}`))) {
            p.stops = `each next pass would decide the same again until something changes (${describeDisposition(d)})`;
            break;
          }
          if (d.kind !== 'yield') {
            const last = p.decisions[p.decisions.length - 1];
            p.stops = last?.then ?? describeDisposition(d);
            break;
          }
          elapsed += d.afterMs;
        }
        // what each declared effect would send: the kind's own handler, against the guard
        for (const decision of p.decisions) {
          const event = eventOf.get(decision);
          if (!event) continue;
          for (const [index, effect] of decision.effects.entries()) {
            // the kind's own handler, else the kind that registers it (the endpoint's Octavia handlers are the LoadBalancer kind's)
            const handler = runtime?.handlers?.[effect.type] ?? [...runtimes.values()].find((r) => r.handlers?.[effect.type])?.handlers?.[effect.type];
            if (!handler) continue;
            const mark = log.refused.length;
            const writes = source.writes.length;
            const declared = event.metadata.effects[index] as RecordedEvent['metadata']['effects'][number];
            try {
              await handler(declared, { stream: event.stream, decidedBy: event, snapshot: (await engine.load(event.stream)).snapshot, correlationId: event.metadata.correlationId, logger: silentLogger() });
            } catch (error) {
              if (!(error instanceof BranchStops)) logger.debug('describing an effect failed', { effect: effect.type, ...describeError(error) });
            }
            effect.calls = log.since(mark);
            source.writes.splice(writes);
          }
        }
      } catch (error) {
        p.verdict = 'failed';
        p.message = error instanceof Error ? error.message : String(error);
      }
      const refusal = controllerRefusal(fork.appended.filter((e) => p.decisions.some((d) => d.stream === e.stream && d.event === e.type)));
      if (refusal) Object.assign(p, { refusal, refusedBy: 'controller' });
      p.writes = source.writes.slice(writesBefore);
      p.destructive = p.decisions.some((d) => d.destructive);
    }
  }
  await fork.close();

  const resources = shown.map((e) => e.plan);
  return {
    resources,
    destructive: resources.some((r) => r.destructive),
    refused: resources.some((r) => r.verdict === 'refused' || r.refusedBy === 'controller'),
    failed: resources.some((r) => r.verdict === 'failed'),
    guarded: log.refused,
  };
};
