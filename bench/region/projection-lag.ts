/**
 * Projection lag (issue 31): append → rendered status. The status runner patches status through the resource source,
 * so the bench notes the moment of every status patch (by wrapping the plane's `source.patchStatus`); after the run,
 * each machine event whose resource (`metadata.subject`) got a status patch after it and before that resource's next
 * event counts, with the time from its `recordedAt` to that patch. Events whose render changed nothing have no patch
 * and are not counted. The baseline is the same store's append → subscription delivery for the same events (what the
 * runner cannot go below).
 */
import type { ControlPlane } from '../../src/app/control-plane.js';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { percentile } from './measure.js';

export interface LagRecorder {
  /** Status patch times (epoch ms) by `<kind>/<namespace>/<name>`. */
  patches: Map<string, number[]>;
  /** Epoch ms at which this process's subscription received each event, by id. */
  delivered: Map<string, number>;
  stop(): Promise<void>;
}

export interface ProjectionLagResult {
  events: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  deliveryP50Ms: number;
  deliveryP99Ms: number;
}

const keyOf = (kind: string, namespace: string, name: string): string => `${kind}/${namespace}/${name}`;

/** Starts noting status patches and event deliveries on `plane`. */
export const recordLag = async (plane: ControlPlane): Promise<LagRecorder> => {
  const patches = new Map<string, number[]>();
  const delivered = new Map<string, number>();
  const source = plane.source;
  const original = source.patchStatus.bind(source);
  source.patchStatus = (async (kind: string, namespace: string, name: string, status: unknown, options?: { resourceVersion?: string }) => {
    const result = await original(kind as never, namespace, name, status as never, options);
    const key = keyOf(kind, namespace, name);
    const list = patches.get(key) ?? [];
    list.push(Date.now());
    patches.set(key, list);
    return result;
  }) as typeof source.patchStatus;
  const subscription = plane.store.subscribe({ after: await plane.engine.lastPosition() }, (event) => void delivered.set(event.id, Date.now()));
  return {
    patches,
    delivered,
    stop: async () => {
      source.patchStatus = original;
      await subscription.close();
    },
  };
};

/** The lag of every machine event appended since `afterPosition` that a status patch followed. */
export const projectionLag = (events: readonly RecordedEvent[], recorder: LagRecorder): ProjectionLagResult => {
  const bySubject = new Map<string, RecordedEvent[]>();
  for (const event of events) {
    const subject = event.metadata.subject;
    if (!subject || event.stream.startsWith('resource-')) continue;
    const key = keyOf(subject.kind, subject.namespace, subject.name);
    bySubject.set(key, [...(bySubject.get(key) ?? []), event]);
  }
  const lags: number[] = [];
  const deliveries: number[] = [];
  for (const [key, list] of bySubject) {
    const patched = recorder.patches.get(key) ?? [];
    list.forEach((event, i) => {
      const appended = Date.parse(event.metadata.recordedAt);
      const nextAppend = i + 1 < list.length ? Date.parse((list[i + 1] as RecordedEvent).metadata.recordedAt) : Number.POSITIVE_INFINITY;
      const delivery = recorder.delivered.get(event.id);
      if (delivery !== undefined) deliveries.push(delivery - appended);
      const patch = patched.find((t) => t >= appended);
      if (patch !== undefined && patch <= nextAppend) lags.push(patch - appended);
    });
  }
  return {
    events: lags.length,
    p50Ms: percentile(lags, 50),
    p99Ms: percentile(lags, 99),
    maxMs: percentile(lags, 100),
    deliveryP50Ms: percentile(deliveries, 50),
    deliveryP99Ms: percentile(deliveries, 99),
  };
};
