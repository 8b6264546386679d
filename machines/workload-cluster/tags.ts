/**
 * Tags (openstack-cluster-modules.md, "Tags"): the `captf_tags` keys and the additional tags map `/` to `:` in the
 * key (`captf.io/cluster` → `captf.io:cluster`). Neutron and Octavia resources carry them as `"<key>=<value>"`
 * strings in `tags`; the Nova server carries them as metadata (a Nova tag holds at most 60 characters and no `/`).
 * A pair longer than 255 characters fails a precondition: it is never cut. Security group rules, health monitors and
 * server groups are not tagged.
 */
import type { TagPair } from './observation.js';

/** The longest `"<key>=<value>"` a pair may render to (Neutron's tag limit, assumed for Octavia too). */
export const MAX_TAG_LENGTH = 255;

export const mapTagKey = (key: string): string => key.split('/').join(':');

export type RenderedTags =
  | { ok: true; tags: string[]; metadata: Record<string, string> }
  | { ok: false; problems: string[] };

/** The pairs as Neutron/Octavia tags and as Nova metadata; a later pair with the same mapped key wins. */
export const renderTags = (pairs: readonly TagPair[]): RenderedTags => {
  const byKey = new Map<string, string>();
  for (const pair of pairs) byKey.set(mapTagKey(pair.key), pair.value);
  const problems: string[] = [];
  for (const [key, value] of byKey) {
    const rendered = `${key}=${value}`;
    if (rendered.length > MAX_TAG_LENGTH) problems.push(`tag ${key} renders to ${rendered.length} characters ("${key}=…"), more than ${MAX_TAG_LENGTH}: it is refused, never cut`);
    if (key.length === 0) problems.push('a tag key is empty');
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, tags: [...byKey].map(([key, value]) => `${key}=${value}`), metadata: Object.fromEntries(byKey) };
};
