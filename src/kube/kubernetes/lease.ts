/**
 * A coordination.k8s.io/v1 Lease as a LeaseBackend. Updates are PUTs carrying the read's
 * resourceVersion, so two candidates racing for the lease cannot both win: the loser gets 409.
 * leaseDurationSeconds is whole seconds (rounded up); times are MicroTime (six fractional digits),
 * which V1MicroTime serialises.
 */
import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import type { LeaseBackend, LeaseRecord, StoredLease } from '../leader/lease.js';
import { NotFound } from '../errors.js';
import { toResourceError } from './errors.js';

const micro = (value: string | undefined): V1MicroTime | undefined => (value === undefined ? undefined : new V1MicroTime(value));
const text = (value: unknown): string | undefined => (value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : undefined);

export class KubernetesLeaseBackend implements LeaseBackend {
  readonly description: string;
  private readonly api: CoordinationV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly namespace: string,
    private readonly name: string,
  ) {
    this.description = `Lease ${namespace}/${name}`;
    this.api = kubeConfig.makeApiClient(CoordinationV1Api);
  }

  private target() {
    return { kind: 'Lease', namespace: this.namespace, name: this.name };
  }

  private body(record: LeaseRecord, resourceVersion?: string): V1Lease {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace, ...(resourceVersion ? { resourceVersion } : {}) },
      spec: {
        holderIdentity: record.holderIdentity,
        leaseDurationSeconds: Math.ceil(record.leaseDurationMs / 1000),
        acquireTime: micro(record.acquireTime),
        renewTime: micro(record.renewTime),
        leaseTransitions: record.leaseTransitions,
      },
    };
  }

  private stored(lease: V1Lease): StoredLease {
    const spec = lease.spec ?? {};
    const acquireTime = text(spec.acquireTime);
    const renewTime = text(spec.renewTime);
    return {
      holderIdentity: spec.holderIdentity ?? '',
      leaseDurationMs: (spec.leaseDurationSeconds ?? 0) * 1000,
      ...(acquireTime ? { acquireTime } : {}),
      ...(renewTime ? { renewTime } : {}),
      leaseTransitions: spec.leaseTransitions ?? 0,
      version: lease.metadata?.resourceVersion ?? '',
    };
  }

  async get(): Promise<StoredLease | undefined> {
    try {
      return this.stored(await this.api.readNamespacedLease({ name: this.name, namespace: this.namespace }));
    } catch (error) {
      const mapped = toResourceError(error, this.target());
      if (mapped instanceof NotFound) return undefined;
      throw mapped;
    }
  }

  async create(record: LeaseRecord): Promise<StoredLease> {
    try {
      return this.stored(await this.api.createNamespacedLease({ namespace: this.namespace, body: this.body(record) }));
    } catch (error) {
      throw toResourceError(error, this.target());
    }
  }

  async update(record: LeaseRecord, version: string): Promise<StoredLease> {
    try {
      return this.stored(await this.api.replaceNamespacedLease({ name: this.name, namespace: this.namespace, body: this.body(record, version) }));
    } catch (error) {
      throw toResourceError(error, this.target());
    }
  }
}
