/**
 * Stream names as users hold them on the command line:
 * - short names: `volume-<uid>` names the one stream `volume-<machine>-<uid>` (volume-lifecycle-<uid>),
 *   `server-<uid>` the server's lifecycle, `identity-<uid>` the identity's — the resource's own stream whichever
 *   machine keeps it;
 * - the id the server API returned: a Server created through the API is named by a UUIDv5 (`metadata.id`), but its
 *   streams are keyed by the resource uid (`api-server-<uid>`, `server-lifecycle-<uid>`), so `regent history
 *   api-server-<the id the API returned>` answered "no stream". A name ending in an id the API recorded
 *   (history/api-streams.ts) is read with that Server's uid in its place, short names included
 *   (`server-<id>` → `server-lifecycle-<uid>`).
 * A name that is a stream is always that stream; one that matches none is left as it is (the command then says no
 * such stream). A short name that matches several streams is left as it is too; an API id that several Servers
 * had (one deleted and created again under the same name and network) is refused naming their streams.
 */
import type { EventStore } from '../store/port.js';
import { ApiServers } from '../audit/history/api-streams.js';
import { UsageError } from './errors.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const SHORT = new RegExp(`^([a-z]+)-(${UUID})$`);
const TRAILING_ID = new RegExp(`^(.+-)(${UUID})$`);

type Reader = Pick<EventStore, 'streamHead' | 'listStreams' | 'readStream'>;

/** The stream itself, or the one stream a short name names; undefined when it names none (or several). */
const resolveKnown = async (store: Reader, name: string): Promise<string | undefined> => {
  if ((await store.streamHead(name)) !== undefined) return name;
  const short = SHORT.exec(name);
  if (!short) return undefined;
  const [, kind, uid] = short;
  const candidates = (await store.listStreams({ streamPrefixes: [`${kind}-`] })).map((s) => s.stream).filter((s) => new RegExp(`^${kind}-[a-z]+-${uid}$`).test(s));
  return candidates.length === 1 ? candidates[0] : undefined;
};

export const resolveStreamName = async (store: Reader, name: string): Promise<string> => {
  const known = await resolveKnown(store, name);
  if (known !== undefined) return known;
  const trailing = TRAILING_ID.exec(name);
  if (!trailing) return name;
  const [, prefix, id] = trailing as unknown as [string, string, string];
  const uids = [...new Set((await new ApiServers(store).list()).filter((s) => s.id === id).map((s) => s.uid))];
  const found = (await Promise.all(uids.map((uid) => resolveKnown(store, `${prefix}${uid}`)))).filter((s): s is string => s !== undefined);
  if (found.length > 1) throw new UsageError(`${name}: the server API gave the id ${id} to ${found.length} Servers (one deleted and created again); name one of ${found.join(', ')}`);
  return found[0] ?? name;
};
