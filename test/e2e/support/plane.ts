/**
 * What the control-plane end-to-end tests share: waiting for a condition, the manifests of a Network
 * and its Servers, and the options of a control plane on temporary embedded stores against a
 * simulator over HTTP, with short lease timings.
 */
import { join } from 'node:path';
import type { RunningSimulator } from '../../../src/simulator/index.js';
import { cloudFromYaml } from '../../../src/openstack/keystone/clouds-config.js';
import type { ControlPlane, ControlPlaneOptions } from '../../../src/app/control-plane.js';
import { silentLogger } from '../../../src/log/logger.js';

/** Polls `probe` until it answers something truthy; fails naming `what` after `timeoutMs`. */
export const until = async <T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000, everyMs = 50): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
};

/** Reconcile passes of `kind`'s controller that `plane` has finished (any disposition), from its own metrics. */
export const passesOf = async (plane: ControlPlane, kind: string): Promise<number> =>
  (await plane.metrics.reconcileDuration.get()).values.filter((v) => v.metricName?.endsWith('_count') && v.labels.kind === kind).reduce((n, v) => n + v.value, 0);

/** Nova monitor polls `plane` has finished, whatever their outcome. */
export const monitorPollsOf = async (plane: ControlPlane): Promise<number> => (await plane.metrics.monitorPolls.get()).values.reduce((n, v) => n + v.value, 0);

/**
 * Waits until `plane` (just become leader) has finished a pass over each of `kinds` and then its monitor has
 * polled twice: every path by which a restarted leader could repeat an effect (its first pass over each
 * resource, a wake from what the monitor reads) has run. Effects run inside the pass that decides them, so a
 * repeated one is in the simulator's calls by then. This replaces a fixed 2 s wait (issue 25), which saw the same
 * passes and polls on an idle machine and nothing after them, and too few on a busy one.
 */
export const reconciledOnce = async (plane: ControlPlane, kinds: readonly string[], timeoutMs = 20_000): Promise<void> => {
  await until(`a finished pass over each of ${kinds.join(', ')}`, async () => (await Promise.all(kinds.map((k) => passesOf(plane, k)))).every((n) => n > 0), timeoutMs);
  const polled = await monitorPollsOf(plane);
  await until('two monitor polls after those passes', async () => (await monitorPollsOf(plane)) >= polled + 2, timeoutMs);
};

/**
 * The Identity acme in Region `default` — the name the control plane's own cloud (the test simulator)
 * stands for — and the Network net-a in it.
 */
export const networkManifest = `apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: acme }
spec: { regionRef: { name: default }, organizationID: acme, projectID: web }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-a }
spec: { identityRef: { name: acme }, prefix: 10.0.0.0/24 }
`;

/** A Server on net-a with the image by id, everything it asks for realized (sshInjection none). */
export const serverManifest = (name: string, image: string) => `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: ${name} }
spec:
  name: ${name}
  image: { id: ${image} }
  flavor: { name: m1.small }
  networkID: net-a
  sshInjection: none
`;

/** The Network and Servers as one multi-document manifest. */
export const manifests = (image: string, names: readonly string[] = ['web-1']) => [networkManifest, ...names.map((n) => serverManifest(n, image))].join('---\n');

/** A control plane on embedded stores in `dir`, driving `sim`, with a fast monitor and short leases. */
export const planeOptions = (dir: string, sim: RunningSimulator, extra: Partial<ControlPlaneOptions> = {}): ControlPlaneOptions => ({
  storeUrl: `sqlite:${join(dir, 'regent.db')}`,
  resourcesUrl: `embedded:${join(dir, 'resources.db')}`,
  logger: silentLogger(),
  port: 0,
  monitorIntervalMs: 200,
  openstack: { cloud: cloudFromYaml(sim.cloudsYaml(), 'sim-demo'), simulator: sim, description: 'test simulator' },
  lease: { durationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 },
  // the Region the manifests' Identity names, whichever cloud the test gives the control plane
  processRegionName: 'default',
  ...extra,
});

/**
 * A control plane as `npm start` runs it, in `dir`: the built-in simulator (no cloud in env), the default examples
 * applied to it, the server REST API on a free port with `jwks`, and the audit pages on its listener; short lease timings.
 */
export const npmStartOptions = (dir: string, jwks: NonNullable<ControlPlaneOptions['api']>['auth']['jwks'], routes: ControlPlaneOptions['routes']): ControlPlaneOptions => ({
  storeUrl: `sqlite:${join(dir, 'regent.db')}`,
  resourcesUrl: `embedded:${join(dir, 'resources.db')}`,
  logger: silentLogger(),
  port: 0,
  env: {},
  examples: { dir: 'examples', explicit: false },
  lease: { durationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 },
  api: { host: '127.0.0.1', port: 0, auth: { jwks } },
  routes,
});
