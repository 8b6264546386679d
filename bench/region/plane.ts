/**
 * The control plane of the mass-change parts: `startControlPlane` on embedded stores (sqlite events, embedded
 * resources) in a temporary directory, against the child-process simulator over HTTP, with short lease timings and a
 * one-second monitor; a Region (volume classes, the external network), Identity and Network as the e2e tests make
 * them; and the manifests of the Servers, Volumes and LoadBalancers the parts apply.
 */
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { connect } from '../../src/openstack/session.js';
import { silentLogger } from '../../src/log/logger.js';
import type { BenchSimulator } from './simulator.js';
import { waitFor } from './measure.js';
import { FOUNDATION_VOLUME_CLASS, regionFoundation } from '../../test/support/region-foundation.js';

export const NAMESPACE = 'default';
export const NETWORK = 'net-a';
export const VOLUME_CLASS = FOUNDATION_VOLUME_CLASS;

const foundation = (sim: BenchSimulator, externalNetworkId: string): string => regionFoundation({ cloudUrl: sim.url, externalNetworkId, prefix: '10.0.0.0/16' });

/** A Server on net-a with `image`, and optionally one Volume listed in spec.volumes. */
export const serverManifest = (name: string, image: string, volume?: string): string => `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: ${name} }
spec:
  name: ${name}
  image: { id: ${image} }
  flavor: { name: m1.tiny }
  networkID: ${NETWORK}
  sshInjection: none
${volume ? `  volumes:\n    - volumeID: ${volume}\n` : ''}`;

export const volumeManifest = (name: string): string => `apiVersion: regent.dev/v1alpha1
kind: Volume
metadata: { name: ${name} }
spec:
  networkID: ${NETWORK}
  size: 1
  volumeClassID: ${VOLUME_CLASS}
`;

/** A LoadBalancer on net-a with two listeners (TCP 443 with a health monitor, UDP 53), no floating IP. */
export const loadBalancerManifest = (name: string): string => `apiVersion: regent.dev/v1alpha1
kind: LoadBalancer
metadata: { name: ${name} }
spec:
  networkID: ${NETWORK}
  listeners:
    - name: https
      protocol: TCP
      port: 443
      pool:
        members:
          - { address: 10.0.0.2, port: 8443 }
        healthMonitor: { delaySeconds: 5, timeoutSeconds: 3, maxRetries: 3 }
    - name: dns
      protocol: UDP
      port: 53
      pool:
        members:
          - { address: 10.0.0.2, port: 53 }
`;

export const applyAll = (plane: ControlPlane, manifests: readonly string[]): Promise<unknown> => applyManifests(plane.source, manifests.join('---\n'));

/** Lifts the demo project's Nova quota (instances, cores, ram) so a thousand servers fit, as the region's admin. */
const liftQuota = async (sim: BenchSimulator): Promise<void> => {
  const admin = await connect(cloudFromYaml(sim.cloudsYaml, 'sim-admin'));
  const demo = await connect(cloudFromYaml(sim.cloudsYaml, 'sim-demo'));
  await admin.nova.updateQuotaSet(demo.projectId as string, { instances: -1, cores: -1, ram: -1 });
};

/** Starts the control plane in `dir` and makes its Region, Identity and Network ready. */
export const startPlane = async (sim: BenchSimulator, dir: string, monitorIntervalMs: number): Promise<ControlPlane> => {
  await liftQuota(sim);
  const plane = await startControlPlane({
    storeUrl: `sqlite:${join(dir, 'regent.db')}`,
    resourcesUrl: `embedded:${join(dir, 'resources.db')}`,
    logger: silentLogger(),
    port: 0,
    monitorIntervalMs,
    openstack: { cloud: cloudFromYaml(sim.cloudsYaml, 'sim-demo'), description: 'region benchmark simulator (child process)' },
    lease: { durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 1_000 },
    processRegionName: 'default',
  });
  if (!(await waitFor(async () => plane.isLeader(), 30_000, 50))) throw new Error('the control plane did not become leader');
  const demo = await connect(cloudFromYaml(sim.cloudsYaml, 'sim-demo'));
  const publicId = (await demo.neutron.listNetworks({ name: 'public' }))[0]?.id;
  if (!publicId) throw new Error('the simulator has no public network');
  await plane.source.secrets.put(NAMESPACE, 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml, cloud: 'sim-demo' });
  await applyManifests(plane.source, foundation(sim, publicId));
  const ready = await waitFor(async () => ((await plane.source.get('Network', NAMESPACE, NETWORK))?.status as { phase?: string } | undefined)?.phase === 'Ready', 60_000);
  if (!ready) throw new Error('net-a did not become Ready');
  return plane;
};

interface Condition {
  type: string;
  status: string;
}
export interface StatusView {
  phase?: string;
  provisioningStatus?: string;
  observedGeneration?: number;
  serverID?: string;
  rebuild?: unknown;
  conditions?: Condition[];
  volumes?: Array<{ volumeID: string; state: string }>;
  listeners?: Array<{ name: string; state: string }>;
}

export const conditionOf = (status: StatusView | undefined, type: string): Condition | undefined => status?.conditions?.find((c) => c.type === type);

/** Every object of `kind` with its status and generation. */
export const listWithStatus = async (plane: ControlPlane, kind: 'Server' | 'Volume' | 'LoadBalancer'): Promise<Array<{ name: string; uid: string; generation: number; status: StatusView | undefined }>> =>
  (await plane.source.list(kind, NAMESPACE)).items.map((o) => ({ name: o.metadata.name, uid: o.metadata.uid, generation: o.metadata.generation ?? 1, status: o.status as StatusView | undefined }));

/** Reconcile passes of `kind` finished so far (any disposition), from the plane's own metrics. */
export const passesOf = async (plane: ControlPlane, kind: string): Promise<number> =>
  (await plane.metrics.reconcileDuration.get()).values.filter((v) => v.metricName?.endsWith('_count') && v.labels.kind === kind).reduce((n, v) => n + v.value, 0);
