/**
 * The config a Nova's roles and Jobs mount now, decided once for the Config step and for anyone who must render the
 * same Job later (the Database step's effect renders a Job again from the Nova as it is when the effect runs, and
 * compares its hash with the decided one: both must start from this function, or the hashes part).
 *
 * rendered: the spec renders (./render.ts); the config to publish and mount.
 * refused:  it does not (a control character …): the config the live API mounts (ConfigPort.current), so the running
 *           pods keep their last-good config — or none, when nothing was ever published or nothing is live.
 */
import type { NovaSpec } from '../../resources/nova.js';
import type { NovaRef } from '../jobs/render.js';
import type { ConfigPort } from './port.js';
import { renderNovaConfig, type OwnedKeyOverride, type RenderedConfig } from './render.js';

export type ConfigResolution =
  | { kind: 'rendered'; config: RenderedConfig; overridden: OwnedKeyOverride[] }
  | { kind: 'refused'; problems: string[]; live: RenderedConfig | undefined; overridden: OwnedKeyOverride[] };

export const resolveNovaConfig = async (configs: ConfigPort, ref: NovaRef, spec: NovaSpec): Promise<ConfigResolution> => {
  const render = renderNovaConfig({ name: ref.name, spec, settings: configs.settings(ref.namespace, ref.name) });
  if (render.ok) return { kind: 'rendered', config: render.config, overridden: render.overridden };
  return { kind: 'refused', problems: render.problems, live: await configs.current(ref.namespace, ref.name), overridden: render.overridden };
};

/** The config of a resolution, when there is one to mount. */
export const mountedConfig = (resolution: ConfigResolution): RenderedConfig | undefined => (resolution.kind === 'rendered' ? resolution.config : resolution.live);
