/**
 * deploy/grafana/regent-dashboard.json reads exactly the metrics src/observability/metrics.ts defines:
 * a renamed or removed metric breaks this test, and so does a metric with no panel. Histograms are read
 * through histogram_quantile over _bucket (or _count for rates), counters only through rate/increase.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Metrics } from '../../src/observability/metrics.js';
import { DEPLOY } from './support/files.js';
import type { GrafanaDashboard } from '../support/grafana.js';

type Dashboard = GrafanaDashboard;

const dashboard = JSON.parse(readFileSync(join(DEPLOY, 'grafana', 'regent-dashboard.json'), 'utf8')) as Dashboard;
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const queryPanels = panels.filter((p) => p.type !== 'row');
const exprs: Array<{ where: string; expr: string }> = [
  ...queryPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}" ${t.refId ?? ''}`, expr: t.expr ?? '' }))),
  ...dashboard.templating.list.filter((v) => v.type === 'query').map((v) => ({ where: `variable $${v.name}`, expr: typeof v.query === 'string' ? v.query : (v.query?.query ?? '') })),
];

/** name → type, from the registry the control plane serves (default process metrics off: the dashboard does not read them). */
const defined = async (): Promise<Map<string, string>> => {
  const metrics = new Metrics({ defaultMetrics: false });
  // The instances behind getMetricsAsArray() serve get(): their name and type as exposed on /metrics.
  const instances = metrics.registry.getMetricsAsArray() as unknown as Array<{ get(): Promise<{ name: string; type: unknown }> }>;
  return new Map(await Promise.all(instances.map(async (m) => {
    const { name, type } = await m.get();
    return [name, String(type)] as const;
  })));
};

const HISTOGRAM_SERIES = ['_bucket', '_count', '_sum'];

/** The defined metric a series name reads, or undefined. */
const metricOf = (series: string, known: Map<string, string>): string | undefined => {
  if (known.has(series)) return series;
  const suffix = HISTOGRAM_SERIES.find((s) => series.endsWith(s));
  const base = suffix ? series.slice(0, -suffix.length) : undefined;
  return base !== undefined && known.get(base) === 'histogram' ? base : undefined;
};

