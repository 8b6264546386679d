/**
 * Prometheus metrics (prom-client), one registry per control plane. Names and labels are the
 * contract of deploy/grafana/regent-dashboard.json.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EngineObserver } from '../engine/engine.js';
import type { ControllerObserver } from '../controllers/controller.js';

/** The OpenStack service an effect type talks to: `nova.rebuild` → `nova`. */
export const serviceOf = (effectType: string): string => effectType.split('.')[0] ?? 'unknown';

export class Metrics {
  readonly registry = new Registry();
  readonly reconcileDuration = new Histogram({
    name: 'regent_reconcile_duration_seconds',
    help: 'Duration of reconcile passes by kind and disposition.',
    labelNames: ['kind', 'disposition'],
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly reconcileErrors = new Counter({ name: 'regent_reconcile_errors_total', help: 'Reconcile passes that failed, by kind and step.', labelNames: ['kind', 'step'], registers: [this.registry] });
  readonly eventsAppended = new Counter({ name: 'regent_events_appended_total', help: 'Events appended, by machine and stimulus source.', labelNames: ['machine', 'source'], registers: [this.registry] });
  readonly stimuliUnchanged = new Counter({ name: 'regent_stimuli_unchanged_total', help: 'Stimuli that changed nothing and were not stored, by machine and source.', labelNames: ['machine', 'source'], registers: [this.registry] });
  readonly effectCalls = new Counter({ name: 'regent_effect_calls_total', help: 'Effects executed, by OpenStack service and effect.', labelNames: ['service', 'effect'], registers: [this.registry] });
  readonly effectFailures = new Counter({ name: 'regent_effect_failures_total', help: 'Effects whose outcome is unknown (thrown), by service and effect.', labelNames: ['service', 'effect'], registers: [this.registry] });
  readonly effectDuration = new Histogram({ name: 'regent_effect_duration_seconds', help: 'Effect call duration by service.', labelNames: ['service'], buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30], registers: [this.registry] });
  readonly projectionLag = new Gauge({ name: 'regent_projection_lag_events', help: 'Events appended but not yet rendered into status.', registers: [this.registry] });
  readonly monitorPolls = new Counter({ name: 'regent_monitor_polls_total', help: 'Monitor polls by outcome.', labelNames: ['outcome'], registers: [this.registry] });
  readonly leader = new Gauge({ name: 'regent_leader', help: '1 while this replica holds the lease and reconciles.', registers: [this.registry] });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    // prom-client's default names already start with process_ or nodejs_: the prefix is just `regent_`
    // (`regent_process_` exposed regent_process_process_cpu_seconds_total).
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'regent_' });
  }

  engineObserver(): EngineObserver {
    return {
      decided: (decision, source) => (decision.changed ? this.eventsAppended : this.stimuliUnchanged).inc({ machine: decision.definition.id, source }),
      effectRan: (effect, outcome, seconds) => {
        const service = serviceOf(effect.type);
        this.effectCalls.inc({ service, effect: effect.type });
        if (outcome === 'error') this.effectFailures.inc({ service, effect: effect.type });
        this.effectDuration.observe({ service }, seconds);
      },
    };
  }

  controllerObserver(): ControllerObserver {
    return {
      passFinished: (controller, disposition, seconds) => {
        this.reconcileDuration.observe({ kind: controller, disposition }, seconds);
        if (disposition === 'fail') this.reconcileErrors.inc({ kind: controller, step: 'reconcile' });
      },
    };
  }
}
