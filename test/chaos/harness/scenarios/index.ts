/**
 * The chaos scenarios, one per machine: each applies its manifests and drives the machine's destructive path
 * (rebuild, create/delete by exact name, attach/detach, cascade delete, …). The foundation (Region, Identity acme,
 * Network net-a) is applied before every scenario by the run (../run-one.ts).
 */
import { applyManifests } from '../../../../src/kube/cli/manifests.js';
import { gone, settledAvailable, phaseIs, type Kind, type Scenario, type ScenarioContext } from './scenario.js';
import { IMAGES, identity, loadBalancer, managedRegion, securityGroup, server, volume } from './manifests.js';
import { createDomain } from '../cloud-state.js';

const apply = (yaml: string) => async (ctx: ScenarioContext) => void (await applyManifests(ctx.source, yaml));
const remove = (kind: Kind, name: string) => async (ctx: ScenarioContext) => void (await ctx.source.delete(kind, 'default', name));

export const serverScenario: Scenario = {
  machine: 'server',
  streams: ['server-lifecycle-', 'server-rebuild-'],
  watched: [{ kind: 'Server', name: 'web-1' }],
  steps: [
    { name: 'create web-1', act: apply(server('web-1', IMAGES.cirros)), settled: settledAvailable('Server', 'web-1') },
    { name: 'rebuild web-1 (image change)', act: apply(server('web-1', IMAGES.ubuntu)), settled: settledAvailable('Server', 'web-1') },
    { name: 'delete web-1', act: remove('Server', 'web-1'), settled: gone('Server', 'web-1') },
  ],
};

export const volumeScenario: Scenario = {
  machine: 'volume',
  streams: ['volume-lifecycle-'],
  watched: [{ kind: 'Volume', name: 'data-1' }],
  steps: [
    { name: 'create data-1', act: apply(volume('data-1', 1)), settled: settledAvailable('Volume', 'data-1') },
    { name: 'grow data-1', act: apply(volume('data-1', 2)), settled: settledAvailable('Volume', 'data-1') },
    { name: 'delete data-1', act: remove('Volume', 'data-1'), settled: gone('Volume', 'data-1') },
  ],
};

export const attachmentScenario: Scenario = {
  machine: 'attachment',
  streams: ['volume-attachment-'],
  watched: [{ kind: 'Server', name: 'web-2' }],
  steps: [
    { name: 'server web-2 and volume data-2', act: apply([volume('data-2', 1), server('web-2', IMAGES.cirros)].join('---\n')), settled: async (ctx) => (await settledAvailable('Volume', 'data-2')(ctx)) && (await settledAvailable('Server', 'web-2')(ctx)) },
    { name: 'attach data-2', act: apply(server('web-2', IMAGES.cirros, '  volumes: [{ volumeID: data-2 }]\n')), settled: settledAvailable('Server', 'web-2') },
    { name: 'detach data-2', act: apply(server('web-2', IMAGES.cirros, '  volumes: []\n')), settled: settledAvailable('Server', 'web-2') },
    { name: 'delete web-2 and data-2', act: async (ctx) => { await remove('Server', 'web-2')(ctx); await remove('Volume', 'data-2')(ctx); }, settled: async (ctx) => (await gone('Server', 'web-2')(ctx)) && (await gone('Volume', 'data-2')(ctx)) },
  ],
};

export const loadBalancerScenario: Scenario = {
  machine: 'load-balancer',
  streams: ['load-balancer-'],
  watched: [{ kind: 'LoadBalancer', name: 'web-lb' }],
  steps: [
    { name: 'create web-lb', act: apply(loadBalancer('0.0.0.0/0')), settled: settledAvailable('LoadBalancer', 'web-lb') },
    { name: 'change allowed CIDRs', act: apply(loadBalancer('10.0.0.0/8')), settled: settledAvailable('LoadBalancer', 'web-lb') },
    { name: 'delete web-lb', act: remove('LoadBalancer', 'web-lb'), settled: gone('LoadBalancer', 'web-lb') },
  ],
};

export const securityGroupScenario: Scenario = {
  machine: 'security-group',
  streams: ['security-group-lifecycle-'],
  watched: [{ kind: 'SecurityGroup', name: 'web-sg' }],
  steps: [
    { name: 'create web-sg', act: apply(securityGroup(443)), settled: settledAvailable('SecurityGroup', 'web-sg') },
    { name: 'delete web-sg', act: remove('SecurityGroup', 'web-sg'), settled: gone('SecurityGroup', 'web-sg') },
  ],
};

export const identityScenario: Scenario = {
  machine: 'identity',
  streams: ['identity-lifecycle-'],
  watched: [{ kind: 'Identity', name: 'beta' }],
  steps: [
    {
      name: 'create identity beta in a managed domain',
      act: async (ctx) => {
        const domainId = await createDomain(ctx.sim.url, ctx.sim.passwords[0] ?? '', 'regent-chaos');
        await ctx.source.secrets.put('default', 'region-two-credentials', { 'clouds.yaml': ctx.sim.cloudsYaml, cloud: 'sim-admin' });
        await applyManifests(ctx.source, [managedRegion(ctx.sim.url, domainId), identity('beta')].join('---\n'));
      },
      settled: phaseIs('Identity', 'beta', 'Ready'),
    },
    { name: 'delete identity beta', act: remove('Identity', 'beta'), settled: gone('Identity', 'beta') },
  ],
};

export const SCENARIOS: readonly Scenario[] = [serverScenario, volumeScenario, attachmentScenario, loadBalancerScenario, securityGroupScenario, identityScenario];

export const scenarioNamed = (machine: string): Scenario => {
  const found = SCENARIOS.find((s) => s.machine === machine);
  if (!found) throw new Error(`no chaos scenario ${machine} (known: ${SCENARIOS.map((s) => s.machine).join(', ')})`);
  return found;
};