describe('deploy: grafana dashboard', () => {
  it('is a Grafana dashboard: schemaVersion 39, a stable uid, a Prometheus data source variable used by every panel', () => {
    expect(dashboard.schemaVersion).to.equal(39);
    expect(dashboard.uid).to.equal('regent-control-plane');
    expect(dashboard.title).to.equal('Regent');
    expect(dashboard.templating.list.find((v) => v.name === 'datasource')).to.include({ type: 'datasource', query: 'prometheus' });
    for (const p of queryPanels) {
      expect(p.datasource, p.title).to.deep.equal({ type: 'prometheus', uid: '${datasource}' });
      for (const t of p.targets ?? []) expect(t.datasource, `${p.title} ${t.refId ?? ''}`).to.deep.equal(p.datasource);
    }
  });

  it('panel ids are unique, every panel has a place on the 24-column grid, and no two panels overlap', () => {
    expect(new Set(panels.map((p) => p.id)).size).to.equal(panels.length);
    const cells = new Set<string>();
    for (const p of panels) {
      const g = p.gridPos!;
      expect(g, p.title).to.not.equal(undefined);
      expect(g.x + g.w, p.title).to.be.at.most(24);
      for (let x = g.x; x < g.x + g.w; x++) for (let y = g.y; y < g.y + g.h; y++) {
        expect(cells.has(`${x},${y}`), `${p.title} overlaps at ${x},${y}`).to.equal(false);
        cells.add(`${x},${y}`);
      }
    }
  });

  it('every query panel has at least one PromQL expression, each with its own refId', () => {
    for (const p of queryPanels) {
      expect(p.targets ?? [], p.title).to.have.length.greaterThan(0);
      expect(new Set((p.targets ?? []).map((t) => t.refId)).size, p.title).to.equal(p.targets!.length);
      for (const t of p.targets ?? []) expect(t.expr, p.title).to.be.a('string').and.not.equal('');
    }
  });

  it('every expression reads only metrics defined in src/observability/metrics.ts', async () => {
    const known = await defined();
    const unknown = exprs.flatMap(({ where, expr }) => [...expr.matchAll(/\bregent_[a-zA-Z0-9_]+/g)].map((m) => m[0]).filter((s) => metricOf(s, known) === undefined).map((s) => `${where}: ${s}`));
    expect(unknown, `defined: ${[...known.keys()].join(', ')}`).to.deep.equal([]);
  });

  it('every metric the control plane defines has a panel', async () => {
    const known = await defined();
    const read = new Set(exprs.flatMap(({ expr }) => [...expr.matchAll(/\bregent_[a-zA-Z0-9_]+/g)].map((m) => metricOf(m[0], known)).filter((m): m is string => m !== undefined)));
    expect([...known.keys()].filter((name) => !read.has(name))).to.deep.equal([]);
  });

  it('counters are read only through rate() or increase(); histogram buckets only through histogram_quantile(… by (…, le))', async () => {
    const known = await defined();
    for (const { where, expr } of exprs) {
      for (const m of expr.matchAll(/\bregent_[a-zA-Z0-9_]+/g)) {
        const metric = metricOf(m[0], known)!;
        const before = expr.slice(0, m.index);
        if (known.get(metric) === 'counter' || m[0].endsWith('_count')) {
          expect(before, `${where}: ${m[0]} outside rate/increase`).to.match(/(?:rate|increase)\(\s*$/);
        }
        if (m[0].endsWith('_bucket')) {
          expect(before, `${where}: ${m[0]}`).to.match(/histogram_quantile\([^,]+,\s*sum by \([^)]*\ble\b[^)]*\) \((?:rate|increase)\($/);
        }
      }
    }
  });

  it('the default process metrics are named regent_process_… and regent_nodejs_…, with no doubled prefix', async () => {
    const names = (new Metrics().registry.getMetricsAsArray() as unknown as Array<{ name: string }>).map((m) => m.name);
    expect(names).to.include.members(['regent_process_cpu_seconds_total', 'regent_process_resident_memory_bytes', 'regent_nodejs_eventloop_lag_seconds', 'regent_nodejs_heap_size_used_bytes']);
    expect(names.filter((name) => /^regent_process_(?:process|nodejs)_/.test(name))).to.deep.equal([]);
  });

  it('the panels the deployment needs: reconcile rate and p95 by kind, errors by kind and step, events by machine and source, effects by service, leader, monitor polls, projection lag', () => {
    const byTitle = (title: string) => queryPanels.find((p) => p.title === title)?.targets?.map((t) => t.expr ?? '').join(' ') ?? '';
    expect(byTitle('Reconcile rate by kind')).to.match(/sum by \(kind, disposition\) \(rate\(regent_reconcile_duration_seconds_count/);
    expect(byTitle('Reconcile duration p95 by kind')).to.match(/histogram_quantile\(0\.95, sum by \(kind, le\)/);
    expect(byTitle('Reconcile errors by kind and step')).to.match(/sum by \(kind, step\)/);
    expect(byTitle('Events appended by machine and source')).to.match(/sum by \(machine, source\)/);
    expect(byTitle('Unchanged stimuli by machine and source')).to.match(/sum by \(machine, source\)/);
    expect(byTitle('Effect calls by service')).to.match(/sum by \(service, effect\)/);
    expect(byTitle('Effect failures by service')).to.match(/sum by \(service, effect\)/);
    expect(byTitle('Effect duration p95 by service')).to.match(/histogram_quantile\(0\.95, sum by \(service, le\)/);
    expect(byTitle('Leading replicas')).to.match(/regent_leader/);
    expect(byTitle('Monitor polls by outcome')).to.match(/sum by \(outcome\)/);
    // Only the leader runs the status runner; a standby's lag counts from position 0 and means nothing.
    expect(byTitle('Projection lag (leader)')).to.match(/regent_projection_lag_events\{[^}]*\} and on \(instance\) \(regent_leader\{[^}]*\} == 1\)/);
  });
});
