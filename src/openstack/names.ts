/**
 * Exact-name lookup. OpenStack name filters are not equality: Nova's `name=` is an unanchored regular expression
 * (`web` finds `web-2`, `web.1` finds `webx1`, MySQL may compare case-insensitively), Cinder and Octavia depend on
 * configuration and microversion. Regent re-finds resources by deterministic names, so a fuzzy match would alias
 * one resource to another. Every find-by-name in this layer lists with the service filter (to keep the answer
 * small) and then goes through `exactlyOne`: no match → NotFound, one → it, several → ConsistencyError.
 */
import type { RequestContext } from './errors.js';
import { ConsistencyError, NotFound } from './errors.js';

export interface Named {
  id: string;
  name?: string | null;
}

/** Items whose name equals `name` exactly (code-unit equality: no case folding, no trimming). */
export const exactMatches = <T extends Named>(items: readonly T[], name: string): T[] => items.filter((item) => item.name === name);

/** The single item named exactly `name`. */
export const exactlyOne = <T extends Named>(items: readonly T[], name: string, kind: string, context: RequestContext = {}): T => {
  const matches = exactMatches(items, name);
  const [first, ...rest] = matches;
  if (first === undefined) throw new NotFound(`no ${kind} is named exactly '${name}'`, context, { kind, name });
  if (rest.length > 0) throw new ConsistencyError(kind, name, matches.map((m) => m.id), context);
  return first;
};

/** The item named exactly `name`, or undefined when there is none; duplicates still throw ConsistencyError. */
export const atMostOne = <T extends Named>(items: readonly T[], name: string, kind: string, context: RequestContext = {}): T | undefined => {
  const matches = exactMatches(items, name);
  if (matches.length > 1) throw new ConsistencyError(kind, name, matches.map((m) => m.id), context);
  return matches[0];
};

/**
 * A Nova `name=` filter value that matches only `name`: regex metacharacters escaped and anchored (`^web\.1$`).
 * Still post-filtered by exactlyOne, because the database's REGEXP may fold case.
 */
export const novaExactNameFilter = (name: string): string => `^${name.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&')}$`;
