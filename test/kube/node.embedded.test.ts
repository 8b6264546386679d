/**
 * Core v1 Nodes on the embedded default (issue 28): `regent apply -f node.yaml` stores a cluster-scoped Node, the
 * resource source lists and gets it with its labels whatever namespace is named, `regent get nodes` prints it with
 * no namespace, and the Kubernetes source refuses the kind (Nodes are the API server's there).
 */
import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyManifests, deleteResource, describeApplyOutcome, getResources } from '../../src/kube/cli/manifests.js';
import { formatTable } from '../../src/kube/cli/output.js';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { BadRequest, Invalid } from '../../src/kube/errors.js';
import { resolveKind } from '../../src/kube/kinds.js';
import { openKubernetesSource } from '../../src/kube/kubernetes/source.js';
import { CLUSTER_NAMESPACE, KINDS, KIND_NAMES, validateNode, type Node } from '../../src/resources/index.js';

const NODE = `apiVersion: v1
kind: Node
metadata:
  name: compute-1
  labels:
    node-role.kubernetes.io/compute: "true"
    topology.kubernetes.io/zone: az1
  annotations:
    nova.openstack.cloud.sap/custom-traits: CUSTOM_GPU
spec:
  providerID: kvm://compute-1
  unschedulable: false
  podCIDR: 10.244.1.0/24
  configSource: {kind: none}
`;

describe('embedded Nodes (core v1, cluster-scoped)', () => {
  let dir: string;
  let source: EmbeddedResourceSource;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-nodes-'));
    source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  });
  afterEach(async () => {
    await source.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('apply -f node.yaml stores the Node; list and get read it back with its labels and annotations, unknown spec fields kept', async () => {
    const [outcome] = await applyManifests(source, NODE);
    expect(outcome && describeApplyOutcome(outcome)).to.equal('node/compute-1 created');
    expect(outcome?.warnings).to.deep.equal([]);
    const { items } = await source.list('Node');
    expect(items.map((n) => n.metadata.name)).to.deep.equal(['compute-1']);
    const node = (await source.get('Node', CLUSTER_NAMESPACE, 'compute-1')) as Node;
    expect(node.apiVersion).to.equal('v1');
    expect(node.kind).to.equal('Node');
    expect(node.metadata.labels).to.deep.equal({ 'node-role.kubernetes.io/compute': 'true', 'topology.kubernetes.io/zone': 'az1' });
    expect(node.metadata.annotations).to.deep.equal({ 'nova.openstack.cloud.sap/custom-traits': 'CUSTOM_GPU' });
    expect(node.spec).to.deep.equal({ providerID: 'kvm://compute-1', unschedulable: false, podCIDR: '10.244.1.0/24', configSource: { kind: 'none' } });
    expect((await applyManifests(source, NODE))[0]?.action).to.equal('unchanged');
  });

  it('is cluster-scoped: any namespace a caller names finds the one Node, and a list in a namespace lists every Node', async () => {
    await applyManifests(source, NODE.replace('  name: compute-1\n', '  name: compute-1\n  namespace: kube-system\n'));
    expect((await source.get('Node', 'some-namespace', 'compute-1'))?.metadata.namespace).to.equal(CLUSTER_NAMESPACE);
    expect((await source.list('Node', 'elsewhere')).items).to.have.length(1);
    await applyManifests(source, NODE, { namespace: 'other' }); // the same Node again
    expect((await source.list('Node')).items).to.have.length(1);
  });

  it('a Node needs no spec, and a relabel is an apply (labels merged, as for every kind)', async () => {
    await applyManifests(source, 'apiVersion: v1\nkind: Node\nmetadata:\n  name: compute-2\n  labels: {pool: a}\n');
    expect((await source.get('Node', CLUSTER_NAMESPACE, 'compute-2'))?.spec).to.deep.equal({});
    await applyManifests(source, 'apiVersion: v1\nkind: Node\nmetadata:\n  name: compute-2\n  labels: {zone: az2}\n');
    expect((await source.get('Node', CLUSTER_NAMESPACE, 'compute-2'))?.metadata.labels).to.deep.equal({ pool: 'a', zone: 'az2' });
  });

  it('a Node without a name, with a bad label or with a wrong apiVersion is refused', async () => {
    const unnamed = await applyManifests(source, 'apiVersion: v1\nkind: Node\nmetadata:\n  labels: {pool: a}\n').catch((e: unknown) => e);
    expect(unnamed).to.be.instanceOf(Invalid);
    expect((unnamed as Invalid).message).to.match(/metadata\.name: Required value/);
    const badLabel = await applyManifests(source, 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {pool: "not a value"}\n').catch((e: unknown) => e);
    expect(badLabel).to.be.instanceOf(Invalid);
    const wrongVersion = await applyManifests(source, 'apiVersion: regent.dev/v1alpha1\nkind: Node\nmetadata:\n  name: n1\n').catch((e: unknown) => e);
    expect(wrongVersion).to.be.instanceOf(BadRequest);
    expect((wrongVersion as BadRequest).message).to.match(/or apiVersion v1 and kind Secret or Node/);
    expect(validateNode({ apiVersion: 'v1', kind: 'Node', metadata: {} }).ok).to.equal(false);
    expect((await source.list('Node')).items).to.deep.equal([]);
  });

  it('regent get nodes: resolves the names kubectl takes and prints no namespace; delete node works', async () => {
    expect(['node', 'nodes', 'Node', 'no'].map(resolveKind)).to.deep.equal(['Node', 'Node', 'Node', 'Node']);
    await applyManifests(source, NODE);
    const listed = await getResources(source, 'nodes');
    const now = new Date(Date.parse(listed.items[0]!.metadata.creationTimestamp) + 5000);
    expect(formatTable(listed.kind, listed.items, { showNamespace: true, now })).to.equal(['NAME        UNSCHEDULABLE   AGE', 'compute-1   false           5s'].join('\n'));
    expect((await getResources(source, 'node', 'compute-1')).items).to.have.length(1);
    expect((await deleteResource(source, 'node', 'compute-1')).message).to.equal('node "compute-1" deleted');
    expect((await source.list('Node')).items).to.deep.equal([]);
  });

  it('is no Regent kind: not in KINDS or KIND_NAMES (no CRD, no RBAC, no informer, no status)', () => {
    expect(KINDS.map((k) => k.kind)).to.not.include('Node');
    expect(KIND_NAMES).to.not.include('Node');
    expect(KIND_NAMES).to.include('NovaCompute');
  });

  it('the Kubernetes source refuses the kind: on a cluster Nodes are read through the core API', async () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({ clusters: [{ name: 'c', server: 'https://127.0.0.1:9' }], users: [{ name: 'u' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' });
    const kube = openKubernetesSource({ kubeConfig });
    try {
      const error = await kube.list('Node').catch((e: unknown) => e);
      expect(error).to.be.instanceOf(BadRequest);
      expect((error as Error).message).to.match(/Node is not a Regent custom resource/);
    } finally {
      await kube.close();
    }
  });
});
