/**
 * The NovaCompute controller's watch legs (src/nova/compute/watch-legs.ts; nova-operator.md, "Watches"), as tables:
 * each leg wakes exactly the pools the event concerns. Four pools throughout: openstack/az1 and openstack/az2 join
 * Nova a, openstack/az3 joins Nova b, other/az1 has az1's name and joins a Nova a in another namespace (so a match by
 * name alone, or by the Nova's name alone, would show).
 */
import { expect } from 'chai';
import type { NovaCompute } from '../../src/resources/nova-compute.js';
import { contractSecretLeg, poolOwnedLeg, poolWatchLegs, type PoolSnapshot } from '../../src/nova/compute/watch-legs.js';
import type { WatchedObject } from '../../src/nova/watch-legs.js';
import { POOL_LABEL } from '../../src/nova/compute/port.js';
import { legPath } from '../../src/nova/watches.js';

const NS = 'openstack';
const pool = (namespace: string, name: string, uid: string, nova: string): NovaCompute =>
  ({
    apiVersion: 'regent.dev/v1alpha1',
    kind: 'NovaCompute',
    metadata: { namespace, name, uid, resourceVersion: '1', generation: 1, creationTimestamp: '2025-01-01T00:00:00Z' },
    spec: { novaRef: { name: nova }, nodeSelector: { 'topology.kubernetes.io/zone': name } },
  }) as NovaCompute;
const AZ1 = pool(NS, 'az1', 'uid-az1', 'a');
const AZ2 = pool(NS, 'az2', 'uid-az2', 'a');
const AZ3 = pool(NS, 'az3', 'uid-az3', 'b');
const ELSEWHERE = pool('other', 'az1', 'uid-other-az1', 'a');
const POOLS: PoolSnapshot = [AZ1, AZ2, AZ3, ELSEWHERE];

const object = (namespace: string | undefined, name: string, labels?: Record<string, string>, ownerReferences?: NonNullable<WatchedObject['metadata']>['ownerReferences']): WatchedObject => ({
  metadata: { ...(namespace === undefined ? {} : { namespace }), name, ...(labels ? { labels } : {}), ...(ownerReferences ? { ownerReferences } : {}) },
});
const ownedBy = (p: NovaCompute, apiVersion = 'regent.dev/v1alpha1', kind = 'NovaCompute') => [{ apiVersion, kind, name: p.metadata.name, uid: p.metadata.uid! }];

