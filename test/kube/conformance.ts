/**
 * The resource-source conformance suite: the contract of src/kube/port.ts, run against every
 * adapter (embedded; kubernetes through the fake API server; a real cluster when KUBECONFIG is set).
 * A test gets a fresh source and namespace, so tests never see each other's objects.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AlreadyExists, Conflict, Invalid, NotFound } from '../../src/kube/errors.js';
import { Informer } from '../../src/kube/informer.js';
import { ownerReferenceTo } from '../../src/kube/object.js';
import type { ResourceSource, WatchEvent } from '../../src/kube/port.js';
import { patchStatusWithRetry } from '../../src/kube/retry.js';
import { eventually, network, record, rv, server, sleep, summary } from './support/fixtures.js';

export interface FreshSource {
  readonly source: ResourceSource;
  readonly namespace: string;
  /** How a child process opens the same source (`embedded:<path>`, `kubernetes`), if it can. */
  readonly spec?: string;
  /** Extra environment for that child (e.g. KUBECONFIG). */
  readonly childEnv?: Record<string, string>;
  /** Another connection to the same store (a second client of the same API server); the caller closes it. */
  connect?(): Promise<ResourceSource>;
  /**
   * Ends open watch streams now, as an API server does on a watch timeout. Sources that stream
   * ahead of a slow consumer need this to make the consumer resume from an old version.
   */
  interruptWatches?(): void;
  cleanup(): Promise<void>;
}

export interface ConformanceTarget {
  readonly name: string;
  fresh(): Promise<FreshSource>;
  /** Set when the target retains at most this many changes, so the 410 relist can be provoked. */
  readonly changeLogLimit?: number;
  /** How long eventual effects (garbage collection, cross-process delivery) may take. */
  readonly eventuallyMs: number;
}

const CHILD = fileURLToPath(new URL('./support/child-apply.ts', import.meta.url));

