/**
 * Kind names as users type them: `server`, `servers`, `Server`, `srv` all mean Server, the way
 * kubectl resolves names from the CRD's names block.
 */
import { KINDS, KIND_NAMES, type AnyKindDefinition, type KindName } from '../resources/index.js';
import { BadRequest } from './errors.js';

export const definitionOf = (kind: KindName): AnyKindDefinition => {
  const definition = KINDS.find((k) => k.kind === kind);
  if (!definition) throw new BadRequest(`unknown kind ${String(kind)}`);
  return definition;
};

/** Resolves a user-typed kind name (case-insensitive; kind, singular, plural or short name). */
export const resolveKind = (name: string): KindName => {
  const wanted = name.trim().toLowerCase();
  const match = KINDS.find((k) => [k.kind.toLowerCase(), k.singular, k.plural, ...k.shortNames].includes(wanted));
  if (!match) throw new BadRequest(`unknown kind "${name}"; known kinds: ${KIND_NAMES.join(', ')}`);
  return match.kind as KindName;
};

export const isKindName = (name: string): name is KindName => (KIND_NAMES as readonly string[]).includes(name);
