/**
 * NovaMetrics (src/observability/nova-metrics.ts) and its dashboard, deploy/grafana/nova-operator.json.
 * The series are read back from the registry as Prometheus would see them; the dashboard is parsed and every
 * metric identifier of every query must be a series NovaMetrics exports, and every series must have a panel.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { Metrics } from '../../src/observability/metrics.js';
import { NOVA_METRIC_NAMES, NovaMetrics, type NovaJobObservation } from '../../src/observability/nova-metrics.js';
import type { GrafanaDashboard } from '../support/grafana.js';

const START = new Date('2025-06-01T12:00:00Z');
const NOVA = { namespace: 'openstack', name: 'nova' };
const OTHER = { namespace: 'tenant-b', name: 'nova-b' };

const finished = (uid: string, state: 'succeeded' | 'failed', startedAt: string | undefined, finishedAt: string | undefined): NovaJobObservation => ({
  uid,
  state,
  ...(startedAt ? { startedAt } : {}),
  ...(finishedAt ? { finishedAt } : {}),
});

interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** The samples of one metric as exposed (histograms: their _bucket, _sum and _count samples). */
const samples = async (registry: Registry, name: string): Promise<Sample[]> => {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`${name} is not registered`);
  return (await metric.get()).values as Sample[];
};

/** The value of the one sample with exactly these labels (and, for a histogram, this series name), or undefined. */
const valueOf = async (registry: Registry, name: string, labels: Record<string, string>, series = name): Promise<number | undefined> => {
  const key = (l: Record<string, string | number>): string => JSON.stringify(Object.entries(l).map(([k, v]) => [k, String(v)]).sort());
  const wanted = key(labels);
  const found = (await samples(registry, name)).filter((s) => (s.metricName ?? name) === series && key(s.labels) === wanted);
  expect(found.length, `${series}${wanted}`).to.be.at.most(1);
  return found[0]?.value;
};

