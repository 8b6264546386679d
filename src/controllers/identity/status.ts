/** An Identity's status (docs/identity.md): its project, user, roles and credential as its lifecycle recorded them. */
import { identityLifecycleDefinition, identityLifecycleStream } from '../../../machines/identity-lifecycle.js';
import { renderIdentityResource } from '../../../projections/identity-status.js';
import type { StatusRenderer } from '../../status/renderer.js';

export const identityStatus: StatusRenderer = {
  ownedKeys: ['openstack', 'credentialsSecretRef'],
  render: async (env, object) => {
    const lifecycle = await env.engine.load(identityLifecycleDefinition, identityLifecycleStream(object.metadata.uid));
    return renderIdentityResource({
      lifecycle: lifecycle.revision === undefined ? undefined : { state: lifecycle.value, context: lifecycle.context },
      tags: (object.spec as { tags?: Record<string, string> }).tags,
      at: lifecycle.last?.metadata.recordedAt ?? env.now(),
      previous: object.status as never,
    }) as unknown as Record<string, unknown>;
  },
};
