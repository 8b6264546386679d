/**
 * The control plane's wiring of the baremetal lookup (issue 16): a Region listing the simulator's baremetal
 * flavor in `compute.baremetalFlavorIDs`, its credentials the admin's (Ironic node visibility is the region's,
 * never the identity's), a Server on that flavor named by name: while Ironic has not started deploying, the
 * Server's Active condition reads Queued, then (deploying) Building, then Running.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { openStore } from '../../src/store/open.js';
import { planeOptions, until } from './support/plane.js';
import { captureLogs } from '../real-openstack/support/logs.js';

describe('e2e: a baremetal Server reads Queued, then Building, from Ironic through the control plane', function () {
  this.timeout(90_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane | undefined;
  beforeEach(async () => {
    // a slow build: scheduling (no node yet) and the claimed node's wait are Queued for 9 s, the deploy 3 s
    sim = await startSimulator({ clock: 'real', delays: { serverBuild: 12_000, rebuildStep: 100, serverDelete: 100, serverAction: 100 } });
    dir = mkdtempSync(join(tmpdir(), 'regent-baremetal-'));
  });
  afterEach(async () => {
    await plane?.stop().catch(() => undefined);
    plane = undefined;
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('Active: Queued while the node is not deploying, Building while it deploys, then Running; Ironic asked with the region credentials', async () => {
    const logs = captureLogs();
    plane = await startControlPlane(planeOptions(dir, sim, { logger: logs.logger }));
    await until('leadership', () => plane?.isLeader());
    await plane.source.secrets.put('default', 'metal-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-admin' });
    await applyManifests(plane.source, `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: metal }
spec:
  provider: openstack
  openstack:
    endpoint: ${sim.url}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: metal-credentials }
    compute: { baremetalFlavorIDs: [${SEED.baremetalFlavor}] }
---
apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: acme }
spec: { regionRef: { name: metal }, organizationID: acme, projectID: web }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-a }
spec: { identityRef: { name: acme }, prefix: 10.0.0.0/24 }
---
apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: bm-1 }
spec:
  name: bm-1
  image: { id: ${SEED.images.cirros} }
  flavor: { name: bm.gold }
  networkID: net-a
  sshInjection: none
`);
    const active = async () => ((await plane?.source.get('Server', 'default', 'bm-1'))?.status as { conditions?: Array<{ type: string; reason: string }> } | undefined)?.conditions?.find((c) => c.type === 'Active')?.reason;
    await until('Active=Queued', async () => (await active()) === 'Queued', 30_000);
    await until('Active=Running', async () => (await active()) === 'Running', 30_000);
    // the observations the monitor recorded (a change each), in order
    const store = await openStore(`sqlite:${join(dir, 'regent.db')}`);
    const reasons = (await store.readAll({ filter: { streamPrefixes: ['server-rebuild-'] } }))
      .filter((e) => e.metadata.source === 'monitor')
      .map((e) => (e.data as { server?: { baremetal?: string; status?: string } }).server)
      .filter((s) => s !== undefined)
      .map((s) => (s?.status === 'BUILD' ? (s.baremetal ?? 'Building (fallback)') : s?.status));
    await store.close();
    console.log(`      observed: ${[...new Set(reasons)].join(' → ')}`);
    expect(logs.text()).to.not.include('Ironic lookup failed');
    expect(reasons[0]).to.equal('Queued');
    expect(reasons, 'no fallback: every BUILD observation carried what Ironic said').to.not.include('Building (fallback)');
    expect(reasons.indexOf('Building'), 'Building after Queued').to.be.greaterThan(reasons.lastIndexOf('Queued'));
    expect(reasons.at(-1)).to.equal('ACTIVE');
    const ironic = sim.calls({ method: 'GET' }).filter((c) => c.path.startsWith('/baremetal/'));
    expect(ironic.length).to.be.greaterThan(0);
    expect(ironic.every((c) => c.status === 200), 'the region (admin) credentials pass Ironic\'s admin-only policy').to.equal(true);
  });
});
