/**
 * Observed health: how a Nova status maps to the server's phase and its Healthy and Active
 * conditions. The monitor writes it from every observation; the reconciler writes it only when it
 * acts (the fixed accepted stamp) or decides (a park records the fresh read).
 */
import * as t from 'io-ts';
import type { ServerFacts } from './observation.js';

export const ConditionStatus = t.keyof({ True: null, False: null, Unknown: null });
export const Judgement = t.type({ status: ConditionStatus, reason: t.string });
export type Judgement = t.TypeOf<typeof Judgement>;

export const Phase = t.keyof({ Pending: null, Building: null, Running: null, Stopped: null, Transitioning: null, Error: null, Unknown: null });
export type Phase = t.TypeOf<typeof Phase>;

export interface Health {
  phase: Phase;
  healthy: Judgement;
  active: Judgement;
  /** Who wrote it last: the monitor (observation) or the reconciler (accept or park stamp). */
  writtenBy: 'monitor' | 'reconciler';
}

const judgement = (status: Judgement['status'], reason: string): Judgement => ({ status, reason });

/** The monitor's mapping of a Nova status. */
export const healthFromStatus = (facts: ServerFacts, writtenBy: Health['writtenBy'] = 'monitor'): Health => {
  switch (facts.status) {
    case 'ACTIVE':
      return { phase: 'Running', healthy: judgement('True', 'Healthy'), active: judgement('True', 'Running'), writtenBy };
    case 'BUILD':
      // a baremetal build waiting on hardware is Queued; deploying (and the fallback) is Building
      return { phase: 'Building', healthy: judgement('False', 'Provisioning'), active: judgement('False', facts.baremetal ?? 'Building'), writtenBy };
    case 'REBUILD':
      return { phase: 'Building', healthy: judgement('False', 'Provisioning'), active: judgement('False', 'Building'), writtenBy };
    case 'SHUTOFF':
      return { phase: 'Stopped', healthy: judgement('Unknown', 'Stopped'), active: judgement('False', 'Stopped'), writtenBy };
    case 'ERROR':
      return { phase: 'Error', healthy: judgement('False', 'Errored'), active: judgement('False', 'Errored'), writtenBy };
    case null:
      return { phase: 'Unknown', healthy: judgement('Unknown', 'StatusUnreadable'), active: judgement('Unknown', 'StatusUnreadable'), writtenBy };
    default:
      return { phase: 'Transitioning', healthy: judgement('Unknown', 'Transitioning'), active: judgement('False', 'Transitioning'), writtenBy };
  }
};

/**
 * The fixed stamp written when Nova accepts a rebuild. Never derived from the rebuild response body,
 * which can still read ACTIVE for the pre-destruction server; it matches the monitor's REBUILD mapping
 * so the two writers agree.
 */
export const ACCEPTED_STAMP: Health = {
  phase: 'Building',
  healthy: { status: 'False', reason: 'Provisioning' },
  active: { status: 'False', reason: 'Building' },
  writtenBy: 'reconciler',
};
