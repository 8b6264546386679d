/**
 * The DatabaseProvisioner on Kubernetes: a block's plan as mariadb-operator custom resources
 * (k8s.mariadb.com/v1alpha1 Database, User, Grant), gated on the MariaDB cluster CR the block names
 * (nova-operator.md, "Database").
 *
 * A pass:
 * 1. reads the MariaDB `plan.clusterRef`: absent, being deleted or not Ready → `clusterNotReady`, and nothing
 *    is applied (a Database CR against a cluster that is not serving would only collect errors);
 * 2. walks the plan's steps in the plan's order and stops at the first one that is not settled: absent → it is
 *    created; its spec or labels differ from the rendered ones → it is merge-patched (e.g. a resized
 *    maxUserConnections); either way the pass then answers `waiting` without reading the write back, because a
 *    CR just written cannot be Ready yet and its old Ready condition describes the old spec. A step that exists
 *    unchanged but is not Ready answers `waiting` with its condition's message. So a later step is never applied
 *    before every earlier one is Ready: the cell0 Grant never reaches the server before its schema, its user
 *    and the primary Grant exist — the order the spec requires, enforced by the plan's order, not decided here;
 * 3. every step Ready → `ready`. A second pass over a settled block only reads.
 *
 * The rendered spec is compared as a subset of the stored one: fields the mariadb-operator's defaulting fills
 * in (grantOption, cleanupPolicy, requeueInterval, …) are not drift, so a settled block never loops on writes.
 * A Ready condition whose observedGeneration is older than the CR's generation is not Ready: it describes a
 * spec the mariadb-operator has not applied yet.
 *
 * Every CR is labelled `app.kubernetes.io/managed-by: regent` and `regent.dev/nova: <plan.nova>`. It carries
 * no owner reference: deleting the CRs is the Nova finalizer's job, by the same names this adapter provisions
 * (`deprovision`, below). The password is never read: the User CR names the credentials Secret and the
 * mariadb-operator reads it.
 *
 * Deprovisioning (nova-operator.md, "Rotation and deletion"), one call per block and pass:
 * 1. every step's CR, under the name it was provisioned with (the block's Database, cell0's additional Database
 *    `{name}-cell0`, the User, the Grant(s)), is read FIRST, before anything is deleted: a Delete flips the
 *    deletion timestamp, so liveness read after it would always be none and release the finalizer at once;
 * 2. live = it exists, carries `regent.dev/nova: <plan.nova>` and has no deletionTimestamp. One already being
 *    deleted is not live and is not deleted again (the mariadb-operator's finalizer is dropping it);
 * 3. every live CR is deleted, in the reverse of the plan's order (the Grants before the User and the schemas,
 *    as the mariadb-operator would revoke before it drops), with the uid read in step 1 as a precondition, so
 *    the Delete can only reach the object that was observed. Already gone (404) is success; replaced since the
 *    read (409) is read again on the next pass, and the answer stays live;
 * 4. `live` is whether any was live in step 1, so the finalizer holds one more pass and the next call confirms.
 * A CR of the same name without the label, or labelled for another Nova, is someone else's: it is never
 * deleted, does not hold the finalizer, and the message says it was left. `absent()` answers [] and `owned` is
 * ignored: the name and the label are the ownership. The MariaDB cluster is not read: the CRs are deleted
 * whether it serves or not (the mariadb-operator's own finalizers wait on it).
 *
 * Client failures become ProvisioningError naming the verb, the CR and the HTTP status; an unreachable API
 * server says so.
 *
 * Caveat: older mariadb-operator releases mark User.spec.maxUserConnections immutable in their webhook; there
 * the resize patch is refused and surfaces as a ProvisioningError carrying the webhook's 4xx.
 * Caveat: `provision` patches missing labels back onto a CR it finds under a step's name (label drift), so a CR
 * someone else made under that name becomes this Nova's once a pass settles it, and the finalizer deletes it.
 * Only a CR that no pass of this Nova has touched is left by `deprovision`.
 */
