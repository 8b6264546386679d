/** Event ids are UUID v7: time-ordered, so batched inserts stay cheap and ids sort by creation. */
import { v7 } from 'uuid';

export const newEventId = (): string => v7();
export const newCorrelationId = (): string => v7();
