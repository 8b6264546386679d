/**
 * Leadership that comes and goes (issue 10, items 2 and 16): the whole control plane on the embedded
 * stores against the simulator over HTTP.
 * - "A re-elected leader reconciles again": lose the lease while alive (another holder takes the row),
 *   win it back, and a spec change is acted on.
 * - "A rebuild decision cut off by a stop … leaves no recorded reason": a clean stop while Nova has not
 *   answered the rebuild records why the answer never came.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../src/app/control-plane.js';
import { manifests, planeOptions, until } from './support/plane.js';
import winston from 'winston';
import { Writable } from 'node:stream';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { EmbeddedLeaseBackend } from '../../src/kube/embedded/lease.js';
import type { EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { rfc3339Micro } from '../../src/kube/object.js';
import type { ServerRebuildContext } from '../../machines/server-rebuild.js';
import { serverRebuildStream } from '../../machines/server-rebuild.js';



describe('e2e: leadership comes and goes', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane | undefined;
  const options = (extra: Partial<ControlPlaneOptions> = {}): ControlPlaneOptions => planeOptions(dir, sim, extra);
  const serverId = async () => {
    const object = await plane?.source.get('Server', 'default', 'web-1');
    return (object?.status as { serverID?: string } | undefined)?.serverID;
  };
  const running = async () => ((await plane?.source.get('Server', 'default', 'web-1'))?.status as { phase?: string } | undefined)?.phase === 'Running';

  beforeEach(async () => {
    sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 100, serverDelete: 100, serverAction: 100 } });
    dir = mkdtempSync(join(tmpdir(), 'regent-leadership-'));
  });
  afterEach(async () => {
    await plane?.stop().catch(() => undefined);
    plane = undefined;
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a leader that lost its lease while alive and won it back acts on the next spec change (lose → win → act)', async () => {
    plane = await startControlPlane(options());
    await until('leadership', () => plane?.isLeader());
    await applyManifests(plane.source, manifests(SEED.images.cirros));
    await until('web-1 running', running);
    const id = (await serverId()) as string;

    // Lose: another holder takes the lease row (as a replica would after this one missed its renew deadline).
    const lease = new EmbeddedLeaseBackend((plane.source as EmbeddedResourceSource).database, 'default', 'regent-controller');
    const current = await lease.get();
    const now = rfc3339Micro(new Date());
    await lease.update({ holderIdentity: 'another-replica', leaseDurationMs: 2_000, acquireTime: now, renewTime: now, leaseTransitions: (current?.leaseTransitions ?? 0) + 1 }, current?.version ?? '0');
    await until('leadership lost', () => !plane?.isLeader(), 5_000);
    const lostTerm = plane.term();
    expect(lostTerm).to.equal(undefined);

    // Win it back: the other holder lets the lease expire.
    await until('leadership again', () => plane?.isLeader(), 10_000);
    expect(plane.term()?.term).to.be.greaterThan(current?.leaseTransitions ?? 0);

    // Act: a spec change is reconciled (the image change becomes the rebuild protocol and settles).
    await applyManifests(plane.source, manifests(SEED.images.ubuntu));
    await until('rebuilt to the new image', async () => {
      const server = await plane?.engine.load(serverRebuildStream(id));
      const context = server?.snapshot.context as ServerRebuildContext | undefined;
      const accepted = sim.calls({ method: 'POST' }).filter((c) => c.action === 'rebuild' && c.status === 202).length;
      return accepted === 1 && context?.marker === null && (await running());
    }, 20_000);
    // Every event this process appended after winning again records the new term.
    const events = await plane.store.readStream(serverRebuildStream(id));
    const rebuildEvents = events.filter((e) => e.type !== 'serverRebuild.observed' && e.metadata.source !== 'monitor');
    expect(rebuildEvents.at(-1)?.metadata.leader?.term).to.equal(plane.term()?.term);
  });

  it('a clean stop while Nova has not answered the rebuild records why the answer never came (no decision without a reason)', async () => {
    plane = await startControlPlane(options({ stopGraceMs: 300 }));
    await until('leadership', () => plane?.isLeader());
    await applyManifests(plane.source, manifests(SEED.images.cirros));
    await until('web-1 running', running);
    const id = (await serverId()) as string;
    // Nova holds the rebuild far longer than the stop's grace period.
    sim.control.addFault({ method: 'POST', path: `/servers/${id}/action`, bodyIncludes: 'rebuild', delayMs: 15_000, count: 1 });
    await applyManifests(plane.source, manifests(SEED.images.ubuntu));
    await until('rebuild submitted', async () => (await plane?.store.readStream(serverRebuildStream(id)))?.some((e) => e.type === 'serverRebuild.submitted'));
    const stopping = Date.now();
    await plane.stop();
    expect(Date.now() - stopping, 'the stop does not wait for the held request').to.be.lessThan(5_000);
    const store = plane.store;
    plane = undefined;
    // the store is closed by stop(): reopen it to read what was recorded
    const { openStore } = await import('../../src/store/open.js');
    const reopened = await openStore(`sqlite:${join(dir, 'regent.db')}`);
    const events = await reopened.readStream(serverRebuildStream(id));
    await reopened.close();
    void store;
    const submitted = events.findIndex((e) => e.type === 'serverRebuild.submitted');
    const result = events.slice(submitted + 1).find((e) => e.metadata.causationId === events[submitted]?.id);
    expect(result?.type).to.equal('serverRebuild.outcomeUnknown');
    expect(result?.data).to.deep.include({ reason: 'Regent abandoned the request (Regent is stopping)' });
  });

  it('a clean stop logs "stopped leading" once, as information (item 16: it was logged twice, as a warning)', async () => {
    const lines: Array<{ level: string; message: string }> = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => { lines.push(JSON.parse(chunk.toString()) as { level: string; message: string }); done(); } });
    const logger = winston.createLogger({ level: 'info', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: sink })] });
    plane = await startControlPlane(options({ logger }));
    await until('leadership', () => plane?.isLeader());
    await plane.stop();
    plane = undefined;
    const stopped = lines.filter((l) => l.message === 'stopped leading');
    expect(stopped).to.have.length(1);
    expect(stopped[0]?.level).to.equal('info');
  });
});
