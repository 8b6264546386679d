/**
 * The wake graph (src/controllers/wake-graph.ts), declared by the kinds of the kind table (src/app/kinds.ts): which
 * passes an informer event wakes. Each case states one rule the control plane's informer callback used to hard-code.
 */
import { expect } from 'chai';
import { WakeGraph, wakeGraphDot, type Wake } from '../../src/controllers/wake-graph.js';
import { kindTable } from '../../src/app/kinds.js';
import type { Lookups } from '../../src/controllers/kind.js';
import type { KindName, ObjectOf } from '../../src/resources/index.js';

let n = 0;
const object = (kind: KindName, name: string, spec: Record<string, unknown>, extra: { namespace?: string; generation?: number; status?: unknown; deleting?: boolean } = {}) =>
  ({
    apiVersion: 'regent.dev/v1alpha1',
    kind,
    metadata: { name, namespace: extra.namespace ?? 'default', uid: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, generation: extra.generation ?? 1, ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec,
    ...(extra.status !== undefined ? { status: extra.status } : {}),
  }) as unknown as ObjectOf<KindName>;

const world = () => {
  const objects: ObjectOf<KindName>[] = [
    object('Region', 'region-one', {}),
    object('Identity', 'acme', { regionRef: { name: 'region-one' } }),
    object('Identity', 'other', { regionRef: { name: 'region-two' } }),
    object('Network', 'net-a', { identityRef: { name: 'acme' } }),
    object('Server', 'web-1', { networkID: 'net-a', volumes: [{ volumeID: 'data-1' }], securityGroups: ['web-sg'] }),
    object('Server', 'web-9', { networkID: 'net-a' }, { namespace: 'elsewhere' }),
    object('Volume', 'data-1', { networkID: 'net-a' }),
    object('LoadBalancer', 'web-lb', { networkID: 'net-a' }),
    object('SecurityGroup', 'web-sg', { networkID: 'net-a' }),
  ];
  const lookups: Lookups = {
    list: (kind) => objects.filter((o) => o.kind === kind),
    get: (kind, namespace, name) => objects.find((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name),
  };
  const find = (kind: KindName, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name) as ObjectOf<KindName>;
  return { graph: new WakeGraph(kindTable(), lookups), find };
};

const show = (wakes: readonly Wake[]) => wakes.map((w) => `${w.kind} ${w.key}`).sort();

describe('the wake graph (issue 25: declared by each kind, dispatched in one place)', () => {
  it('a Network\'s status write wakes the Servers, Volumes, LoadBalancers and SecurityGroups on it in its namespace, not itself', () => {
    const { graph, find } = world();
    const network = find('Network', 'net-a');
    graph.onChange({ type: 'ADDED', kind: 'Network', object: network });
    const { wakes, spec } = graph.onChange({ type: 'MODIFIED', kind: 'Network', object: { ...network, status: { phase: 'Ready' } } as never });
    expect(spec).to.equal(false);
    expect(show(wakes)).to.deep.equal(['LoadBalancer default/web-lb', 'SecurityGroup default/web-sg', 'Server default/web-1', 'Volume default/data-1']);
  });

  it('a new spec generation wakes the resource itself, and what its other changes wake', () => {
    const { graph, find } = world();
    const network = find('Network', 'net-a');
    graph.onChange({ type: 'ADDED', kind: 'Network', object: network });
    const changed = { ...network, metadata: { ...network.metadata, generation: 2 } } as ObjectOf<KindName>;
    const { wakes, spec } = graph.onChange({ type: 'MODIFIED', kind: 'Network', object: changed });
    expect(spec).to.equal(true);
    expect(show(wakes)).to.include('Network default/net-a');
  });

  it('a Server whose remaining provider-create gates changed (the API\'s status-only write) wakes itself; another status write does not', () => {
    const { graph, find } = world();
    const server = find('Server', 'web-1');
    const gated = { ...server, spec: { ...(server.spec as object), providerCreateGates: [{ name: 'dns' }] } } as ObjectOf<KindName>;
    graph.onChange({ type: 'ADDED', kind: 'Server', object: gated });
    const unrelated = graph.onChange({ type: 'MODIFIED', kind: 'Server', object: { ...gated, status: { phase: 'Pending' } } as never });
    expect(show(unrelated.wakes)).to.deep.equal([]);
    const satisfied = graph.onChange({ type: 'MODIFIED', kind: 'Server', object: { ...gated, status: { providerCreateGates: [{ name: 'dns', satisfied: true }] } } as never });
    expect(show(satisfied.wakes)).to.deep.equal(['Server default/web-1']);
  });

  it('a dependent gone (Network, Server, Volume, LoadBalancer, SecurityGroup) wakes every Identity of its namespace: a deleting one may proceed', () => {
    const { graph, find } = world();
    for (const [kind, name] of [['Server', 'web-1'], ['Volume', 'data-1'], ['SecurityGroup', 'web-sg'], ['LoadBalancer', 'web-lb'], ['Network', 'net-a']] as const) {
      expect(show(graph.onChange({ type: 'DELETED', kind, object: find(kind, name) }).wakes), kind).to.deep.equal(['Identity default/acme', 'Identity default/other']);
    }
  });

  it('a Region\'s spec change wakes itself and the Identities naming it; its status writes wake nothing', () => {
    const { graph, find } = world();
    const region = find('Region', 'region-one');
    expect(show(graph.onChange({ type: 'ADDED', kind: 'Region', object: region }).wakes)).to.deep.equal(['Identity default/acme', 'Region default/region-one']);
    expect(show(graph.onChange({ type: 'MODIFIED', kind: 'Region', object: { ...region, status: { phase: 'Error' } } as never }).wakes)).to.deep.equal([]);
  });

  it('an Identity realized wakes the Networks naming it; a Volume or SecurityGroup changed wakes the Servers listing it', () => {
    const { graph, find } = world();
    const identity = find('Identity', 'acme');
    graph.onChange({ type: 'ADDED', kind: 'Identity', object: identity });
    expect(show(graph.onChange({ type: 'MODIFIED', kind: 'Identity', object: { ...identity, status: { phase: 'Ready' } } as never }).wakes)).to.deep.equal(['Network default/net-a']);
    const volume = find('Volume', 'data-1');
    graph.onChange({ type: 'ADDED', kind: 'Volume', object: volume });
    expect(show(graph.onChange({ type: 'MODIFIED', kind: 'Volume', object: { ...volume, status: { phase: 'Ready' } } as never }).wakes)).to.deep.equal(['Server default/web-1']);
    const group = find('SecurityGroup', 'web-sg');
    graph.onChange({ type: 'ADDED', kind: 'SecurityGroup', object: group });
    expect(show(graph.onChange({ type: 'MODIFIED', kind: 'SecurityGroup', object: { ...group, status: { phase: 'Ready' } } as never }).wakes)).to.deep.equal(['Server default/web-1']);
  });

  it('the monitor\'s verdict on a Network\'s project wakes what is on it (dependentsOf, as if it changed)', () => {
    const { graph, find } = world();
    expect(show(graph.dependentsOf('Network', find('Network', 'net-a'), 'any'))).to.deep.equal(['LoadBalancer default/web-lb', 'SecurityGroup default/web-sg', 'Server default/web-1', 'Volume default/data-1']);
  });

  it('draws every declared edge as DOT, deletions dashed', () => {
    const { graph } = world();
    const dot = wakeGraphDot(graph.edges());
    expect(dot).to.match(/^digraph wakes \{/);
    expect(dot).to.include('"Network" -> "Server" [label="any"');
    expect(dot).to.match(/"Server" -> "Identity" \[label="deleted".*style=dashed/);
    expect(graph.edges().length).to.be.greaterThan(15);
  });
});
