/**
 * The Nova controller's watch legs (src/nova/watch-legs.ts; nova-operator.md, "Watches and indexes"), as tables: each
 * leg wakes exactly the Nova the event concerns and no other. Three Novas throughout: openstack/a and openstack/b share
 * a namespace, other/a has a's name in another namespace (so a match by name alone would show). The CR's own watch is
 * held to its filter through the control plane's real wake graph (src/controllers/wake-graph.ts) with the Nova wiring.
 */
import { expect } from 'chai';
import type { Nova, NovaSpec } from '../../src/resources/nova.js';
import {
  clusterSecretStoreLeg,
  mariaDBLeg,
  novaSpecChanged,
  ownedLeg,
  secretIndex,
  secretLeg,
  secretStoreLeg,
  targetLeg,
  type NovaSnapshot,
  type WatchedObject,
} from '../../src/nova/watch-legs.js';
import { WakeGraph } from '../../src/controllers/wake-graph.js';
import { novaWiring } from '../../src/controllers/nova/wiring.js';
import type { Lookups } from '../../src/controllers/kind.js';
import type { KindName, ObjectOf } from '../../src/resources/index.js';

const spec = (prefix: string, extra: Partial<NovaSpec> = {}): NovaSpec => ({
  image: 'ghcr.io/c5c3/nova:2025.1',
  openStackRelease: '2025.1',
  database: {
    api: { clusterRef: { name: `${prefix}-mariadb` }, database: 'nova_api', secretRef: { name: `${prefix}-api-db` } },
    cell: { clusterRef: { name: `${prefix}-mariadb` }, database: 'nova', secretRef: { name: `${prefix}-cell-db` } },
  },
  messaging: { secretRef: { name: `${prefix}-rabbit`, key: 'url' } },
  serviceUser: { secretRef: { name: `${prefix}-service-user` } },
  metadata: { sharedSecretRef: { name: `${prefix}-metadata` } },
  ...extra,
});

const nova = (namespace: string, name: string, uid: string, novaSpec: NovaSpec): Nova => ({
  apiVersion: 'regent.dev/v1alpha1',
  kind: 'Nova',
  metadata: { namespace, name, uid, resourceVersion: '1', generation: 1, creationTimestamp: '2025-01-01T00:00:00Z' },
  spec: novaSpec,
});

const A = nova('openstack', 'a', 'uid-a', spec('a'));
const B = nova('openstack', 'b', 'uid-b', spec('b'));
const C = nova('other', 'a', 'uid-c', spec('a'));
const NOVAS: NovaSnapshot = [A, B, C];

const owner = (uid: string, apiVersion = 'regent.dev/v1alpha1', kind = 'Nova') => ({ apiVersion, kind, name: 'whatever', uid, controller: true, blockOwnerDeletion: true });
const object = (namespace: string, name: string, metadata: Partial<NonNullable<WatchedObject['metadata']>> = {}): WatchedObject => ({ metadata: { namespace, name, ...metadata } });

