/**
 * Which resource a stream belongs to, so every event records it (`metadata.subject`; issue 18: "every page
 * names resources by kind, namespace and name (streams map to their resource)"). Streams are named after
 * what OpenStack cannot rename: the resource's uid, or for a rebuild the Nova server id; the control plane's
 * caches turn those back into kind, namespace and name at the moment an event is appended. Recorded on the
 * event, the name survives the resource's deletion and is readable without the resource store
 * (`regent streams`, the audit pages over a copied store).
 *
 * | stream                                   | subject                         |
 * |------------------------------------------|---------------------------------|
 * | server-lifecycle-<uid>                   | the Server                      |
 * | server-rebuild-<nova id>                 | the Server with that serverID   |
 * | volume-attachment-<server uid>-<vol uid> | the Server (the attaching side) |
 * | network-lifecycle-<uid>                  | the Network                     |
 * | volume-lifecycle-<uid>                   | the Volume                      |
 * | load-balancer-<uid>                      | the LoadBalancer                |
 * | identity-lifecycle-<uid>                 | the Identity                    |
 * | region-connection-<uid>                  | the Region                      |
 * | vlan-allocation-<region uid>-<physnet>   | the Region                      |
 * | nova-database-<uid>, nova-db-archive-<uid> | the Nova                      |
 * | security-group-lifecycle-<uid>           | the SecurityGroup               |
 * | scope-reachability-<uid>                 | the Server, Network, Volume, LoadBalancer or SecurityGroup of that uid |
 */
import type { Subject } from '../engine/engine.js';
import type { KindName, ObjectOf } from '../resources/index.js';

export interface SubjectLookups {
  /** The informer cache of a kind. */
  list: (kind: KindName) => ReadonlyArray<ObjectOf<KindName>>;
  /** Nova server id → `<namespace>/<name>` of its Server, as the Server passes learned it. */
  serverKeyByNovaId: ReadonlyMap<string, string>;
}

const UID = 36;

/** Stream prefix → the kind whose uid follows it. */
const BY_UID: ReadonlyArray<[string, KindName]> = [
  ['server-lifecycle-', 'Server'],
  ['volume-attachment-', 'Server'],
  ['network-lifecycle-', 'Network'],
  ['volume-lifecycle-', 'Volume'],
  ['load-balancer-', 'LoadBalancer'],
  ['identity-lifecycle-', 'Identity'],
  ['region-connection-', 'Region'],
  ['vlan-allocation-', 'Region'],
  ['nova-database-', 'Nova'],
  ['nova-db-archive-', 'Nova'],
  ['security-group-lifecycle-', 'SecurityGroup'],
];

/** The kinds whose passes record whether they could see their resource (machines/scope-reachability.ts). */
const REACHABLE_KINDS: readonly KindName[] = ['Server', 'Network', 'Volume', 'LoadBalancer', 'SecurityGroup'];

const subjectOfObject = (o: ObjectOf<KindName>): Subject => ({ kind: o.kind, namespace: o.metadata.namespace ?? 'default', name: o.metadata.name });

export const streamSubjects =
  (lookups: SubjectLookups) =>
  (stream: string): Subject | undefined => {
    if (stream.startsWith('server-rebuild-')) {
      const key = lookups.serverKeyByNovaId.get(stream.slice('server-rebuild-'.length));
      if (!key) return undefined;
      const slash = key.indexOf('/');
      return { kind: 'Server', namespace: key.slice(0, slash), name: key.slice(slash + 1) };
    }
    if (stream.startsWith('scope-reachability-')) {
      const uid = stream.slice('scope-reachability-'.length);
      for (const kind of REACHABLE_KINDS) {
        const object = lookups.list(kind).find((o) => o.metadata.uid === uid);
        if (object) return subjectOfObject(object);
      }
      return undefined;
    }
    for (const [prefix, kind] of BY_UID) {
      if (!stream.startsWith(prefix)) continue;
      const uid = stream.slice(prefix.length, prefix.length + UID);
      const object = lookups.list(kind).find((o) => o.metadata.uid === uid);
      return object ? subjectOfObject(object) : undefined;
    }
    return undefined;
  };