import { CustomObjectsApi, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { NOVA_UID_LABEL, type Ownership } from '../ownership.js';
import {
  ProvisioningError,
  type BlockPlan,
  type DatabaseProvisioner,
  type DeprovisionOutcome,
  type ProvisionedObject,
  type ProvisionOutcome,
  type ProvisionStep,
  type SecretReader,
} from './port.js';

export const MARIADB_GROUP = 'k8s.mariadb.com';
export const MARIADB_VERSION = 'v1alpha1';
const API_VERSION = `${MARIADB_GROUP}/${MARIADB_VERSION}`;

type CrKind = 'MariaDB' | ProvisionStep['kind'];
const PLURALS: Readonly<Record<CrKind, string>> = { MariaDB: 'mariadbs', Database: 'databases', User: 'users', Grant: 'grants' };

/** oslo.db creates nova's tables as utf8 (utf8mb3); the schema's default matches, as the mariadb-operator's own default does. */
export const CHARACTER_SET = 'utf8';
export const COLLATE = 'utf8_general_ci';
/** The SQL account's host part: nova connects from pods whose addresses are not known in advance. */
export const SQL_HOST = '%';

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const NOVA_LABEL = 'regent.dev/nova';

const MERGE_PATCH = setHeaderOptions('Content-Type', 'application/merge-patch+json');

export interface MariaDbOperatorProvisionerOptions extends Ownership {
  /** The cluster the Nova's namespace lives on. */
  readonly kubeConfig: KubeConfig;
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

/** A mariadb-operator CR as this adapter renders it. */
export interface MariaDbResource {
  apiVersion: string;
  kind: CrKind;
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: Record<string, unknown>;
}

/** A CR as the API server returns it (only what is read). */
interface StoredResource {
  metadata: { name: string; uid?: string; labels?: Record<string, string>; generation?: number; deletionTimestamp?: string };
  spec?: Record<string, unknown>;
  status?: { conditions?: Condition[] };
}

/** The CR one step renders to: what create sends and what a stored CR is compared against. */
export const renderStep = (namespace: string, plan: BlockPlan, step: ProvisionStep, ownership?: Ownership): MariaDbResource => {
  const mariaDbRef = { name: plan.clusterRef };
  // on a target cluster the uid label too (src/nova/ownership.ts): the remote-children sweep selects by it
  const uid: Record<string, string> = ownership?.remote && plan.uid ? { [NOVA_UID_LABEL]: plan.uid } : {};
  const metadata = { name: step.name, namespace, labels: { [MANAGED_BY_LABEL]: 'regent', [NOVA_LABEL]: plan.nova, ...uid } };
  switch (step.kind) {
    case 'Database':
      return { apiVersion: API_VERSION, kind: 'Database', metadata, spec: { mariaDbRef, name: step.database, characterSet: CHARACTER_SET, collate: COLLATE } };
    case 'User':
      return {
        apiVersion: API_VERSION,
        kind: 'User',
        metadata,
        spec: { mariaDbRef, name: step.username, passwordSecretKeyRef: { name: step.passwordSecret.name, key: step.passwordSecret.key }, maxUserConnections: step.maxUserConnections, host: SQL_HOST },
      };
    case 'Grant':
      return { apiVersion: API_VERSION, kind: 'Grant', metadata, spec: { mariaDbRef, privileges: ['ALL PRIVILEGES'], database: step.database, table: '*', username: step.username, host: SQL_HOST } };
  }
};

/** Whether `actual` holds every field of `wanted` with the same value (objects recursively; arrays and scalars exactly). */
const holds = (actual: unknown, wanted: unknown): boolean => {
  if (Array.isArray(wanted)) return Array.isArray(actual) && actual.length === wanted.length && wanted.every((w, i) => holds(actual[i], w) && holds(w, actual[i]));
  if (typeof wanted === 'object' && wanted !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    return Object.entries(wanted).every(([key, value]) => holds((actual as Record<string, unknown>)[key], value));
  }
  return actual === wanted;
};

/** The top-level spec fields (and `labels`) a stored CR lacks or holds differently, in rendered order. */
const driftOf = (stored: StoredResource, desired: MariaDbResource): string[] => [
  ...Object.entries(desired.spec)
    .filter(([key, value]) => !holds(stored.spec?.[key], value))
    .map(([key]) => key),
  ...(holds(stored.metadata.labels ?? {}, desired.metadata.labels) ? [] : ['labels']),
];

/** Why a stored CR is not Ready, or undefined when it is. */
const notReadyBecause = (stored: StoredResource): string | undefined => {
  if (stored.metadata.deletionTimestamp !== undefined) return 'it is being deleted';
  const ready = stored.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready === undefined) return 'no Ready condition yet';
  const generation = stored.metadata.generation;
  if (ready.observedGeneration !== undefined && generation !== undefined && ready.observedGeneration < generation) {
    return `the mariadb-operator has not observed generation ${generation}`;
  }
  if (ready.status !== 'True') return ready.message || ready.reason || `Ready is ${ready.status}`;
  return undefined;
};

/** The HTTP status and the API server's Status message of a client failure. */
const failureOf = (error: unknown): { status?: number; message: string } => {
  const candidate = error as { code?: unknown; body?: unknown; message?: unknown };
  if (typeof candidate.code !== 'number') return { message: `the Kubernetes API is unreachable: ${String(candidate.message ?? error)}` };
  let body = candidate.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      // not a Status object: the text itself is the message
    }
  }
  const message = typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string' ? (body as { message: string }).message : typeof body === 'string' && body !== '' ? body : `HTTP ${candidate.code}`;
  return { status: candidate.code, message };
};