describe('the NovaCompute watch legs (nova-operator.md, "Watches")', () => {
  describe('poolOwnedLeg: the DaemonSet and the ConfigMaps of a pool', () => {
    it('the pool label names the pool in the object’s namespace', () => {
      expect(poolOwnedLeg(object(NS, 'az1-nova-compute', { [POOL_LABEL]: 'az1' }), POOLS)).to.deep.equal(['openstack/az1']);
      expect(poolOwnedLeg(object(NS, 'az2-config-0123456789', { [POOL_LABEL]: 'az2' }), POOLS)).to.deep.equal(['openstack/az2']);
      expect(poolOwnedLeg(object('other', 'az1-nova-compute', { [POOL_LABEL]: 'az1' }), POOLS)).to.deep.equal(['other/az1']);
    });

    it('a NovaCompute owner reference names the pool of its uid; label and owner agreeing wake it once', () => {
      expect(poolOwnedLeg(object(NS, 'az3-nova-compute', undefined, ownedBy(AZ3)), POOLS)).to.deep.equal(['openstack/az3']);
      expect(poolOwnedLeg(object(NS, 'az1-nova-compute', { [POOL_LABEL]: 'az1' }, ownedBy(AZ1)), POOLS)).to.deep.equal(['openstack/az1']);
    });

    it('a ConfigMap of another pool wakes that pool only; one of a pool that is gone, or unlabelled, wakes none', () => {
      expect(poolOwnedLeg(object(NS, 'az2-config-0123456789', { [POOL_LABEL]: 'az2' }), [AZ1])).to.deep.equal([]);
      expect(poolOwnedLeg(object(NS, 'gone-config-0123456789', { [POOL_LABEL]: 'gone' }), POOLS)).to.deep.equal([]);
      expect(poolOwnedLeg(object(NS, 'nova-config-0123456789', { 'regent.dev/nova': 'a' }), POOLS)).to.deep.equal([]);
      expect(poolOwnedLeg(object(NS, 'empty', { [POOL_LABEL]: '' }), POOLS)).to.deep.equal([]);
    });

    it('another namespace wakes nothing: the label names a pool of the object’s namespace, a uid matches there only', () => {
      expect(poolOwnedLeg(object('third', 'az1-nova-compute', { [POOL_LABEL]: 'az1' }), POOLS)).to.deep.equal([]);
      expect(poolOwnedLeg(object('other', 'az3-nova-compute', undefined, ownedBy(AZ3)), POOLS)).to.deep.equal([]);
      expect(poolOwnedLeg(object(undefined, 'az1-nova-compute', { [POOL_LABEL]: 'az1' }), POOLS)).to.deep.equal([]);
    });

    it('an owner reference of another kind or group names no pool', () => {
      expect(poolOwnedLeg(object(NS, 'x', undefined, ownedBy(AZ1, 'regent.dev/v1alpha1', 'Nova')), POOLS)).to.deep.equal([]);
      expect(poolOwnedLeg(object(NS, 'x', undefined, ownedBy(AZ1, 'example.com/v1', 'NovaCompute')), POOLS)).to.deep.equal([]);
    });
  });

  describe('contractSecretLeg: the contract Secret <nova>-compute-config', () => {
    it('wakes every pool of <nova> in its namespace, and no other', () => {
      expect(contractSecretLeg(object(NS, 'a-compute-config'), POOLS)).to.deep.equal(['openstack/az1', 'openstack/az2']);
      expect(contractSecretLeg(object(NS, 'b-compute-config'), POOLS)).to.deep.equal(['openstack/az3']);
      expect(contractSecretLeg(object('other', 'a-compute-config'), POOLS)).to.deep.equal(['other/az1']);
    });

    it('a Secret of another name wakes nothing: the Nova’s other Secrets, the remote contract, a pool’s name', () => {
      for (const name of ['a-service-user', 'a-remote-compute-config', 'a', 'az1', 'compute-config', 'a-compute-config-old', 'xa-compute-config']) {
        expect(contractSecretLeg(object(NS, name), POOLS), name).to.deep.equal([]);
      }
    });

    it('another namespace wakes nothing; a Nova without pools wakes nothing', () => {
      expect(contractSecretLeg(object('third', 'a-compute-config'), POOLS)).to.deep.equal([]);
      expect(contractSecretLeg(object('other', 'b-compute-config'), POOLS)).to.deep.equal([]);
      expect(contractSecretLeg(object(NS, 'c-compute-config'), POOLS)).to.deep.equal([]);
      expect(contractSecretLeg(object(undefined, 'a-compute-config'), POOLS)).to.deep.equal([]);
    });
  });

  it('poolWatchLegs: DaemonSets and ConfigMaps by the pool label’s existence, Secrets unselected, all in the install namespace', () => {
    const legs = poolWatchLegs(NS);
    expect(legs.map((l) => [l.resource, legPath(l), l.labelSelector ?? null])).to.deep.equal([
      ['daemonsets.apps', `/apis/apps/v1/namespaces/${NS}/daemonsets`, POOL_LABEL],
      ['configmaps', `/api/v1/namespaces/${NS}/configmaps`, POOL_LABEL],
      ['secrets', `/api/v1/namespaces/${NS}/secrets`, null],
    ]);
    expect(legs.map((l) => l.wakes)).to.deep.equal([poolOwnedLeg, poolOwnedLeg, contractSecretLeg]);
  });
});
