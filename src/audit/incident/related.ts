/**
 * Which resources are related to one resource, computed only from the event store (heads.ts): what its latest
 * recorded spec references, what references it, which volumes it attached, which load balancers carry its address.
 *
 * The references each kind's spec makes (src/resources/*.ts; every one by name, in the resource's namespace):
 *
 * | kind            | spec member                           | refers to               | relation (from the referrer) |
 * |-----------------|---------------------------------------|-------------------------|------------------------------|
 * | Server          | `networkID`                           | Network                 | network                      |
 * | Server          | `volumes[].volumeID`                  | Volume                  | volume                       |
 * | Server          | `securityGroups[]`                    | SecurityGroup           | security group               |
 * | Server          | `sshCertificateAuthorityId`           | SSHCertificateAuthority | SSH certificate authority    |
 * | Network         | `identityRef.name`                    | Identity                | identity                     |
 * | Identity        | `regionRef.name`                      | Region                  | region                       |
 * | Volume, LoadBalancer, SecurityGroup | `networkID`       | Network                 | network                      |
 * | WorkloadCluster | `identityRef.name`                    | Identity                | identity                     |
 * | WorkloadMachine | `clusterRef.name`                     | WorkloadCluster         | cluster                      |
 * | NovaCompute     | `novaRef.name`                        | Nova                    | Nova                         |
 *
 * The related set of a resource:
 * 1. **what it depends on**, transitively: its references, theirs, and so on (a Server's Network, the Network's
 *    Identity, the Identity's Region: `via` names the path). Only upwards: the Network's other Servers are not
 *    related to this Server.
 * 2. **what depends on it**, one step: every resource whose latest spec references it (a Volume's Servers:
 *    relation `server`; a Network's Servers, Volumes, LoadBalancers, SecurityGroups).
 * 3. **volume attachments**: `volume-attachment-<server uid>-<volume uid>` streams join a Server and a Volume also
 *    after the spec stopped listing it (`volume attachment`; from the Volume: `server (volume attachment)`).
 * 4. **member addresses**: a LoadBalancer whose pool members' addresses (`spec.listeners[].pool.members[].address`)
 *    include one of a Server's recorded addresses (`status.ipAddresses` of its latest `resource.statusChanged`; a
 *    WorkloadMachine's `status.address`): `load balancer (member address)`, and from the LoadBalancer `server
 *    (member address)`.
 * A resource related in several ways has every relation, joined by ", ". A referenced resource no stream names
 * (nothing recorded yet, or a dangling reference) is listed with `recorded: false` and no streams.
 */
import type { EventStore } from '../../store/port.js';
import { KIND_NAMES } from '../../resources/registry.js';
import { IncidentIndex, type IndexSnapshot, type ResourceNode } from './heads.js';
import { canonicalKind, NoHistory, subjectKey, subjectText, type IncidentSubject } from './query.js';

export interface RelatedResource {
  kind: string;
  namespace: string;
  name: string;
  /** The uid of its newest recorded incarnation (its resource stream), when it has one. */
  uid?: string;
  /** How it relates to the subject, in words: `network`, `volume`, `server`, `load balancer (member address)`, … */
  relation: string;
  /** For a dependency further than one reference: the resources in between (`Network default/net-a`). */
  via?: string;
  /** The streams that belong to it (its resource stream and its machines' streams). */
  streams: string[];
  /** False: a spec names it but no stream does. */
  recorded: boolean;
  /** A Server created through the API: the name it was given. */
  displayName?: string;
}

/** The subject itself, as the related set starts from it. */
export interface SubjectResource extends IncidentSubject {
  uid?: string;
  streams: string[];
  displayName?: string;
}

export interface RelatedSet {
  subject: SubjectResource;
  related: RelatedResource[];
}

/** A relation word per kind: what a resource of that kind is to the one it is related to. */
export const KIND_WORDS: Readonly<Record<string, string>> = {
  Region: 'region',
  Identity: 'identity',
  Network: 'network',
  SecurityGroup: 'security group',
  SSHCertificateAuthority: 'SSH certificate authority',
  Server: 'server',
  Volume: 'volume',
  LoadBalancer: 'load balancer',
  Nova: 'Nova',
  NovaCompute: 'compute pool',
  WorkloadCluster: 'cluster',
  WorkloadMachine: 'machine',
};
const wordOf = (kind: string): string => KIND_WORDS[kind] ?? kind;

