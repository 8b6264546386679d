/**
 * Issue 30, "one incident timeline across resources" (src/audit/incident/): the related set of a resource computed
 * from the event store alone, one time-ordered timeline of a resource and everything related to it (or of every
 * stream) in a window, filtered by kind and source, and the redacted export. Against a memory store holding the
 * history of test/audit/support/incident-history.ts (resource streams synthesized per src/resource-history/stream.ts,
 * machine streams, a rebuild recorded by the engine with the product machine).
 */
import { expect } from 'chai';
import { v7 as uuidv7 } from 'uuid';
import { MemoryEventStore } from '../../src/store/memory.js';
import { UsageError } from '../../src/errors/usage.js';
import { describeAuthor } from '../../src/resource-history/stream.js';
import { relatedResources, type RelatedResource } from '../../src/audit/incident/related.js';
import { incidentTimeline, type IncidentRow } from '../../src/audit/incident/timeline.js';
import { incidentExport } from '../../src/audit/incident/export.js';
import { IncidentIndex } from '../../src/audit/incident/heads.js';
import { NoHistory, normalizeQuery, parseTime } from '../../src/audit/incident/query.js';
import { ADMIN_PASS, JWT, NOVA_WEB2, PASSWORD, STREAMS, T0, UID, WEB2_STREAMS, at, recordIncidentHistory } from './support/incident-history.js';

const WEB2 = { kind: 'Server', namespace: 'default', name: 'web-2' };
const names = (set: readonly RelatedResource[]) => set.map((r) => `${r.kind}/${r.name}`).sort();
const relationOf = (set: readonly RelatedResource[], kind: string, name: string) => set.find((r) => r.kind === kind && r.name === name)?.relation;
const NOW = () => new Date(T0 + 60 * 60_000); // 11:00, an hour after T0

const rejection = async (promise: Promise<unknown>): Promise<Error> => {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
};

const expectTimeOrdered = (rows: readonly IncidentRow[]) => {
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1] as IncidentRow, rows[i] as IncidentRow];
    const order = Date.parse(a.time) - Date.parse(b.time) || a.position - b.position;
    expect(order, `row ${i - 1} (${a.time} ${a.stream}#${a.revision}) before row ${i} (${b.time} ${b.stream}#${b.revision})`).to.be.lessThan(0);
  }
};

