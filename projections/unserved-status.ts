/** The status of a kind that is accepted and validated but has no controller yet (issue 7). */
import { mergeConditions, type Condition } from './conditions.js';

export const renderUnserved = (input: { kind: string; generation: number; at: string; previous?: { conditions?: Condition[] } }) => ({
  observedGeneration: input.generation,
  conditions: mergeConditions(
    input.previous?.conditions,
    [{ type: 'Available', status: 'Unknown', reason: 'NoController', message: `accepted and validated; no Regent controller serves ${input.kind} resources yet` }],
    input.generation,
    input.at,
  ),
});
