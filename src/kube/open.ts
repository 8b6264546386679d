/**
 * Opening a resource source from a short spec, for the CLI and child processes:
 *
 *   embedded:<path>      the SQLite store at <path> (default ./data/resources.db)
 *   kubernetes           the cluster of the current kubeconfig context (or in-cluster config)
 *   kubernetes:<context> a named kubeconfig context
 *
 * The kubernetes adapter is loaded on demand, so the embedded path never imports the client.
 */
import { BadRequest } from './errors.js';
import type { ResourceSource } from './port.js';
import { openEmbeddedSource, type EmbeddedOptions } from './embedded/store.js';

export const DEFAULT_SOURCE = 'embedded:./data/resources.db';

export const openResourceSource = async (spec: string = DEFAULT_SOURCE, options: Partial<EmbeddedOptions> = {}): Promise<ResourceSource> => {
  if (spec.startsWith('embedded:')) {
    const path = spec.slice('embedded:'.length);
    if (path === '') throw new BadRequest('embedded: needs a path, e.g. embedded:./data/resources.db');
    return openEmbeddedSource({ ...options, path });
  }
  if (spec === 'kubernetes' || spec.startsWith('kubernetes:')) {
    const { openKubernetesSource } = await import('./kubernetes/source.js');
    const context = spec.slice('kubernetes:'.length);
    return openKubernetesSource({ ...(context ? { context } : {}) });
  }
  throw new BadRequest(`unknown resource source "${spec}": use embedded:<path> or kubernetes[:<context>]`);
};