describe('incident timeline (issue 30): related resources, one timeline, the export', function () {
  this.timeout(30_000);
  let store: MemoryEventStore;

  before(async () => {
    store = new MemoryEventStore();
    await recordIncidentHistory(store);
  });

  describe('related resources, from the store alone', () => {
    it("a Server's related set is exactly its network, identity, region (via the network), volume, security group and the load balancer carrying its address", async () => {
      const related = await relatedResources(store, WEB2);
      expect(names(related)).to.deep.equal(['Identity/ident-a', 'LoadBalancer/lb-1', 'Network/net-a', 'Region/region-1', 'SecurityGroup/sg-web', 'Volume/data-1']);
      expect(relationOf(related, 'Network', 'net-a')).to.equal('network');
      expect(relationOf(related, 'Identity', 'ident-a')).to.equal('identity');
      expect(relationOf(related, 'Region', 'region-1')).to.equal('region');
      expect(relationOf(related, 'Volume', 'data-1')).to.equal('volume, volume attachment');
      expect(relationOf(related, 'SecurityGroup', 'sg-web')).to.equal('security group');
      expect(relationOf(related, 'LoadBalancer', 'lb-1')).to.equal('load balancer (member address)');
      expect(related.find((r) => r.kind === 'Region')?.via).to.equal('Network default/net-a → Identity default/ident-a');
      // uids from the resource streams, the streams that belong to each
      expect(related.find((r) => r.kind === 'Network')).to.include({ uid: UID.network, recorded: true });
      expect(related.find((r) => r.kind === 'Network')?.streams).to.have.members([STREAMS.network, STREAMS.networkLifecycle]);
      // the other Server on the same network, and its volume, are not related to web-2
      expect(names(related)).to.not.include.members(['Server/web-9', 'Volume/data-9']);
    });

    it('relations go both ways: a Volume names the Server that lists and attached it; a LoadBalancer the Server whose address is its member', async () => {
      const ofVolume = await relatedResources(store, { kind: 'Volume', namespace: 'default', name: 'data-1' });
      expect(names(ofVolume)).to.deep.equal(['Identity/ident-a', 'Network/net-a', 'Region/region-1', 'Server/web-2']);
      expect(relationOf(ofVolume, 'Server', 'web-2')).to.equal('server, server (volume attachment)');
      const ofBalancer = await relatedResources(store, { kind: 'LoadBalancer', namespace: 'default', name: 'lb-1' });
      expect(names(ofBalancer)).to.deep.equal(['Identity/ident-a', 'Network/net-a', 'Region/region-1', 'Server/web-2']);
      expect(relationOf(ofBalancer, 'Server', 'web-2')).to.equal('server (member address)');
      const ofNetwork = await relatedResources(store, { kind: 'network', namespace: 'default', name: 'net-a' });
      expect(names(ofNetwork)).to.deep.equal(['Identity/ident-a', 'LoadBalancer/lb-1', 'Region/region-1', 'SecurityGroup/sg-web', 'Server/web-2', 'Server/web-9', 'Volume/data-1', 'Volume/data-9']);
      expect(relationOf(ofNetwork, 'Server', 'web-9')).to.equal('server');
    });

    it('a resource no stream names is NoHistory; a reference to a resource nothing recorded is listed, unrecorded', async () => {
      expect(await rejection(relatedResources(store, { kind: 'Server', namespace: 'default', name: 'web-3' }))).to.be.instanceOf(NoHistory).and.have.property('message').that.includes('Server default/web-3');
      const other = new MemoryEventStore();
      await recordIncidentHistory(other);
      const orphan = uuidv7();
      await other.append(
        `resource-${orphan}`,
        [
          {
            id: uuidv7(),
            type: 'resource.specChanged',
            data: { type: 'resource.specChanged', kind: 'Volume', namespace: 'default', name: 'lost', uid: orphan, generation: 1, previousGeneration: null, spec: { networkID: 'net-gone' }, changes: [] },
            metadata: { machine: 'resource', machineVersion: 1, schemaVersion: 1, source: 'operator', actor: 'alice', correlationId: uuidv7(), causationId: null, from: null, to: 'generation 1', effects: [], recordedAt: at(40), subject: { kind: 'Volume', namespace: 'default', name: 'lost' } },
          },
        ],
        { expectedRevision: 'no_stream' },
      );
      const related = await relatedResources(other, { kind: 'Volume', namespace: 'default', name: 'lost' });
      expect(related).to.deep.equal([{ kind: 'Network', namespace: 'default', name: 'net-gone', relation: 'network', streams: [], recorded: false }]);
    });

    it('a server keeps one index: a later spec change is seen, and only streams whose head moved are read again', async () => {
      const live = new MemoryEventStore();
      await recordIncidentHistory(live);
      let reads = 0;
      const counting = { listStreams: live.listStreams.bind(live), readStream: (...args: Parameters<MemoryEventStore['readStream']>) => (reads++, live.readStream(...args)) };
      const index = new IncidentIndex(counting);
      expect(names(await relatedResources(counting, { kind: 'Server', namespace: 'default', name: 'web-9' }, { index }))).to.not.include('Volume/data-1');
      reads = 0;
      await relatedResources(counting, { kind: 'Server', namespace: 'default', name: 'web-9' }, { index });
      expect(reads, 'nothing moved: nothing read').to.equal(0);
      await live.append(
        STREAMS.web9,
        [
          {
            id: uuidv7(),
            type: 'resource.specChanged',
            data: { type: 'resource.specChanged', kind: 'Server', namespace: 'default', name: 'web-9', uid: UID.web9, generation: 2, previousGeneration: 1, spec: { name: 'web-9', networkID: 'net-a', volumes: [{ volumeID: 'data-9' }, { volumeID: 'data-1' }] }, changes: [{ path: 'spec.volumes[1]', to: { volumeID: 'data-1' } }] },
            metadata: { machine: 'resource', machineVersion: 1, schemaVersion: 1, source: 'operator', actor: 'carol', correlationId: uuidv7(), causationId: null, from: 'generation 1', to: 'generation 2', effects: [], recordedAt: at(41), subject: { kind: 'Server', namespace: 'default', name: 'web-9' } },
          },
        ],
        { expectedRevision: 'any' },
      );
      reads = 0;
      expect(names(await relatedResources(counting, { kind: 'Server', namespace: 'default', name: 'web-9' }, { index }))).to.include('Volume/data-1');
      expect(reads, 'the moved stream: its last event and the events after the kept head').to.equal(2);
    });
  });

  describe('the timeline', () => {
    it("a resource's own timeline: every stream of web-2 (its resource stream, lifecycle, rebuild, attachment, and a stream that recorded no subject), in time order", async () => {
      const t = await incidentTimeline(store, { resource: 'Server/default/web-2' }, { now: NOW });
      expect([...new Set(t.rows.map((r) => r.stream))]).to.have.members(WEB2_STREAMS);
      expect(t.rows.every((r) => r.relation === 'subject' && r.resource?.name === 'web-2')).to.equal(true);
      expect(t.related).to.equal(undefined);
      expect(t.subject).to.include({ kind: 'Server', name: 'web-2', uid: UID.web2 });
      expectTimeOrdered(t.rows);
      // the rebuild: armed, submitted, accepted, observed ×2, cleared
      expect(t.rows.filter((r) => r.stream === STREAMS.web2Rebuild).map((r) => r.type)).to.deep.equal(['serverRebuild.armed', 'serverRebuild.submitted', 'serverRebuild.accepted', 'serverRebuild.observed', 'serverRebuild.observedSucceeded', 'serverRebuild.cleared']);
    });

    it('with related: the related resources\' streams too, each row named by its resource and relation; nothing of web-9 or data-9', async () => {
      const t = await incidentTimeline(store, { resource: 'Server/default/web-2', related: true }, { now: NOW });
      expectTimeOrdered(t.rows);
      const resources = new Set(t.rows.map((r) => `${r.resource?.kind}/${r.resource?.name}`));
      expect([...resources].sort()).to.deep.equal(['Identity/ident-a', 'LoadBalancer/lb-1', 'Network/net-a', 'Region/region-1', 'SecurityGroup/sg-web', 'Server/web-2', 'Volume/data-1']);
      expect(t.rows.some((r) => r.stream === STREAMS.web9 || r.stream === STREAMS.web9Lifecycle)).to.equal(false);
      expect(t.rows.find((r) => r.stream === STREAMS.networkLifecycle)).to.include({ relation: 'network', category: 'effect result' });
      expect(t.rows.find((r) => r.stream === STREAMS.lbMachine)?.relation).to.equal('load balancer (member address)');
      expect(names(t.related ?? [])).to.have.length(6);
      // the first row is the Region's spec (10:00), the last the load balancer's machine (10:30)
      expect(t.rows[0]).to.include({ time: at(0), type: 'resource.specChanged' });
      expect(t.rows.at(-1)).to.include({ time: at(30), stream: STREAMS.lbMachine });
    });

    it('without a resource: every stream in the window (web-9 too)', async () => {
      const t = await incidentTimeline(store, { from: at(16), to: at(17) }, { now: NOW });
      expect(t.rows.map((r) => r.stream).sort()).to.deep.equal([STREAMS.web9, STREAMS.web9Lifecycle].sort());
      expect(t.rows.every((r) => r.relation === null)).to.equal(true);
    });

    it('rows: author for a spec change, actor otherwise; from → to; declared effects with ⚠ destructive from the machine; correlation and causation; a one-line summary', async () => {
      const t = await incidentTimeline(store, { resource: 'Server/default/web-2' }, { now: NOW });
      const gen2 = t.rows.find((r) => r.type === 'resource.specChanged' && r.time === at(20)) as IncidentRow;
      expect(gen2.author).to.equal(describeAuthor({ name: 'bob@acme', channel: 'api', verified: true, requestId: 'req-77' }));
      expect(gen2.author).to.equal('bob@acme via REST API');
      expect(gen2).to.include({ category: 'spec change', source: 'api', from: 'generation 1', to: 'generation 2' });
      expect(gen2.summary).to.match(/^generation 2: spec\.image\.name: img-a → img-c; spec\.rootPassword: \[REDACTED\] → \[REDACTED\]$/);
      const gen1 = t.rows.find((r) => r.type === 'resource.specChanged' && r.time === at(10)) as IncidentRow;
      expect(gen1.author).to.equal('alice via regent CLI (as stated, not authenticated)');
      const submitted = t.rows.find((r) => r.type === 'serverRebuild.submitted') as IncidentRow;
      expect(submitted).to.include({ destructive: true, category: 'decision', source: 'reconciler', from: 'Initiated', to: 'Initiated' });
      expect(submitted.author).to.equal(undefined);
      expect(submitted.actor).to.equal('reconciler/server-image');
      expect(submitted.effects).to.deep.equal([{ type: 'nova.rebuild', serverId: NOVA_WEB2, imageId: 'C', destructive: true }]);
      const accepted = t.rows.find((r) => r.type === 'serverRebuild.accepted') as IncidentRow;
      expect(accepted.causationId).to.equal(submitted.id);
      expect(accepted).to.include({ category: 'effect result', destructive: false });
      const attach = t.rows.find((r) => r.type === 'volumeAttachment.attachRequested') as IncidentRow;
      expect(attach.effects.map((e) => [e.type, e.destructive])).to.deep.equal([['nova.attachVolume', false]]);
      const create = t.rows.find((r) => r.type === 'serverLifecycle.createAccepted') as IncidentRow;
      expect(create.summary).to.equal(`createAccepted: id: ${NOVA_WEB2}`);
      const status = t.rows.find((r) => r.type === 'resource.statusChanged') as IncidentRow;
      expect(status.category).to.equal('status change');
      expect(status.summary).to.match(/^status: \+status\.serverID: /);
    });

    it('deep links: each row to its event on its stream page (#rev-N), each resource to its page; under a mount point with it', async () => {
      const t = await incidentTimeline(store, { resource: 'Server/default/web-2' }, { now: NOW });
      const submitted = t.rows.find((r) => r.type === 'serverRebuild.submitted') as IncidentRow;
      expect(submitted.links).to.deep.equal({ event: `/streams/${STREAMS.web2Rebuild}#rev-1`, resource: '/resources/Server/default/web-2' });
      const mounted = await incidentTimeline(store, { resource: 'Server/default/web-2' }, { now: NOW, base: '/audit' });
      expect(mounted.rows[0]?.links.event).to.equal(`/audit/streams/${STREAMS.web2}#rev-0`);
      expect(mounted.rows[0]?.links.resource).to.equal('/audit/resources/Server/default/web-2');
    });

    it('filters: by the kind of the stream\'s resource, by source', async () => {
      const networks = await incidentTimeline(store, { resource: 'Server/default/web-2', related: true, kinds: ['network'] }, { now: NOW });
      expect(networks.query.kinds).to.deep.equal(['Network']);
      expect(networks.rows.map((r) => r.stream).sort()).to.deep.equal([STREAMS.network, STREAMS.networkLifecycle].sort());
      const two = await incidentTimeline(store, { resource: 'Server/default/web-2', related: true, kinds: ['Network,Region'] }, { now: NOW });
      expect(new Set(two.rows.map((r) => r.resource?.kind))).to.deep.equal(new Set(['Network', 'Region']));
      const effects = await incidentTimeline(store, { resource: 'Server/default/web-2', related: true, sources: ['effect'] }, { now: NOW });
      expect(effects.rows.length).to.equal(4);
      expect(effects.rows.every((r) => r.source === 'effect')).to.equal(true);
      const both = await incidentTimeline(store, { kinds: ['Server'], sources: ['monitor', 'api'] }, { now: NOW });
      expect(both.rows.map((r) => `${r.source} ${r.type}`)).to.deep.equal(['api resource.specChanged', 'monitor serverRebuild.observed', 'monitor serverRebuild.observedSucceeded', 'monitor scopeReachability.observed']);
    });

    it('the window is [from, to): from inclusive, to exclusive; durations count back from now', async () => {
      const window = await incidentTimeline(store, { resource: 'Server/default/web-2', from: at(12), to: at(15) }, { now: NOW });
      expect(window.rows.map((r) => r.time)).to.deep.equal([at(12), at(13), at(14)]);
      expect(window.query).to.include({ from: at(12), to: at(15) });
      // now is 11:00: since 50m is 10:10, until 35m is 10:25 (exclusive)
      const relative = await incidentTimeline(store, { resource: 'Server/default/web-2', from: '50m', to: '35m' }, { now: NOW });
      expect(relative.query).to.include({ from: at(10), to: at(25) });
      expect(relative.rows[0]?.time).to.equal(at(10));
      expect(relative.rows.at(-1)?.time).to.equal(at(24));
      // a window after every event, and one before
      expect((await incidentTimeline(store, { from: at(31) }, { now: NOW })).rows).to.deep.equal([]);
      expect((await incidentTimeline(store, { to: at(0) }, { now: NOW })).rows).to.deep.equal([]);
      expect((await incidentTimeline(store, { to: at(0.5) }, { now: NOW })).rows.map((r) => r.time)).to.deep.equal([at(0)]);
    });

    it('limit: the earliest rows, truncated, and where the next page starts', async () => {
      const t = await incidentTimeline(store, { resource: 'Server/default/web-2', related: true, limit: 5 }, { now: NOW });
      expect(t.rows.map((r) => r.time)).to.deep.equal([at(0), at(1), at(2), at(3), at(4)]);
      expect(t).to.include({ truncated: true, nextFrom: at(5) });
      const all = await incidentTimeline(store, { resource: 'Server/default/web-2', related: true }, { now: NOW });
      expect(all.truncated).to.equal(false);
      expect(all.nextFrom).to.equal(undefined);
    });

    it('bad input is a UsageError naming what was wrong; an unknown resource NoHistory', async () => {
      const now = NOW();
      const message = (input: Parameters<typeof normalizeQuery>[0]) => {
        try {
          normalizeQuery(input, now);
        } catch (error) {
          expect(error).to.be.instanceOf(UsageError);
          return (error as Error).message;
        }
        throw new Error('accepted');
      };
      expect(message({ from: 'yesterday' })).to.match(/from "yesterday" is neither an ISO time .* nor a duration back from now/);
      expect(message({ to: '2026-13-45T99:00' })).to.match(/^to /);
      expect(message({ kinds: ['Spaceship'] })).to.match(/unknown kind "Spaceship" \(kinds: Region, Identity/);
      expect(message({ sources: ['robot'] })).to.match(/unknown source "robot" \(sources: reconciler, monitor, effect, api, operator\)/);
      expect(message({ resource: 'web-2' })).to.match(/must be Kind\/namespace\/name/);
      expect(message({ resource: 'Spaceship/default/x' })).to.match(/unknown kind/);
      expect(message({ from: at(10), to: at(5) })).to.match(/the window is empty/);
      expect(message({ limit: '0' })).to.match(/limit "0" must be a whole number from 1 to 10000/);
      expect(message({ related: true })).to.match(/related needs a resource/);
      expect(normalizeQuery({ resource: 'server/web-2' }, now).resource).to.deep.equal(WEB2);
      expect(parseTime('2026-12-01T10:00', now, 'from').toISOString()).to.equal(at(0));
      expect(parseTime('2026-12-01 11:00+01:00', now, 'from').toISOString()).to.equal(at(0));
      expect(parseTime('1d', now, 'from').toISOString()).to.equal(new Date(now.getTime() - 86_400_000).toISOString());
      expect(await rejection(incidentTimeline(store, { resource: 'Server/default/nope' }, { now: NOW }))).to.be.instanceOf(NoHistory);
    });
  });

  describe('the export', () => {
    it('holds the query, the time generated, the related set and the rows, redacted, and says which members were', async () => {
      const file = await incidentExport(store, { resource: 'Server/default/web-2', related: true, from: '2h' }, { now: NOW });
      expect(file.format).to.equal('regent-incident/1');
      expect(file.generatedAt).to.equal(NOW().toISOString());
      expect(file.store).to.equal('memory:');
      expect(file.query).to.deep.include({ resource: WEB2, related: true, from: new Date(NOW().getTime() - 7_200_000).toISOString(), to: null });
      expect(names(file.related ?? [])).to.have.length(6);
      expect(file.rows.length).to.equal(file.counts.rows).and.to.be.greaterThan(20);
      expect(file.counts.destructive).to.equal(1);
      const text = JSON.stringify(file);
      for (const secret of [PASSWORD, ADMIN_PASS, JWT, JWT.split('.')[1] as string]) expect(text, secret).to.not.include(secret);
      const paths = file.redaction.paths.map((p) => `${p.stream}#${p.revision} ${p.path}`);
      expect(paths).to.include.members([
        `${STREAMS.web2}#0 data.spec.rootPassword`,
        `${STREAMS.web2}#0 data.changes[6].to`,
        `${STREAMS.web2Lifecycle}#0 metadata.effects[0].adminPass`,
        `${STREAMS.web2}#1 data.status.conditions[0].message`,
        `${STREAMS.web2}#2 data.changes[1].from`,
      ]);
      expect(file.redaction).to.include({ marker: '[REDACTED]' });
      const status = file.rows.find((r) => r.type === 'resource.statusChanged') as IncidentRow;
      expect((status.data as { status: { conditions: Array<{ message: string }> } }).status.conditions[0]?.message).to.equal('[REDACTED]');
      expect(status.redacted).to.deep.equal(['data.status.conditions[0].message', 'data.changes[2].to[0].message']);
    });

    it('a secret reaching any text of a row (here an actor) is redacted too', async () => {
      const other = new MemoryEventStore();
      await recordIncidentHistory(other);
      await other.append(
        STREAMS.web2Scope,
        [
          {
            id: uuidv7(),
            type: 'scopeReachability.observed',
            data: { type: 'observed' },
            metadata: { machine: 'scopeReachability', machineVersion: 1, schemaVersion: 1, source: 'monitor', actor: `Bearer ${'x'.repeat(24)}`, correlationId: uuidv7(), causationId: null, from: null, to: 'observed', effects: [], recordedAt: at(28), subject: WEB2 },
          },
        ],
        { expectedRevision: 'any' },
      );
      const file = await incidentExport(other, { resource: 'Server/default/web-2', from: at(28) }, { now: NOW });
      expect(JSON.stringify(file)).to.not.include('x'.repeat(24));
      expect(file.redaction.paths).to.deep.equal([{ stream: STREAMS.web2Scope, revision: 1, path: 'actor' }]);
    });
  });
});
