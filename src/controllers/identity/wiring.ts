/**
 * The Identity kind as the control plane runs it (src/app/kind.ts): its Keystone project, user, roles, keypair and
 * credential, woken by its own spec, by its Region (a new Secret, a domain), and — while it is being deleted — by
 * each dependent that goes away (its deletion waits for the Networks, Servers, Volumes, LoadBalancers and
 * SecurityGroups in its project).
 */
import { identityLifecycleStream } from '../../../machines/identity-lifecycle.js';
import { identityHandlers } from '../../provider/identity/handlers.js';
import { keyOf, keyParts, naming, namespaceOf, type KindWiring, type WakeRule } from '../kind.js';
import type { KindName } from '../../resources/index.js';
import { reconcileIdentity } from './reconcile.js';
import { identityStatus } from './status.js';

/** A dependent gone: a deleting Identity waiting for it may proceed (every Identity of the namespace looks again). */
const dependentGone = (from: KindName): WakeRule => ({
  from,
  on: 'deleted',
  why: `a ${from} is gone: a deleting Identity waiting for its dependents may proceed`,
  keys: (gone, l) => l.list('Identity').filter((i) => namespaceOf(i) === namespaceOf(gone)).map(keyOf),
});

export const identityWiring: KindWiring = {
  kind: 'Identity',
  streams: [{ prefix: identityLifecycleStream(''), kind: 'Identity', key: 'uid' }],
  status: identityStatus,
  wakes: [
    { from: 'Identity', on: 'spec', why: 'its own spec changed, or its deletion was requested', keys: (o) => [keyOf(o)] },
    { from: 'Region', on: 'spec', why: 'its Region changed (a new Secret, a domain)', keys: (r, l) => naming(l, 'Identity', r, (s) => (s.regionRef as { name?: string } | undefined)?.name) },
    ...(['Network', 'Server', 'Volume', 'LoadBalancer', 'SecurityGroup'] as const).map(dependentGone),
  ],
  build: (services) => {
    const deps = { engine: services.engine, source: services.source, connections: services.connections, logger: services.logger, connectAsUser: services.connectAsUser };
    return {
      reconcile: (key) => reconcileIdentity(deps, ...keyParts(key)),
      handlers: identityHandlers({ connections: services.connections, secrets: services.source.secrets, connectAsUser: services.connectAsUser }),
    };
  },
};
