/**
 * Which resource a stream belongs to, so every event records it (`metadata.subject`; issue 18: "every page
 * names resources by kind, namespace and name (streams map to their resource)"). Streams are named after
 * what OpenStack cannot rename: the resource's uid, or for a rebuild the Nova server id; the control plane's
 * caches turn those back into kind, namespace and name at the moment an event is appended (the stream-owner map,
 * src/controllers/stream-owners.ts, says which resource; this module names it). Recorded on the
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
import type { StreamOwners } from '../controllers/stream-owners.js';

export interface SubjectLookups {
  /** The informer cache of a kind. */
  list: (kind: KindName) => ReadonlyArray<ObjectOf<KindName>>;
  /** Which resource a stream belongs to (the one map: src/controllers/stream-owners.ts). */
  owners: Pick<StreamOwners, 'ownerOf'>;
}

const subjectOfObject = (o: ObjectOf<KindName>): Subject => ({ kind: o.kind, namespace: o.metadata.namespace ?? 'default', name: o.metadata.name });

export const streamSubjects =
  (lookups: SubjectLookups) =>
  (stream: string): Subject | undefined => {
    const owner = lookups.owners.ownerOf(stream);
    if (!owner) return undefined;
    const object = lookups.list(owner.kind).find((o) => o.metadata.uid === owner.uid);
    return object ? subjectOfObject(object) : undefined;
  };