const waiting = (kind: CrKind, name: string, why: string): ProvisionOutcome => ({ kind: 'waiting', message: `${kind} ${name} is not Ready: ${why}` });

/** What a deprovisioning read found of one step's CR. */
type Observed =
  | { kind: 'gone' }
  /** Someone else's object of the same name: never deleted, never holding the finalizer. */
  | { kind: 'foreign'; why: string }
  | { kind: 'beingDeleted' }
  | { kind: 'live'; uid: string | undefined };

/** A step's CR, observed before any delete. */
const observe = (stored: StoredResource | undefined, nova: string): Observed => {
  if (stored === undefined) return { kind: 'gone' };
  const label = stored.metadata.labels?.[NOVA_LABEL];
  if (label !== nova) return { kind: 'foreign', why: label === undefined ? `it has no label ${NOVA_LABEL}` : `it is labelled ${NOVA_LABEL}=${label}` };
  if (stored.metadata.deletionTimestamp !== undefined) return { kind: 'beingDeleted' };
  return { kind: 'live', uid: stored.metadata.uid };
};

const named = (step: ProvisionStep): string => `${step.kind} ${step.name}`;

export class MariaDbOperatorProvisioner implements DatabaseProvisioner {
  private readonly custom: CustomObjectsApi;
  private readonly ownership: Ownership;

  constructor(options: MariaDbOperatorProvisionerOptions) {
    this.custom = options.kubeConfig.makeApiClient(CustomObjectsApi);
    this.ownership = { remote: options.remote === true };
  }

  async provision(namespace: string, plan: BlockPlan, _password: (secret: { name: string; key: string }) => Promise<string | undefined>): Promise<ProvisionOutcome> {
    const cluster = await this.read('MariaDB', namespace, plan.clusterRef);
    if (cluster === undefined) return { kind: 'clusterNotReady', message: `no MariaDB ${plan.clusterRef} in ${namespace}` };
    const clusterWhy = notReadyBecause(cluster);
    if (clusterWhy !== undefined) return { kind: 'clusterNotReady', message: `MariaDB ${plan.clusterRef} is not Ready: ${clusterWhy}` };

    for (const step of plan.steps) {
      const desired = renderStep(namespace, plan, step, this.ownership);
      const stored = await this.read(step.kind, namespace, step.name);
      if (stored === undefined) {
        const created = await this.create(desired);
        return waiting(step.kind, step.name, created ? 'created, the mariadb-operator has not reconciled it yet' : 'it appeared while this pass created it; read again on the next pass');
      }
      // A CR on its way out is left alone: patching it would not stop the deletion, and the next pass re-creates it.
      if (stored.metadata.deletionTimestamp !== undefined) return waiting(step.kind, step.name, 'it is being deleted');
      const drift = driftOf(stored, desired);
      if (drift.length > 0) {
        await this.patch(desired, drift.includes('labels'));
        return waiting(step.kind, step.name, `updated ${drift.join(', ')}, the mariadb-operator has not reconciled it yet`);
      }
      const why = notReadyBecause(stored);
      if (why !== undefined) return waiting(step.kind, step.name, why);
    }
    return { kind: 'ready' };
  }

  /** [] always: the CRs are named per Nova and labelled with it, which is their ownership (see the header). */
  async absent(_namespace: string, _plan: BlockPlan, _secrets: SecretReader): Promise<ProvisionedObject[]> {
    return [];
  }

