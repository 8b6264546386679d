/**
 * The closed set of outcomes of a reconcile pass (style.md, "Errors as dispositions"):
 * - done: nothing more to do until something changes;
 * - yield: not finished, not failing — come back after `afterMs` (a wait, not an error);
 * - park: terminal, user action required — no requeue until the spec changes;
 * - fail: an error — requeue with backoff.
 */
export type Disposition =
  | { kind: 'done'; why: string }
  | { kind: 'yield'; afterMs: number; why: string }
  | { kind: 'park'; reason: string; message: string }
  | { kind: 'fail'; error: Error };

export const done = (why: string): Disposition => ({ kind: 'done', why });
export const yieldFor = (afterMs: number, why: string): Disposition => ({ kind: 'yield', afterMs, why });
export const park = (reason: string, message: string): Disposition => ({ kind: 'park', reason, message });
export const fail = (error: Error): Disposition => ({ kind: 'fail', error });
