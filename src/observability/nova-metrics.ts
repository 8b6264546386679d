/**
 * The Nova operator's Prometheus series (nova-operator.md, "Nova Reconciler Architecture" and "DBArchive"),
 * registered on the control plane's registry (`Metrics.registry`, src/observability/metrics.ts). Names and labels
 * are the contract of deploy/grafana/nova-operator.json (uid `nova-operator`); test/observability/nova-metrics.test.ts
 * checks the dashboard reads exactly these.
 *
 * | series                                     | type      | labels                          | what |
 * |--------------------------------------------|-----------|---------------------------------|------|
 * | `nova_operator_reconcile_duration_seconds` | histogram | sub_reconciler                  | one pipeline step's duration |
 * | `nova_operator_reconcile_errors_total`     | counter   | sub_reconciler, condition_type  | steps that failed, under the condition they report (DBConnectionSecrets, TransportURLSecret and Config keep their own sub_reconciler while sharing SecretsReady) |
 * | `nova_operator_db_sync_total`              | counter   | nova, namespace, job, result    | terminal db-sync and upgrade-phase Jobs (job: db-sync, db-expand, db-migrate, db-contract; result: succeeded, failed) |
 * | `nova_operator_db_sync_duration_seconds`   | histogram | nova, namespace, job            | those Jobs' duration, startedAt to finishedAt |
 * | `nova_operator_db_archive_total`           | counter   | nova, namespace, result         | terminal archive runs (the CronJob's Jobs) |
 * | `nova_operator_db_archive_duration_seconds`| histogram | nova, namespace                 | archive runs' duration |
 *
 * sub_reconciler is the step name: Secrets, DBConnectionSecrets, TransportURLSecret, Config, ComputeConfig,
 * SecretsAvailable, Database, Conductor, Scheduler, Metadata, ConsoleProxy, Deployment, DBArchive, HTTPRoute,
 * MetadataHTTPRoute, ConsoleHTTPRoute, HealthCheck, HPA, VPA, NetworkPolicy.
 *
 * Rules:
 * - A Job counts once per uid. The reconciler sees a terminal Job on every pass until it is deleted, so each Nova's
 *   seen uids are remembered (the newest SEEN_UIDS_PER_NOVA; the runners keep at most four archive runs and one Job
 *   per phase name, so an evicted uid is never shown again).
 * - A Job that finished before this process started (finishedAt < processStart) is remembered, not counted: the
 *   previous process counted it, and a restarted or newly elected Regent would otherwise count every Job in the
 *   history again. A terminal Job without finishedAt cannot be placed in time and is counted.
 * - The counters' series start at 0: any call for a Job (running included) creates both result series of its
 *   job at 0, and every stepFinished creates its error series at 0. increase() and rate() never see a series'
 *   first sample as an increment, so a series born at 1 would hide exactly the first failure. Call jobFinished and
 *   archiveRunFinished with every observation, running Jobs too, and the first terminal Job is seen.
 * - Duration = finishedAt − startedAt when both are known (one runner's clock, src/nova/jobs/port.ts), else none.
 * - deleteForNova(ref) removes every per-CR series this object created for that Nova and forgets its uids
 *   (nova-operator.md: "the per-CR metrics are dropped (metrics.DeleteForNova)"). The pipeline series are not per CR.
 * - A Job with an empty uid (the local runner's lost record) cannot be told apart from the next one: never counted.
 *
 * Caveat — scrape labels: `job` and `namespace` are also labels Prometheus attaches to every target (and the
 * Prometheus Operator's ServiceMonitor adds `namespace`). Unless the scrape keeps the exposed ones
 * (`honor_labels: true`; ServiceMonitor `honorLabels: true`) Prometheus renames them to `exported_job` and
 * `exported_namespace`, and the dashboard's `by (job, result)` would group by the scrape job instead. The Helm
 * chart's ServiceMonitor sets `honorLabels: true` (deploy/helm/regent/templates/servicemonitor.yaml).
 *
 * One NovaMetrics per registry: prom-client refuses a second registration of the same name.
 */
import { Counter, Histogram, type Registry } from 'prom-client';

