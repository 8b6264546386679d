/**
 * The Network kind as the control plane runs it (src/app/kind.ts): its lifecycle and reachability streams, what
 * wakes it (its spec, its Identity), its status, its pass with its Identity's session (../scoped-pass.ts), and the
 * Neutron handlers — a VLAN provider network (a segment in the request) with the Region's credentials into the
 * Identity's project (issue 16), every other one with the Identity's own.
 */
import { createNetworkHandler, deleteNetworkHandler, isVlanRequest } from '../../provider/networks.js';
import { networkLifecycleDefinition, networkLifecycleStream } from '../../../machines/network-lifecycle.js';
import { keyOf, keyParts, naming, type KindWiring } from '../kind.js';
import { withIdentityScope } from '../scoped-pass.js';
import { NETWORK_FINALIZER, reconcileNetwork } from './reconcile.js';
import { networkStatus } from './status.js';

export const networkWiring: KindWiring = {
  kind: 'Network',
  streams: [
    { prefix: 'network-lifecycle-', kind: 'Network', key: 'uid' },
    { prefix: 'scope-reachability-', kind: 'Network', key: 'uid' },
  ],
  status: networkStatus,
  wakes: [
    { from: 'Network', on: 'spec', why: 'its own spec changed, or its deletion was requested', keys: (o) => [keyOf(o)] },
    { from: 'Identity', on: 'any', why: 'its Identity was realized or rotated: the network waits for its credential', keys: (i, l) => naming(l, 'Network', i, (s) => (s.identityRef as { name?: string } | undefined)?.name) },
  ],
  build: (services) => {
    const { engine, source, scopes, sessions, lookups } = services;
    return {
      reconcile: services.reach.track(
        (key) => lookups.get('Network', ...keyParts(key))?.metadata.uid,
        (key, note) =>
          withIdentityScope(
            { engine, source, sessions, wakeIdentity: (identity) => services.enqueue('Identity', keyOf(identity)) },
            { kind: 'Network', finalizer: NETWORK_FINALIZER, scopeOf: (o) => scopes.network(o), lifecycle: networkLifecycleDefinition, lifecycleStream: networkLifecycleStream },
            ...keyParts(key),
            note,
            (session) => reconcileNetwork({ engine, source, os: session, region: (network) => scopes.networkRegion(network) }, ...keyParts(key)),
          ),
      ),
      handlers: {
        'neutron.createNetwork': async (effect, context) => createNetworkHandler(await scopes.networkNeutron(context.stream, isVlanRequest(effect.desired)))(effect, context),
        'neutron.deleteNetwork': async (effect, context) => deleteNetworkHandler(await scopes.networkNeutron(context.stream))(effect, context),
      },
    };
  },
};
