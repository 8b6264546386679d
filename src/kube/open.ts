/**
 * Opening a resource source from a short spec, for the CLI and child processes:
 *
 *   embedded:<path>      the SQLite store at <path> (default ./data/resources.db)
 *   kubernetes           the cluster of the current kubeconfig context (or in-cluster config)
 *   kubernetes:<context> a named kubeconfig context
 *
 * The kubernetes adapter is loaded on demand, so the embedded path never imports the client.
 */
import { InvalidSourceSpec } from './errors.js';
import type { ResourceSource } from './port.js';
import { openEmbeddedSource, type EmbeddedOptions } from './embedded/store.js';

export const DEFAULT_SOURCE = 'embedded:./data/resources.db';

/** The accepted forms, as every refusal of a spec names them. */
export const SOURCE_SPEC_FORMS = 'embedded:<path> or kubernetes[:<context>]';

export type SourceLocation = { kind: 'embedded'; path: string } | { kind: 'kubernetes'; context?: string };

/** Parses a spec; throws InvalidSourceSpec naming the spec when it is not one of the forms above. */
export const parseSourceSpec = (spec: string): SourceLocation => {
  if (spec.startsWith('embedded:')) {
    const path = spec.slice('embedded:'.length);
    if (path === '') throw new InvalidSourceSpec(`resource source "embedded:" needs a path, e.g. ${DEFAULT_SOURCE}`);
    return { kind: 'embedded', path };
  }
  if (spec === 'kubernetes' || spec.startsWith('kubernetes:')) {
    const context = spec.slice('kubernetes:'.length);
    return context ? { kind: 'kubernetes', context } : { kind: 'kubernetes' };
  }
  throw new InvalidSourceSpec(`unknown resource source "${spec}": expected ${SOURCE_SPEC_FORMS}`);
};

export const openResourceSource = async (spec: string = DEFAULT_SOURCE, options: Partial<EmbeddedOptions> = {}): Promise<ResourceSource> => {
  const location = parseSourceSpec(spec);
  if (location.kind === 'embedded') return openEmbeddedSource({ ...options, path: location.path });
  const { openKubernetesSource } = await import('./kubernetes/source.js');
  return openKubernetesSource(location.context === undefined ? {} : { context: location.context });
};
