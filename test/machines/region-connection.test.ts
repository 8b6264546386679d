/** The Region connection record (issue 11): each pass's verdict, stored only when it changes. */
import { expect } from 'chai';
import { regionConnectionDefinition as def, type RegionContext, type RegionStimulus } from '../../machines/region-connection.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const STREAM = 'region-connection-uid-1';
const connected = (generation = 1, secretVersion = '1', domainId?: string): RegionStimulus => ({ type: 'connected', source: 'reconciler', generation, secretVersion, projectId: 'p1', userId: 'u1', ...(domainId ? { domainId } : {}) });
const unusable = (problem: 'SecretMissing' | 'CredentialsInvalid', secretVersion: string | null = null): RegionStimulus => ({ type: 'unusable', source: 'reconciler', generation: 1, secretVersion, problem, message: `because ${problem}` });

describe('region connection', () => {
  it('C1 a pass that connected records who Regent is and the managed domain, for the generation and Secret version it used', () => {
    const r = step(def, initialSnapshot(def, STREAM), connected(3, '17', 'd1'));
    expect(r.snapshot.value).to.equal('connected');
    expect(r.snapshot.context as RegionContext).to.deep.include({ decidedGeneration: 3, secretVersion: '17', connection: { projectId: 'p1', userId: 'u1', domainId: 'd1' }, problem: null });
  });
  it('C2 a pass that could not connect records the problem and drops the connection', () => {
    const s = step(def, initialSnapshot(def, STREAM), connected()).snapshot;
    const r = step(def, s, unusable('CredentialsInvalid', '2'));
    expect(r.snapshot.value).to.equal('unusable');
    expect((r.snapshot.context as RegionContext).connection).to.equal(null);
    expect((r.snapshot.context as RegionContext).problem).to.deep.equal({ kind: 'CredentialsInvalid', message: 'because CredentialsInvalid' });
  });
  it('the same verdict again changes nothing and is not stored; a new Secret version is', () => {
    const s = step(def, initialSnapshot(def, STREAM), connected(1, '1')).snapshot;
    expect(step(def, s, connected(1, '1')).changed).to.equal(false);
    expect(step(def, s, connected(1, '2')).changed).to.equal(true);
  });
});
