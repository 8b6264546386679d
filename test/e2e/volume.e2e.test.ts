/**
 * The Volume controller end to end (issue 12): the whole control plane on the embedded stores against
 * the simulator over HTTP. A Region with a VolumeClass allowlist, an Identity on the region's own project
 * (no managed domain: fast), a Network, and Volumes on it. What a user sees is the Volume's status; what
 * Regent did is the simulator's call log and the volume's stream.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { connect } from '../../src/openstack/session.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { volumeCloudName, volumeLifecycleStream, VOLUME_ERRORED_MESSAGE } from '../../machines/volume-lifecycle.js';
import { VOLUME_FINALIZER } from '../../src/controllers/volume/reconcile.js';
import { planeOptions, serverManifest, until } from './support/plane.js';
import { simApi } from '../openstack/support/sim.js';

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
interface VolumeStatus {
  phase?: string;
  conditions?: Condition[];
  volumeID?: string;
  size?: number;
  state?: string;
  volumeClassID?: string;
  observedGeneration?: number;
}

const SSD = SEED.volumeTypes.ssd;
const STANDARD = SEED.volumeTypes.standard;

/** Region region-one (the demo project's credentials, no managed domain), exporting only the ssd class; Identity acme; Network net-a. */
const foundation = (sim: RunningSimulator) => `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec:
  provider: openstack
  openstack:
    endpoint: ${sim.url}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: region-one-credentials }
    blockStorage:
      volumeClasses:
        selector: { ids: [${SSD}] }
        metadata:
          - { id: ${SSD}, minCapacityGiB: 1, maxCapacityGiB: 100, media: ssd }
---
apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: acme }
spec: { regionRef: { name: region-one }, organizationID: acme, projectID: web }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-a }
spec: { identityRef: { name: acme }, prefix: 10.0.0.0/24 }
`;

const volume = (name: string, size = 1, cls = SSD, tags?: Record<string, string>) => `apiVersion: regent.dev/v1alpha1
kind: Volume
metadata: { name: ${name} }
spec:
  networkID: net-a
  size: ${size}
  volumeClassID: ${cls}
${tags ? `  tags: ${JSON.stringify(tags)}\n` : ''}`;

