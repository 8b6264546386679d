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
    await new Promise((r) => setTimeout(r, 500));
    expect(cinderPosts().length - before).to.equal(0);
    expect((await status('data-2'))?.phase).to.equal('Error');
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
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await plane.source.get('Volume', 'default', 'data-5'), 'held by its finalizer').to.not.equal(undefined);
    expect(sim.calls().filter((c) => c.method === 'DELETE' && c.path.includes(`/volumes/${volumeId}`))).to.deep.equal([]);
    await demo.nova.detachVolume(serverId as string, volumeId as string);
    await until('the Volume is gone', async () => (await plane.source.get('Volume', 'default', 'data-5')) === undefined, 60_000);
    expect((await demo.cinder.listVolumes()).some((v) => v.id === volumeId)).to.equal(false);
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
});
