/**
 * Kind names as users type them: `server`, `servers`, `Server`, `srv` all mean Server, the way
 * kubectl resolves names from the CRD's names block. Resolved against STORED_KINDS: Regent's kinds and the
 * core kinds the embedded store also holds (a v1 Node, `regent get nodes`).
 */
import { CLUSTER_NAMESPACE, STORED_KINDS, STORED_KIND_NAMES, type AnyKindDefinition, type KindName } from '../resources/index.js';
import { BadRequest } from './errors.js';

export const definitionOf = (kind: KindName): AnyKindDefinition => {
  const definition = STORED_KINDS.find((k) => k.kind === kind);
  if (!definition) throw new BadRequest(`unknown kind ${String(kind)}`);
  return definition;
};

/** Resolves a user-typed kind name (case-insensitive; kind, singular, plural or short name). */
export const resolveKind = (name: string): KindName => {
  const wanted = name.trim().toLowerCase();
  const match = STORED_KINDS.find((k) => [k.kind.toLowerCase(), k.singular, k.plural, ...k.shortNames].includes(wanted));
  if (!match) throw new BadRequest(`unknown kind "${name}"; known kinds: ${STORED_KIND_NAMES.join(', ')}`);
  return match.kind as KindName;
};

export const isKindName = (name: string): name is KindName => (STORED_KIND_NAMES as readonly string[]).includes(name);

/** A cluster-scoped kind (a core Node): it has no namespace of its own, so the store keeps it under CLUSTER_NAMESPACE. */
export const isClusterScoped = (kind: KindName): boolean => definitionOf(kind).scope === 'Cluster';

/** The namespace an object of `kind` is stored under: CLUSTER_NAMESPACE for a cluster-scoped kind, whatever was named. */
export const storedNamespace = (kind: KindName, namespace: string): string => (isClusterScoped(kind) ? CLUSTER_NAMESPACE : namespace);

/** The namespace a list or watch of `kind` is restricted to: none for a cluster-scoped kind (it has one namespace). */
export const listedNamespace = (kind: KindName, namespace: string | undefined): string | undefined => (isClusterScoped(kind) ? undefined : namespace);

/** `server.regent.dev/web-1`, `node/worker-1`: kubectl's name of an object, its group after the singular for a CRD. */
export const qualifiedSingular = (kind: KindName): string => {
  const definition = definitionOf(kind);
  const slash = definition.apiVersion.indexOf('/');
  return slash < 0 ? definition.singular : `${definition.singular}.${definition.apiVersion.slice(0, slash)}`;
};