/** The base names; histograms expose `_bucket`, `_sum` and `_count` series. */
export const NOVA_METRIC_NAMES = [
  'nova_operator_reconcile_duration_seconds',
  'nova_operator_reconcile_errors_total',
  'nova_operator_db_sync_total',
  'nova_operator_db_sync_duration_seconds',
  'nova_operator_db_archive_total',
  'nova_operator_db_archive_duration_seconds',
] as const;
export type NovaMetricName = (typeof NOVA_METRIC_NAMES)[number];

/** The Jobs behind nova_operator_db_sync_*: the schema migrations and the three upgrade phases. */
export type NovaSyncJob = 'db-sync' | 'db-expand' | 'db-migrate' | 'db-contract';

export interface NovaRef {
  namespace: string;
  name: string;
}

/** What the metrics read off an observed Job (an ObservedJob of src/nova/jobs/port.ts fits). */
export interface NovaJobObservation {
  uid: string;
  state: 'running' | 'succeeded' | 'failed';
  /** ISO. */
  startedAt?: string;
  /** ISO. */
  finishedAt?: string;
}

export interface NovaMetricsOptions {
  /** When this process started; Jobs that finished earlier are not counted. Default: construction time. */
  processStart?: Date;
}

/** Pipeline steps take milliseconds to seconds (API calls, a config render). */
const STEP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Jobs take minutes: nova-manage migrations, and archive runs bounded by their 3600 s deadline. */
const JOB_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];
/** See the header: bounded memory per Nova, far above what the runners keep visible. */
export const SEEN_UIDS_PER_NOVA = 256;
const RESULTS = ['succeeded', 'failed'] as const;

type Labels = Record<string, string>;
type PerCrMetric = Counter<string> | Histogram<string>;

/** Per Nova: the uids already seen, and every label set of a per-CR series created for it. */
interface NovaState {
  seen: Set<string>;
  series: Map<PerCrMetric, Map<string, Labels>>;
}

const keyOf = (ref: NovaRef): string => `${ref.namespace}/${ref.name}`;

/** Seconds from startedAt to finishedAt, or undefined when either is unknown or they run backwards. */
const durationOf = (observed: NovaJobObservation): number | undefined => {
  if (observed.startedAt === undefined || observed.finishedAt === undefined) return undefined;
  const seconds = (Date.parse(observed.finishedAt) - Date.parse(observed.startedAt)) / 1000;
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
};

export class NovaMetrics {
  readonly reconcileDuration: Histogram<string>;
  readonly reconcileErrors: Counter<string>;
  readonly dbSync: Counter<string>;
  readonly dbSyncDuration: Histogram<string>;
  readonly dbArchive: Counter<string>;
  readonly dbArchiveDuration: Histogram<string>;
  private readonly processStart: number;
  private readonly novas = new Map<string, NovaState>();

  constructor(registry: Registry, options: NovaMetricsOptions = {}) {
    const registers = [registry];
    this.processStart = (options.processStart ?? new Date()).getTime();
    this.reconcileDuration = new Histogram({ name: 'nova_operator_reconcile_duration_seconds', help: 'Duration of one Nova pipeline step, by step.', labelNames: ['sub_reconciler'], buckets: STEP_BUCKETS, registers });
    this.reconcileErrors = new Counter({ name: 'nova_operator_reconcile_errors_total', help: 'Nova pipeline steps that failed, by step and the condition it reports under.', labelNames: ['sub_reconciler', 'condition_type'], registers });
    this.dbSync = new Counter({ name: 'nova_operator_db_sync_total', help: 'Terminal db-sync and upgrade-phase Jobs, by Nova, Job and result.', labelNames: ['nova', 'namespace', 'job', 'result'], registers });
    this.dbSyncDuration = new Histogram({ name: 'nova_operator_db_sync_duration_seconds', help: 'Duration of db-sync and upgrade-phase Jobs, by Nova and Job.', labelNames: ['nova', 'namespace', 'job'], buckets: JOB_BUCKETS, registers });
    this.dbArchive = new Counter({ name: 'nova_operator_db_archive_total', help: 'Terminal db-archive runs, by Nova and result.', labelNames: ['nova', 'namespace', 'result'], registers });
    this.dbArchiveDuration = new Histogram({ name: 'nova_operator_db_archive_duration_seconds', help: 'Duration of db-archive runs, by Nova.', labelNames: ['nova', 'namespace'], buckets: JOB_BUCKETS, registers });
  }