describe('the Nova watch legs (nova-operator.md, "Watches and indexes")', () => {
  describe('ownedLeg: the owned set', () => {
    const cases: Array<{ rule: string; object: WatchedObject; wakes: string[] }> = [
      { rule: 'an object whose owner reference is a Nova (regent.dev, its uid) wakes that Nova and no other', object: object('openstack', 'a-api', { ownerReferences: [owner('uid-a')] }), wakes: ['openstack/a'] },
      { rule: "the uid of a Nova in another namespace wakes none (an owner reference does not cross a namespace)", object: object('openstack', 'x', { ownerReferences: [owner('uid-c')] }), wakes: [] },
      { rule: 'an owner reference of another kind with a Nova’s uid wakes none', object: object('openstack', 'x', { ownerReferences: [owner('uid-a', 'batch/v1', 'CronJob')] }), wakes: [] },
      { rule: 'an owner reference to a Nova of another API group wakes none', object: object('openstack', 'x', { ownerReferences: [owner('uid-a', 'example.com/v1')] }), wakes: [] },
      { rule: 'an owner reference to a uid no Nova has wakes none', object: object('openstack', 'x', { ownerReferences: [owner('uid-gone')] }), wakes: [] },
      { rule: 'the regent.dev/nova label wakes the Nova of that name in the object’s namespace (what Regent labels but does not own)', object: object('openstack', 'a-api-db-connection', { labels: { 'regent.dev/nova': 'a' } }), wakes: ['openstack/a'] },
      { rule: 'the same label in the other namespace wakes that namespace’s Nova only', object: object('other', 'a-db-archive-123', { labels: { 'regent.dev/nova': 'a' } }), wakes: ['other/a'] },
      { rule: 'a label naming no known Nova wakes none', object: object('openstack', 'x', { labels: { 'regent.dev/nova': 'gone' } }), wakes: [] },
      { rule: 'an owner reference and a label naming the same Nova wake it once', object: object('openstack', 'b-api', { ownerReferences: [owner('uid-b')], labels: { 'regent.dev/nova': 'b' } }), wakes: ['openstack/b'] },
      { rule: 'an object neither owned nor labelled wakes none', object: object('openstack', 'someone-elses', { labels: { app: 'x' } }), wakes: [] },
    ];
    for (const c of cases) it(c.rule, () => expect(ownedLeg(c.object, NOVAS)).to.deep.equal(c.wakes));

    it('the rule is the same for every owned kind (Deployment, Service, ConfigMap, Secret, PDB, HPA, NetworkPolicy, Job, CronJob, HTTPRoute)', () => {
      for (const kind of ['Deployment', 'Service', 'ConfigMap', 'Secret', 'PodDisruptionBudget', 'HorizontalPodAutoscaler', 'NetworkPolicy', 'Job', 'CronJob', 'HTTPRoute']) {
        expect(ownedLeg({ ...object('openstack', `b-${kind}`, { ownerReferences: [owner('uid-b')] }), kind } as WatchedObject, NOVAS), kind).to.deep.equal(['openstack/b']);
      }
    });
  });

  describe('targetLeg: the children on a target cluster, by the uid label (no owner reference crosses a cluster)', () => {
    // E and F name the target edge, G the target core; D (no target) has the uid of nothing projected
    const E = nova('openstack', 'e', 'uid-e', spec('e', { targetClusterRef: { name: 'edge' } }));
    const F = nova('other', 'e', 'uid-f', spec('e', { targetClusterRef: { name: 'edge' } }));
    const G = nova('openstack', 'g', 'uid-g', spec('g', { targetClusterRef: { name: 'core' } }));
    const ON_TARGET: NovaSnapshot = [...NOVAS, E, F, G];
    const uid = (value: string, extra: Record<string, string> = {}) => ({ labels: { 'regent.dev/nova-uid': value, ...extra } });
    const cases: Array<{ rule: string; object: WatchedObject; wakes: string[] }> = [
      { rule: 'the uid label wakes the Nova of that uid, which names this target', object: object('openstack', 'e-api', uid('uid-e', { 'regent.dev/nova': 'e' })), wakes: ['openstack/e'] },
      { rule: 'the uid, not the namespace or the name label, decides: a Nova of another namespace naming the same target', object: object('openstack', 'e-api', uid('uid-f', { 'regent.dev/nova': 'e' })), wakes: ['other/e'] },
      { rule: 'an object without the uid label wakes none (the name label alone or an owner reference are not read on a target)', object: object('openstack', 'e-api', { labels: { 'regent.dev/nova': 'e' }, ownerReferences: [owner('uid-e')] }), wakes: [] },
      { rule: 'another uid than any Nova’s wakes none', object: object('openstack', 'x', uid('uid-gone')), wakes: [] },
      { rule: 'the uid of a Nova that names another target wakes none here', object: object('openstack', 'g-api', uid('uid-g')), wakes: [] },
      { rule: 'the uid of a Nova that names no target wakes none (what it left on this target)', object: object('openstack', 'a-api', uid('uid-a')), wakes: [] },
      { rule: 'an empty uid label wakes none', object: object('openstack', 'x', uid('')), wakes: [] },
    ];
    for (const c of cases) it(c.rule, () => expect(targetLeg('edge')(c.object, ON_TARGET)).to.deep.equal(c.wakes));

    it('the rule is the same for every owned kind, and for a Secret carrying the label', () => {
      for (const kind of ['Deployment', 'Service', 'ConfigMap', 'Secret', 'PodDisruptionBudget', 'HorizontalPodAutoscaler', 'NetworkPolicy', 'Job', 'CronJob', 'HTTPRoute']) {
        expect(targetLeg('edge')({ ...object('openstack', `e-${kind}`, uid('uid-e')), kind } as WatchedObject, ON_TARGET), kind).to.deep.equal(['openstack/e']);
      }
    });
  });

  describe('secretIndex: every Secret name a Nova references', () => {
    it('both database credentials, the service-user password, the metadata shared secret and the brownfield messaging secretRef', () => {
      expect(secretIndex(A)).to.deep.equal(['a-api-db', 'a-cell-db', 'a-metadata', 'a-rabbit', 'a-service-user']);
    });

    it('a database block whose tls is enabled adds its CA bundle and client certificate; a disabled TLS block contributes nothing', () => {
      const s = spec('t');
      const tls = (enabled: boolean, ca: string, cert: string) => ({ enabled, caSecretRef: { name: ca }, clientCertSecretRef: { name: cert } });
      const n = nova('openstack', 't', 'uid-t', { ...s, database: { api: { ...s.database.api, tls: tls(true, 'api-ca', 'api-cert') }, cell: { ...s.database.cell, tls: tls(false, 'cell-ca', 'cell-cert') } } });
      expect(secretIndex(n)).to.include.members(['api-ca', 'api-cert']);
      expect(secretIndex(n)).to.not.include.members(['cell-ca']);
      expect(secretIndex(n)).to.not.include('cell-cert');
    });

    it('the broker CA bundle only while messaging.tls is enabled', () => {
      const on = nova('openstack', 'm', 'uid-m', spec('m', { messaging: { secretRef: { name: 'm-rabbit' }, tls: { enabled: true, caSecretRef: { name: 'broker-ca' } } } }));
      const off = nova('openstack', 'm', 'uid-m', spec('m', { messaging: { secretRef: { name: 'm-rabbit' }, tls: { enabled: false, caSecretRef: { name: 'broker-ca' } } } }));
      expect(secretIndex(on)).to.include('broker-ca');
      expect(secretIndex(off)).to.not.include('broker-ca');
    });

    it('a managed bus (clusterRef) indexes no messaging Secret; remoteCompute.transportURLSecretRef while that block is set', () => {
      const managed = nova('openstack', 'r', 'uid-r', spec('r', { messaging: { clusterRef: { name: 'rabbitmq' } }, remoteCompute: { transportURLSecretRef: { name: 'remote-url', key: 'url' } } }));
      expect(secretIndex(managed)).to.deep.equal(['r-api-db', 'r-cell-db', 'r-metadata', 'r-service-user', 'remote-url']);
      expect(secretIndex(nova('openstack', 'r', 'uid-r', spec('r')))).to.not.include('remote-url');
    });

    it('is deduplicated: two references to one Secret index it once', () => {
      const s = spec('d');
      const shared = nova('openstack', 'd', 'uid-d', { ...s, database: { api: { ...s.database.api, secretRef: { name: 'db' } }, cell: { ...s.database.cell, secretRef: { name: 'db' } } } });
      expect(secretIndex(shared).filter((n) => n === 'db')).to.have.length(1);
    });
  });

  describe('secretLeg: referenced by the index, or owned', () => {
    const tlsOff = nova('openstack', 't', 'uid-t', {
      ...spec('t'),
      database: { ...spec('t').database, cell: { ...spec('t').database.cell, tls: { enabled: false, caSecretRef: { name: 'cell-ca' } } } },
    });
    const sharedBoth = [A, nova('openstack', 'b', 'uid-b', spec('b', { serviceUser: { secretRef: { name: 'a-service-user' } } })), C];
    const cases: Array<{ rule: string; secret: WatchedObject; novas?: NovaSnapshot; wakes: string[] }> = [
      { rule: 'a Secret a Nova references wakes that Nova, not the same name’s Nova in another namespace', secret: object('openstack', 'a-cell-db'), wakes: ['openstack/a'] },
      { rule: 'the same name in the other namespace wakes that namespace’s Nova only', secret: object('other', 'a-cell-db'), wakes: ['other/a'] },
      { rule: 'a Secret two Novas reference wakes both', secret: object('openstack', 'a-service-user'), novas: sharedBoth, wakes: ['openstack/a', 'openstack/b'] },
      { rule: 'a disabled TLS block’s CA Secret wakes none', secret: object('openstack', 'cell-ca'), novas: [tlsOff], wakes: [] },
      { rule: 'a derived Secret (labelled regent.dev/nova, owner kept as regent.dev/owner-uid) wakes its Nova', secret: object('openstack', 'b-db-connection', { labels: { 'regent.dev/nova': 'b', 'regent.dev/owner-uid': 'uid-b' } }), wakes: ['openstack/b'] },
      { rule: 'the owner-uid label alone wakes the Nova with that uid', secret: object('openstack', 'b-compute-config', { labels: { 'regent.dev/owner-uid': 'uid-b' } }), wakes: ['openstack/b'] },
      { rule: 'an owner reference to a Nova wakes it', secret: object('openstack', 'b-owned', { ownerReferences: [owner('uid-b')] }), wakes: ['openstack/b'] },
      { rule: 'a Secret nobody references or owns wakes none', secret: object('openstack', 'unrelated'), wakes: [] },
    ];
    for (const c of cases) it(c.rule, () => expect(secretLeg(c.secret, c.novas ?? NOVAS)).to.deep.equal(c.wakes));
  });

  describe('mariaDBLeg: one leg for both clusterRefs', () => {
    const split = nova('openstack', 's', 'uid-s', {
      ...spec('s'),
      database: { api: { ...spec('s').database.api, clusterRef: { name: 'api-cluster' } }, cell: { ...spec('s').database.cell, clusterRef: { name: 'cell-cluster' } } },
    });
    const cases: Array<{ rule: string; cluster: WatchedObject; wakes: string[] }> = [
      { rule: 'both clusterRefs naming the cluster enqueue the Nova once', cluster: object('openstack', 'a-mariadb'), wakes: ['openstack/a'] },
      { rule: 'the api block’s cluster wakes the Nova', cluster: object('openstack', 'api-cluster'), wakes: ['openstack/s'] },
      { rule: 'the cell block’s cluster wakes the Nova', cluster: object('openstack', 'cell-cluster'), wakes: ['openstack/s'] },
      { rule: 'a cluster of the same name in another namespace wakes that namespace’s Nova only', cluster: object('other', 'a-mariadb'), wakes: ['other/a'] },
      { rule: 'a cluster no Nova names wakes none', cluster: object('openstack', 'mariadb-unused'), wakes: [] },
    ];
    for (const c of cases) it(c.rule, () => expect(mariaDBLeg(c.cluster, [...NOVAS, split])).to.deep.equal(c.wakes));
  });

  describe('secretStoreLeg and clusterSecretStoreLeg: the store a Nova selects', () => {
    const namespaced = nova('openstack', 'ns', 'uid-ns', spec('ns', { secretStoreRef: { name: 'vault', kind: 'SecretStore' } }));
    const kindless = nova('openstack', 'kl', 'uid-kl', spec('kl', { secretStoreRef: { name: 'vault' } }));
    const clusterVault = nova('openstack', 'cv', 'uid-cv', spec('cv', { secretStoreRef: { name: 'vault', kind: 'ClusterSecretStore' } }));
    const elsewhere = nova('other', 'ns', 'uid-ons', spec('ns', { secretStoreRef: { name: 'vault', kind: 'SecretStore' } }));
    const novas = [namespaced, kindless, clusterVault, elsewhere, A, C];

    it('a SecretStore wakes the Novas of its namespace selecting it by name, a ref without a kind included; not a ClusterSecretStore’s selector, not another namespace', () => {
      expect(secretStoreLeg(object('openstack', 'vault'), novas)).to.deep.equal(['openstack/kl', 'openstack/ns']);
      expect(secretStoreLeg(object('other', 'vault'), novas)).to.deep.equal(['other/ns']);
      expect(secretStoreLeg(object('openstack', 'openbao-cluster-store'), novas), 'the default is a ClusterSecretStore').to.deep.equal([]);
    });

    it('a ClusterSecretStore wakes the Novas of every namespace selecting it; an unset ref selects the default openbao-cluster-store', () => {
      expect(clusterSecretStoreLeg({ metadata: { name: 'vault' } }, novas)).to.deep.equal(['openstack/cv']);
      expect(clusterSecretStoreLeg({ metadata: { name: 'openbao-cluster-store' } }, novas)).to.deep.equal(['openstack/a', 'other/a']);
      expect(clusterSecretStoreLeg({ metadata: { name: 'unused' } }, novas)).to.deep.equal([]);
    });
  });

  describe("the CR's own watch filters status-only updates", () => {
    const withStatus = (n: Nova, generation: number, extra: Partial<Nova['metadata']> = {}): Nova => ({ ...n, metadata: { ...n.metadata, generation, resourceVersion: String(Math.random()), ...extra }, status: { phase: 'Provisioning' } as Nova['status'] });

    it('novaSpecChanged: a status-only update is false; a new generation, a deletion requested or changed finalizers are true', () => {
      expect(novaSpecChanged(A, withStatus(A, 1)), 'status only').to.equal(false);
      expect(novaSpecChanged(A, withStatus(A, 2)), 'spec change').to.equal(true);
      expect(novaSpecChanged(A, withStatus(A, 1, { deletionTimestamp: '2025-01-02T00:00:00Z' })), 'deletion').to.equal(true);
      expect(novaSpecChanged(A, withStatus(A, 1, { finalizers: ['nova.openstack.c5c3.io/finalizer'] })), 'finalizers').to.equal(true);
    });

    it('the control plane’s wake graph with the Nova wiring: a status-only MODIFIED wakes no Nova, a spec change wakes exactly it', () => {
      const lookups: Lookups = { list: () => [], get: () => undefined };
      const graph = new WakeGraph([novaWiring], lookups);
      const change = (type: 'ADDED' | 'MODIFIED', n: Nova) => graph.onChange({ type, kind: 'Nova', object: n as ObjectOf<KindName> }).wakes.map((w) => `${w.kind}:${w.key}`);
      expect(change('ADDED', A)).to.deep.equal(['Nova:openstack/a']);
      expect(change('MODIFIED', withStatus(A, 1)), 'status only').to.deep.equal([]);
      expect(change('MODIFIED', withStatus(A, 2)), 'spec change').to.deep.equal(['Nova:openstack/a']);
    });
  });
});
