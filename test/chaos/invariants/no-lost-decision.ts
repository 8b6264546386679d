/**
 * No lost decision: every armed intent is eventually carried out or re-decided. Every step of the run settled (a
 * step that never did is a decision lost or a machine stuck), the control plane never died of itself, and no
 * stream ends on an arm or on a declared effect with nothing after it (the Nova Jobs' effects, which record no result,
 * are checked against the Jobs that ran instead: ./nova-jobs.ts).
 */
import type { RecordedEvent } from '../../../src/events/envelope.js';
import type { Invariant, Violation } from './types.js';
import { RESULTLESS_EFFECTS } from './nova-jobs.js';

const ARMED = /armed$/i;

/** A stream left hanging: its last event armed an intent, or declared an effect whose result never came. */
export const danglingIntent = (stream: RecordedEvent[]): Violation | undefined => {
  const last = stream.at(-1);
  if (!last) return undefined;
  if (ARMED.test(last.type)) return { invariant: 'no-lost-decision', detail: `${last.stream} ends on ${last.type} (revision ${last.revision}): armed, never carried out or re-decided` };
  // an effect that records no result by design (the next pass reads what it did) is checked against its ground truth instead
  if (last.metadata.effects.length > 0 && !last.metadata.effects.every((e) => RESULTLESS_EFFECTS.includes(e.type))) return { invariant: 'no-lost-decision', detail: `${last.stream} ends on ${last.type} declaring ${last.metadata.effects.map((e) => e.type).join(', ')} with no result and no later decision` };
  return undefined;
};

export const noLostDecision: Invariant = ({ events, stuck, unexpectedExits }) => {
  const byStream = new Map<string, RecordedEvent[]>();
  for (const e of events) byStream.set(e.stream, [...(byStream.get(e.stream) ?? []), e]);
  return [
    ...stuck.map((s) => ({ invariant: 'no-lost-decision' as const, detail: `step "${s.step}": ${s.detail}` })),
    ...unexpectedExits.map((x) => ({ invariant: 'no-lost-decision' as const, detail: `the control plane died of itself: ${x}` })),
    ...[...byStream.values()].map((s) => danglingIntent(s.sort((a, b) => a.revision - b.revision))).filter((v): v is Violation => v !== undefined),
  ];
};