  /** One pipeline step ended; `conditionType` is the condition it reports under (SecretsReady for Config). */
  stepFinished(step: string, conditionType: string, seconds: number, failed: boolean): void {
    this.reconcileDuration.observe({ sub_reconciler: step }, seconds);
    this.reconcileErrors.inc({ sub_reconciler: step, condition_type: conditionType }, failed ? 1 : 0);
  }

  /** An observation of a db-sync or upgrade-phase Job; counted once per uid when terminal (see the header). */
  jobFinished(ref: NovaRef, job: NovaSyncJob, observed: NovaJobObservation): void {
    const base = { nova: ref.name, namespace: ref.namespace, job };
    for (const result of RESULTS) this.count(ref, this.dbSync, { ...base, result }, 0);
    if (!this.isNewTerminal(ref, observed)) return;
    this.count(ref, this.dbSync, { ...base, result: observed.state }, 1);
    const seconds = durationOf(observed);
    if (seconds !== undefined) this.observeDuration(ref, this.dbSyncDuration, base, seconds);
  }

  /** An observation of one of the archive CronJob's runs; counted once per uid when terminal. */
  archiveRunFinished(ref: NovaRef, observed: NovaJobObservation): void {
    const base = { nova: ref.name, namespace: ref.namespace };
    for (const result of RESULTS) this.count(ref, this.dbArchive, { ...base, result }, 0);
    if (!this.isNewTerminal(ref, observed)) return;
    this.count(ref, this.dbArchive, { ...base, result: observed.state }, 1);
    const seconds = durationOf(observed);
    if (seconds !== undefined) this.observeDuration(ref, this.dbArchiveDuration, base, seconds);
  }

  /** The Nova is gone: its per-CR series leave the exposition and its uids are forgotten. */
  deleteForNova(ref: NovaRef): void {
    const state = this.novas.get(keyOf(ref));
    if (!state) return;
    for (const [metric, labelSets] of state.series) for (const labels of labelSets.values()) metric.remove(labels);
    this.novas.delete(keyOf(ref));
  }

  /** Whether this observation is a terminal Job to count now; remembers its uid either way. */
  private isNewTerminal(ref: NovaRef, observed: NovaJobObservation): boolean {
    if (observed.state === 'running' || observed.uid === '') return false;
    const { seen } = this.state(ref);
    if (seen.has(observed.uid)) return false;
    seen.add(observed.uid);
    if (seen.size > SEEN_UIDS_PER_NOVA) seen.delete(seen.values().next().value as string);
    const finished = observed.finishedAt === undefined ? Number.NaN : Date.parse(observed.finishedAt);
    // The previous process counted it (an unparseable or missing time cannot be placed: counted).
    return !(finished < this.processStart);
  }

  private count(ref: NovaRef, metric: Counter<string>, labels: Labels, by: number): void {
    this.track(ref, metric, labels);
    metric.inc(labels, by);
  }

  private observeDuration(ref: NovaRef, metric: Histogram<string>, labels: Labels, seconds: number): void {
    this.track(ref, metric, labels);
    metric.observe(labels, seconds);
  }

  private track(ref: NovaRef, metric: PerCrMetric, labels: Labels): void {
    const { series } = this.state(ref);
    const labelSets = series.get(metric) ?? new Map<string, Labels>();
    labelSets.set(JSON.stringify(labels), labels);
    series.set(metric, labelSets);
  }

  private state(ref: NovaRef): NovaState {
    const key = keyOf(ref);
    let state = this.novas.get(key);
    if (!state) {
      state = { seen: new Set(), series: new Map() };
      this.novas.set(key, state);
    }
    return state;
  }
}

const shared = new WeakMap<Registry, NovaMetrics>();

/**
 * The one NovaMetrics of a registry: the Nova and the NovaCompute controllers share the instrumenter and the metric
 * vectors (nova-operator.md: "shares the instrumenter and the metric vectors with it"), and a registry refuses a
 * second vector of the same name.
 */
export const sharedNovaMetrics = (registry: Registry): NovaMetrics => {
  let metrics = shared.get(registry);
  if (!metrics) {
    metrics = new NovaMetrics(registry);
    shared.set(registry, metrics);
  }
  return metrics;
};
