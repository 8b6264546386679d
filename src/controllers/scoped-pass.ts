/**
 * A pass that works with its Identity's session (issue 11: Servers and Networks run with the credentials of the
 * Identity their Network names, in its project). The finalizer is held from the first pass, also while the Identity
 * is not ready: nothing is created without it. An Identity not ready yet is a wait; a resource being deleted that
 * never got anything in the cloud needs no session and is released. Keystone refusing the identity's credential
 * wakes the Identity, which rotates it. Whether the pass could see its resource is noted for scopeReachability.
 */
import type { Engine } from '../engine/engine.js';
import type { ResourceSource } from '../kube/port.js';
import { isDeleting } from '../kube/object.js';
import type { KindName, ObjectOf } from '../resources/index.js';
import { IdentityNotReady, type IdentityScope, type IdentitySessions } from '../provider/identity/sessions.js';
import { Unauthorized } from '../openstack/errors.js';
import type { OpenStackSession } from '../openstack/session.js';
import type { LifecycleContext } from '../../machines/lifecycle.js';
import type { MachineDefinition } from '../../machines/definition.js';
import { done, yieldFor, type Disposition } from './disposition.js';
import type { ScopeNote } from './scope-reachability.js';

export interface ScopedPassDeps {
  engine: Engine;
  source: ResourceSource;
  sessions: IdentitySessions;
  /** Wakes the Identity whose credential Keystone refused (its pass rotates it). */
  wakeIdentity: (identity: ObjectOf<'Identity'>) => void;
}

export interface ScopedKind {
  kind: Extract<KindName, 'Server' | 'Network'>;
  finalizer: string;
  /** The resource's scope: its Network's Identity (a Server) or its own Identity (a Network). */
  scopeOf: (object: ObjectOf<KindName>) => Promise<IdentityScope>;
  /** The create/delete lifecycle and its stream: a deletion that never created anything is released without a session. */
  lifecycle: MachineDefinition<LifecycleContext>;
  lifecycleStream: (uid: string) => string;
}

/** How long a pass waits for an Identity that is not ready before looking again. */
export const IDENTITY_WAIT_MS = 5_000;

const neverCreated = async (engine: Engine, definition: MachineDefinition<LifecycleContext>, stream: string): Promise<boolean> => {
  const loaded = await engine.load(definition, stream);
  const context = loaded.context;
  return loaded.revision === undefined || (context.createAttempts === 0 && context.resourceId === null);
};

export const withIdentityScope = async (
  deps: ScopedPassDeps,
  what: ScopedKind,
  namespace: string,
  name: string,
  note: ScopeNote,
  pass: (session: OpenStackSession) => Promise<Disposition>,
): Promise<Disposition> => {
  const object = await deps.source.get(what.kind, namespace, name);
  if (!object) return done('gone');
  if (!isDeleting(object) && !(object.metadata.finalizers ?? []).includes(what.finalizer)) await deps.source.addFinalizer(what.kind, namespace, name, what.finalizer);
  let scope: IdentityScope;
  try {
    scope = await what.scopeOf(object);
    note.scopeResolved();
  } catch (error) {
    if (!(error instanceof IdentityNotReady)) throw error;
    note.failed(error);
    if (isDeleting(object) && (await neverCreated(deps.engine, what.lifecycle, what.lifecycleStream(object.metadata.uid)))) {
      await deps.source.removeFinalizer(what.kind, namespace, name, what.finalizer);
      return done('nothing was created in the cloud; finalizer removed');
    }
    return yieldFor(IDENTITY_WAIT_MS, `waiting: ${error.message}`);
  }
  try {
    return await pass(scope.session);
  } catch (error) {
    if (error instanceof Unauthorized && scope.isolated) {
      deps.sessions.invalidate(scope.identity.metadata.uid);
      deps.wakeIdentity(scope.identity);
    }
    throw error;
  }
};
