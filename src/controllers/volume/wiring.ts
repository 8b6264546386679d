/**
 * The Volume kind as the control plane runs it (src/app/kind.ts): its Cinder volume, worked with through its
 * Network's Identity (the volume is where the servers are), woken by its own spec, its Network, and the Servers
 * that attach it (an attachment changed: its InUse, and a deletion waiting for the detach, follow now).
 */
import { IdentityNotReady } from '../../provider/identity/sessions.js';
import { Unauthorized } from '../../openstack/errors.js';
import { createVolumeHandler, deleteVolumeHandler, extendVolumeHandler } from '../../provider/volumes.js';
import type { OpenStackSession } from '../../openstack/session.js';
import type { EffectHandler } from '../../engine/engine.js';
import { volumeLifecycleStream } from '../../../machines/volume-lifecycle.js';
import { keyOf, keyParts, naming, type KindWiring, type PlaneServices } from '../kind.js';
import type { ScopeNote } from '../scope-reachability.js';
import { reconcileVolume } from './reconcile.js';
import { volumeStatus } from './status.js';

/**
 * A Volume or LoadBalancer whose Network is not in the store cannot be looked at: its pass waits before it gets as
 * far as the scope, so the missing link is noted here (scopeReachability: NetworkMissing).
 */
export const noteMissingNetwork = (services: PlaneServices, object: Parameters<PlaneServices['wakeDependents']>[1] | undefined, note: ScopeNote): void => {
  if (!object || object.metadata.deletionTimestamp) return;
  const networkName = (object.spec as { networkID?: string }).networkID ?? '';
  const namespace = object.metadata.namespace ?? 'default';
  if (services.lookups.get('Network', namespace, networkName)) return;
  note.failed(new IdentityNotReady(`${namespace}/?`, `the Network ${networkName} of ${object.kind} ${object.metadata.name} does not exist`, { kind: 'Network', name: `${namespace}/${networkName}`, why: 'does not exist' }));
};

export const volumeWiring: KindWiring = {
  kind: 'Volume',
  streams: [
    { prefix: volumeLifecycleStream(''), kind: 'Volume', key: 'uid' },
    { prefix: 'scope-reachability-', kind: 'Volume', key: 'uid' },
  ],
  status: volumeStatus,
  wakes: [
    { from: 'Volume', on: 'spec', why: 'its own spec changed, or its deletion was requested', keys: (o) => [keyOf(o)] },
    { from: 'Network', on: 'any', why: 'its Network (hence its Identity) became ready: it is created in that project', keys: (n, l) => naming(l, 'Volume', n, (s) => s.networkID as string | undefined) },
  ],
  build: (services) => {
    const { engine, source, logger, scopes, sessions, lookups, owners } = services;
    const scoped = (build: (session: OpenStackSession) => EffectHandler): EffectHandler => async (effect, context) => build((await scopes.forStream(context.stream)).session)(effect, context);
    return {
      reconcile: services.reach.track(
        (key) => lookups.get('Volume', ...keyParts(key))?.metadata.uid,
        (key, note) => {
          noteMissingNetwork(services, lookups.get('Volume', ...keyParts(key)), note);
          return reconcileVolume(
            {
              engine,
              source,
              classes: services.volumeClasses,
              logger,
              serverName: (novaId) => {
                const uid = owners.serverOfNovaId(novaId);
                return lookups.list('Server').find((s) => s.metadata.uid === uid)?.metadata.name ?? 'a server Regent does not manage';
              },
              scope: async (volume, identity) => {
                try {
                  const scope = await scopes.onNetwork(volume);
                  note.scopeResolved();
                  return { kind: 'realized', projectId: scope.projectId, cinder: scope.session.cinder };
                } catch (error) {
                  note.failed(error);
                  if (error instanceof IdentityNotReady) return { kind: 'notReady', why: error.message };
                  if (error instanceof Unauthorized) {
                    sessions.invalidate(identity.metadata.uid);
                    services.enqueue('Identity', keyOf(identity));
                  }
                  throw error;
                }
              },
            },
            ...keyParts(key),
          );
        },
      ),
      handlers: {
        'cinder.createVolume': scoped((session) => createVolumeHandler(session.cinder)),
        'cinder.extendVolume': scoped((session) => extendVolumeHandler(session.cinder)),
        'cinder.deleteVolume': scoped((session) => deleteVolumeHandler(session.cinder)),
      },
    };
  },
};
