/**
 * Short stream names on the command line: `volume-<uid>` names the one stream `volume-<machine>-<uid>`
 * (volume-lifecycle-<uid>), `server-<uid>` the server's lifecycle, `identity-<uid>` the identity's — the
 * resource's own stream whichever machine keeps it. A name that is a stream is always that stream; a
 * short name that matches none or several is left as it is (the command then says no such stream).
 */
import type { EventStore } from '../store/port.js';

const SHORT = /^([a-z]+)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export const resolveStreamName = async (store: Pick<EventStore, 'streamHead' | 'listStreams'>, name: string): Promise<string> => {
  if ((await store.streamHead(name)) !== undefined) return name;
  const short = SHORT.exec(name);
  if (!short) return name;
  const [, kind, uid] = short;
  const candidates = (await store.listStreams({ streamPrefixes: [`${kind}-`] })).map((s) => s.stream).filter((s) => new RegExp(`^${kind}-[a-z]+-${uid}$`).test(s));
  return candidates.length === 1 ? (candidates[0] as string) : name;
};
