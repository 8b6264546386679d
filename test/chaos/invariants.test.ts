/**
 * The chaos invariants are pure functions over a run's evidence: each finds the violation it names in a small
 * hand-made evidence, and nothing in a clean one (so a chaos table of zeros means something).
 */
import { expect } from 'chai';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { checkInvariants } from './invariants/index.js';
import type { InvariantInput } from './invariants/types.js';
import type { CallRecord } from './harness/simulator-process.js';
import { leaksIn } from './invariants/no-secret.js';

const emptyCloud = { servers: [], volumes: [], loadBalancers: [], networks: [], securityGroups: [], projects: [] };
const input = (over: Partial<InvariantInput> = {}): InvariantInput => ({ calls: [], events: [], claims: [], logLines: [], secrets: ['demo-sandbox'], divergences: [], cloud: emptyCloud, stuck: [], unexpectedExits: [], madeUpIds: [], ...over });

let seq = 0;
const call = (method: string, path: string, status: number, extra: Partial<CallRecord> = {}): CallRecord => ({ seq: ++seq, method, path, query: '', status, at: seq, ...extra });
const event = (stream: string, revision: number, type: string, source: string, effects: string[] = [], correlationId = `c${revision}`): RecordedEvent =>
  ({ id: `e-${stream}-${revision}`, stream, revision, position: revision, type, data: {}, metadata: { machine: 'm', machineVersion: 1, schemaVersion: 1, source, actor: 'a', correlationId, causationId: null, from: null, to: 'x', effects: effects.map((t) => ({ type: t })), recordedAt: '2026-12-05T00:00:00Z' } }) as unknown as RecordedEvent;
const names = (i: InvariantInput) => checkInvariants(i).map((v) => v.invariant);

