/**
 * The read-only guard of a Nova runtime (src/controllers/nova/runtime.ts), for a plan: the Nova and NovaCompute passes
 * write no OpenStack resource of their own (the cloud guard, read-only-cloud.ts, never sees them) but MariaDB schemas
 * and users, Jobs and the archive CronJob, role workloads, configs, a pool's DaemonSet and configs, Hypervisors,
 * VerticalPodAutoscalers, a target cluster's Secrets and children, and Nova/Placement objects through the pool's
 * compute client. `readOnlyNovaRuntime` wraps every port of the runtime so that reads go through and every write is
 * refused before it happens and recorded, in one of two places:
 *
 *   - a write a PASS makes and then goes on from (provisioning a database block, publishing the rendered config,
 *     starting or changing a role, the parallel group's objects, a pool's DaemonSet, config, Hypervisor traits and VPA,
 *     a target's Secret, what a released Nova leaves running): kept with the plan source's writes (`source.writes`,
 *     the resource's `writes` in the plan), answered as the write would have been where the answer can be known
 *     from a read, and the pass goes on — as the plan source does with a finalizer or a Secret;
 *   - a request an EFFECT would send (create or delete a Job, ensure the CronJob, stamp the roles, the finalizer's
 *     drops, the remote sweep), or a Job a pass would create (a pool's host-discovery Job): kept in the GuardLog it
 *     is given, as the cloud guard keeps a refused OpenStack request; given the planner's own, the planner shows it
 *     as the effect's `calls`, and a pass that tried one stops its branch there. The pool's Nova and Placement writes (aggregates, traits,
 *     services) are refused the way the cloud guard refuses a request: recorded and thrown as `BranchStops`.
 *
 * Secrets in a record are `sha256:` digests (a database user's password, secret-shaped keys and values), never values.
 *
 * What each write would have answered, as the pass reads it on:
 *   provision   `ready` — its writes are what `absent()` (a read) says does not exist yet: each schema, user (its
 *               password as a digest) and grant; a provisioner that cannot be used answers as `provision()` would
 *               (ClusterNotReady, waiting). Caveat: a rotated password or connection limit (ALTER USER) and a
 *               missing grant of an existing user are not predicted; the CR adapter (Kubernetes) answers absent()
 *               with nothing, so no CR it would apply is recorded.
 *   ensure      the role's rollout when it already runs this template (a real ensure writes nothing then); else
 *               "not rolled out" with what would start. Which template runs is read from the local workloads'
 *               process record (`<role>/process.json`, the file a restarted Regent reads); elsewhere a rolled-out
 *               role counts as running the template.
 *   publish     written when the config the live API mounts is another one.
 *   Job reads   a Job is read under a uid of this plan's own, so the Database step's once-per-Job report marker (a
 *               set in the process) is not consumed for the real passes of the same process; the runner is asked
 *               with the real uid.
 *
 * Nothing of the runtime's background work runs: start, stop and close do nothing (the caller's runtime is the
 * caller's to stop) and no watch is started (a plan runs its passes itself).
 *
 * Caveat: the local Job runner settles a Job's state on disk when it reads it (a lost process or a passed deadline
 * is written as failed, and a Job over its deadline is killed): what any reader of its files would conclude, done
 * by its `get`, which a plan calls.
 */
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { NovaRuntime } from '../controllers/nova/runtime.js';
import type { TargetPorts } from '../controllers/nova/deps.js';
import type { BlockPlan, DatabaseProvisioner, ProvisionedObject } from '../nova/database/port.js';
import { ServerNotReadyError } from '../nova/database/port.js';
import type { CronJobSpec, JobEnv, JobRunner, JobSpec, ObservedJob } from '../nova/jobs/port.js';
import { runsRoles, deploymentName, type NovaRole, type RoleRollout, type RoleTemplate, type RoleWorkloads, type WorkloadPort } from '../nova/workloads/port.js';
import { LocalWorkloads } from '../nova/workloads/local.js';
import { readJson } from '../nova/workloads/process-records.js';
import type { ConfigPort } from '../nova/config/port.js';
import type { GroupObjects } from '../nova/group/port.js';
import type { ComputeCluster, PoolWorkloads } from '../nova/compute/port.js';
import { LocalPoolWorkloads } from '../nova/compute/local.js';
import type { PoolVPA } from '../controllers/nova-compute/deps.js';
import { openComputeApi, type ComputeApi, type ComputeApiLogin } from '../nova/compute/compute-api.js';
import type { SecretStore, StoredSecret } from '../kube/secrets.js';
import type { RemoteChildren } from '../nova/remote-children.js';
import { digestSecrets, sha256Of } from '../resource-history/digest-secrets.js';
import { BranchStops, type GuardLog, type RefusedCall } from './read-only-cloud.js';
import type { ReadOnlySource, RecordedWrite } from './read-only-source.js';

