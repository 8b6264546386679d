/**
 * What wakes a NovaCompute pool (nova-operator.md, "Watches"; src/controllers/nova-compute/wiring.ts), through the
 * wake graph the control plane's informers dispatch: its Nova's spec, installed release, contract and endpoint; a
 * rival pool's spec, deletion and held nodes; a Node's labels (the embedded store's Node informer).
 */
import { expect } from 'chai';
import { WakeGraph, type Wake } from '../../src/controllers/wake-graph.js';
import { kindTable } from '../../src/app/kinds.js';
import type { Lookups } from '../../src/controllers/kind.js';
import type { KindName, ObjectOf } from '../../src/resources/index.js';

let n = 0;
const object = (kind: KindName, name: string, spec: Record<string, unknown>, extra: { generation?: number; status?: unknown; labels?: Record<string, string> } = {}) =>
  ({
    apiVersion: kind === 'Node' ? 'v1' : 'regent.dev/v1alpha1',
    kind,
    metadata: { name, namespace: 'default', uid: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, generation: extra.generation ?? 1, ...(extra.labels ? { labels: extra.labels } : {}) },
    spec,
    ...(extra.status !== undefined ? { status: extra.status } : {}),
  }) as unknown as ObjectOf<KindName>;

const world = () => {
  const objects: ObjectOf<KindName>[] = [
    object('Nova', 'nova', {}, { status: { installedRelease: '2025.1' } }),
    object('NovaCompute', 'pool-a', { novaRef: { name: 'nova' }, nodeSelector: { pool: 'a' } }, { status: { nodes: [{ name: 'n1', phase: 'Active', zone: 'z1' }] } }),
    object('NovaCompute', 'pool-b', { novaRef: { name: 'nova' }, nodeSelector: { pool: 'b' } }),
    object('NovaCompute', 'pool-c', { novaRef: { name: 'other' }, nodeSelector: { pool: 'c' } }),
    object('Node', 'n1', {}, { labels: { pool: 'a' } }),
  ];
  const lookups: Lookups = {
    list: (kind) => objects.filter((o) => o.kind === kind),
    get: (kind, namespace, name) => objects.find((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name),
  };
  const find = (kind: KindName, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)!;
  const graph = new WakeGraph(kindTable(), lookups);
  for (const o of objects) graph.onChange({ type: 'ADDED', kind: o.kind as KindName, object: o });
  return { graph, find };
};

const show = (wakes: readonly Wake[]) => wakes.map((w) => `${w.kind} ${w.key}`).sort();
const modified = <T extends ObjectOf<KindName>>(o: T, change: Record<string, unknown>): T => ({ ...o, ...change }) as T;

describe('the wake graph of NovaCompute pools (issue 28)', () => {
  it('a Nova wakes its pools on a change of its installed release, contract or endpoint, not on another status write', () => {
    const { graph, find } = world();
    const nova = find('Nova', 'nova');
    const bumped = modified(nova, { status: { installedRelease: '2025.2' } });
    expect(show(graph.onChange({ type: 'MODIFIED', kind: 'Nova', object: bumped }).wakes)).to.include.members(['NovaCompute default/pool-a', 'NovaCompute default/pool-b']);
    expect(show(graph.onChange({ type: 'MODIFIED', kind: 'Nova', object: bumped }).wakes), 'the same again').to.not.include('NovaCompute default/pool-a');
    const published = modified(bumped, { status: { installedRelease: '2025.2', computeConfigSecretRef: { name: 'nova-compute-config' } } });
    expect(show(graph.onChange({ type: 'MODIFIED', kind: 'Nova', object: published }).wakes)).to.include('NovaCompute default/pool-b');
    const phase = modified(published, { status: { installedRelease: '2025.2', computeConfigSecretRef: { name: 'nova-compute-config' }, phase: 'Ready' } });
    expect(show(graph.onChange({ type: 'MODIFIED', kind: 'Nova', object: phase }).wakes).filter((w) => w.startsWith('NovaCompute'))).to.deep.equal([]);
  });

  it('a pool wakes the other pools of its Nova when the nodes it holds change, and never a pool of another Nova', () => {
    const { graph, find } = world();
    const a = find('NovaCompute', 'pool-a');
    const took = modified(a, { status: { nodes: [{ name: 'n1', phase: 'Active', zone: 'z1' }, { name: 'n2', phase: 'Pending', zone: 'z1' }] } });
    const wakes = show(graph.onChange({ type: 'MODIFIED', kind: 'NovaCompute', object: took }).wakes);
    expect(wakes).to.include('NovaCompute default/pool-b');
    expect(wakes).to.not.include('NovaCompute default/pool-c');
    expect(wakes, 'its own status write does not wake itself').to.not.include('NovaCompute default/pool-a');
    const conditionsOnly = modified(took, { status: { ...(took.status as object), conditions: [{ type: 'Ready', status: 'True' }] } });
    expect(show(graph.onChange({ type: 'MODIFIED', kind: 'NovaCompute', object: conditionsOnly }).wakes), 'a condition change is no news to its rivals').to.deep.equal([]);
  });

  it('a Node label change wakes the pools that select or hold it', () => {
    const { graph, find } = world();
    const node = find('Node', 'n1');
    const relabelled = { ...node, metadata: { ...node.metadata, labels: { pool: 'b' } } } as typeof node;
    expect(show(graph.onChange({ type: 'MODIFIED', kind: 'Node', object: relabelled }).wakes)).to.deep.equal(['NovaCompute default/pool-a', 'NovaCompute default/pool-b']);
    expect(show(graph.onChange({ type: 'MODIFIED', kind: 'Node', object: { ...relabelled } }).wakes), 'the same labels again').to.deep.equal([]);
  });
});
