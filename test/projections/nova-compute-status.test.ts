/** The NovaCompute pool's status fields (projections/nova-compute-status.ts): status.nodes and status.createdTraits from the pool stream. */
import { expect } from 'chai';
import { poolNodesStatus } from '../../projections/nova-compute-status.js';
import { novaComputePoolDefinition as def, novaComputePoolStream, type NovaComputePoolContext, type NovaComputePoolStimulus } from '../../machines/nova-compute-pool.js';
import { foldStimuli } from '../../src/engine/fold.js';

const STREAM = novaComputePoolStream('00000000-0000-4000-8000-000000000028');
const fold = (...stimuli: NovaComputePoolStimulus[]) => foldStimuli(def, STREAM, stimuli).context as NovaComputePoolContext;
const nodes = (selected: Array<[string, string | null]>): NovaComputePoolStimulus => ({ type: 'nodesObserved', source: 'reconciler', generation: 1, deleting: false, selected: selected.map(([name, zone]) => ({ name, zone })), rivalSelected: [] });
const obs = { registered: true, serviceId: 's', enabled: true, mapped: true, servers: null, podRunning: null };

describe('NovaCompute pool status (status.nodes, status.createdTraits)', () => {
  it('an empty pool, or no stream yet, lists nothing', () => {
    expect(poolNodesStatus(undefined)).to.deep.equal({ nodes: [], createdTraits: [] });
    expect(poolNodesStatus(fold())).to.deep.equal({ nodes: [], createdTraits: [] });
  });

  it('lists every held node sorted by name with its phase; zone, traits and servers only when known', () => {
    const c = fold(
      nodes([['zeta', 'az2'], ['alpha', null], ['mid', 'az1']]),
      { type: 'servicesObserved', source: 'reconciler', nodes: { mid: obs, zeta: obs } },
      { type: 'nodeTraitsRecorded', source: 'reconciler', node: 'zeta', traits: ['CUSTOM_GPU'] },
      nodes([['zeta', 'az2'], ['alpha', null]]),
      { type: 'servicesObserved', source: 'reconciler', nodes: { mid: { ...obs, servers: 4 } } },
    );
    expect(poolNodesStatus(c).nodes).to.deep.equal([
      { name: 'alpha', phase: 'Pending' },
      { name: 'mid', phase: 'Draining', zone: 'az1', servers: 4 },
      { name: 'zeta', phase: 'Active', zone: 'az2', traits: ['CUSTOM_GPU'] },
    ]);
  });

  it('createdTraits lists what Regent created, sorted: not a pending claim, not a trait that already existed, not one deleted', () => {
    const c = fold(
      { type: 'traitsClaimed', source: 'reconciler', traits: ['CUSTOM_Z', 'CUSTOM_A', 'CUSTOM_OLD', 'CUSTOM_PENDING', 'CUSTOM_GONE'] },
      { type: 'traitCreated', source: 'effect', trait: 'CUSTOM_Z', created: true },
      { type: 'traitCreated', source: 'effect', trait: 'CUSTOM_A', created: true },
      { type: 'traitCreated', source: 'effect', trait: 'CUSTOM_GONE', created: true },
      { type: 'traitCreated', source: 'effect', trait: 'CUSTOM_OLD', created: false },
      { type: 'traitDeleted', source: 'effect', trait: 'CUSTOM_GONE', outcome: 'deleted', message: '' },
    );
    expect(poolNodesStatus(c).createdTraits).to.deep.equal(['CUSTOM_A', 'CUSTOM_Z']);
  });

  it('a dropped node is no longer listed, and the rendering copies (mutating it leaves the context alone)', () => {
    const c = fold(nodes([['n1', 'az1']]), nodes([]), { type: 'servicesObserved', source: 'reconciler', nodes: { n1: { ...obs, registered: false, podRunning: false } } });
    expect(poolNodesStatus(c).nodes).to.deep.equal([]);
    const d = fold(nodes([['n1', 'az1']]), { type: 'nodeTraitsRecorded', source: 'reconciler', node: 'n1', traits: ['CUSTOM_A'] });
    poolNodesStatus(d).nodes[0]?.traits?.push('CUSTOM_X');
    expect(d.nodes.n1?.traits).to.deep.equal(['CUSTOM_A']);
  });
});
