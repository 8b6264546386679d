/**
 * The SecurityGroup kind as the control plane runs it (src/controllers/kind.ts): passes with the session of the
 * group's Network's Identity (src/controllers/scopes.ts `onNetwork`), the two Neutron effect handlers resolved the
 * same way from the stream, and what wakes it: its own spec, and its Network (a group is gated on it). A group's
 * change wakes the Servers listing it (declared by the Server kind: their create waits for the groups' Neutron ids).
 */
import type { EffectHandler } from '../../engine/engine.js';
import { isDeleting } from '../../kube/object.js';
import { IdentityNotReady } from '../../provider/identity/sessions.js';
import type { IdentityScope } from '../../provider/identity/sessions.js';
import { createSecurityGroupHandler, deleteSecurityGroupHandler } from '../../provider/security-groups.js';
import { securityGroupLifecycleDefinition, securityGroupLifecycleStream } from '../../../machines/security-group-lifecycle.js';
import { done, yieldFor } from '../disposition.js';
import { IDENTITY_WAIT_MS } from '../scoped-pass.js';
import { keyOf, keyParts, naming, type KindWiring } from '../kind.js';
import { reconcileSecurityGroup, SECURITY_GROUP_FINALIZER } from './reconcile.js';
import { securityGroupStatus } from './status.js';

export const securityGroupWiring: KindWiring = {
  kind: 'SecurityGroup',
  streams: [
    { prefix: securityGroupLifecycleStream(''), kind: 'SecurityGroup', key: 'uid' },
    { prefix: 'scope-reachability-', kind: 'SecurityGroup', key: 'uid' },
  ],
  status: securityGroupStatus,
  wakes: [
    { from: 'SecurityGroup', on: 'spec', why: 'its own spec changed, or its deletion was requested', keys: (o) => [keyOf(o)] },
    { from: 'Network', on: 'any', why: 'its Network became ready: the group is created in its Identity\'s project', keys: (n, l) => naming(l, 'SecurityGroup', n, (s) => s.networkID as string | undefined) },
  ],
  build: (services) => {
    const { engine, source, scopes, lookups } = services;
    const neverCreated = async (uid: string) => {
      const loaded = await engine.load(securityGroupLifecycleDefinition, securityGroupLifecycleStream(uid));
      const context = loaded.context;
      return loaded.revision === undefined || (context.createAttempts === 0 && context.resourceId === null);
    };
    const sessionFor = async (stream: string) => (await scopes.forStream(stream)).session;
    const handlers: Record<string, EffectHandler> = {
      'neutron.createSecurityGroup': async (effect, context) => createSecurityGroupHandler(await sessionFor(context.stream))(effect, context),
      'neutron.deleteSecurityGroup': async (effect, context) => deleteSecurityGroupHandler(await sessionFor(context.stream))(effect, context),
    };
    return {
      handlers,
      reconcile: services.reach.track(
        (key) => lookups.get('SecurityGroup', ...keyParts(key))?.metadata.uid,
        async (key, note) => {
          const [namespace, name] = keyParts(key);
          const object = await source.get('SecurityGroup', namespace, name);
          if (!object) return done('gone');
          let scope: IdentityScope;
          try {
            scope = await scopes.onNetwork(object);
            note.scopeResolved();
          } catch (error) {
            if (!(error instanceof IdentityNotReady)) throw error;
            note.failed(error);
            if (isDeleting(object) && (await neverCreated(object.metadata.uid))) {
              if ((object.metadata.finalizers ?? []).includes(SECURITY_GROUP_FINALIZER)) await source.removeFinalizer('SecurityGroup', namespace, name, SECURITY_GROUP_FINALIZER);
              return done('nothing was created in the cloud; finalizer removed');
            }
            return yieldFor(IDENTITY_WAIT_MS, `waiting: ${error.message}`);
          }
          return reconcileSecurityGroup({ engine, source, os: scope.session }, namespace, name);
        },
      ),
    };
  },
};
