/** Compact, comparable views of real observations (for assertions and failure messages). */
import type { ServerObservation } from '../../../src/openstack/decoders/server.js';

export interface ServerView {
  status: string | null;
  task: string | null | '(hidden)' | '(unreadable)';
  vmState: string | null;
  image: string | null;
  launched: boolean | null;
}

export const viewOf = (s: ServerObservation): ServerView => ({
  status: s.status.kind === 'value' ? s.status.value : null,
  task: s.taskState.kind === 'value' ? s.taskState.value : s.taskState.kind === 'absent' ? '(hidden)' : '(unreadable)',
  vmState: s.vmState.kind === 'value' ? s.vmState.value : null,
  image: s.imageRef.kind === 'value' && s.imageRef.value.source === 'image' ? s.imageRef.value.id : null,
  launched: s.launchedAt.kind === 'value' ? s.launchedAt.value !== null : null,
});

/** Consecutive duplicates dropped: the sequence of distinct observations a poller saw. */
export const distinct = <T>(items: readonly T[], key: (item: T) => string = (item) => JSON.stringify(item)): T[] => {
  const out: T[] = [];
  for (const item of items) if (out.length === 0 || key(out[out.length - 1] as T) !== key(item)) out.push(item);
  return out;
};
