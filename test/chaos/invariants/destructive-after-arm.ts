/**
 * No destructive effect without an earlier reconciler-sourced arm seen again: every event declaring a destructive
 * effect is the reconciler's, and its stream holds an earlier reconciler event that armed it (`…armed` /
 * `…Armed`) in another pass (another correlation id: the marker was read back, not decided and acted on at once).
 * And the ground truth: the simulator accepted no more rebuilds and deletes of a kind than were decided.
 */
import type { RecordedEvent } from '../../../src/events/envelope.js';
import { createProductRegistry } from '../../../machines/index.js';
import { accepted, type Invariant, type Violation } from './types.js';

export const DESTRUCTIVE_EFFECTS = ['nova.rebuild', 'nova.deleteServer', 'cinder.deleteVolume', 'octavia.deleteLoadBalancer', 'neutron.deleteSecurityGroup', 'neutron.deleteNetwork', 'keystone.deleteProject', 'nova.detachVolume'] as const;

/** Every machine's own destructive effects too (machines/definition.ts `destructiveEffects`), as `regent plan` flags them. */
const registry = createProductRegistry();
const destructiveFor = (machine: string): readonly string[] => {
  const own = registry.current().find((d) => d.id === machine)?.destructiveEffects ?? [];
  return [...DESTRUCTIVE_EFFECTS, ...own];
};

const ARMED = /armed$/i;

const declares = (event: RecordedEvent, type: string): boolean => event.metadata.effects.some((e) => e.type === type);

/** The violations of one stream: each destructive declaration needs an earlier arm from another reconciler pass. */
export const unarmedDeclarations = (stream: RecordedEvent[]): Violation[] => {
  const violations: Violation[] = [];
  for (const [index, event] of stream.entries()) {
    const destructive = event.metadata.effects.find((e) => destructiveFor(event.metadata.machine).includes(e.type));
    if (!destructive) continue;
    if (event.metadata.source !== 'reconciler') {
      violations.push({ invariant: 'destructive-after-arm', detail: `${event.stream}@${event.revision} ${event.type} declares ${destructive.type} from source ${event.metadata.source}` });
      continue;
    }
    const arm = stream.slice(0, index).find((e) => e.metadata.source === 'reconciler' && ARMED.test(e.type) && e.metadata.correlationId !== event.metadata.correlationId);
    if (!arm) violations.push({ invariant: 'destructive-after-arm', detail: `${event.stream}@${event.revision} ${event.type} declares ${destructive.type} with no earlier reconciler arm read back` });
  }
  return violations;
};

const CALLS_OF_EFFECT: Array<{ effect: string; call: (c: { method: string; path: string; action?: string }) => boolean }> = [
  { effect: 'nova.rebuild', call: (c) => c.method === 'POST' && c.action === 'rebuild' },
  { effect: 'nova.deleteServer', call: (c) => c.method === 'DELETE' && /\/compute\/v2\.1\/servers\/[^/]+$/.test(c.path) },
  { effect: 'cinder.deleteVolume', call: (c) => c.method === 'DELETE' && /\/volumes\/[^/]+$/.test(c.path) },
  { effect: 'octavia.deleteLoadBalancer', call: (c) => c.method === 'DELETE' && /\/lbaas\/loadbalancers\/[^/]+$/.test(c.path) },
];

export const destructiveAfterArm: Invariant = ({ events, calls: all, madeUpIds }) => {
  const calls = all.filter((c) => !madeUpIds.some((id) => c.path.includes(id)));
  const byStream = new Map<string, RecordedEvent[]>();
  for (const e of events) byStream.set(e.stream, [...(byStream.get(e.stream) ?? []), e]);
  const violations = [...byStream.values()].flatMap((s) => unarmedDeclarations(s.sort((a, b) => a.revision - b.revision)));
  for (const { effect, call } of CALLS_OF_EFFECT) {
    const decided = events.filter((e) => declares(e, effect)).length;
    const sent = calls.filter((c) => accepted(c) && call(c)).length;
    if (sent > decided) violations.push({ invariant: 'destructive-after-arm', detail: `the cloud accepted ${sent} × ${effect} but ${decided} were decided` });
  }
  return violations;
};