interface Reference {
  kind: string;
  name: string;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const nameOf = (v: unknown): string | undefined => (v !== null && typeof v === 'object' ? text((v as { name?: unknown }).name) : undefined);
const array = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const ref = (kind: string, name: string | undefined): Reference[] => (name === undefined ? [] : [{ kind, name }]);

/** What a spec of each kind references (the table above). */
export const REFERENCES: Readonly<Record<string, (spec: Record<string, unknown>) => Reference[]>> = {
  Server: (s) => [
    ...ref('Network', text(s.networkID)),
    ...array(s.volumes).flatMap((v) => ref('Volume', v !== null && typeof v === 'object' ? text((v as { volumeID?: unknown }).volumeID) : undefined)),
    ...array(s.securityGroups).flatMap((g) => ref('SecurityGroup', text(g))),
    ...ref('SSHCertificateAuthority', text(s.sshCertificateAuthorityId)),
  ],
  Network: (s) => ref('Identity', nameOf(s.identityRef)),
  Identity: (s) => ref('Region', nameOf(s.regionRef)),
  Volume: (s) => ref('Network', text(s.networkID)),
  LoadBalancer: (s) => ref('Network', text(s.networkID)),
  SecurityGroup: (s) => ref('Network', text(s.networkID)),
  WorkloadCluster: (s) => ref('Identity', nameOf(s.identityRef)),
  WorkloadMachine: (s) => ref('WorkloadCluster', nameOf(s.clusterRef)),
  NovaCompute: (s) => ref('Nova', nameOf(s.novaRef)),
};

const referencesOf = (node: ResourceNode): IncidentSubject[] => {
  const spec = node.head?.spec;
  const of = spec ? REFERENCES[node.kind] : undefined;
  return of && spec ? of(spec).map((r) => ({ kind: r.kind, namespace: node.namespace, name: r.name })) : [];
};

/** The addresses a resource was recorded with: a Server's `status.ipAddresses`, a WorkloadMachine's `status.address`. */
export const addressesOf = (node: ResourceNode): string[] => {
  const status = node.head?.status;
  if (!status) return [];
  if (node.kind === 'Server') return array(status.ipAddresses).filter((a): a is string => typeof a === 'string');
  if (node.kind === 'WorkloadMachine') return text(status.address) ? [status.address as string] : [];
  return [];
};

/** A LoadBalancer's pool members' addresses (its latest spec). */
export const memberAddressesOf = (node: ResourceNode): string[] => {
  if (node.kind !== 'LoadBalancer' || !node.head?.spec) return [];
  return array(node.head.spec.listeners).flatMap((l) => {
    const pool = l !== null && typeof l === 'object' ? (l as { pool?: { members?: unknown } }).pool : undefined;
    return array(pool?.members).flatMap((m) => (m !== null && typeof m === 'object' && text((m as { address?: unknown }).address) ? [(m as { address: string }).address] : []));
  });
};

const ATTACHMENT_PREFIX = 'volume-attachment-';
const UID_LENGTH = 36;

const kindRank = (kind: string): number => {
  const i = KIND_NAMES.indexOf(kind as (typeof KIND_NAMES)[number]);
  return i < 0 ? KIND_NAMES.length : i;
};

/** The related set of a resource the snapshot knows (the rules above). */
export const relatedSetOf = (snapshot: IndexSnapshot, subject: ResourceNode): RelatedSet => {
  const selfKey = subjectKey(subject);
  const found = new Map<string, { target: IncidentSubject; node: ResourceNode | undefined; relations: string[]; via?: string }>();
  const add = (target: IncidentSubject, relation: string, via?: string) => {
    const key = subjectKey(target);
    if (key === selfKey) return;
    const entry = found.get(key) ?? { target, node: snapshot.resources.get(key), relations: [], ...(via ? { via } : {}) };
    if (!entry.relations.includes(relation)) entry.relations.push(relation);
    found.set(key, entry);
  };

  // 1. what it depends on, transitively (breadth first: the shortest path names `via`)
  const seen = new Set([selfKey]);
  let level: Array<{ node: ResourceNode; path: string[] }> = [{ node: subject, path: [] }];
  while (level.length > 0) {
    const next: typeof level = [];
    for (const { node, path } of level) {
      for (const target of referencesOf(node)) {
        const key = subjectKey(target);
        if (seen.has(key)) continue;
        seen.add(key);
        add(target, wordOf(target.kind), path.length > 0 ? path.join(' → ') : undefined);
        const targetNode = snapshot.resources.get(key);
        if (targetNode) next.push({ node: targetNode, path: [...path, subjectText(targetNode)] });
      }
    }
    level = next;
  }

  // 2. what depends on it, one step
  for (const node of snapshot.resources.values()) {
    if (referencesOf(node).some((r) => subjectKey(r) === selfKey)) add(node, wordOf(node.kind));
  }

  // 3. volume attachments, by the uids in the stream name
  const uids = new Set(subject.uids.map((u) => u.toLowerCase()));
  for (const [stream, entry] of snapshot.streams) {
    if (!stream.startsWith(ATTACHMENT_PREFIX)) continue;
    const rest = stream.slice(ATTACHMENT_PREFIX.length).toLowerCase();
    const [serverUid, volumeUid] = [rest.slice(0, UID_LENGTH), rest.slice(UID_LENGTH + 1)];
    const ofSubject = uids.has(serverUid) || (entry.subject !== undefined && subjectKey(entry.subject) === selfKey);
    const volume = snapshot.byUid.get(volumeUid);
    if (ofSubject && volume) add(volume, 'volume attachment');
    const server = entry.subject ?? snapshot.byUid.get(serverUid);
    if (uids.has(volumeUid) && server) add(server, `${wordOf(server.kind)} (volume attachment)`);
  }

  // 4. member addresses
  const addresses = new Set(addressesOf(subject));
  const members = new Set(memberAddressesOf(subject));
  for (const node of snapshot.resources.values()) {
    if (addresses.size > 0 && memberAddressesOf(node).some((a) => addresses.has(a))) add(node, 'load balancer (member address)');
    if (members.size > 0 && addressesOf(node).some((a) => members.has(a))) add(node, `${wordOf(node.kind)} (member address)`);
  }

  const related: RelatedResource[] = [...found.values()]
    .map(({ target, node, relations, via }) => {
      const uid = node?.head?.uid;
      return {
        kind: target.kind,
        namespace: target.namespace,
        name: target.name,
        ...(uid ? { uid } : {}),
        relation: relations.join(', '),
        ...(via ? { via } : {}),
        streams: [...(node?.streams ?? [])],
        recorded: (node?.streams.length ?? 0) > 0,
        ...(node?.displayName !== undefined ? { displayName: node.displayName } : {}),
      };
    })
    .sort((a, b) => kindRank(a.kind) - kindRank(b.kind) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  const uid = subject.head?.uid;
  return {
    subject: { kind: subject.kind, namespace: subject.namespace, name: subject.name, ...(uid ? { uid } : {}), streams: [...subject.streams], ...(subject.displayName !== undefined ? { displayName: subject.displayName } : {}) },
    related,
  };
};

/** The resource of a subject, or NoHistory when no stream names it. */
export const resolveSubject = (snapshot: IndexSnapshot, asked: IncidentSubject): ResourceNode => {
  const subject = { ...asked, kind: canonicalKind(asked.kind) };
  const node = snapshot.find(subject);
  if (!node || node.streams.length === 0) throw new NoHistory(`no history names ${subjectText(subject)} (no stream recorded it as its resource)`);
  return node;
};

/**
 * The resources related to `subject` (the rules above), from the store alone. Pass an `IncidentIndex` a server
 * keeps to read only what changed since its last refresh; without one every stream head is read once.
 */
export const relatedResources = async (store: Pick<EventStore, 'listStreams' | 'readStream'>, subject: IncidentSubject, options: { index?: IncidentIndex } = {}): Promise<RelatedResource[]> => {
  const snapshot = await (options.index ?? new IncidentIndex(store)).snapshot();
  return relatedSetOf(snapshot, resolveSubject(snapshot, subject)).related;
};
