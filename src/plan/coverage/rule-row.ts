/**
 * A row of a plan's rule table: which labelled transition of a machine a stored decision is, from what the event
 * carries (its outcome, the state it was decided in, and where two transitions share both, its stimulus).
 */
export interface Rule {
  /** The label the machine's source gives the transition, e.g. `R3`. */
  id: string;
  /** What it decides, in a few words. */
  says: string;
}

export interface RuleRow {
  outcome: string;
  /** The states the decision is taken in (formatState's text); absent: any. */
  from?: readonly string[];
  /** For two transitions with one outcome in one state: which one the stimulus took. */
  when?: (data: Record<string, unknown>) => boolean;
  rule: Rule;
}

export const r = (id: string, says: string): Rule => ({ id, says });
