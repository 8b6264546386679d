/**
 * The whole control plane on the embedded stores against the simulator over HTTP (real clock, short
 * delays): apply a Server and see it ACTIVE with status rendered; change its image and watch the
 * rebuild settle; delete it through the finalizer flow; restart without repeating any effect; two
 * replicas never lead at once.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import type { OpenStackTarget } from '../../src/app/openstack-target.js';
import { createAuditRoutes } from '../../src/audit/web/routes.js';
import { networkManifest as network, planeOptions, reconciledOnce, serverManifest, until } from './support/plane.js';


const server = (image: string) => serverManifest('web-1', image);

type Status = { phase?: string; provisioningStatus?: string; serverID?: string; rebuild?: unknown; auditURL?: string; conditions?: Array<{ type: string; status: string; reason: string; message?: string }> };

describe('e2e: the control plane on the embedded stores', function () {
  this.timeout(90_000);
  let sim: RunningSimulator;
  let target: OpenStackTarget;
  let dir: string;
  let planes: ControlPlane[];
  const options = (): ControlPlaneOptions => ({ ...planeOptions(dir, sim), openstack: target });
  const start = async () => {
    const plane = await startControlPlane(options());
    planes.push(plane);
    return plane;
  };
  const statusOf = async (plane: ControlPlane, kind: 'Server' | 'Network' | 'Volume' | 'LoadBalancer' | 'Nova', name: string) => (await plane.source.get(kind, 'default', name))?.status as Status | undefined;
  const condition = (status: Status | undefined, type: string) => status?.conditions?.find((c) => c.type === type);

  beforeEach(async () => {
    sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 100, serverDelete: 100, serverAction: 100 } });
    target = { cloud: cloudFromYaml(sim.cloudsYaml(), 'sim-demo'), simulator: sim, description: 'test simulator' };
    dir = mkdtempSync(join(tmpdir(), 'regent-plane-'));
    planes = [];
  });
  afterEach(async () => {
    for (const plane of planes) await plane.stop().catch(() => undefined);
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('apply a Server: it becomes ACTIVE and its status is rendered; change its image: the rebuild settles; delete it: the finalizer flow removes the Nova server first', async () => {
    const plane = await start();
    await until('leadership', async () => plane.isLeader());
    await applyManifests(plane.source, network + '---\n' + server(SEED.images.cirros));
    const running = await until('web-1 running', async () => {
      const s = await statusOf(plane, 'Server', 'web-1');
      return s?.phase === 'Running' && condition(s, 'Available')?.status === 'True' && s;
    });
    expect(running.provisioningStatus).to.equal('provisioned');
    expect(running.serverID).to.match(/^[0-9a-f-]{36}$/);
    expect(condition(running, 'Healthy')).to.include({ status: 'True', reason: 'Healthy' });
    expect((await plane.source.get('Server', 'default', 'web-1'))?.metadata.finalizers).to.include('regent.dev/server');
    const serverId = running.serverID as string;

    // the destructive rebuild, through the write-ahead protocol
    await applyManifests(plane.source, server(SEED.images.ubuntu));
    await until('rebuild settled and cleared', async () => {
      const events = await plane.store.readStream(`server-rebuild-${serverId}`);
      return events.some((e) => e.type === 'serverRebuild.cleared') && events;
    });
    const rebuilt = await until('status provisioned after the rebuild', async () => {
      const s = await statusOf(plane, 'Server', 'web-1');
      return s?.provisioningStatus === 'provisioned' && s.rebuild === undefined && s;
    });
    expect(rebuilt.serverID).to.equal(serverId); // rebuild retains the server UUID
    expect(sim.calls({ method: 'POST' }).filter((c) => c.action === 'rebuild' && c.status === 202)).to.have.length(1);
    const reasons = (await plane.source.listEvents({ kind: 'Server', name: 'web-1' })).map((e) => e.reason);
    expect(reasons).to.include.members(['Creating', 'Created', 'RebuildArmed', 'RebuildAccepted', 'RebuildSucceeded']);
    const types = (await plane.store.readStream(`server-rebuild-${serverId}`)).map((e) => e.type);
    expect(types).to.include.members(['serverRebuild.armed', 'serverRebuild.submitted', 'serverRebuild.accepted', 'serverRebuild.cleared']);

    // deletion waits for the finalizer: the Nova server goes first
    const uid = (await plane.source.get('Server', 'default', 'web-1'))?.metadata.uid as string;
    const pending = await plane.source.delete('Server', 'default', 'web-1');
    expect(pending.deleted).to.equal(false);
    await until('web-1 gone', async () => (await plane.source.get('Server', 'default', 'web-1')) === undefined);
    expect(sim.calls({ method: 'DELETE' }).filter((c) => c.path.endsWith(`/servers/${serverId}`))).to.have.length(1);
    const lifecycle = await plane.store.readStream(`server-lifecycle-${uid}`);
    expect(lifecycle.map((e) => e.type).slice(-2)).to.deep.equal(['serverLifecycle.deleteSubmitted', 'serverLifecycle.deleted']);
    expect(lifecycle.at(-2)?.metadata.effects).to.deep.equal([{ type: 'nova.deleteServer', id: serverId }]);
    // issue 18: every event names the resource its stream belongs to, still readable now the Server is gone
    const web1 = { kind: 'Server', namespace: 'default', name: 'web-1' };
    for (const event of lifecycle) expect(event.metadata.subject, `${event.type}`).to.deep.equal(web1);
    const rebuildEvents = await plane.store.readStream(`server-rebuild-${serverId}`);
    expect(rebuildEvents.filter((e) => e.metadata.subject !== undefined).map((e) => e.metadata.subject)).to.deep.equal(rebuildEvents.map(() => web1));
    const networkUid = (await plane.source.get('Network', 'default', 'net-a'))?.metadata.uid as string;
    expect((await plane.store.readStream(`network-lifecycle-${networkUid}`))[0]?.metadata.subject).to.deep.equal({ kind: 'Network', namespace: 'default', name: 'net-a' });
  });

  it('a server that errors before its first boot is deleted and created again (bounded); a booted server never is', async () => {
    const plane = await start();
    await until('leadership', async () => plane.isLeader());
    sim.control.configure({ nova: { bootRules: [{ match: '^web-1$', outcome: 'error', phase: 'boot' }] } });
    await applyManifests(plane.source, network + '---\n' + server(SEED.images.cirros));
    const uid = (await until('web-1 object', async () => plane.source.get('Server', 'default', 'web-1'))).metadata.uid;
    await until('a retry create', async () => (await plane.store.readStream(`server-lifecycle-${uid}`)).some((e) => e.type === 'serverLifecycle.recreateSubmitted'));
    sim.control.configure({ nova: { bootRules: [] } });
    const running = await until('web-1 running after the retry', async () => {
      const s = await statusOf(plane, 'Server', 'web-1');
      return s?.phase === 'Running' && s;
    });
    const creates = sim.calls({ method: 'POST' }).filter((c) => c.path.endsWith('/servers') && c.status === 202);
    expect(creates.length).to.be.within(2, 3);
    expect(sim.calls({ method: 'DELETE' }).filter((c) => c.path.includes('/servers/')).length).to.equal(creates.length - 1);
    const createdIds = (await plane.store.readStream(`server-lifecycle-${uid}`)).filter((e) => e.type === 'serverLifecycle.created').map((e) => e.data.id);
    expect(createdIds.length).to.equal(creates.length);
    expect(running.serverID).to.equal(createdIds.at(-1));
    expect(new Set(createdIds).size).to.equal(createdIds.length); // each retry is a new Nova server
  });

  it('a restart resumes from the stores without repeating any effect', async () => {
    const first = await start();
    await until('leadership', async () => first.isLeader());
    await applyManifests(first.source, network + '---\n' + server(SEED.images.cirros));
    await until('web-1 running', async () => (await statusOf(first, 'Server', 'web-1'))?.phase === 'Running');
    await first.stop();
    planes = [];
    const mutating = () => sim.calls().filter((c) => c.method !== 'GET' && !c.path.includes('/auth/tokens')).length;
    const before = mutating();
    const second = await start();
    await until('leadership again', async () => second.isLeader(), 10_000);
    await reconciledOnce(second, ['Identity', 'Network', 'Server']);
    expect(mutating()).to.equal(before);
    expect((await statusOf(second, 'Server', 'web-1'))?.phase).to.equal('Running');
  });

  it('with the built-in simulator, a restart finds the cloud it left (kept next to the stores) and repeats nothing', async () => {
    const builtIn = () => startControlPlane({ ...options(), openstack: undefined, env: {} });
    const first = await builtIn();
    await until('leadership', async () => first.isLeader());
    await applyManifests(first.source, network + '---\n' + server(SEED.images.cirros));
    const before = await until('web-1 running', async () => {
      const s = await statusOf(first, 'Server', 'web-1');
      return s?.phase === 'Running' && s;
    });
    await first.stop();
    const second = await builtIn();
    planes.push(second);
    await until('leadership again', async () => second.isLeader(), 10_000);
    await reconciledOnce(second, ['Identity', 'Network', 'Server']);
    const mutating = second.openstack.simulator?.calls().filter((c) => c.method !== 'GET' && !c.path.includes('/auth/tokens')) ?? [];
    expect(mutating.map((c) => `${c.method} ${c.path}`)).to.deep.equal([]);
    const after = await statusOf(second, 'Server', 'web-1');
    expect(after?.phase).to.equal('Running');
    expect(after?.serverID).to.equal(before.serverID);
  });

  it('the example Nova is served (issues 14, 26): without its Secrets its status names the gate it waits on (the Secret), and every step behind the gate says it was not reached', async () => {
    const plane = await start();
    await until('leadership', async () => plane.isLeader());
    await applyManifests(plane.source, readFileSync('examples/nova.yaml', 'utf8'));
    const secrets = await until('nova status', async () => condition(await statusOf(plane, 'Nova', 'nova'), 'SecretsReady'));
    expect(secrets).to.include({ status: 'False', reason: 'WaitingForDBCredentials' });
    expect(secrets?.message).to.contain('nova-api-db');
    const status = await statusOf(plane, 'Nova', 'nova');
    expect(condition(status, 'DatabaseReady')).to.include({ status: 'False', reason: 'WaitingForDatabase' });
    expect(condition(status, 'Ready')).to.include({ status: 'False', reason: 'NotAllReady' });
    for (const type of ['ConductorReady', 'DeploymentReady', 'NovaAPIReady', 'NetworkPolicyReady']) {
      expect(condition(status, type), type).to.include({ status: 'Unknown', reason: 'NotReached' });
      expect(condition(status, type)?.message, type).to.contain('the pipeline ends at the Secrets step');
    }
    expect(condition(status, 'Available'), 'no NoController status on a served kind').to.equal(undefined);
  });

  it('two replicas on the same stores: exactly one leads; when it stops, the other takes over within the lease duration', async () => {
    const a = await start();
    const b = await start();
    await until('a leader', async () => a.isLeader() || b.isLeader());
    // a negative check, so a fixed wait: three of the standby's retry periods (200 ms) in which it must not lead too
    await new Promise((r) => setTimeout(r, 600));
    expect([a.isLeader(), b.isLeader()].filter(Boolean)).to.have.length(1);
    const [leader, standby] = a.isLeader() ? [a, b] : [b, a];
    const stoppedAt = Date.now();
    await leader.stop();
    planes = planes.filter((p) => p !== leader);
    await until('standby takes over', async () => standby.isLeader(), 5_000);
    expect(Date.now() - stoppedAt).to.be.lessThan(3_000);
  });

  it('serves /metrics, /healthz and /readyz on loopback', async () => {
    const plane = await start();
    await until('leadership', async () => plane.isLeader());
    await applyManifests(plane.source, network);
    await until('network ready', async () => condition(await statusOf(plane, 'Network', 'net-a'), 'Available')?.status === 'True');
    const metrics = await (await fetch(`${plane.url}/metrics`)).text();
    expect(metrics).to.match(/regent_events_appended_total\{machine="networkLifecycle",source="reconciler"\} \d+/);
    expect(metrics).to.match(/regent_effect_calls_total\{service="neutron",effect="neutron.createNetwork"\} 1/);
    expect(metrics).to.include('regent_reconcile_duration_seconds_bucket');
    expect(metrics).to.include('regent_leader 1');
    expect((await fetch(`${plane.url}/healthz`)).status).to.equal(200);
    const ready = await fetch(`${plane.url}/readyz`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.include({ ready: true, leader: true });
    expect(plane.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('mounts the audit pages at / of the control plane (what npm start serves)', async () => {
    const plane = await startControlPlane({ ...options(), routes: ({ store, engine }) => [createAuditRoutes({ store, registry: engine.registry })] });
    planes.push(plane);
    await until('leadership', async () => plane.isLeader());
    await applyManifests(plane.source, network);
    await until('network stream', async () => (await plane.store.listStreams()).length > 0);
    const home = await fetch(`${plane.url}/`);
    expect(home.status).to.equal(200);
    const html = await home.text();
    expect(html).to.include('serverRebuild');
    const streams = await (await fetch(`${plane.url}/api/streams`)).text();
    expect(streams).to.match(/network-lifecycle-/);
    expect((await fetch(`${plane.url}/metrics`)).status).to.equal(200);
  });

  it("issue 18: with audit links on, every status carries auditURL, the resource's audit page, which lists its streams by name", async () => {
    const plane = await startControlPlane({ ...options(), routes: ({ store, engine }) => [createAuditRoutes({ store, registry: engine.registry })], auditLinks: {} });
    planes.push(plane);
    await until('leadership', async () => plane.isLeader());
    await applyManifests(plane.source, network + '---\n' + server(SEED.images.cirros));
    const running = await until('web-1 running with its audit link', async () => {
      const s = await statusOf(plane, 'Server', 'web-1');
      return s?.phase === 'Running' && typeof s.auditURL === 'string' && s;
    });
    expect(running.auditURL).to.equal(`${plane.url}/resources/Server/default/web-1`);
    expect((await statusOf(plane, 'Network', 'net-a'))?.auditURL).to.equal(`${plane.url}/resources/Network/default/net-a`);
    const page = await fetch(running.auditURL as string);
    expect(page.status).to.equal(200);
    const html = await page.text();
    const uid = (await plane.source.get('Server', 'default', 'web-1'))?.metadata.uid as string;
    expect(html).to.include('<h1 id="subject"><span class="kind">Server</span> default/web-1</h1>').and.include(`/streams/server-lifecycle-${uid}`);
    expect((await fetch(`${plane.url}/resources/Server/default/nobody`)).status).to.equal(404);
  });
});