  async deprovision(namespace: string, plan: BlockPlan, _owned: readonly ProvisionedObject[], _secrets: SecretReader): Promise<DeprovisionOutcome> {
    // Every read before the first delete: liveness must be what it was before this pass touched anything.
    const observed: { step: ProvisionStep; seen: Observed }[] = [];
    for (const step of plan.steps) observed.push({ step, seen: observe(await this.read(step.kind, namespace, step.name), plan.nova) });

    const deleted: string[] = [];
    const replaced: string[] = [];
    for (const { step, seen } of [...observed].reverse()) {
      if (seen.kind !== 'live') continue;
      if (await this.delete(step.kind, namespace, step.name, seen.uid)) deleted.push(named(step));
      else replaced.push(named(step));
    }
    deleted.reverse();
    replaced.reverse();

    const beingDeleted = observed.filter(({ seen }) => seen.kind === 'beingDeleted').map(({ step }) => named(step));
    const foreign = observed.flatMap(({ step, seen }) => (seen.kind === 'foreign' ? [`left ${named(step)}: ${seen.why}, so it is not this Nova's`] : []));
    const live = deleted.length > 0 || replaced.length > 0;
    const parts = [
      ...(deleted.length > 0 ? [`deleted ${deleted.join(', ')}`] : []),
      ...(replaced.length > 0 ? [`${replaced.join(', ')} changed since it was read; read again on the next pass`] : []),
      ...(beingDeleted.length > 0 ? [`${beingDeleted.join(', ')} already being deleted`] : []),
      ...foreign,
    ];
    const none = `no live CR of ${plan.instance} is left`;
    return { live, message: live ? parts.join('; ') : [none, ...parts].join('; ') };
  }

  private coordinates(kind: CrKind, namespace: string) {
    return { group: MARIADB_GROUP, version: MARIADB_VERSION, plural: PLURALS[kind], namespace };
  }

  private fail(verb: string, kind: CrKind, namespace: string, name: string, error: unknown): ProvisioningError {
    const { status, message } = failureOf(error);
    const prefix = `cannot ${verb} ${kind} ${name} in ${namespace}`;
    return new ProvisioningError(status === undefined ? `${prefix}: ${message}` : `${prefix}: HTTP ${status}: ${message}`, { cause: error });
  }

  private async read(kind: CrKind, namespace: string, name: string): Promise<StoredResource | undefined> {
    try {
      return (await this.custom.getNamespacedCustomObject({ ...this.coordinates(kind, namespace), name })) as StoredResource;
    } catch (error) {
      if ((error as { code?: unknown }).code === 404) return undefined;
      throw this.fail('read', kind, namespace, name, error);
    }
  }

  /** False when another writer created it between the read and this create (409 AlreadyExists). */
  private async create(desired: MariaDbResource): Promise<boolean> {
    const { namespace, name } = desired.metadata;
    try {
      await this.custom.createNamespacedCustomObject({ ...this.coordinates(desired.kind, namespace), body: desired });
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code === 409) return false;
      throw this.fail('create', desired.kind, namespace, name, error);
    }
  }

  /**
   * Deletes the CR observed with `uid` (a precondition, so an object re-created under the name since the read is
   * not reached). True when it is gone or going (404 included); false when the name now holds another object (409).
   */
  private async delete(kind: CrKind, namespace: string, name: string, uid: string | undefined): Promise<boolean> {
    try {
      await this.custom.deleteNamespacedCustomObject({ ...this.coordinates(kind, namespace), name, ...(uid === undefined ? {} : { body: { preconditions: { uid } } }) });
      return true;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 404) return true;
      if (code === 409) return false;
      throw this.fail('delete', kind, namespace, name, error);
    }
  }

  /**
   * A merge patch of the rendered spec (and labels when they drifted): only the fields Regent renders change,
   * the mariadb-operator's defaults stay, and arrays (privileges) are replaced whole, as they must be.
   */
  private async patch(desired: MariaDbResource, labels: boolean): Promise<void> {
    const { namespace, name } = desired.metadata;
    const body = { ...(labels ? { metadata: { labels: desired.metadata.labels } } : {}), spec: desired.spec };
    try {
      await this.custom.patchNamespacedCustomObject({ ...this.coordinates(desired.kind, namespace), name, body }, MERGE_PATCH);
    } catch (error) {
      throw this.fail('update', desired.kind, namespace, name, error);
    }
  }
}