describe('chaos invariants', () => {
  it('a clean evidence violates nothing', () => {
    const events = [event('server-rebuild-1', 0, 'serverRebuild.armed', 'reconciler'), event('server-rebuild-1', 1, 'serverRebuild.submitted', 'reconciler', ['nova.rebuild']), event('server-rebuild-1', 2, 'serverRebuild.accepted', 'effect', [], 'c1')];
    const calls = [call('POST', '/compute/v2.1/servers/1/action', 202, { action: 'rebuild', body: { rebuild: { imageRef: 'B' } } })];
    expect(checkInvariants(input({ events, calls }))).to.deep.equal([]);
  });

  it('two accepted rebuilds to one image, two creates of one name, two accepted deletes of one target', () => {
    const rebuild = () => call('POST', '/compute/v2.1/servers/1/action', 202, { action: 'rebuild', body: { rebuild: { imageRef: 'B' } } });
    const create = () => call('POST', '/volume/v3/p/volumes', 202, { body: { volume: { name: 'volume-u' } } });
    const del = () => call('DELETE', '/load-balancer/v2/lbaas/loadbalancers/9', 204);
    expect(names(input({ calls: [rebuild(), rebuild(), create(), create(), del(), del(), call('POST', '/volume/v3/p/volumes', 500, { body: { volume: { name: 'volume-v' } } }), call('POST', '/volume/v3/p/volumes', 202, { body: { volume: { name: 'volume-v' } } })] })).filter((n) => n === 'one-destructive-per-decision')).to.have.length(3);
  });

  it('a destructive effect without a reconciler arm read back in another pass, or sent more often than decided', () => {
    const sameStep = [event('s-1', 0, 'x.armed', 'reconciler', [], 'c'), event('s-1', 1, 'x.submitted', 'reconciler', ['nova.rebuild'], 'c')];
    expect(names(input({ events: sameStep }))).to.include('destructive-after-arm');
    const fromMonitor = [event('s-1', 0, 'x.armed', 'reconciler'), event('s-1', 1, 'x.submitted', 'monitor', ['nova.deleteServer'])];
    expect(names(input({ events: fromMonitor }))).to.include('destructive-after-arm');
    const sentTwice = [call('DELETE', '/compute/v2.1/servers/1', 204), call('DELETE', '/compute/v2.1/servers/2', 204)];
    expect(names(input({ calls: sentTwice, events: [event('s-1', 0, 'x.deleteArmed', 'reconciler'), event('s-1', 1, 'x.deleteSubmitted', 'reconciler', ['nova.deleteServer']), event('s-1', 2, 'x.deleted', 'reconciler')] }))).to.include('destructive-after-arm');
  });

  it("a machine's own destructive effects count too (its definition's destructiveEffects: an Octavia listener delete, a workload security group delete)", () => {
    const withMachine = (e: RecordedEvent, machine: string): RecordedEvent => ({ ...e, metadata: { ...e.metadata, machine } }) as RecordedEvent;
    const unarmedListener = [withMachine(event('load-balancer-1', 0, 'loadBalancer.listenerPruneSubmitted', 'reconciler', ['octavia.deleteListener']), 'loadBalancer')];
    expect(names(input({ events: unarmedListener }))).to.include('destructive-after-arm');
    const unarmedGroup = [withMachine(event('workload-cluster-1', 0, 'workloadCluster.deleteSubmitted', 'reconciler', ['neutron.deleteSecurityGroup']), 'workloadCluster')];
    expect(names(input({ events: unarmedGroup }))).to.include('destructive-after-arm');
    // the same effect in a machine that does not call it destructive is not checked
    expect(names(input({ events: [event('x-1', 0, 'x.listenerPruneSubmitted', 'reconciler', ['octavia.deleteListener'])] }))).to.not.include('destructive-after-arm');
  });

  it('a lost decision: a stream ending on an arm or an unanswered effect, a step that never settled, a plane that died of itself', () => {
    expect(names(input({ events: [event('s-1', 0, 'x.deleteArmed', 'reconciler')] }))).to.deep.equal(['no-lost-decision']);
    expect(names(input({ events: [event('s-1', 0, 'x.createSubmitted', 'reconciler', ['cinder.createVolume'])] }))).to.deep.equal(['no-lost-decision']);
    expect(names(input({ stuck: [{ step: 'delete', detail: 'not settled' }], unexpectedExits: ['exited 1'] }))).to.deep.equal(['no-lost-decision', 'no-lost-decision']);
  });

  it('duplicate names per project, leaving out what the simulator made up on request', () => {
    const cloud = { ...emptyCloud, volumes: [{ id: 'a', name: 'volume-u', projectId: 'p' }, { id: 'b', name: 'volume-u', projectId: 'p' }, { id: 'c', name: 'volume-u', projectId: 'q' }] };
    expect(names(input({ cloud }))).to.deep.equal(['no-duplicate-name']);
    expect(names(input({ cloud, madeUpIds: ['b'] }))).to.deep.equal([]);
  });

  it('a settle claim while the cloud shows a task in flight or another image is a false Provisioned', () => {
    const claim = (taskState: string | null, imageId: string, available = 'True') => ({ kind: 'Server', name: 'web-1', generation: 2, uid: 'u', spec: { name: 'web-1', image: { id: 'B' } }, status: { serverID: 's', observedGeneration: 2, conditions: [{ type: 'Available', status: available }] }, at: 0, cloud: { ...emptyCloud, servers: [{ id: 's', name: 'web-1', status: taskState ? 'REBUILD' : 'ACTIVE', taskState, imageId, projectId: 'p' }] } });
    expect(names(input({ claims: [claim(null, 'B')] }))).to.deep.equal([]);
    expect(names(input({ claims: [claim('rebuilding', 'B')] }))).to.deep.equal(['no-false-provisioned']);
    expect(names(input({ claims: [claim(null, 'A')] }))).to.deep.equal(['no-false-provisioned']);
    expect(names(input({ claims: [claim('rebuilding', 'A', 'False')] })), 'a status that does not say settled claims nothing').to.deep.equal([]);
  });

  it('a divergence is reported; secrets are found in events and log lines, references to a Secret are not', () => {
    expect(names(input({ divergences: [{ stream: 's', detail: 'state' }] }))).to.deep.equal(['replay-no-divergence']);
    expect(leaksIn('{"password":"demo-sandbox"}', ['demo-sandbox'])).to.match(/password/);
    expect(leaksIn('{"secret":"s3cr3t-value-xyz"}', [])).to.match(/field "secret"/);
    expect(leaksIn('{"secret":"default/regent-identity-1"}', [])).to.equal(undefined);
    expect(leaksIn('{"secret":"sha256:abcdef"}', [])).to.equal(undefined);
    expect(names(input({ logLines: ['{"message":"auth failed for demo-sandbox"}'] }))).to.deep.equal(['no-secret']);
  });
});