const runChild = (spec: string, manifest: unknown, env: Record<string, string> = {}): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, spec], { stdio: ['pipe', 'inherit', 'pipe'], env: { ...process.env, ...env } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}: ${stderr}`))));
    child.stdin.end(JSON.stringify(manifest));
  });

export const runConformance = (target: ConformanceTarget): void => {
  describe(`ResourceSource conformance: ${target.name}`, function () {
    this.timeout(Math.max(20_000, target.eventuallyMs * 4));
    let fresh: FreshSource;
    let source: ResourceSource;
    let ns: string;
    beforeEach(async () => {
      fresh = await target.fresh();
      source = fresh.source;
      ns = fresh.namespace;
    });
    afterEach(async () => fresh.cleanup());

    describe('objects and metadata', () => {
      it('create sets uid, resourceVersion, generation 1 and creationTimestamp, and drops status', async () => {
        const input = { ...server(ns, 'web-1'), status: { phase: 'Running' } };
        const created = await source.create(input);
        expect(created.metadata).to.include({ name: 'web-1', namespace: ns, generation: 1 });
        expect(created.metadata.uid).to.be.a('string').and.not.equal('');
        expect(created.metadata.resourceVersion).to.match(/^\d+$/);
        expect(Date.parse(created.metadata.creationTimestamp)).to.be.closeTo(Date.now(), 60_000);
        expect(created.status).to.equal(undefined);
        expect(await source.get('Server', ns, 'web-1')).to.deep.equal(created);
      });

      it('a second create of the same name is AlreadyExists; a missing object reads as undefined', async () => {
        await source.create(server(ns, 'web-1'));
        const error = await source.create(server(ns, 'web-1')).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(AlreadyExists);
        expect(await source.get('Server', ns, 'nope')).to.equal(undefined);
        expect(await source.patchStatus('Server', ns, 'nope', { phase: 'x' }).catch((e: unknown) => e)).to.be.instanceOf(NotFound);
      });

      it('an invalid object is refused with Invalid naming the field, and nothing is stored', async () => {
        const error = await source.create(server(ns, 'web-1', { sshInjection: 'password' as never })).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(Invalid);
        expect((error as Invalid).causes.map((c) => c.path)).to.include('spec.sshInjection');
        expect(await source.get('Server', ns, 'web-1')).to.equal(undefined);
      });

      it('resourceVersion grows with every write, across objects', async () => {
        const a = await source.create(server(ns, 'a'));
        const b = await source.create(server(ns, 'b'));
        const a2 = await source.patchStatus('Server', ns, 'a', { phase: 'Building' });
        expect(rv(b) > rv(a)).to.equal(true);
        expect(rv(a2) > rv(b)).to.equal(true);
        const list = await source.list('Server', ns);
        expect(BigInt(list.resourceVersion) >= rv(a2)).to.equal(true);
        expect(list.items.map((i) => i.metadata.name)).to.deep.equal(['a', 'b']);
      });

      it('generation moves on spec changes only: not on status, labels, or a no-op update', async () => {
        const created = await source.create(server(ns, 'web-1'));
        const statusPatched = await source.patchStatus('Server', ns, 'web-1', { phase: 'Building' });
        expect(statusPatched.metadata.generation).to.equal(1);
        const labelled = await source.update({ ...server(ns, 'web-1', {}, { labels: { tier: 'web' } }), metadata: { ...created.metadata, labels: { tier: 'web' }, resourceVersion: statusPatched.metadata.resourceVersion } });
        expect(labelled.metadata.generation).to.equal(1);
        const same = await source.update({ ...server(ns, 'web-1'), metadata: { ...labelled.metadata } });
        expect(same.metadata.resourceVersion).to.equal(labelled.metadata.resourceVersion);
        const rebuilt = await source.update({ ...server(ns, 'web-1', { image: { name: 'ubuntu-22.04' } }), metadata: { ...labelled.metadata } });
        expect(rebuilt.metadata.generation).to.equal(2);
        expect(rebuilt.status).to.deep.equal({ phase: 'Building' });
      });

      it('an update that breaks an immutability rule is Invalid at that field', async () => {
        const created = await source.create(server(ns, 'web-1'));
        const error = await source.update({ ...server(ns, 'web-1', { flavor: { name: 'm1.large' } }), metadata: created.metadata }).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(Invalid);
        expect((error as Invalid).causes.map((c) => c.path)).to.deep.equal(['spec.flavor']);
      });

      it('an update with a stale resourceVersion is a Conflict', async () => {
        const created = await source.create(server(ns, 'web-1'));
        await source.patchStatus('Server', ns, 'web-1', { phase: 'Building' });
        const error = await source.update({ ...server(ns, 'web-1', { image: { name: 'ubuntu-22.04' } }), metadata: created.metadata }).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(Conflict);
      });

      it('apply creates, then configures spec and merges labels, then reports unchanged; status is untouched', async () => {
        const first = await source.apply(server(ns, 'web-1', {}, { labels: { a: '1' } }));
        expect(first.action).to.equal('created');
        await source.patchStatus('Server', ns, 'web-1', { phase: 'Running' });
        const second = await source.apply(server(ns, 'web-1', { image: { name: 'ubuntu-22.04' } }, { labels: { b: '2' } }));
        expect(second.action).to.equal('configured');
        expect(second.object.metadata.labels).to.deep.equal({ a: '1', b: '2' });
        expect(second.object.metadata.generation).to.equal(2);
        expect(second.object.status).to.deep.equal({ phase: 'Running' });
        const third = await source.apply(server(ns, 'web-1', { image: { name: 'ubuntu-22.04' } }, { labels: { b: '2' } }));
        expect(third.action).to.equal('unchanged');
        expect(third.object.metadata.resourceVersion).to.equal(second.object.metadata.resourceVersion);
      });
    });

    describe('status', () => {
      it('patchStatus merges (null deletes a key), validates, and leaves spec and generation alone', async () => {
        await source.create(server(ns, 'web-1'));
        await source.patchStatus('Server', ns, 'web-1', { phase: 'Building', macAddress: 'fa:16:3e:00:00:01' });
        const patched = await source.patchStatus('Server', ns, 'web-1', { phase: 'Running', macAddress: null });
        expect(patched.status).to.deep.equal({ phase: 'Running' });
        expect(patched.metadata.generation).to.equal(1);
        const invalid = await source.patchStatus('Server', ns, 'web-1', { provisioningStatus: 'done' as never }).catch((e: unknown) => e);
        expect(invalid).to.be.instanceOf(Invalid);
        expect((invalid as Invalid).causes.map((c) => c.path)).to.deep.equal(['status.provisioningStatus']);
      });

      it('a status patch with a stale resourceVersion is a Conflict; the current one succeeds', async () => {
        const created = await source.create(server(ns, 'web-1'));
        const moved = await source.patchStatus('Server', ns, 'web-1', { phase: 'Building' });
        const stale = await source.patchStatus('Server', ns, 'web-1', { phase: 'Running' }, { resourceVersion: created.metadata.resourceVersion }).catch((e: unknown) => e);
        expect(stale).to.be.instanceOf(Conflict);
        const fresh2 = await source.patchStatus('Server', ns, 'web-1', { phase: 'Running' }, { resourceVersion: moved.metadata.resourceVersion });
        expect(fresh2.status?.phase).to.equal('Running');
      });

      it('the status transition rule holds on the status subresource: a rebuild never retreats', async () => {
        await source.create(server(ns, 'web-1'));
        const target = '3f1c4f6e-2b7a-4d4b-9a55-0c6f1f3d2e10';
        await source.patchStatus('Server', ns, 'web-1', { rebuild: { targetImageID: target, state: 'Rebuilding' } });
        const error = await source.patchStatus('Server', ns, 'web-1', { rebuild: { targetImageID: target, state: 'Initiated' } }).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(Invalid);
        expect((error as Invalid).causes.map((c) => c.path)).to.deep.equal(['status.rebuild.state']);
      });

      it('patchStatusWithRetry re-reads and re-decides after a Conflict', async () => {
        await source.create(server(ns, 'web-1'));
        // Another writer moves the object between the first read and the first patch.
        let interfered = false;
        const racing = {
          get: source.get.bind(source),
          patchStatus: async (...args: Parameters<ResourceSource['patchStatus']>) => {
            if (!interfered) {
              interfered = true;
              await source.patchStatus('Server', ns, 'web-1', { ipAddresses: ['10.0.0.5'] });
            }
            return source.patchStatus(...args);
          },
        } as unknown as ResourceSource;
        let calls = 0;
        const result = await patchStatusWithRetry(racing, 'Server', ns, 'web-1', (current) => {
          calls += 1;
          return { phase: current.status?.ipAddresses ? 'Running' : 'Building' };
        });
        expect(calls).to.equal(2);
        expect(result.status).to.deep.equal({ ipAddresses: ['10.0.0.5'], phase: 'Running' });
      });
    });

    describe('watch', () => {
      it('delivers ADDED, MODIFIED and DELETED after the list version, in order, with increasing versions', async () => {
        const list = await source.list('Server', ns);
        const watch = record(source, 'Server', list.resourceVersion, ns);
        await source.create(server(ns, 'a'));
        await source.create(server(ns, 'b'));
        await source.patchStatus('Server', ns, 'a', { phase: 'Running' });
        await source.delete('Server', ns, 'b');
        const events = await watch.waitFor(4);
        await watch.handle.close();
        expect(summary(events)).to.deep.equal(['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED b']);
        const versions = events.map((e) => rv(e.object));
        expect([...versions].sort((x, y) => (x < y ? -1 : 1))).to.deep.equal(versions);
        expect(new Set(versions).size).to.equal(4);
        expect(watch.handle.resourceVersion).to.equal(events[3]!.object.metadata.resourceVersion);
      });

      it('a watch from a version in the middle replays only the later changes', async () => {
        const a = await source.create(server(ns, 'a'));
        await source.create(server(ns, 'b'));
        const watch = record(source, 'Server', a.metadata.resourceVersion, ns);
        const events = await watch.waitFor(1);
        await sleep(100);
        await watch.handle.close();
        expect(summary(watch.events)).to.deep.equal(['ADDED b']);
        expect(events).to.have.length(1);
      });

      it('a watch sees only its kind and namespace', async () => {
        const list = await source.list('Server', ns);
        const watch = record(source, 'Server', list.resourceVersion, ns);
        await source.create(network(ns, 'net-a'));
        await source.create(server(ns, 'web-1'));
        await watch.waitFor(1);
        await sleep(100);
        await watch.handle.close();
        expect(summary(watch.events)).to.deep.equal(['ADDED web-1']);
      });

      it('close() stops delivery and resolves done', async () => {
        const list = await source.list('Server', ns);
        const watch = record(source, 'Server', list.resourceVersion, ns);
        await watch.handle.close();
        await watch.handle.done;
        await source.create(server(ns, 'late'));
        await sleep(150);
        expect(watch.events).to.deep.equal([]);
      });
    });

    describe('informer', () => {
      it('delivers the initial list as ADDED, then live changes in order, and keeps a cache', async () => {
        await source.create(server(ns, 'a'));
        const seen: string[] = [];
        const informer = new Informer(source, 'Server', (e) => void seen.push(`${e.type} ${e.object.metadata.name}`), { namespace: ns });
        await informer.start();
        expect(seen).to.deep.equal(['ADDED a']);
        await source.create(server(ns, 'b'));
        await source.delete('Server', ns, 'a');
        await eventually(() => (seen.length >= 3 ? true : undefined), target.eventuallyMs, 'informer events');
        await informer.stop();
        expect(seen).to.deep.equal(['ADDED a', 'ADDED b', 'DELETED a']);
        expect(informer.list().map((o) => o.metadata.name)).to.deep.equal(['b']);
        expect(informer.get(ns, 'b')?.kind).to.equal('Server');
      });

      const limit = target.changeLogLimit;
      (limit === undefined ? it.skip : it)('relists after 410 Gone and delivers what changed in the gap, deletions included', async () => {
        await source.create(server(ns, 'doomed'));
        let gate: (() => void) | undefined;
        const blocked = new Promise<void>((resolve) => (gate = resolve));
        const seen: WatchEvent<'Server'>[] = [];
        const informer = new Informer(
          source,
          'Server',
          async (e) => {
            seen.push(e);
            if (e.object.metadata.name === 'stall') await blocked; // the consumer falls behind here
          },
          { namespace: ns, retryDelayMs: 20 },
        );
        await informer.start();
        await source.create(server(ns, 'stall'));
        await eventually(() => (seen.length >= 2 ? true : undefined), target.eventuallyMs, 'the stalling event');
        fresh.interruptWatches?.();
        // While the informer is stuck, more changes happen than the source retains.
        await source.delete('Server', ns, 'doomed');
        for (let i = 0; i < (limit ?? 0) + 5; i++) await source.patchStatus('Server', ns, 'stall', { phase: `Phase${i}` });
        await source.create(server(ns, 'newcomer'));
        gate?.();
        await eventually(() => (informer.relists >= 1 && informer.get(ns, 'newcomer') && !informer.get(ns, 'doomed') ? true : undefined), target.eventuallyMs * 2, 'relist');
        await informer.stop();
        const names = seen.map((e) => `${e.type} ${e.object.metadata.name}`);
        expect(names).to.include('DELETED doomed');
        expect(names).to.include('ADDED newcomer');
        expect(informer.get(ns, 'stall')?.status?.phase).to.equal(`Phase${(limit ?? 0) + 4}`);
        const list = await source.list('Server', ns);
        expect(informer.list().map((o) => o.metadata.resourceVersion).sort()).to.deep.equal(list.items.map((o) => o.metadata.resourceVersion).sort());
      });
    });

    describe('finalizers and deletion', () => {
      it('without finalizers, delete removes the object at once', async () => {
        await source.create(server(ns, 'web-1'));
        const result = await source.delete('Server', ns, 'web-1');
        expect(result.deleted).to.equal(true);
        expect(await source.get('Server', ns, 'web-1')).to.equal(undefined);
        expect(await source.delete('Server', ns, 'web-1').catch((e: unknown) => e)).to.be.instanceOf(NotFound);
      });

      it('with a finalizer, delete sets deletionTimestamp; the object goes when the last finalizer is removed', async () => {
        await source.create(server(ns, 'web-1'));
        await source.addFinalizer('Server', ns, 'web-1', 'regent.dev/cleanup');
        const again = await source.addFinalizer('Server', ns, 'web-1', 'regent.dev/cleanup');
        expect(again.metadata.finalizers).to.deep.equal(['regent.dev/cleanup']);
        await source.addFinalizer('Server', ns, 'web-1', 'regent.dev/second');
        const list = await source.list('Server', ns);
        const watch = record(source, 'Server', list.resourceVersion, ns);
        const result = await source.delete('Server', ns, 'web-1');
        expect(result.deleted).to.equal(false);
        expect(result.object?.metadata.deletionTimestamp).to.be.a('string');
        const terminating = await source.get('Server', ns, 'web-1');
        expect(terminating?.metadata.deletionTimestamp).to.equal(result.object?.metadata.deletionTimestamp);
        const refused = await source.addFinalizer('Server', ns, 'web-1', 'regent.dev/late').catch((e: unknown) => e);
        expect(refused).to.be.instanceOf(Invalid);
        expect(await source.removeFinalizer('Server', ns, 'web-1', 'regent.dev/cleanup')).to.not.equal(undefined);
        expect(await source.removeFinalizer('Server', ns, 'web-1', 'regent.dev/second')).to.equal(undefined);
        expect(await source.get('Server', ns, 'web-1')).to.equal(undefined);
        const events = await watch.waitFor(3);
        await watch.handle.close();
        expect(summary(events)).to.deep.equal(['MODIFIED web-1', 'MODIFIED web-1', 'DELETED web-1']);
        expect(events[0]!.object.metadata.deletionTimestamp).to.be.a('string');
      });

      it('a delete with a stale resourceVersion precondition is a Conflict', async () => {
        const created = await source.create(server(ns, 'web-1'));
        await source.patchStatus('Server', ns, 'web-1', { phase: 'Running' });
        const error = await source.delete('Server', ns, 'web-1', { resourceVersion: created.metadata.resourceVersion }).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(Conflict);
        expect(await source.get('Server', ns, 'web-1')).to.not.equal(undefined);
      });
    });

    describe('owner references', () => {
      it('deleting the owner deletes dependents that have no other live owner', async () => {
        const owner = await source.create(network(ns, 'net-a'));
        const other = await source.create(network(ns, 'net-b'));
        await source.create(server(ns, 'owned', {}, { ownerReferences: [ownerReferenceTo(owner, { controller: true, blockOwnerDeletion: true })] }));
        await source.create(server(ns, 'shared', {}, { ownerReferences: [ownerReferenceTo(owner), ownerReferenceTo(other)] }));
        await source.create(server(ns, 'guarded', {}, { ownerReferences: [ownerReferenceTo(owner)], finalizers: ['regent.dev/cleanup'] }));
        const stored = await source.get('Server', ns, 'owned');
        expect(stored?.metadata.ownerReferences).to.deep.equal([{ apiVersion: 'regent.dev/v1alpha1', kind: 'Network', name: 'net-a', uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }]);
        await source.delete('Network', ns, 'net-a');
        await eventually(async () => ((await source.get('Server', ns, 'owned')) === undefined ? true : undefined), target.eventuallyMs, 'garbage collection');
        const guarded = await eventually(async () => (await source.get('Server', ns, 'guarded'))?.metadata.deletionTimestamp, target.eventuallyMs, 'guarded dependent marked for deletion');
        expect(guarded).to.be.a('string');
        expect(await source.get('Server', ns, 'shared')).to.not.equal(undefined);
      });
    });

    describe('events', () => {
      it('records Normal and Warning events about an object; a repeat increments the count', async () => {
        const object = await source.create(server(ns, 'web-1'));
        await source.recordEvent(object, 'Normal', 'RebuildArmed', 'rebuild toward ubuntu-22.04 armed');
        await source.recordEvent(object, 'Warning', 'RebuildParked', 'rebuild failed; choose another image');
        await source.recordEvent(object, 'Warning', 'RebuildParked', 'rebuild failed; choose another image');
        const events = await eventually(async () => {
          const all = await source.listEvents({ kind: 'Server', namespace: ns, name: 'web-1' });
          return all.length === 2 && all.some((e) => e.count === 2) ? all : undefined;
        }, target.eventuallyMs, 'events');
        const byReason = Object.fromEntries(events.map((e) => [e.reason, e]));
        expect(byReason.RebuildArmed).to.deep.include({ type: 'Normal', message: 'rebuild toward ubuntu-22.04 armed', count: 1 });
        expect(byReason.RebuildParked).to.deep.include({ type: 'Warning', count: 2 });
        expect(byReason.RebuildParked!.involvedObject).to.deep.include({ kind: 'Server', name: 'web-1', namespace: ns, uid: object.metadata.uid });
      });
    });

    describe('across processes', () => {
      it('a watch sees a change another process makes', async function () {
        if (!fresh.spec) this.skip();
        const list = await source.list('Server', ns);
        const watch = record(source, 'Server', list.resourceVersion, ns);
        await runChild(fresh.spec!, server(ns, 'from-child'), fresh.childEnv);
        const events = await watch.waitFor(1, target.eventuallyMs * 4);
        await watch.handle.close();
        expect(summary(events)).to.deep.equal(['ADDED from-child']);
      });
    });
  });
};
