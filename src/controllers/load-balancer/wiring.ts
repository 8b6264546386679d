/**
 * The LoadBalancer kind as the control plane runs it (src/app/kind.ts): its Octavia topology, worked with through its
 * Network's Identity (the VIP's subnet and the members are where the servers are), woken by its own spec and its
 * Network; every Octavia and floating-IP effect runs with the session of the stream's Identity.
 */
import { IdentityNotReady } from '../../provider/identity/sessions.js';
import { loadBalancerHandlers } from '../../provider/load-balancers.js';
import type { EffectHandler } from '../../engine/engine.js';
import { loadBalancerStream } from '../../../machines/load-balancer.js';
import { keyOf, keyParts, naming, type KindWiring } from '../kind.js';
import { noteMissingNetwork } from '../volume/wiring.js';
import { reconcileLoadBalancer } from './reconcile.js';
import { loadBalancerStatus } from './status.js';

export const loadBalancerWiring: KindWiring = {
  kind: 'LoadBalancer',
  streams: [
    { prefix: loadBalancerStream(''), kind: 'LoadBalancer', key: 'uid' },
    { prefix: 'scope-reachability-', kind: 'LoadBalancer', key: 'uid' },
  ],
  status: loadBalancerStatus,
  wakes: [
    { from: 'LoadBalancer', on: 'spec', why: 'its own spec changed, or its deletion was requested', keys: (o) => [keyOf(o)] },
    { from: 'Network', on: 'any', why: 'its Network (hence its Identity) became ready: the VIP goes on its subnet', keys: (n, l) => naming(l, 'LoadBalancer', n, (s) => s.networkID as string | undefined) },
  ],
  build: (services) => {
    const { engine, source, logger, scopes, lookups } = services;
    // the effect types Octavia's handlers answer to, each run with the session of its stream's Identity
    const handlers: Record<string, EffectHandler> = {};
    for (const type of Object.keys(loadBalancerHandlers(undefined as never))) {
      handlers[type] = async (effect, context) => (loadBalancerHandlers((await scopes.forStream(context.stream)).session)[type] as EffectHandler)(effect, context);
    }
    return {
      handlers,
      reconcile: services.reach.track(
        (key) => lookups.get('LoadBalancer', ...keyParts(key))?.metadata.uid,
        (key, note) => {
          noteMissingNetwork(services, lookups.get('LoadBalancer', ...keyParts(key)), note);
          return reconcileLoadBalancer(
            {
              engine,
              source,
              logger,
              scope: async (lb) => {
                try {
                  const session = (await scopes.onNetwork(lb)).session;
                  note.scopeResolved();
                  return { kind: 'ready', session };
                } catch (error) {
                  note.failed(error);
                  if (error instanceof IdentityNotReady) return { kind: 'notReady', why: error.message };
                  throw error;
                }
              },
            },
            ...keyParts(key),
          );
        },
      ),
    };
  },
};
