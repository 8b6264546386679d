/**
 * The SecurityGroup controller as the control plane runs it (src/app/control-plane.ts): one Controller
 * whose passes run with the session of the group's Network's Identity (src/app/scopes.ts `onNetwork`), the
 * two Neutron effect handlers resolved the same way from the stream, and the wakes: a Network's change
 * wakes its groups (gated on it), a group's change wakes the Servers listing it (their create waits for the
 * groups' Neutron ids). Kept in one place so the control plane adds a handful of lines.
 */
import type { Engine, EffectHandler } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import { isDeleting, keyOf } from '../../kube/object.js';
import type { Logger } from '../../log/logger.js';
import type { OpenStackSession } from '../../openstack/session.js';
import type { KindName, ObjectOf } from '../../resources/index.js';
import { IdentityNotReady } from '../../provider/identity/sessions.js';
import type { IdentityScope } from '../../provider/identity/sessions.js';
import { createSecurityGroupHandler, deleteSecurityGroupHandler } from '../../provider/security-groups.js';
import type { LifecycleContext } from '../../../machines/lifecycle.js';
import { securityGroupLifecycleStream } from '../../../machines/security-group-lifecycle.js';
import { Controller, type ControllerObserver } from '../controller.js';
import { done, yieldFor } from '../disposition.js';
import { reconcileSecurityGroup, SECURITY_GROUP_FINALIZER } from './reconcile.js';
import { ScopeNote, type ScopeReachabilityRecorder } from '../scope-reachability.js';

const PREFIX = 'security-group-lifecycle-';

export interface SecurityGroupWiringDeps {
  engine: Engine;
  source: ResourceSource;
  logger: Logger;
  observer?: ControllerObserver;
  /** The Identity scope of an object on a Network (`spec.networkID`). */
  onNetwork: (object: ObjectOf<KindName>) => Promise<IdentityScope>;
  /** The informer caches. */
  list: (kind: 'SecurityGroup' | 'Server') => ReadonlyArray<ObjectOf<KindName>>;
  /** Enqueues a Server pass. */
  wakeServer: (key: string) => void;
  /** Records whether each pass could see its group in the cloud (src/controllers/scope-reachability.ts). */
  reach?: ScopeReachabilityRecorder;
}

const ns = (o: { metadata: { namespace?: string } }): string => o.metadata.namespace ?? 'default';
const split = (key: string): [string, string] => {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
};

export const securityGroupWiring = (deps: SecurityGroupWiringDeps) => {
  const neverCreated = async (uid: string) => {
    const loaded = await deps.engine.load(securityGroupLifecycleStream(uid));
    const context = loaded.snapshot.context as LifecycleContext;
    return loaded.revision === undefined || (context.createAttempts === 0 && context.resourceId === null);
  };
  const controller = new Controller({
    name: 'SecurityGroup',
    logger: deps.logger,
    ...(deps.observer ? { observer: deps.observer } : {}),
    reconcile: (deps.reach?.track ?? ((_uidOf, pass) => (key: string) => pass(key, new ScopeNote())))(
      (key) => deps.list('SecurityGroup').find((g) => keyOf(g) === key)?.metadata.uid,
      async (key, note) => {
        const [namespace, name] = split(key);
        const object = await deps.source.get('SecurityGroup', namespace, name);
        if (!object) return done('gone');
        let scope: IdentityScope;
        try {
          scope = await deps.onNetwork(object);
          note.scopeResolved();
        } catch (error) {
          if (!(error instanceof IdentityNotReady)) throw error;
          note.failed(error);
          if (isDeleting(object) && (await neverCreated(object.metadata.uid))) {
            if ((object.metadata.finalizers ?? []).includes(SECURITY_GROUP_FINALIZER)) await deps.source.removeFinalizer('SecurityGroup', namespace, name, SECURITY_GROUP_FINALIZER);
            return done('nothing was created in the cloud; finalizer removed');
          }
          return yieldFor(5_000, `waiting: ${error.message}`);
        }
        return reconcileSecurityGroup({ engine: deps.engine, source: deps.source, os: scope.session }, namespace, name);
      },
    ),
  });
  const sessionFor = async (stream: string): Promise<OpenStackSession> => {
    const uid = stream.startsWith(PREFIX) ? stream.slice(PREFIX.length) : '';
    const group = deps.list('SecurityGroup').find((o) => o.metadata.uid === uid);
    if (!group) throw new IdentityNotReady('?', `no SecurityGroup of this control plane owns the stream ${stream}`);
    return (await deps.onNetwork(group)).session;
  };
  const handlers: Record<string, EffectHandler> = {
    'neutron.createSecurityGroup': async (effect, context) => createSecurityGroupHandler(await sessionFor(context.stream))(effect, context),
    'neutron.deleteSecurityGroup': async (effect, context) => deleteSecurityGroupHandler(await sessionFor(context.stream))(effect, context),
  };
  return {
    controller,
    handlers,
    /** A Network changed: its groups (waiting for it) go now. */
    onNetwork: (namespace: string, networkName: string) => {
      for (const g of deps.list('SecurityGroup')) if (ns(g) === namespace && (g.spec as { networkID?: string }).networkID === networkName) controller.enqueue(keyOf(g));
    },
    /** A group changed (spec or status): itself on a spec change, and the Servers listing it. */
    onGroup: (object: ObjectOf<KindName>, changed: boolean) => {
      if (changed) controller.enqueue(keyOf(object));
      for (const s of deps.list('Server'))
        if (ns(s) === ns(object) && ((s.spec as { securityGroups?: string[] }).securityGroups ?? []).includes(object.metadata.name)) deps.wakeServer(keyOf(s));
    },
  };
};
