/**
 * Every Nova call of the client layer against real Nova, each answer decoded by Regent's decoders:
 * servers (create, show, paged detail list, exact find/lookup, metadata, delete), actions (stop, start,
 * reboot, console output, remote console, snapshot, reset state), instance actions, flavors and extra specs, keypairs,
 * server groups, and the admin reads (compute services, hypervisors, aggregates). Volume attachments are
 * in cinder.openstack.ts; the rebuild is in rebuild.openstack.ts.
 */
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import type { Context } from 'mocha';
import { Conflict, NotFound } from '../../src/openstack/errors.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { expectDecoded } from './support/decoded.js';
import { realRun, type Fixtures, type RealRun } from './support/run.js';
import { viewOf } from './support/view.js';
import { waitFor } from './support/wait.js';

const rejectionOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a rejection'); }, (error: unknown) => error);

/** An OpenSSH ed25519 public key line (Nova validates the format on import). */
const sshPublicKey = (comment: string): string => {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const str = (b: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([str(Buffer.from('ssh-ed25519')), str(raw)]).toString('base64')} ${comment}`;
};

describe('nova client against real Nova', function () {
  let run: RealRun;
  let fx: Fixtures;
  let nova: OpenStackSession['nova'];
  let server: { id: string; name: string };

  before(async () => {
    run = await realRun();
    fx = await run.fixtures();
    nova = run.tenant.nova;
    server = await run.bootServer('nova-main', { metadata: { 'regent-suite:uid': 'uid-1' } });
  });

  const needAdmin = (ctx: Context): OpenStackSession => {
    if (!run.admin) ctx.skip();
    return run.admin as OpenStackSession;
  };

  it('a created server reads BUILD, then ACTIVE with every decision field decoded (task_state, vm_state, launched_at, image, MAC, metadata, project)', async () => {
    const building = await nova.getServer(server.id);
    expect(['BUILD', 'ACTIVE']).to.include(viewOf(building).status);
    const active = await run.waitActive(server.id);
    expectDecoded(active, 'ACTIVE server', ['fault']);
    expect(active.name).to.equal(server.name);
    expect(active.imageRef).to.deep.equal({ kind: 'value', value: { source: 'image', id: fx.imageA } });
    expect(active.taskState).to.deep.equal({ kind: 'value', value: null });
    expect(active.vmState).to.deep.equal({ kind: 'value', value: 'active' });
    expect(active.launchedAt.kind === 'value' && typeof active.launchedAt.value).to.equal('string');
    expect(active.macAddresses.kind === 'value' && active.macAddresses.value[0]).to.match(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/);
    expect(active.addresses.kind === 'value' && active.addresses.value[0]?.addr).to.match(/^192\.0\.2\./);
    expect(active.metadata).to.deep.equal({ kind: 'value', value: { 'regent-suite:uid': 'uid-1' } });
    expect(active.projectId).to.deep.equal({ kind: 'value', value: run.tenant.projectId });
    expect(active.fault.kind).to.equal('absent');
  });

  it('pages the detail list with servers_links (page size 1) and finds by exact name; lookup of a missing name is undefined, find is NotFound', async () => {
    const second = await run.bootServer('nova-page');
    // Page only once both servers are out of Nova's build requests: while a server moves from its build
    // request into the cell, a page whose marker is that build request restarts the cell listing and can
    // return the same server again. The client refuses such a walk (UnreadableResponse: "next link repeats
    // a marker") rather than loop or truncate; seen once in this suite with page size 1.
    await Promise.all([run.waitActive(server.id), run.waitActive(second.id)]);
    const listed = await nova.listServers({ name: `^${run.prefix}-nova-` }, { pageSize: 1 });
    expect(listed.map((s) => s.id)).to.include.members([server.id, second.id]);
    for (const s of listed) expectDecoded(s, `listed ${s.name}`, ['fault', 'launchedAt', 'macAddresses', 'addresses']);
    expect((await nova.findServerByName(server.name)).id).to.equal(server.id);
    expect((await nova.lookupServerByName(second.name))?.id).to.equal(second.id);
    expect(await nova.lookupServerByName(run.name('nova-none'))).to.equal(undefined);
    expect(await rejectionOf(nova.findServerByName(run.name('nova-none')))).to.be.instanceOf(NotFound);
  });

  it('metadata: merge keeps other keys, replace swaps the whole map', async () => {
    expect(await nova.mergeServerMetadata(server.id, { extra: '1' })).to.deep.equal({ 'regent-suite:uid': 'uid-1', extra: '1' });
    expect(await nova.replaceServerMetadata(server.id, { 'regent-suite:uid': 'uid-1' })).to.deep.equal({ 'regent-suite:uid': 'uid-1' });
    expect((await nova.getServer(server.id)).metadata).to.deep.equal({ kind: 'value', value: { 'regent-suite:uid': 'uid-1' } });
  });

  it('power actions: os-stop → SHUTOFF, os-start → ACTIVE, reboot SOFT/HARD settle ACTIVE; each accepted with a request id', async () => {
    await run.waitActive(server.id);
    const settled = (status: string) => (s: Awaited<ReturnType<typeof nova.getServer>>) => viewOf(s).status === status && viewOf(s).task === null;
    const stop = await nova.stopServer(server.id);
    expect(stop.requestId).to.match(/^req-/);
    await waitFor('SHUTOFF', () => nova.getServer(server.id), settled('SHUTOFF'));
    await nova.startServer(server.id);
    await waitFor('ACTIVE', () => nova.getServer(server.id), settled('ACTIVE'));
    await nova.rebootServer(server.id, 'SOFT');
    await waitFor('ACTIVE after SOFT', () => nova.getServer(server.id), settled('ACTIVE'));
    await nova.rebootServer(server.id, 'HARD');
    await waitFor('ACTIVE after HARD', () => nova.getServer(server.id), settled('ACTIVE'));
  });

  it('console output and a remote console decode', async () => {
    await run.waitActive(server.id);
    expect(await nova.getConsoleOutput(server.id, 10)).to.be.a('string');
    const console = await nova.createRemoteConsole(server.id, 'vnc', 'novnc');
    expect(console).to.include({ protocol: 'vnc', type: 'novnc' });
    expect(console.url).to.match(/^https?:\/\//);
  });

  it('createImage (snapshot) answers the new image id, which Glance shows (owned by the project, base_image_ref set); the server settles', async () => {
    await run.waitActive(server.id);
    const name = run.name('snapshot');
    const snap = await nova.createServerImage(server.id, name, { purpose: 'suite' });
    run.cleanup.add(`image ${name}`, () => run.tenant.glance.deleteImage(snap.imageId));
    expect(snap.imageId).to.match(/^[0-9a-f-]{36}$/);
    const image = await run.tenant.glance.getImage(snap.imageId);
    expect(image.name).to.equal(name);
    expect(image.owner).to.deep.equal({ kind: 'value', value: run.tenant.projectId });
    expect(image.properties.base_image_ref).to.equal(fx.imageA);
    // A real hypervisor uploads the disk (queued → saving → active); the sandbox's fake driver uploads
    // nothing, so the image may stay queued. Regent never waits on a snapshot's data.
    expect(['queued', 'saving', 'active']).to.include(image.status.kind === 'value' ? image.status.value : 'unreadable');
    await run.waitActive(server.id);
  });

  it('admin reset state: error then active, as Nova reports it', async function () {
    const admin = needAdmin(this);
    await run.waitActive(server.id);
    await admin.nova.resetServerState(server.id, 'error');
    expect(viewOf(await nova.getServer(server.id))).to.deep.include({ status: 'ERROR', vmState: 'error' });
    await admin.nova.resetServerState(server.id, 'active');
    expect(viewOf(await nova.getServer(server.id))).to.deep.include({ status: 'ACTIVE', vmState: 'active' });
  });

  it('instance actions: a create, then a rebuild under the 202\'s request id (newest first); a rebuild refused with 409 adds none; paged by `links`; still listed once the server is deleted', async function () {
    const faults = run.faults;
    if (!faults) this.skip(); // the 409 needs the rebuild held in its task (the sandbox's spawn delay)
    const target = await run.bootServer('nova-actions');
    await run.waitActive(target.id);
    const created = await nova.listInstanceActions(target.id);
    expect(created.map((a) => a.action)).to.deep.equal(['create']);
    (faults as NonNullable<RealRun['faults']>).set('nova', { delay: { spawn: 3 } });
    const accepted = await nova.rebuildServer(target.id, fx.imageB);
    expect(accepted.requestId).to.match(/^req-[0-9a-f-]{36}$/);
    const refused = await rejectionOf(nova.rebuildServer(target.id, fx.imageA));
    expect(refused).to.be.instanceOf(Conflict);
    const actions = await nova.listInstanceActions(target.id);
    expect(actions.map((a) => [a.action, a.requestId])).to.deep.equal([['rebuild', accepted.requestId], ['create', created[0]?.requestId]]);
    for (const a of actions) {
      expect(a.startTime, `${a.action} start_time`).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
      expect(a.fields.startTime.kind).to.equal('value');
      expect(a.fields.message).to.deep.equal({ kind: 'value', value: null });
    }
    await run.waitActive(target.id);
    expect((await nova.listInstanceActions(target.id)).map((a) => a.requestId), 'the 409 left no trace, also once the rebuild settled').to.deep.equal([accepted.requestId, created[0]?.requestId]);
    expect(await nova.listInstanceActions(target.id, { pageSize: 1 }), 'one action per page, following links').to.deep.equal(await nova.listInstanceActions(target.id));

    await run.deleteServerAndWait(run.tenant, target.id);
    expect((await nova.listInstanceActions(target.id)).map((a) => a.action), 'compute ≥ 2.21 lists a deleted server\'s actions').to.deep.equal(['delete', 'rebuild', 'create']);
  });

  it('flavors: list, show, find by exact name, extra specs (admin write, member read)', async function () {
    const flavor = await nova.getFlavor(fx.flavorId);
    expect(flavor.name).to.equal(fx.flavorName);
    expect((await nova.findFlavorByName(fx.flavorName)).id).to.equal(fx.flavorId);
    expect((await nova.listFlavors()).map((f) => f.id)).to.include(fx.flavorId);
    if (run.admin && run.target.flavorName === undefined) {
      expect(await run.admin.nova.setFlavorExtraSpecs(fx.flavorId, { 'hw:cpu_policy': 'shared' })).to.deep.include({ 'hw:cpu_policy': 'shared' });
      expect(await nova.getFlavorExtraSpecs(fx.flavorId)).to.deep.include({ 'hw:cpu_policy': 'shared' });
    }
  });

  it('keypairs: import a public key, get, list, delete (no private key is ever requested)', async () => {
    const name = run.name('key');
    const imported = await nova.importKeypair(name, sshPublicKey(name));
    run.cleanup.add(`keypair ${name}`, () => nova.deleteKeypair(name));
    expect(imported.name).to.equal(name);
    expect((await nova.getKeypair(name)).name).to.equal(name);
    expect((await nova.listKeypairs()).map((k) => k.name)).to.include(name);
    await nova.deleteKeypair(name);
    expect(await rejectionOf(nova.getKeypair(name))).to.be.instanceOf(NotFound);
  });

  it('server groups: create (anti-affinity), get, find by exact name, delete', async () => {
    const name = run.name('group');
    const group = await nova.createServerGroup(name, 'anti-affinity');
    run.cleanup.add(`server group ${name}`, () => nova.deleteServerGroup(group.id));
    expect((await nova.getServerGroup(group.id)).name).to.equal(name);
    expect((await nova.findServerGroupByName(name)).id).to.equal(group.id);
    await nova.deleteServerGroup(group.id);
    expect(await rejectionOf(nova.getServerGroup(group.id))).to.be.instanceOf(NotFound);
  });

  it('admin reads: compute services, hypervisors, aggregates (create, add host, metadata, remove host, delete)', async function () {
    const admin = needAdmin(this);
    const services = await admin.nova.listComputeServices({ binary: 'nova-compute' });
    expect(services.length).to.be.greaterThan(0);
    const host = services[0]?.host as string;
    const hypervisors = await admin.nova.listHypervisors();
    expect(hypervisors.length).to.be.greaterThan(0);
    expect((await admin.nova.getHypervisor(String(hypervisors[0]?.id))).id).to.equal(hypervisors[0]?.id);
    const name = run.name('aggregate');
    const aggregate = await admin.nova.createAggregate(name);
    run.cleanup.add(`aggregate ${name}`, async () => {
      const current = await admin.nova.getAggregate(aggregate.id);
      for (const h of current.hosts ?? []) await admin.nova.removeAggregateHost(aggregate.id, h);
      await admin.nova.deleteAggregate(aggregate.id);
    });
    expect((await admin.nova.findAggregateByName(name)).id).to.equal(aggregate.id);
    expect((await admin.nova.addAggregateHost(aggregate.id, host)).hosts).to.include(host);
    expect((await admin.nova.setAggregateMetadata(aggregate.id, { 'regent-suite': 'yes' })).metadata).to.deep.include({ 'regent-suite': 'yes' });
    expect((await admin.nova.removeAggregateHost(aggregate.id, host)).hosts).to.not.include(host);
    await admin.nova.deleteAggregate(aggregate.id);
    expect(await rejectionOf(admin.nova.getAggregate(aggregate.id))).to.be.instanceOf(NotFound);
  });

  it('delete: DELETED or 404 while going, then 404; a second delete is NotFound', async () => {
    const doomed = await run.bootServer('nova-delete');
    await run.waitActive(doomed.id);
    await nova.deleteServer(doomed.id);
    const statuses: string[] = [];
    await waitFor('gone', async () => nova.getServer(doomed.id).then((s) => viewOf(s).status ?? 'unreadable', (e: unknown) => (e instanceof NotFound ? '404' : Promise.reject(e))), (s) => {
      statuses.push(s);
      return s === '404';
    }, { intervalMs: 100 });
    expect(statuses.every((s) => ['ACTIVE', 'DELETED', '404'].includes(s)), statuses.join(',')).to.equal(true);
    expect(await rejectionOf(nova.deleteServer(doomed.id))).to.be.instanceOf(NotFound);
  });
});
