/**
 * Issue 24, item 2: "Status must not claim success on stale evidence". The examples run (the built-in
 * simulator with region-one registered into it, as `npm start` does); then the Region's credentials Secret is
 * broken. Within one monitor poll every resource worked with through region-one — Network, Server, Volume,
 * LoadBalancer, SecurityGroup — says it cannot be observed: DependenciesReady=False naming the Region and why,
 * and Available no longer True/Provisioned (Unknown/DependencyUnavailable), its last observed facts kept. The
 * Secret mended, they recover with no human action. Nothing in the cloud is mutated meanwhile.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { silentLogger } from '../../src/log/logger.js';
import type { KindName } from '../../src/resources/index.js';
import { until } from './support/plane.js';

type Condition = { type: string; status: string; reason: string; message: string; lastTransitionTime: string };
type Status = { conditions?: Condition[]; serverID?: string; volumeID?: string; loadBalancerID?: string; networkID?: string; securityGroupID?: string; vipAddress?: string };

const MONITOR_INTERVAL_MS = 500;

/** The example resources worked with through region-one's Identity acme-web. */
const DEPENDENTS: ReadonlyArray<[KindName, string]> = [
  ['Network', 'net-a'], ['Server', 'web-1'], ['Server', 'web-2'], ['Volume', 'data-1'], ['LoadBalancer', 'web-lb'], ['SecurityGroup', 'web-sg'],
];

describe('e2e: a resource whose Region cannot be used says so, and recovers by itself (issue 24, item 2)', function () {
  this.timeout(180_000);
  let dir: string;
  let plane: ControlPlane;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-dependency-'));
    plane = await startControlPlane({
      storeUrl: `sqlite:${join(dir, 'regent.db')}`,
      resourcesUrl: `embedded:${join(dir, 'resources.db')}`,
      logger: silentLogger(),
      port: 0,
      examples: { dir: 'examples', explicit: false },
      env: {},
      monitorIntervalMs: MONITOR_INTERVAL_MS,
      lease: { durationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 },
    });
    await until('every dependent Available', async () => (await Promise.all(DEPENDENTS.map(([kind, name]) => available(kind, name)))).every((c) => c?.status === 'True'), 120_000, 250);
  });
  after(async () => {
    await plane?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const statusOf = async (kind: KindName, name: string) => (await plane.source.get(kind, 'default', name))?.status as Status | undefined;
  const condition = async (kind: KindName, name: string, type: string) => (await statusOf(kind, name))?.conditions?.find((c) => c.type === type);
  const available = (kind: KindName, name: string) => condition(kind, name, 'Available');
  const mutating = () => (plane.openstack.simulator?.calls() ?? []).filter((c) => c.method !== 'GET' && c.method !== 'HEAD' && !c.path.endsWith('/auth/tokens')).map((c) => `${c.method} ${c.path}`);

  it('broken credentials: within one poll every dependent is Unknown/DependencyUnavailable naming the Region, its facts kept; mended: all Available again; nothing mutated', async () => {
    const before = new Map<string, Status | undefined>();
    for (const [kind, name] of DEPENDENTS) before.set(`${kind}/${name}`, await statusOf(kind, name));
    expect((await condition('Server', 'web-1', 'DependenciesReady'))?.status, 'a reachable resource says so').to.equal('True');
    const secret = await plane.source.secrets.get('default', 'region-one-credentials');
    if (!secret) throw new Error('region-one has no credentials Secret');
    const mutatedBefore = mutating().length;

    await plane.source.secrets.put('default', 'region-one-credentials', { ...secret.data, application_credential_secret: 'not-the-secret' });
    await until('every dependent to withdraw its success claim', async () => {
      const all = await Promise.all(DEPENDENTS.map(([kind, name]) => available(kind, name)));
      return all.every((c) => c?.status === 'Unknown' && c.reason === 'DependencyUnavailable');
    }, 20_000, 100);
    for (const [kind, name] of DEPENDENTS) {
      const dependency = await condition(kind, name, 'DependenciesReady');
      expect(dependency, `${kind}/${name}`).to.include({ status: 'False', reason: 'RegionUnusable' });
      expect(dependency?.message, `${kind}/${name} names the Region`).to.match(/^Region default\/region-one: /);
      expect((await available(kind, name))?.message, `${kind}/${name} dates what it shows`).to.match(/cannot be observed since \d{4}-\d\d-\d\dT.*observed before then \(it last read Provisioned\)/);
      // the last observed facts are kept, not blanked
      const was = before.get(`${kind}/${name}`);
      const now = await statusOf(kind, name);
      for (const fact of ['serverID', 'volumeID', 'loadBalancerID', 'networkID', 'securityGroupID', 'vipAddress'] as const) expect(now?.[fact], `${kind}/${name} ${fact}`).to.equal(was?.[fact]);
    }

    await plane.source.secrets.put('default', 'region-one-credentials', secret.data);
    await until('every dependent Available again', async () => (await Promise.all(DEPENDENTS.map(([kind, name]) => available(kind, name)))).every((c) => c?.status === 'True' && c.reason === 'Provisioned'), 30_000, 100);
    for (const [kind, name] of DEPENDENTS) expect(await condition(kind, name, 'DependenciesReady'), `${kind}/${name}`).to.include({ status: 'True', reason: 'Reachable' });
    expect(mutating().slice(mutatedBefore), 'nothing in the cloud was mutated meanwhile').to.deep.equal([]);
  });
});
