/**
 * Events as core/v1 Event objects. Like client-go's recorder, a repeat of an event this process
 * already recorded (same object, type, reason, message) patches the existing Event's count and
 * lastTimestamp instead of creating another; if that Event is gone (TTL), a new one is created.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setHeaderOptions, type CoreV1Api, type CoreV1Event } from '@kubernetes/client-node';
import type { KindName, ObjectOf } from '../../resources/index.js';
import { BadRequest, NotFound } from '../errors.js';
import { rfc3339 } from '../object.js';
import type { EventFilter, EventType, RecordedEvent } from '../port.js';
import { toResourceError } from './errors.js';

const MERGE_PATCH = setHeaderOptions('Content-Type', 'application/merge-patch+json');
const MAX_MESSAGE = 1024;
const MAX_REMEMBERED = 4096;

const time = (value: unknown): string => (value instanceof Date ? rfc3339(value) : typeof value === 'string' ? value : '');

export class KubernetesEventRecorder {
  private readonly recorded = new Map<string, { name: string; namespace: string; count: number; first: string }>();

  constructor(
    private readonly core: CoreV1Api,
    private readonly component: string,
    private readonly instance: string = hostname(),
  ) {}

  async record(object: ObjectOf<KindName>, type: EventType, reason: string, message: string): Promise<void> {
    if (type !== 'Normal' && type !== 'Warning') throw new BadRequest(`event type must be Normal or Warning, not ${String(type)}`);
    if (!/^[A-Za-z][A-Za-z0-9]{0,127}$/.test(reason)) throw new BadRequest(`event reason must be CamelCase (got "${reason}")`);
    const text = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message;
    const { namespace, name, uid } = object.metadata;
    const key = JSON.stringify([uid, type, reason, text]);
    const now = rfc3339(new Date());
    const target = { kind: 'Event', namespace, name };
    const seen = this.recorded.get(key);
    if (seen) {
      try {
        await this.core.patchNamespacedEvent({ namespace, name: seen.name, body: { count: seen.count + 1, lastTimestamp: now } }, MERGE_PATCH);
        seen.count += 1;
        return;
      } catch (error) {
        if (!(toResourceError(error, target) instanceof NotFound)) throw toResourceError(error, target);
        this.recorded.delete(key);
      }
    }
    const eventName = `${name}.${randomBytes(8).toString('hex')}`;
    const body = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: eventName, namespace },
      involvedObject: { apiVersion: object.apiVersion, kind: object.kind, name, namespace, uid, resourceVersion: object.metadata.resourceVersion },
      type,
      reason,
      message: text,
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: this.component, host: this.instance },
      reportingComponent: this.component,
      reportingInstance: this.instance,
    };
    try {
      await this.core.createNamespacedEvent({ namespace, body: body as unknown as CoreV1Event });
    } catch (error) {
      throw toResourceError(error, target);
    }
    if (this.recorded.size >= MAX_REMEMBERED) this.recorded.delete(this.recorded.keys().next().value as string);
    this.recorded.set(key, { name: eventName, namespace, count: 1, first: now });
  }

  async list(filter: EventFilter): Promise<RecordedEvent[]> {
    const selectors = [filter.kind ? `involvedObject.kind=${filter.kind}` : '', filter.name ? `involvedObject.name=${filter.name}` : ''].filter(Boolean).join(',');
    const params = selectors ? { fieldSelector: selectors } : {};
    try {
      const list = filter.namespace ? await this.core.listNamespacedEvent({ namespace: filter.namespace, ...params }) : await this.core.listEventForAllNamespaces(params);
      return list.items.map((e) => ({
        type: e.type === 'Warning' ? 'Warning' : 'Normal',
        reason: e.reason ?? '',
        message: e.message ?? '',
        involvedObject: {
          kind: e.involvedObject.kind ?? '',
          namespace: e.involvedObject.namespace ?? '',
          name: e.involvedObject.name ?? '',
          uid: e.involvedObject.uid ?? '',
          ...(e.involvedObject.apiVersion ? { apiVersion: e.involvedObject.apiVersion } : {}),
        },
        count: e.count ?? 1,
        firstTimestamp: time(e.firstTimestamp),
        lastTimestamp: time(e.lastTimestamp),
        reportingComponent: e.reportingComponent ?? e.source?.component ?? '',
      }));
    } catch (error) {
      throw toResourceError(error, { kind: 'Event', namespace: filter.namespace ?? '', name: '' });
    }
  }
}