describe('e2e: the Volume controller (issue 12)', function () {
  this.timeout(90_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane;
  let demo: OpenStackSession;

  const status = async (name: string) => (await plane.source.get('Volume', 'default', name))?.status as VolumeStatus | undefined;
  const condition = async (name: string, type: string) => (await status(name))?.conditions?.find((c) => c.type === type);
  const cinderPosts = () => sim.calls().filter((c) => c.method === 'POST' && /\/volumes$/.test(c.path));
  const cinderCalls = () => sim.calls().filter((c) => c.path.includes('/volume'));

  beforeEach(async () => {
    sim = await startSimulator({ clock: 'real', delays: { volumeCreate: 150, volumeDelete: 150, volumeAction: 150, volumeAttach: 100, volumeDetach: 100, serverBuild: 100, serverDelete: 100 } });
    dir = mkdtempSync(join(tmpdir(), 'regent-volume-'));
    demo = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-demo'));
    plane = await startControlPlane(planeOptions(dir, sim));
    await until('leadership', () => plane.isLeader());
    await plane.source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-demo' });
    await applyManifests(plane.source, foundation(sim));
    await until('the identity is realized', async () => ((await plane.source.get('Identity', 'default', 'acme'))?.status as { phase?: string } | undefined)?.phase === 'Ready', 30_000);
  });
  afterEach(async () => {
    await plane.stop().catch(() => undefined);
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('create → available: volume-<uid> of the spec size and class, one POST, status Provisioned with id, size, state and class', async () => {
    const before = cinderPosts().length;
    await applyManifests(plane.source, volume('data-1', 2));
    const available = await until('data-1 available', async () => {
      const c = await condition('data-1', 'Available');
      return c?.status === 'True' ? c : undefined;
    });
    expect(available).to.include({ reason: 'Provisioned' });
    const object = await plane.source.get('Volume', 'default', 'data-1');
    const s = object?.status as VolumeStatus;
    expect(s).to.include({ phase: 'Ready', size: 2, state: 'available', volumeClassID: SSD, observedGeneration: 1 });
    expect(object?.metadata.finalizers).to.include(VOLUME_FINALIZER);
    const inCinder = (await demo.cinder.listVolumes({ name: volumeCloudName(object?.metadata.uid as string) })).filter((v) => v.name === volumeCloudName(object?.metadata.uid as string));
    expect(inCinder.map((v) => v.id)).to.deep.equal([s.volumeID]);
    expect(cinderPosts().length - before, 'exactly one Cinder create').to.equal(1);
    expect(await condition('data-1', 'InUse')).to.include({ status: 'False', reason: 'NotAttached' });
  });

  it('a class the Region does not export: InvalidSpec naming the class, and no Cinder create', async () => {
    const before = cinderPosts().length;
    await applyManifests(plane.source, volume('data-2', 1, STANDARD));
    const c = await until('InvalidSpec', async () => {
      const found = await condition('data-2', 'Available');
      return found?.reason === 'InvalidSpec' ? found : undefined;
    });
    expect(c.message).to.include(STANDARD);
    // a negative check (no create after the refusal), so a fixed wait: a pass racing the one that refused
    await new Promise((r) => setTimeout(r, 500));
    expect(cinderPosts().length - before).to.equal(0);
    expect((await status('data-2'))?.phase).to.equal('Error');
  });

  it("a size outside the class's capacity bounds: InvalidSpec naming the bound, and no Cinder create", async () => {
    const before = cinderPosts().length;
    await applyManifests(plane.source, volume('big-1', 200));
    const c = await until('InvalidSpec', async () => {
      const found = await condition('big-1', 'Available');
      return found?.reason === 'InvalidSpec' ? found : undefined;
    });
    expect(c.message).to.include('spec.size: 200 GiB is above the maximum of the VolumeClass ssd (100 GiB)');
    // a negative check (no create after the refusal), so a fixed wait: a pass racing the one that refused
    await new Promise((r) => setTimeout(r, 500));
    expect(cinderPosts().length - before).to.equal(0);
  });

  it('a status beginning with error: Available=False, Reason=Errored, exactly the user-safe message; no Cinder text in status or events', async () => {
    await simApi(sim, 'POST', '/config', { cinder: { failCreate: '^volume-' } });
    await applyManifests(plane.source, volume('data-3'));
    const c = await until('Errored', async () => {
      const found = await condition('data-3', 'Available');
      return found?.reason === 'Errored' ? found : undefined;
    });
    expect(c.message).to.equal(VOLUME_ERRORED_MESSAGE);
    const s = await status('data-3');
    expect(s?.phase).to.equal('Error');
    const uid = (await plane.source.get('Volume', 'default', 'data-3'))?.metadata.uid as string;
    const events = await plane.store.readStream(volumeLifecycleStream(uid));
    const text = JSON.stringify(events.map((e) => e.data));
    expect(text).to.not.match(/host|scheduler|traceback/i);
  });

  it('grow: a larger spec.size is one Cinder extend; Provisioning until Cinder shows the new size', async () => {
    await applyManifests(plane.source, volume('data-4', 1));
    await until('available', async () => (await condition('data-4', 'Available'))?.status === 'True');
    await applyManifests(plane.source, volume('data-4', 3));
    await until('grown', async () => {
      const s = await status('data-4');
      return s?.size === 3 && s.conditions?.find((c) => c.type === 'Available')?.status === 'True' && s.observedGeneration === 2;
    });
    const extends_ = sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/action') && c.path.includes('/volumes/'));
    expect(extends_.length).to.equal(1);
  });

  it('delete while attached: the finalizer holds, naming the server, until it is detached; then Cinder deletes and the Volume goes', async () => {
    await applyManifests(plane.source, serverManifest('web-1', SEED.images.cirros));
    await applyManifests(plane.source, volume('data-5'));
    const serverId = await until('web-1 runs', async () => {
      const s = (await plane.source.get('Server', 'default', 'web-1'))?.status as { phase?: string; serverID?: string } | undefined;
      return s?.phase === 'Running' ? s.serverID : undefined;
    }, 30_000);
    const volumeId = await until('data-5 available', async () => ((await condition('data-5', 'Available'))?.status === 'True' ? (await status('data-5'))?.volumeID : undefined));
    // attached out of band (no Server.spec.volumes): the volume still must not be deleted from under it
    await demo.nova.attachVolume(serverId as string, volumeId as string);
    await until('Cinder shows it in-use', async () => {
      const found = (await demo.cinder.listVolumes()).find((v) => v.id === volumeId);
      return found?.status.kind === 'value' && found.status.value === 'in-use';
    });
    await plane.source.delete('Volume', 'default', 'data-5');
    const waiting = await until('Deleting naming web-1', async () => {
      const c = await condition('data-5', 'Available');
      return c?.reason === 'Deleting' && c.message.includes('web-1') ? c : undefined;
    });
    expect(waiting.message).to.include('detached');
    // a negative check (the finalizer holds, no Cinder delete), so a fixed wait: more than one pass of the wait
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await plane.source.get('Volume', 'default', 'data-5'), 'held by its finalizer').to.not.equal(undefined);
    expect(sim.calls().filter((c) => c.method === 'DELETE' && c.path.includes(`/volumes/${volumeId}`))).to.deep.equal([]);
    await demo.nova.detachVolume(serverId as string, volumeId as string);
    await until('the Volume is gone', async () => (await plane.source.get('Volume', 'default', 'data-5')) === undefined, 60_000);
    expect((await demo.cinder.listVolumes()).some((v) => v.id === volumeId)).to.equal(false);
  });

  it("the Identity's finalizer holds while a Volume on its Network remains, naming it", async () => {
    await applyManifests(plane.source, volume('data-13'));
    await until('available', async () => (await condition('data-13', 'Available'))?.status === 'True');
    await plane.source.delete('Identity', 'default', 'acme');
    const c = await until('the Identity waits', async () => {
      const found = ((await plane.source.get('Identity', 'default', 'acme'))?.status as VolumeStatus | undefined)?.conditions?.find((x) => x.type === 'Available');
      return found?.reason === 'Deleting' && found.message.includes('Volume/data-13') ? found : undefined;
    });
    expect(c.message).to.include('Volume/data-13');
    expect(await plane.source.get('Identity', 'default', 'acme')).to.not.equal(undefined);
  });

  it('an Identity that does not exist is proof that no volume exists too: the Volume is released at once, without a Cinder call', async () => {
    await applyManifests(plane.source, `apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-nobody }
spec: { identityRef: { name: nobody }, prefix: 10.2.0.0/24 }
`);
    await applyManifests(plane.source, volume('data-14').replace('networkID: net-a', 'networkID: net-nobody'));
    await until('the finalizer is on', async () => (await plane.source.get('Volume', 'default', 'data-14'))?.metadata.finalizers?.includes(VOLUME_FINALIZER));
    const before = cinderCalls().length;
    await plane.source.delete('Volume', 'default', 'data-14');
    await until('released', async () => (await plane.source.get('Volume', 'default', 'data-14')) === undefined, 10_000);
    expect(cinderCalls().length - before).to.equal(0);
  });

  it('an Identity that was never realized is proof that no volume exists: the Volume is released at once, without a Cinder call', async () => {
    await applyManifests(plane.source, `apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: ghost }
spec: { regionRef: { name: nowhere }, organizationID: acme, projectID: ghost }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-ghost }
spec: { identityRef: { name: ghost }, prefix: 10.1.0.0/24 }
`);
    await applyManifests(plane.source, volume('data-6').replace('networkID: net-a', 'networkID: net-ghost'));
    await until('the finalizer is on', async () => (await plane.source.get('Volume', 'default', 'data-6'))?.metadata.finalizers?.includes(VOLUME_FINALIZER));
    expect((await condition('data-6', 'Available'))?.message ?? '').to.not.include('available');
    const before = cinderCalls().length;
    await plane.source.delete('Volume', 'default', 'data-6');
    await until('released', async () => (await plane.source.get('Volume', 'default', 'data-6')) === undefined, 10_000);
    expect(cinderCalls().length - before).to.equal(0);
  });

  describe('Server.spec.volumes: attach and detach through Nova, rows on Server.status.volumes', () => {
    interface ServerStatus {
      phase?: string;
      serverID?: string;
      conditions?: Condition[];
      volumes?: Array<{ volumeID: string; device?: string; state: string }>;
    }
    const serverStatus = async (name: string) => (await plane.source.get('Server', 'default', name))?.status as ServerStatus | undefined;
    const serverCondition = async (name: string, type: string) => (await serverStatus(name))?.conditions?.find((c) => c.type === type);
    const withVolumes = (name: string, volumes: string[]) =>
      serverManifest(name, SEED.images.cirros) + (volumes.length > 0 ? `  volumes:\n${volumes.map((v) => `    - volumeID: ${v}\n`).join('')}` : '  volumes: []\n');
    const attachPosts = () => sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/os-volume_attachments'));

    it('attach: a listed Volume is attached once it is available; the row shows Attached with the guest device and no id; InUse names the server; Available waits for it', async () => {
      await applyManifests(plane.source, volume('data-7') + '---\n' + withVolumes('web-7', ['data-7']));
      const row = await until('data-7 attached', async () => (await serverStatus('web-7'))?.volumes?.find((v) => v.volumeID === 'data-7' && v.state === 'Attached'), 60_000);
      expect(row.device).to.match(/^\/dev\//);
      expect(await serverCondition('web-7', 'VolumesAttached')).to.include({ status: 'True', reason: 'Attached' });
      expect(attachPosts().length, 'one Nova attach').to.equal(1);
      const s = await serverStatus('web-7');
      const volumeId = (await status('data-7'))?.volumeID as string;
      expect(JSON.stringify(s?.volumes)).to.not.include(volumeId);
      await until('InUse names web-7', async () => (await condition('data-7', 'InUse'))?.message === 'attached to web-7', 20_000);
      // more passes never send a second attach (real Cinder answers it 400 "already attached"): a negative check,
      // so a fixed wait, long enough for the passes the attach's settling and the monitor bring
      await new Promise((r) => setTimeout(r, 1_500));
      expect(attachPosts().length).to.equal(1);
    });

    it('a listed Volume that does not exist: the row says Attaching, VolumesAttached names it, Available is not True; nothing is sent to Nova', async () => {
      await applyManifests(plane.source, withVolumes('web-8', ['nope']));
      await until('web-8 runs', async () => (await serverStatus('web-8'))?.phase === 'Running', 30_000);
      const c = await until('VolumesAttached', async () => serverCondition('web-8', 'VolumesAttached'));
      expect(c).to.include({ status: 'False', reason: 'Attaching' });
      expect(c.message).to.include('nope (no such Volume)');
      expect((await serverCondition('web-8', 'Available'))?.status).to.not.equal('True');
      expect(attachPosts()).to.deep.equal([]);
    });

    it('attached to another server: Conflict, with no Nova call for the second server', async () => {
      await applyManifests(plane.source, volume('data-9') + '---\n' + withVolumes('web-9', ['data-9']));
      await until('web-9 has it', async () => (await serverStatus('web-9'))?.volumes?.some((v) => v.state === 'Attached'), 60_000);
      const before = attachPosts().length;
      await applyManifests(plane.source, withVolumes('web-10', ['data-9']));
      const c = await until('conflict', async () => {
        const found = await serverCondition('web-10', 'VolumesAttached');
        return found?.reason === 'AttachFailed' ? found : undefined;
      }, 60_000);
      expect(c.message).to.include('data-9: the volume is attached to another server (Conflict)');
      expect(attachPosts().length - before).to.equal(0);
    });

    it('detach: a Volume removed from spec.volumes is detached through Nova and its row goes; a deleted server detaches before its Nova delete', async () => {
      await applyManifests(plane.source, volume('data-11') + '---\n' + volume('data-12') + '---\n' + withVolumes('web-11', ['data-11', 'data-12']));
      await until('both attached', async () => (await serverStatus('web-11'))?.volumes?.filter((v) => v.state === 'Attached').length === 2, 60_000);
      await applyManifests(plane.source, withVolumes('web-11', ['data-12']));
      await until('data-11 row gone', async () => {
        const rows = (await serverStatus('web-11'))?.volumes ?? [];
        return rows.length === 1 && rows[0]?.volumeID === 'data-12';
      }, 60_000);
      const id11 = (await status('data-11'))?.volumeID as string;
      await until('Cinder: data-11 available again', async () => {
        const found = (await demo.cinder.listVolumes()).find((v) => v.id === id11);
        return found?.status.kind === 'value' && found.status.value === 'available';
      }, 20_000);
      expect(sim.calls().filter((c) => c.method === 'DELETE' && c.path.includes(`/os-volume_attachments/${id11}`)).length).to.equal(1);
      // the server is deleted: data-12 is detached first (one Nova DELETE of the attachment), then the server goes
      const id12 = (await status('data-12'))?.volumeID as string;
      await plane.source.delete('Server', 'default', 'web-11');
      await until('web-11 gone', async () => (await plane.source.get('Server', 'default', 'web-11')) === undefined, 60_000);
      const detach12 = sim.calls().findIndex((c) => c.method === 'DELETE' && c.path.includes(`/os-volume_attachments/${id12}`));
      const serverDelete = sim.calls().findIndex((c) => c.method === 'DELETE' && /\/servers\/[^/]+$/.test(c.path));
      expect(detach12, 'detached through Nova').to.be.greaterThan(-1);
      expect(detach12, 'before the Nova delete').to.be.lessThan(serverDelete);
    });
  });
});