const novasIn = async (registry: Registry): Promise<string[]> => {
  const text = await registry.metrics();
  return [...new Set([...text.matchAll(/nova="([^"]+)"/g)].map((m) => m[1]!))].sort();
};

describe('observability: NovaMetrics', () => {
  let registry: Registry;
  let metrics: NovaMetrics;
  beforeEach(() => {
    registry = new Registry();
    metrics = new NovaMetrics(registry, { processStart: START });
  });

  it('registers exactly NOVA_METRIC_NAMES, on the control plane registry too', async () => {
    const names = (registry.getMetricsAsArray() as unknown as Array<{ name: string }>).map((m) => m.name).sort();
    expect(names).to.deep.equal([...NOVA_METRIC_NAMES].sort());
    const plane = new Metrics({ defaultMetrics: false });
    new NovaMetrics(plane.registry);
    expect(await plane.registry.metrics()).to.include('# TYPE nova_operator_db_sync_total counter');
  });

  describe('the pipeline: stepFinished', () => {
    it('observes the duration by sub_reconciler and counts a failure by sub_reconciler and condition_type', async () => {
      metrics.stepFinished('DBConnectionSecrets', 'SecretsReady', 0.02, false);
      metrics.stepFinished('DBConnectionSecrets', 'SecretsReady', 0.3, true);
      metrics.stepFinished('Config', 'SecretsReady', 0.1, true);
      const name = 'nova_operator_reconcile_duration_seconds';
      expect(await valueOf(registry, name, { sub_reconciler: 'DBConnectionSecrets' }, `${name}_count`)).to.equal(2);
      expect(await valueOf(registry, name, { sub_reconciler: 'DBConnectionSecrets' }, `${name}_sum`)).to.be.closeTo(0.32, 1e-9);
      expect(await valueOf(registry, name, { sub_reconciler: 'DBConnectionSecrets', le: '0.025' }, `${name}_bucket`)).to.equal(1);
      // the steps sharing SecretsReady keep their own sub_reconciler
      expect(await valueOf(registry, 'nova_operator_reconcile_errors_total', { sub_reconciler: 'DBConnectionSecrets', condition_type: 'SecretsReady' })).to.equal(1);
      expect(await valueOf(registry, 'nova_operator_reconcile_errors_total', { sub_reconciler: 'Config', condition_type: 'SecretsReady' })).to.equal(1);
    });

    it('a step that never failed still exposes its error series, at 0 (a series born at 1 hides the first failure from rate())', async () => {
      metrics.stepFinished('Database', 'DatabaseReady', 0.01, false);
      expect(await valueOf(registry, 'nova_operator_reconcile_errors_total', { sub_reconciler: 'Database', condition_type: 'DatabaseReady' })).to.equal(0);
    });
  });

  describe('the Jobs: jobFinished and archiveRunFinished', () => {
    it('counts a terminal Job by nova, namespace, job and result, and observes startedAt → finishedAt', async () => {
      metrics.jobFinished(NOVA, 'db-sync', finished('u1', 'succeeded', '2025-06-01T12:10:00Z', '2025-06-01T12:13:30Z'));
      metrics.jobFinished(NOVA, 'db-expand', finished('u2', 'failed', '2025-06-01T13:00:00Z', '2025-06-01T13:00:20Z'));
      const labels = { nova: 'nova', namespace: 'openstack' };
      expect(await valueOf(registry, 'nova_operator_db_sync_total', { ...labels, job: 'db-sync', result: 'succeeded' })).to.equal(1);
      expect(await valueOf(registry, 'nova_operator_db_sync_total', { ...labels, job: 'db-sync', result: 'failed' })).to.equal(0);
      expect(await valueOf(registry, 'nova_operator_db_sync_total', { ...labels, job: 'db-expand', result: 'failed' })).to.equal(1);
      const d = 'nova_operator_db_sync_duration_seconds';
      expect(await valueOf(registry, d, { ...labels, job: 'db-sync' }, `${d}_sum`)).to.equal(210);
      expect(await valueOf(registry, d, { ...labels, job: 'db-sync' }, `${d}_count`)).to.equal(1);
      expect(await valueOf(registry, d, { ...labels, job: 'db-expand' }, `${d}_sum`)).to.equal(20);
      expect(await valueOf(registry, d, { ...labels, job: 'db-migrate' }, `${d}_count`)).to.equal(undefined);
    });

    it('a Job seen on every pass counts once (per uid); a re-created Job (new uid) counts again', async () => {
      const job = finished('u1', 'failed', '2025-06-01T12:10:00Z', '2025-06-01T12:11:00Z');
      for (let pass = 0; pass < 3; pass++) metrics.jobFinished(NOVA, 'db-migrate', job);
      const labels = { nova: 'nova', namespace: 'openstack', job: 'db-migrate' };
      expect(await valueOf(registry, 'nova_operator_db_sync_total', { ...labels, result: 'failed' })).to.equal(1);
      expect(await valueOf(registry, 'nova_operator_db_sync_duration_seconds', labels, 'nova_operator_db_sync_duration_seconds_count')).to.equal(1);
      metrics.jobFinished(NOVA, 'db-migrate', { ...job, uid: 'u2', state: 'succeeded' });
      expect(await valueOf(registry, 'nova_operator_db_sync_total', { ...labels, result: 'succeeded' })).to.equal(1);
    });

    it('a Job that finished before this process started is remembered, not counted (the previous process counted it)', async () => {
      const old = finished('u-old', 'succeeded', '2025-06-01T11:00:00Z', '2025-06-01T11:59:59Z');
      metrics.jobFinished(NOVA, 'db-sync', old);
      metrics.jobFinished(NOVA, 'db-sync', old);
      metrics.archiveRunFinished(NOVA, finished('a-old', 'failed', '2025-06-01T02:00:00Z', '2025-06-01T02:05:00Z'));
      const labels = { nova: 'nova', namespace: 'openstack' };
      expect(await valueOf(registry, 'nova_operator_db_sync_total', { ...labels, job: 'db-sync', result: 'succeeded' })).to.equal(0);
      expect(await valueOf(registry, 'nova_operator_db_sync_duration_seconds', { ...labels, job: 'db-sync' }, 'nova_operator_db_sync_duration_seconds_count')).to.equal(undefined);
      expect(await valueOf(registry, 'nova_operator_db_archive_total', { ...labels, result: 'failed' })).to.equal(0);
    });

    it('a running Job is not counted, but creates its result series at 0 so its end is an increase', async () => {
      metrics.jobFinished(NOVA, 'db-contract', { uid: 'u1', state: 'running', startedAt: '2025-06-01T12:10:00Z' });
      const labels = { nova: 'nova', namespace: 'openstack', job: 'db-contract' };
      expect(await valueOf(registry, 'nova_operator_db_sync_total', { ...labels, result: 'succeeded' })).to.equal(0);
      expect(await valueOf(registry, 'nova_operator_db_sync_total', { ...labels, result: 'failed' })).to.equal(0);
      metrics.jobFinished(NOVA, 'db-contract', finished('u1', 'succeeded', '2025-06-01T12:10:00Z', '2025-06-01T12:12:00Z'));
      expect(await valueOf(registry, 'nova_operator_db_sync_total', { ...labels, result: 'succeeded' })).to.equal(1);
    });

    it('without startedAt (or finishedAt) the Job is counted and no duration is observed', async () => {
      metrics.jobFinished(NOVA, 'db-sync', finished('u1', 'failed', undefined, '2025-06-01T12:30:00Z'));
      metrics.archiveRunFinished(NOVA, finished('a1', 'succeeded', undefined, undefined));
      const labels = { nova: 'nova', namespace: 'openstack' };
      expect(await valueOf(registry, 'nova_operator_db_sync_total', { ...labels, job: 'db-sync', result: 'failed' })).to.equal(1);
      expect(await valueOf(registry, 'nova_operator_db_sync_duration_seconds', { ...labels, job: 'db-sync' }, 'nova_operator_db_sync_duration_seconds_count')).to.equal(undefined);
      expect(await valueOf(registry, 'nova_operator_db_archive_total', { ...labels, result: 'succeeded' })).to.equal(1);
      expect(await valueOf(registry, 'nova_operator_db_archive_duration_seconds', labels, 'nova_operator_db_archive_duration_seconds_count')).to.equal(undefined);
    });

    it('a Job with an empty uid (a lost record) is never counted: it could not be told from the next one', async () => {
      metrics.jobFinished(NOVA, 'db-sync', finished('', 'failed', undefined, '2025-06-01T12:30:00Z'));
      expect(await valueOf(registry, 'nova_operator_db_sync_total', { nova: 'nova', namespace: 'openstack', job: 'db-sync', result: 'failed' })).to.equal(0);
    });

    it('archive runs count by nova, namespace and result, once each, with their duration', async () => {
      const run = finished('a1', 'succeeded', '2025-06-01T13:00:00Z', '2025-06-01T13:07:00Z');
      metrics.archiveRunFinished(NOVA, run);
      metrics.archiveRunFinished(NOVA, run);
      metrics.archiveRunFinished(NOVA, finished('a2', 'failed', '2025-06-01T14:00:00Z', '2025-06-01T15:00:00Z'));
      const labels = { nova: 'nova', namespace: 'openstack' };
      expect(await valueOf(registry, 'nova_operator_db_archive_total', { ...labels, result: 'succeeded' })).to.equal(1);
      expect(await valueOf(registry, 'nova_operator_db_archive_total', { ...labels, result: 'failed' })).to.equal(1);
      const d = 'nova_operator_db_archive_duration_seconds';
      expect(await valueOf(registry, d, labels, `${d}_count`)).to.equal(2);
      expect(await valueOf(registry, d, labels, `${d}_sum`)).to.equal(420 + 3600);
    });
  });

  describe('deleteForNova', () => {
    it("drops every per-CR series of that Nova and leaves another Nova's and the pipeline's", async () => {
      for (const ref of [NOVA, OTHER]) {
        metrics.jobFinished(ref, 'db-sync', finished(`${ref.name}-u1`, 'succeeded', '2025-06-01T12:10:00Z', '2025-06-01T12:11:00Z'));
        metrics.jobFinished(ref, 'db-expand', finished(`${ref.name}-u2`, 'failed', '2025-06-01T12:20:00Z', '2025-06-01T12:21:00Z'));
        metrics.archiveRunFinished(ref, finished(`${ref.name}-a1`, 'succeeded', '2025-06-01T13:00:00Z', '2025-06-01T13:01:00Z'));
      }
      metrics.stepFinished('Secrets', 'SecretsReady', 0.01, true);
      expect(await novasIn(registry)).to.deep.equal(['nova', 'nova-b']);
      metrics.deleteForNova(NOVA);
      expect(await novasIn(registry)).to.deep.equal(['nova-b']);
      expect(await valueOf(registry, 'nova_operator_db_sync_total', { nova: 'nova-b', namespace: 'tenant-b', job: 'db-sync', result: 'succeeded' })).to.equal(1);
      expect(await valueOf(registry, 'nova_operator_db_archive_duration_seconds', { nova: 'nova-b', namespace: 'tenant-b' }, 'nova_operator_db_archive_duration_seconds_count')).to.equal(1);
      expect(await valueOf(registry, 'nova_operator_reconcile_errors_total', { sub_reconciler: 'Secrets', condition_type: 'SecretsReady' })).to.equal(1);
    });

    it('forgets its uids: a Nova re-created under the same name counts its Jobs afresh', async () => {
      const job = finished('u1', 'succeeded', '2025-06-01T12:10:00Z', '2025-06-01T12:11:00Z');
      metrics.jobFinished(NOVA, 'db-sync', job);
      metrics.deleteForNova(NOVA);
      metrics.deleteForNova(NOVA); // a second delete is a no-op
      metrics.jobFinished(NOVA, 'db-sync', job);
      expect(await valueOf(registry, 'nova_operator_db_sync_total', { nova: 'nova', namespace: 'openstack', job: 'db-sync', result: 'succeeded' })).to.equal(1);
    });
  });
});

// ---- the dashboard ----------------------------------------------------------------------------------

type Dashboard = GrafanaDashboard;

const PROMQL_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

/**
 * Every metric identifier a PromQL expression (or a Grafana label_values query) names: string literals, label
 * matchers, ranges, grouping label lists, Grafana variables and the label argument of label_values removed, then
 * every identifier that is not a function call, a keyword or part of a number.
 */
const metricIdentifiers = (expr: string): string[] => {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    // label_values(selector, label) keeps the selector; label_values(label) names no metric
    .replace(/\blabel_values\s*\(([^()]*)\)/g, (_, args: string) => (args.includes(',') ? `label_values(${args.slice(0, args.lastIndexOf(','))})` : ''))
    .replace(/\boffset\s+\S+/g, '')
    .replace(/\$\{[^}]*\}|\$\w+/g, '');
  return [...stripped.matchAll(/(?<![\w.])[a-zA-Z_:][a-zA-Z0-9_:]*(?![\w:]|\s*\()/g)].map((m) => m[0]).filter((id) => !PROMQL_KEYWORDS.has(id.toLowerCase()));
};

describe('deploy: grafana/nova-operator.json', () => {
  const dashboard = JSON.parse(readFileSync(join(process.cwd(), 'deploy', 'grafana', 'nova-operator.json'), 'utf8')) as Dashboard;
  const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
  const queryPanels = panels.filter((p) => p.type !== 'row');
  const targets = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}" ${t.refId ?? ''}`, expr: t.expr ?? '' })));
  const variables = dashboard.templating.list.filter((v) => v.type === 'query').map((v) => ({ where: `variable $${v.name}`, expr: typeof v.query === 'string' ? v.query : (v.query?.query ?? '') }));

  /** name → type ('counter', 'histogram') as the registry exposes them. */
  const exported = async (): Promise<Map<string, string>> => {
    const registry = new Registry();
    new NovaMetrics(registry);
    return new Map(await Promise.all(NOVA_METRIC_NAMES.map(async (name) => [name, String((await registry.getSingleMetric(name)!.get()).type)] as const)));
  };
  /** The exported base name a series belongs to (histograms: base, _bucket, _sum, _count), or undefined. */
  const baseOf = (series: string, known: Map<string, string>): string | undefined => {
    if (known.has(series)) return series;
    const suffix = ['_bucket', '_sum', '_count'].find((s) => series.endsWith(s));
    const base = suffix ? series.slice(0, -suffix.length) : undefined;
    return base !== undefined && known.get(base) === 'histogram' ? base : undefined;
  };

  it('the identifier extraction finds bare metric names and nothing else (label names, functions, variables, numbers)', () => {
    expect(metricIdentifiers('histogram_quantile(0.95, sum by (sub_reconciler, le) (rate(foo_bucket{a="b", c=~"$x"}[$__rate_interval])))')).to.deep.equal(['foo_bucket']);
    expect(metricIdentifiers('sum(x_sum{n=~"$nova"}[1h]) / on (instance) group_left(kind) (up == 1) and bar offset 5m')).to.deep.equal(['x_sum', 'up', 'bar']);
    expect(metricIdentifiers('label_values(nova_operator_db_sync_total{namespace=~"$namespace"}, nova)')).to.deep.equal(['nova_operator_db_sync_total']);
    expect(metricIdentifiers('label_values(namespace)')).to.deep.equal([]);
    expect(metricIdentifiers('rate(process_cpu_seconds_total[5m]) * 1e3')).to.deep.equal(['process_cpu_seconds_total']);
  });

  it('is a Grafana dashboard: uid nova-operator, schemaVersion 39, a Prometheus data source, $namespace and $nova over nova_operator_db_sync_total', () => {
    expect(dashboard.uid).to.equal('nova-operator');
    expect(dashboard.title).to.equal('Nova operator');
    expect(dashboard.schemaVersion).to.equal(39);
    expect(dashboard.templating.list.find((v) => v.name === 'datasource')).to.include({ type: 'datasource', query: 'prometheus' });
    expect(variables.map((v) => v.where)).to.deep.equal(['variable $namespace', 'variable $nova']);
    for (const { where, expr } of variables) expect(expr, where).to.match(/^label_values\(nova_operator_db_sync_total\b/);
    for (const p of queryPanels) expect(p.datasource, p.title).to.deep.equal({ type: 'prometheus', uid: '${datasource}' });
  });

  it('panel ids are unique, every panel is on the 24-column grid, and no two overlap', () => {
    expect(new Set(panels.map((p) => p.id)).size).to.equal(panels.length);
    const cells = new Set<string>();
    for (const p of panels) {
      const g = p.gridPos!;
      expect(g.x + g.w, p.title).to.be.at.most(24);
      for (let x = g.x; x < g.x + g.w; x++)
        for (let y = g.y; y < g.y + g.h; y++) {
          expect(cells.has(`${x},${y}`), `${p.title} overlaps at ${x},${y}`).to.equal(false);
          cells.add(`${x},${y}`);
        }
    }
  });

  it('every metric every query names is a series NovaMetrics exports', async () => {
    const known = await exported();
    const all = [...targets, ...variables];
    expect(targets.length).to.be.greaterThan(0);
    for (const { where, expr } of all) expect(metricIdentifiers(expr), `${where}: ${expr}`).to.not.deep.equal([]);
    const unknown = all.flatMap(({ where, expr }) => metricIdentifiers(expr).filter((id) => baseOf(id, known) === undefined).map((id) => `${where}: ${id}`));
    expect(unknown, `exported: ${[...known.keys()].join(', ')}`).to.deep.equal([]);
  });

  it('every series in NOVA_METRIC_NAMES is read by at least one panel', async () => {
    const known = await exported();
    const read = new Set(targets.flatMap(({ expr }) => metricIdentifiers(expr).map((id) => baseOf(id, known))));
    expect(NOVA_METRIC_NAMES.filter((name) => !read.has(name))).to.deep.equal([]);
  });

  it('panels read counters (and _sum/_count) only through rate() or increase(), buckets only through histogram_quantile(… by (…, le))', async () => {
    const known = await exported();
    for (const { where, expr } of targets) {
      for (const m of expr.matchAll(/\bnova_operator_[a-z_]+/g)) {
        const before = expr.slice(0, m.index);
        if (known.get(m[0]) === 'counter' || m[0].endsWith('_count') || m[0].endsWith('_sum')) expect(before, `${where}: ${m[0]}`).to.match(/(?:rate|increase)\(\s*$/);
        if (m[0].endsWith('_bucket')) expect(before, `${where}: ${m[0]}`).to.match(/histogram_quantile\([^,]+,\s*sum by \([^)]*\ble\b[^)]*\) \((?:rate|increase)\($/);
      }
    }
  });

  it('the panels the brief asks for: step p95 by sub_reconciler, errors by sub_reconciler and condition_type, Job results by job and result, Job duration, archive runs by result, archive duration', () => {
    const exprs = targets.map((t) => t.expr).join('\n');
    expect(exprs).to.match(/histogram_quantile\(0\.95, sum by \(sub_reconciler, le\) \(rate\(nova_operator_reconcile_duration_seconds_bucket/);
    expect(exprs).to.match(/sum by \(sub_reconciler, condition_type\) \(rate\(nova_operator_reconcile_errors_total/);
    expect(exprs).to.match(/sum by \(job, result\) \(increase\(nova_operator_db_sync_total\{namespace=~"\$namespace", nova=~"\$nova"\}/);
    expect(exprs).to.match(/nova_operator_db_sync_duration_seconds_sum\{namespace=~"\$namespace", nova=~"\$nova"\}/);
    expect(exprs).to.match(/sum by \(result\) \(increase\(nova_operator_db_archive_total\{namespace=~"\$namespace", nova=~"\$nova"\}/);
    expect(exprs).to.match(/nova_operator_db_archive_duration_seconds_sum\{namespace=~"\$namespace", nova=~"\$nova"\}/);
  });
});
