/**
 * The Config step (nova-operator.md, "Pipeline", Config; issue 26): nova.conf, the role overlays and api-paste.ini
 * rendered (src/nova/config/render.ts), published as the immutable content-addressed `{name}-config-<hash>` through
 * the ConfigPort, and handed to the later steps as `values.config` — the roles and the Database step's Jobs mount it.
 *
 *   rendered                 published (written only when new; the three newest kept); ExtraConfigHealthy set;
 *                            SecretsReady left to the steps that own its True
 *   a control character …    nothing rendered or published: SecretsReady False ConfigError naming each place (never a
 *                            value), and `values.config` is the config the live API mounts, so the running pods keep
 *                            their last-good config and a Job renders on the same one. With no live API there is no
 *                            config: the Database step then waits (WaitingForConfig) and the workload steps have none
 *                            to roll onto
 *
 * Either way the lane continues: a ConfigError is a False to fix in the spec, not a wait (a spec change wakes the
 * pass), and the steps after it keep what runs running. ExtraConfigHealthy (True NoOwnedKeysOverridden / False
 * OwnedKeysOverridden, naming each key of Regent's that spec.extraConfig sets) is informational: it stays out of Ready.
 */
import type { ConditionInput } from '../../../../projections/conditions.js';
import type { ConfigPort } from '../../../nova/config/port.js';
import { describeOverrides, type OwnedKeyOverride } from '../../../nova/config/render.js';
import { resolveNovaConfig } from '../../../nova/config/resolve.js';
import { continueLane, type NovaStep } from '../lane.js';
import type { NovaLanePass } from '../pass.js';
import type { NovaControllerDeps } from '../deps.js';

/** What the lead adds to NovaControllerDeps for this step and ComputeConfig. */
export interface ConfigStepDeps {
  /** Where the rendered config lives: src/nova/config/local.ts (embedded) or kubernetes.ts. */
  configs?: ConfigPort;
}

/** The step's port; a lane built without one is a wiring bug, named loudly. */
export const configPortOf = (pass: NovaLanePass): ConfigPort => {
  const deps: NovaControllerDeps & ConfigStepDeps = pass.deps;
  if (!deps.configs) throw new Error('the Nova lane has no ConfigPort (NovaControllerDeps.configs): the Config and ComputeConfig steps cannot run');
  return deps.configs;
};

export const extraConfigCondition = (overridden: readonly OwnedKeyOverride[]): ConditionInput =>
  overridden.length === 0
    ? { type: 'ExtraConfigHealthy', status: 'True', reason: 'NoOwnedKeysOverridden', message: 'spec.extraConfig sets no key Regent renders' }
    : { type: 'ExtraConfigHealthy', status: 'False', reason: 'OwnedKeysOverridden', message: `spec.extraConfig overrides keys Regent renders: ${describeOverrides(overridden)} (informational: Ready does not depend on it)` };

export const configStep: NovaStep<NovaLanePass> = {
  name: 'Config',
  conditions: ['SecretsReady', 'ExtraConfigHealthy'],
  async run(pass) {
    const configs = configPortOf(pass);
    const resolution = await resolveNovaConfig(configs, pass.ref, pass.nova.spec);
    const extraConfig = extraConfigCondition(resolution.overridden);
    if (resolution.kind === 'rendered') {
      await configs.publish(pass.ref, resolution.config);
      pass.values.config = resolution.config;
      return { conditions: [extraConfig], outcome: continueLane };
    }
    const kept = resolution.live
      ? `the roles keep ${resolution.live.name}, the config the live API mounts`
      : 'no API runs on an earlier config, so there is none to keep: nothing that needs a config runs until the spec is fixed';
    const message = `the config is not rendered: ${resolution.problems.join('; ')}; ${kept}`;
    if (resolution.live) pass.values.config = resolution.live;
    // the steps after this one that set SecretsReady True must not cover this False (steps/secrets-available.ts)
    pass.values.secretsNotReady = { reason: 'ConfigError', message };
    return { conditions: [{ type: 'SecretsReady', status: 'False', reason: 'ConfigError', message }, extraConfig], outcome: continueLane };
  },
};
