/**
 * One switch that abandons every OpenStack request in flight on a connection: the control plane throws
 * it when it stops or loses leadership, so no pass of a deposed leader waits on (or acts after) an
 * answer. Requests started after `cancel` get a fresh signal once `renew` is called (a new term).
 *
 * A cancelled request surfaces as `Cancelled` (errors.ts). For a mutation that was already sent this
 * is an unknown outcome, never "not done": the service may still carry it out.
 *
 * Every request in flight listens on the one signal, so it has no listener limit (Node warns past 10, which a
 * restarted leader's first passes reach: MaxListenersExceededWarning in `npm start`'s log).
 */
import { setMaxListeners } from 'node:events';

/** An AbortController whose signal any number of concurrent requests may listen on. */
const sharedController = (): AbortController => {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
};

export class CancelScope {
  private controller = sharedController();
  private why: string | undefined;

  /** The signal of the current term. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the current term was cancelled (undefined while it was not). */
  reason(): string | undefined {
    return this.why;
  }

  cancel(why: string): void {
    if (this.controller.signal.aborted) return;
    this.why = why;
    this.controller.abort(new Error(why));
  }

  /** Starts a new term: later requests are no longer cancelled. */
  renew(): void {
    if (!this.controller.signal.aborted) return;
    this.controller = sharedController();
    this.why = undefined;
  }
}