/** Where a plan keeps what the guarded runtime refused: the plan's GuardLog and its source (whose writes it records). */
export interface NovaPlanRecords {
  log: GuardLog;
  source: Pick<ReadOnlySource, 'writes'>;
}

/** Keeps a request a runtime port (or the pool's compute client) was not sent in the plan's GuardLog, its body's secrets as digests. */
const keepRefused = (log: GuardLog, service: string, method: string, path: string, body?: unknown): RefusedCall => {
  const call: RefusedCall = { service, method, path, ...(body === undefined ? {} : { body: digestSecrets(body) }) };
  log.refused.push(call);
  return call;
};

/** The two places a refused write goes (the header says which is which). */
class Records {
  constructor(private readonly plan: NovaPlanRecords) {}

  /** A write a pass would make: kept with the plan source's writes; the pass goes on. */
  wrote(op: RecordedWrite['op'], kind: string, namespace: string, name: string, detail?: string): void {
    this.plan.source.writes.push({ op, kind, namespace, name, ...(detail === undefined ? {} : { detail }) });
  }

  /** A request an effect (or a pass) would send to a runtime port: kept in the plan's GuardLog. */
  refused(service: string, method: string, path: string, body?: unknown): RefusedCall {
    return keepRefused(this.plan.log, service, method, path, body);
  }
}

// ─── what a record says ─────────────────────────────────────────────────────────────────────────

