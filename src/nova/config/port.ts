/**
 * Where a Nova's rendered config lives (nova-operator.md, "Config"): immutable and content-addressed, one per
 * distinct set of files, `{name}-config-<hash>`. Two adapters:
 * - `kubernetes.ts`: an immutable ConfigMap owned by the Nova, through @kubernetes/client-node;
 * - `local.ts`: a directory under the data dir, written then renamed into place (the embedded default).
 *
 * A change of any file makes a new name, so a pod (or process) is rolled by pointing it at the new name and never
 * sees a config change under it. Each adapter keeps the three most recently published configs of a Nova and the
 * one the live API mounts, and removes the rest.
 *
 * No credential is in a config (src/nova/config/env.ts): the files may be world-readable.
 */
import type { NovaRef } from '../jobs/render.js';
import type { RenderedConfig } from './render.js';
import type { NovaConfigSettings } from './settings.js';

/** How many published configs of a Nova are kept (the spec's NovaCompute history rule, the same for the Nova). */
export const CONFIG_HISTORY = 3;

/** The label every config of a Nova carries (its value the Nova's name): what the adapter lists and prunes by. */
export const CONFIG_LABEL = 'regent.dev/nova-config';
/** When the config was last published (ISO 8601, milliseconds): "newest" is the most recently published. */
export const PUBLISHED_AT_ANNOTATION = 'regent.dev/published-at';

export interface PublishResult {
  /** True when the config did not exist and was written. */
  created: boolean;
  /** The configs removed by the history rule. */
  pruned: string[];
}

export class ConfigStoreError extends Error {
  override readonly name = 'ConfigStoreError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface ConfigPort {
  /** What the renderer needs that depends on where the roles run (paths, listen address) and the cloud they join. */
  settings(namespace: string, nova: string): NovaConfigSettings;
  /**
   * Makes `config` the most recently published config of the Nova: written when absent (never rewritten: the name is
   * its content), then the history rule applied. A publish that finds it already newest writes nothing.
   */
  publish(nova: NovaRef, config: RenderedConfig): Promise<PublishResult>;
  /**
   * The config the live API mounts (Kubernetes: the `{name}-api` Deployment's config volume), read back with its
   * files; undefined when no API runs or what it mounts is gone. The Config step's fallback when the spec cannot be
   * rendered.
   */
  current(namespace: string, nova: string): Promise<RenderedConfig | undefined>;
}
