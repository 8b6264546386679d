/**
 * Which Regions a Region-inventory listing (`get volumeclasses`, `get flavors`, `get images`) reads: with
 * `region`, that one Region in `namespace` (default `default`), NotFound when there is none; otherwise every
 * Region of `namespace` (omitted: of every namespace).
 */
import type { Region } from '../../resources/region.js';
import { NotFound } from '../errors.js';
import type { ResourceSource } from '../port.js';

export const selectRegions = async (source: ResourceSource, options: { readonly namespace?: string; readonly region?: string }): Promise<Region[]> => {
  if (options.region === undefined) return (await source.list('Region', options.namespace)).items as Region[];
  const namespace = options.namespace ?? 'default';
  const region = (await source.get('Region', namespace, options.region)) as Region | undefined;
  if (!region) throw new NotFound('Region', namespace, options.region);
  return [region];
};