/** The nova-manage and nova-status commands a rendered script runs, one per line (continuations joined, a `x=$(…)` capture and the config-file argument left out). */
export const scriptCommands = (script: string): string[] =>
  script
    .replace(/\s*\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim().replace(/^[a-z_]+=\$\(/, ''))
    .filter((line) => /^nova-(manage|status)\s/.test(line))
    .map((line) => line.replace(/\)$/, '').replace(/\s--config-file\s+"[^"]*"/g, '').trim());

/** A container's env as a record shows it: a literal, or the Secret key it is read from (never a value of one). */
const envOf = (env: readonly JobEnv[]): Record<string, string> =>
  Object.fromEntries(env.map((e) => ('secretKeyRef' in e ? [e.name, `from Secret ${e.secretKeyRef.name} key ${e.secretKeyRef.key}`] : [e.name, e.value])));

const jobBody = (spec: JobSpec | CronJobSpec) => ({
  image: spec.image,
  commands: scriptCommands(spec.script),
  env: envOf(spec.env),
  config: spec.config.name,
  ...(spec.databaseTls && spec.databaseTls.length > 0 ? { databaseTls: spec.databaseTls.map((m) => `${m.block}: ${m.files.map((f) => `${f.secret}/${f.key}`).join(', ')}`) } : {}),
  templateHash: spec.templateHash,
});

// ─── the database provisioner ───────────────────────────────────────────────────────────────────

const has = (objects: readonly ProvisionedObject[], kind: ProvisionedObject['kind'], name: string): boolean => objects.some((o) => o.kind === kind && o.name === name);

const guardProvisioner = (inner: DatabaseProvisioner, records: Records): DatabaseProvisioner => ({
  absent: (namespace, plan, secrets) => inner.absent(namespace, plan, secrets),
  async provision(namespace, plan: BlockPlan, password) {
    let absent: ProvisionedObject[];
    try {
      absent = await inner.absent(namespace, plan, password);
    } catch (error) {
      if (error instanceof ServerNotReadyError) return error.outcome;
      throw error;
    }
    const on = `on MariaDB cluster ${plan.clusterRef} (${plan.instance})`;
    for (const step of plan.steps) {
      if (step.kind === 'Database' && has(absent, 'database', step.database)) records.wrote('create', 'MariaDB database', namespace, step.database, on);
      if (step.kind === 'User' && has(absent, 'user', step.username)) {
        const value = await password(step.passwordSecret);
        if (value === undefined || value === '') return { kind: 'waiting', message: `waiting for the password of database user "${step.username}": Secret "${namespace}/${step.passwordSecret.name}" has no key "${step.passwordSecret.key}", or it does not exist` };
        records.wrote('create', 'MariaDB user', namespace, step.username, `${on}; password as ${sha256Of(value)} (Secret ${step.passwordSecret.name} key ${step.passwordSecret.key}); MAX_USER_CONNECTIONS ${step.maxUserConnections}`);
      }
      if (step.kind === 'Grant' && (has(absent, 'database', step.database) || has(absent, 'user', step.username))) records.wrote('create', 'MariaDB grant', namespace, `${step.username} on ${step.database}`, `${on}; ALL PRIVILEGES`);
    }
    return { kind: 'ready' };
  },
  async deprovision(namespace, plan, owned) {
    const mine = owned.filter((o) => plan.steps.some((s) => (o.kind === 'database' && s.kind === 'Database' && s.database === o.name) || (o.kind === 'user' && s.kind === 'User' && s.username === o.name)));
    records.refused('database', 'drop', `${namespace}/${plan.instance}`, { cluster: plan.clusterRef, drop: mine.map((o) => `${o.kind} ${o.name}`), leave: 'everything of the block Regent did not create' });
    return { live: false, message: 'the plan drops nothing' };
  },
});

// ─── the Job runner ─────────────────────────────────────────────────────────────────────────────

const guardJobs = (inner: JobRunner, records: Records): JobRunner => {
  // a uid of this plan's own for every Job read (see the header); the runner is asked with the real one
  const prefix = `plan-${randomUUID()}:`;
  const planned = (job: ObservedJob): ObservedJob => ({ ...job, uid: `${prefix}${job.uid}` });
  const real = (job: ObservedJob): ObservedJob => ({ ...job, uid: job.uid.startsWith(prefix) ? job.uid.slice(prefix.length) : job.uid });
  return {
    databaseTlsDir: (namespace, nova, block) => inner.databaseTlsDir(namespace, nova, block),
    get: async (namespace, name) => {
      const job = await inner.get(namespace, name);
      return job ? planned(job) : undefined;
    },
    terminationMessage: (job) => inner.terminationMessage(real(job)),
    cronJobRuns: async (namespace, name) => {
      const runs = await inner.cronJobRuns(namespace, name);
      return { ...runs, runs: runs.runs.map(planned) };
    },
    create: async (spec) => void records.refused('jobs', 'create', `Job ${spec.namespace}/${spec.name}`, jobBody(spec)),
    delete: async (namespace, name) => void records.refused('jobs', 'delete', `Job ${namespace}/${name}`, { propagation: 'Background: its pods with it' }),
    ensureCronJob: async (spec) => void records.refused('jobs', 'ensureCronJob', `CronJob ${spec.namespace}/${spec.name}`, { schedule: spec.schedule, suspend: spec.suspend, concurrencyPolicy: spec.concurrencyPolicy, activeDeadlineSeconds: spec.activeDeadlineSeconds, ...jobBody(spec) }),
  };
};

// ─── the role workloads ─────────────────────────────────────────────────────────────────────────

/** The template a role runs, when the port can tell: the local workloads' process record. Undefined: none runs; 'unknown': the port cannot say. */
type RunningTemplate = (namespace: string, nova: string, role: NovaRole) => Promise<string | undefined | 'unknown'>;

const runningTemplateOf = (port: WorkloadPort): RunningTemplate => {
  if (!(port instanceof LocalWorkloads)) return async () => 'unknown';
  // `<dir>/<namespace>/<nova>/<role>.log` and `<dir>/<namespace>/<nova>/<role>/process.json` (src/nova/workloads/local.ts); removed when the role stops
  return async (namespace, nova, role) => readJson<{ templateHash?: string }>(join(dirname(port.logPath(namespace, nova, role)), role, 'process.json'))?.templateHash;
};

const describeTemplate = (template: RoleTemplate): string =>
  `image ${template.image}, config ${template.config.name}, replicas ${template.replicas}${template.port === undefined ? '' : `, port ${template.port}`}, env ${Object.keys(envOf(template.env)).join(', ') || 'none'}, template ${template.templateHash}`;

const guardWorkloads = (inner: WorkloadPort, records: Records): RoleWorkloads => {
  const runningTemplate = runningTemplateOf(inner);
  const rollout = (namespace: string, nova: string, role: NovaRole, image: string) => inner.rollout(namespace, nova, role, image);
  return {
    rollout,
    endpoint: async (namespace, nova) => (runsRoles(inner) ? inner.endpoint(namespace, nova) : undefined),
    async stampInstalledRelease(namespace, nova, role, release) {
      records.refused('workloads', 'stampInstalledRelease', `${namespace}/${deploymentName(nova, role)}`, { annotation: 'nova.c5c3.io/installed-release', release });
      return 'unchanged';
    },
    async ensure(namespace, nova, role, template): Promise<RoleRollout> {
      const current = await rollout(namespace, nova.name, role, template.image);
      const running = await runningTemplate(namespace, nova.name, role);
      if (running === template.templateHash || (running === 'unknown' && current.rolledOut)) return current;
      const was = running === undefined || running === 'unknown' ? (current.present ? 'another template' : 'nothing') : `template ${running}`;
      records.wrote(current.present ? 'update' : 'create', 'Nova role', namespace, deploymentName(nova.name, role), `${current.present ? 'restart' : 'start'} on ${describeTemplate(template)} (runs ${was})`);
      return { role, deployment: deploymentName(nova.name, role), present: current.present, rolledOut: false, detail: `the plan does not ${current.present ? 'restart' : 'start'} ${deploymentName(nova.name, role)}: it would run template ${template.templateHash}` };
    },
    async remove(namespace, nova, role) {
      const current = await rollout(namespace, nova, role, '');
      if (!current.present) return 'absent';
      records.wrote('delete', 'Nova role', namespace, deploymentName(nova, role), 'stop and remove it (and its Service)');
      return 'removed';
    },
  };
};

// ─── the config, the parallel group, what a released Nova leaves ───────────────────────────────

const guardConfigs = (inner: ConfigPort, records: Records): ConfigPort => ({
  settings: (namespace, nova) => inner.settings(namespace, nova),
  current: (namespace, nova) => inner.current(namespace, nova),
  async publish(nova, config) {
    const live = await inner.current(nova.namespace, nova.name);
    if (live?.name === config.name) return { created: false, pruned: [] };
    records.wrote('create', 'Nova config', nova.namespace, config.name, `immutable, files ${Object.keys(config.files).sort().join(', ')}${live ? ` (the live API mounts ${live.name})` : ''}; the three newest are kept`);
    return { created: true, pruned: [] };
  },
});

const guardGroup = (inner: GroupObjects, records: Records): GroupObjects => {
  const wrote = (kind: string, namespace: string, name: string, detail?: unknown) => records.wrote('apply', kind, namespace, name, detail === undefined ? undefined : JSON.stringify(digestSecrets(detail)));
  const removed = async (kind: string, namespace: string, name: string): Promise<'absent'> => {
    records.wrote('delete', kind, namespace, name, 'when it exists');
    return 'absent';
  };
  return {
    gatewayAPI: () => inner.gatewayAPI(),
    vpaAPI: () => inner.vpaAPI(),
    hpaAPI: () => inner.hpaAPI(),
    networkPolicyAPI: () => inner.networkPolicyAPI(),
    ensureRoute: async (namespace, nova, route) => {
      wrote('HTTPRoute', namespace, `${nova.name}-${route.target}`, route);
      return { kind: 'notAccepted', message: 'the plan does not apply the route: whether its Gateway accepts it is not known' };
    },
    removeRoute: (namespace, nova, target) => removed('HTTPRoute', namespace, `${nova}-${target}`),
    ensureHPA: async (namespace, nova, hpa) => wrote('HorizontalPodAutoscaler', namespace, `${nova.name}-api`, hpa),
    removeHPA: (namespace, nova) => removed('HorizontalPodAutoscaler', namespace, `${nova}-api`),
    ensureVPA: async (namespace, nova, role) => wrote('VerticalPodAutoscaler', namespace, `${nova.name}-${role}`),
    removeVPA: (namespace, nova, role) => removed('VerticalPodAutoscaler', namespace, `${nova}-${role}`),
    ensureNetworkPolicy: async (namespace, nova, policy) => wrote('NetworkPolicy', namespace, nova.name, policy),
    removeNetworkPolicy: (namespace, nova) => removed('NetworkPolicy', namespace, nova),
    ensureConsoleNetworkPolicy: async (namespace, nova, policy) => wrote('NetworkPolicy', namespace, `${nova.name}-novncproxy`, policy),
    removeConsoleNetworkPolicy: (namespace, nova) => removed('NetworkPolicy', namespace, `${nova}-novncproxy`),
    ...(inner.evict ? { evict: () => inner.evict?.() } : {}),
  };
};

/** A target cluster's Secrets: reads see what a pass would have written there; nothing is written. */
const guardSecrets = (inner: SecretStore, records: Records): SecretStore => {
  const overlay = new Map<string, StoredSecret | null>();
  return {
    get: async (namespace, name) => {
      const key = `${namespace}/${name}`;
      return overlay.has(key) ? (overlay.get(key) ?? undefined) : inner.get(namespace, name);
    },
    put: async (namespace, name, data) => {
      const existing = overlay.has(`${namespace}/${name}`) ? overlay.get(`${namespace}/${name}`) : await inner.get(namespace, name);
      records.wrote('putSecret', 'Secret', namespace, name, `keys ${Object.keys(data).sort().join(', ')} (on the target cluster)`);
      overlay.set(`${namespace}/${name}`, { data: { ...data }, version: 'plan', labels: existing?.labels ?? {} });
      return { version: 'plan', created: existing === undefined || existing === null };
    },
    delete: async (namespace, name) => {
      records.wrote('deleteSecret', 'Secret', namespace, name, 'on the target cluster');
      overlay.set(`${namespace}/${name}`, null);
      return true;
    },
    list: (namespace, labelSelector) => inner.list(namespace, labelSelector),
  };
};

const guardRemoteChildren = (records: Records): RemoteChildren => ({
  sweep: async (namespace, uid) => {
    records.refused('target cluster', 'sweep', `${namespace} regent.dev/nova-uid=${uid}`, { deletes: 'every Deployment, Service, PodDisruptionBudget, HPA, VPA, NetworkPolicy, HTTPRoute, CronJob, Job, ConfigMap, Secret and MariaDB CR labelled with the Nova uid' });
    return { deleted: [] };
  },
});

const guardTargetPorts = (ports: TargetPorts, records: Records): TargetPorts => ({
  provisioner: guardProvisioner(ports.provisioner, records),
  databaseEndpoint: ports.databaseEndpoint,
  jobs: guardJobs(ports.jobs, records),
  workloads: guardWorkloads(ports.workloads, records),
  secrets: guardSecrets(ports.secrets, records),
  configs: guardConfigs(ports.configs, records),
  group: guardGroup(ports.group, records),
  secretStoreGate: ports.secretStoreGate,
  remoteChildren: guardRemoteChildren(records),
});

// ─── a NovaCompute pool's cluster and compute client ───────────────────────────────────────────

/**
 * The pool's workloads, read-only. The embedded default's (LocalPoolWorkloads) stops the process of every node a
 * DaemonSet write drops before the write returns, so the real pass's next read of the pods (the Services step's) no
 * longer sees it: after a recorded ensure (or delete) `podsOn` answers as that write would have left it — only the
 * nodes the recorded DaemonSet still runs on. On Kubernetes a dropped pod terminates after the write (and a
 * terminating pod still counts), so the pods are read as they are.
 */
const guardPoolWorkloads = (inner: PoolWorkloads, records: Records): PoolWorkloads => {
  // by `<namespace>/<pool>`: the nodes the DaemonSet this plan recorded runs on (local pools only)
  const keeps = new Map<string, ReadonlySet<string>>();
  const stopsAtOnce = inner instanceof LocalPoolWorkloads;
  const recorded = (namespace: string, pool: string, nodes: readonly string[]) => {
    if (stopsAtOnce) keeps.set(`${namespace}/${pool}`, new Set(nodes));
  };
  return {
    daemonSet: (namespace, pool) => inner.daemonSet(namespace, pool),
    async podsOn(namespace, pool, nodes) {
      const running = await inner.podsOn(namespace, pool, nodes);
      const kept = keeps.get(`${namespace}/${pool}`);
      return kept ? new Set([...running].filter((node) => kept.has(node))) : running;
    },
    async ensureDaemonSet(spec) {
      const current = await inner.daemonSet(spec.namespace, spec.pool);
      const same = current.present && current.image === spec.image && current.desiredNumberScheduled === spec.nodes.length;
      if (!same) records.wrote(current.present ? 'update' : 'create', 'DaemonSet', spec.namespace, `${spec.pool}-nova-compute`, `image ${spec.image}, config ${spec.config.name}, nodes ${spec.nodes.join(', ') || 'none'} (runs ${current.present ? `${current.image ?? 'no image'} on ${current.desiredNumberScheduled} nodes` : 'nothing'})`);
      recorded(spec.namespace, spec.pool, spec.nodes);
      return current;
    },
    async deleteDaemonSet(namespace, pool) {
      const current = await inner.daemonSet(namespace, pool);
      if (current.present) records.wrote('delete', 'DaemonSet', namespace, `${pool}-nova-compute`);
      recorded(namespace, pool, []);
      return current.present;
    },
    async publishConfig(namespace, _owner, config) {
      records.wrote('create', 'ConfigMap', namespace, config.name, `immutable, files ${Object.keys(config.files).sort().join(', ')} (written only when it does not exist yet)`);
      return false;
    },
    async removeAll(namespace, pool) {
      records.wrote('delete', 'NovaCompute pool objects', namespace, pool, 'its DaemonSet, configs and VPA');
      recorded(namespace, pool, []);
      return [];
    },
  };
};

const guardCluster = (inner: ComputeCluster, records: Records): ComputeCluster => ({
  nodes: inner.nodes,
  workloads: guardPoolWorkloads(inner.workloads, records),
  hypervisors: {
    get: (name) => inner.hypervisors.get(name),
    setCustomTraits: async (name, traits) => records.wrote('update', 'Hypervisor', '', name, `spec.customTraits ${[...traits].sort().join(', ') || 'none'}`),
  },
});

const guardVPA = (inner: PoolVPA, records: Records): PoolVPA => ({
  probe: () => inner.probe(),
  ensure: async (namespace, _owner, pool) => records.wrote('apply', 'VerticalPodAutoscaler', namespace, `${pool}-nova-compute`),
  remove: async (namespace, pool) => {
    records.wrote('delete', 'VerticalPodAutoscaler', namespace, `${pool}-nova-compute`, 'when it exists');
    return 'absent';
  },
});

/** A pool's compute client whose reads go to Nova and Placement and whose writes are refused as the cloud guard refuses them. */
export const readOnlyComputeApi = (api: ComputeApi, log: GuardLog): ComputeApi => {
  const refuse = (service: string, method: string, path: string, body?: unknown): never => {
    throw new BranchStops(keepRefused(log, service, method, path, body));
  };
  return {
    get calls() {
      return api.calls;
    },
    listComputeServices: () => api.listComputeServices(),
    mappedHosts: () => api.mappedHosts(),
    serversOnHost: (host) => api.serversOnHost(host),
    listAggregates: () => api.listAggregates(),
    traitExists: (name) => api.traitExists(name),
    disableService: async (id, reason) => refuse('compute', 'PUT', `/os-services/${id}`, { status: 'disabled', disabled_reason: reason }),
    deleteService: async (id) => refuse('compute', 'DELETE', `/os-services/${id}`),
    createAggregate: async (name, zone) => refuse('compute', 'POST', '/os-aggregates', { aggregate: { name, ...(zone ? { availability_zone: zone } : {}) } }),
    setAggregateMetadata: async (id, metadata) => refuse('compute', 'POST', `/os-aggregates/${id}/action`, { set_metadata: { metadata } }),
    deleteAggregate: async (id) => refuse('compute', 'DELETE', `/os-aggregates/${id}`),
    createTrait: async (name) => refuse('placement', 'PUT', `/traits/${name}`),
    deleteTrait: async (name) => refuse('placement', 'DELETE', `/traits/${name}`),
  };
};

// ─── the runtime ────────────────────────────────────────────────────────────────────────────────

/**
 * The runtime a plan's Nova and NovaCompute passes run with: `runtime`'s reads, every write refused and recorded in
 * `plan` (the header says where). The pools' client is opened as the runtime opens it (its `compute.openComputeApi`,
 * else the real `openComputeApi`) and put behind `readOnlyComputeApi`; the NovaCompute wiring opens its client with
 * the runtime's opener, so no pool write of a plan reaches Nova or Placement.
 */
export const readOnlyNovaRuntime = (runtime: NovaRuntime, plan: NovaPlanRecords): NovaRuntime => {
  const records = new Records(plan);
  const compute = runtime.compute;
  return {
    description: `${runtime.description} (read-only, for a plan)`,
    provisioner: guardProvisioner(runtime.provisioner, records),
    databaseEndpoint: runtime.databaseEndpoint,
    jobs: guardJobs(runtime.jobs, records),
    workloads: guardWorkloads(runtime.workloads, records),
    ...(runtime.jobsUnavailable ? { jobsUnavailable: runtime.jobsUnavailable } : {}),
    ...(runtime.namespaceRefused ? { namespaceRefused: runtime.namespaceRefused } : {}),
    ...(runtime.configs ? { configs: guardConfigs(runtime.configs, records) } : {}),
    ...(runtime.secretStoreGate ? { secretStoreGate: runtime.secretStoreGate } : {}),
    ...(runtime.healthProbe ? { healthProbe: runtime.healthProbe } : {}),
    ...(runtime.released ? { released: async (namespace: string, name: string) => records.wrote('delete', 'Nova runtime', namespace, name, 'what runs here for the gone Nova: its role processes, local Jobs, CronJob and TLS files') } : {}),
    ...(runtime.group ? { group: guardGroup(runtime.group, records) } : {}),
    ...(runtime.targetClusters ? { targetClusters: runtime.targetClusters } : {}),
    ...(runtime.forTarget ? { forTarget: (cluster: Parameters<NonNullable<NovaRuntime['forTarget']>>[0]) => guardTargetPorts(runtime.forTarget!(cluster), records) } : {}),
    ...(runtime.childrenWatched !== undefined ? { childrenWatched: runtime.childrenWatched } : {}),
    ...(compute
      ? {
          compute: {
            cluster: guardCluster(compute.cluster, records),
            ...(compute.vpa ? { vpa: guardVPA(compute.vpa, records) } : {}),
            openComputeApi: async (login: ComputeApiLogin) => readOnlyComputeApi(await (compute.openComputeApi ?? openComputeApi)(login), plan.log),
          },
        }
      : {}),
    start: () => undefined,
    stop: () => undefined,
    close: async () => undefined,
  };
};
