/**
 * The chaos scenarios, one per machine: each applies its manifests and drives the machine's destructive path
 * (rebuild, create/delete by exact name, attach/detach, cascade delete, …). A create step also settles on the visible
 * refusal a planned 409 causes by design (CreateRejected with the cloud's message: machines/lifecycle.ts, a refused
 * create parks until a new generation); the next step's change is that new generation. The foundation (Region, Identity acme,
 * Network net-a) is applied before every scenario by the run (../run-one.ts).
 */
import { applyManifests } from '../../../../src/kube/cli/manifests.js';
import { availableOrCreateExhausted, availableOrRefused409, gone, settledAvailable, phaseIs, readyOrRefused409, type Kind, type Scenario, type ScenarioContext } from './scenario.js';
import { IMAGES, identity, loadBalancer, managedRegion, networkOf, securityGroup, server, volume } from './manifests.js';
import { createDomain } from '../cloud-state.js';
import { novaScenario } from './nova.js';

const apply = (yaml: string) => async (ctx: ScenarioContext) => void (await applyManifests(ctx.source, yaml));
const remove = (kind: Kind, name: string) => async (ctx: ScenarioContext) => void (await ctx.source.delete(kind, 'default', name));

export const serverScenario: Scenario = {
  machine: 'server',
  streams: ['server-lifecycle-', 'server-rebuild-'],
  watched: [{ kind: 'Server', name: 'web-1' }],
  steps: [
    { name: 'create web-1', act: apply(server('web-1', IMAGES.cirros)), settled: availableOrCreateExhausted('Server', 'web-1') },
    { name: 'rebuild web-1 (image change)', act: apply(server('web-1', IMAGES.ubuntu)), settled: settledAvailable('Server', 'web-1') },
    { name: 'delete web-1', act: remove('Server', 'web-1'), settled: gone('Server', 'web-1') },
  ],
};

export const volumeScenario: Scenario = {
  machine: 'volume',
  streams: ['volume-lifecycle-'],
  watched: [{ kind: 'Volume', name: 'data-1' }],
  steps: [
    { name: 'create data-1', act: apply(volume('data-1', 1)), settled: availableOrCreateExhausted('Volume', 'data-1') },
    { name: 'grow data-1', act: apply(volume('data-1', 2)), settled: settledAvailable('Volume', 'data-1') },
    { name: 'delete data-1', act: remove('Volume', 'data-1'), settled: gone('Volume', 'data-1') },
  ],
};

export const attachmentScenario: Scenario = {
  machine: 'attachment',
  streams: ['volume-attachment-'],
  watched: [{ kind: 'Server', name: 'web-2' }],
  steps: [
    { name: 'server web-2 and volume data-2', act: apply([volume('data-2', 1), server('web-2', IMAGES.cirros)].join('---\n')), settled: async (ctx) => (await availableOrRefused409('Volume', 'data-2')(ctx)) && (await availableOrRefused409('Server', 'web-2')(ctx)) },
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
    { name: 'create web-lb', act: apply(loadBalancer('0.0.0.0/0')), settled: availableOrRefused409('LoadBalancer', 'web-lb') },
    { name: 'change allowed CIDRs', act: apply(loadBalancer('10.0.0.0/8')), settled: settledAvailable('LoadBalancer', 'web-lb') },
    { name: 'delete web-lb', act: remove('LoadBalancer', 'web-lb'), settled: gone('LoadBalancer', 'web-lb') },
  ],
};

export const securityGroupScenario: Scenario = {
  machine: 'security-group',
  streams: ['security-group-lifecycle-'],
  watched: [{ kind: 'SecurityGroup', name: 'web-sg' }],
  steps: [
    { name: 'create web-sg', act: apply(securityGroup(443)), settled: availableOrRefused409('SecurityGroup', 'web-sg') },
    { name: 'delete web-sg', act: remove('SecurityGroup', 'web-sg'), settled: gone('SecurityGroup', 'web-sg') },
  ],
};

export const identityScenario: Scenario = {
  machine: 'identity',
  streams: ['identity-lifecycle-'],
  watched: [{ kind: 'Identity', name: 'beta' }],
  steps: [
    { name: 'create identity beta in a managed domain', act: (ctx) => managedIdentity('beta', false)(ctx), settled: phaseIs('Identity', 'beta', 'Ready') },
    { name: 'delete identity beta', act: remove('Identity', 'beta'), settled: gone('Identity', 'beta') },
  ],
};

/** Region region-two with a managed domain (and VLAN provider networks when asked), its credentials, and Identity `name` on it. */
const managedIdentity = (name: string, vlans: boolean) => async (ctx: ScenarioContext) => {
  const domainId = await createDomain(ctx.sim.url, ctx.sim.passwords[0] ?? '', 'regent-chaos');
  await ctx.source.secrets.put('default', 'region-two-credentials', { 'clouds.yaml': ctx.sim.cloudsYaml, cloud: 'sim-admin' });
  await applyManifests(ctx.source, [managedRegion(ctx.sim.url, domainId, vlans), identity(name)].join('---\n'));
};

export const vlanScenario: Scenario = {
  machine: 'vlan',
  streams: ['vlan-allocation-', 'network-lifecycle-'],
  watched: [],
  steps: [
    { name: 'identity vt on a Region with VLANs 100-103', act: managedIdentity('vt', true), settled: phaseIs('Identity', 'vt', 'Ready') },
    { name: 'networks vnet-1, vnet-2', act: apply([networkOf('vnet-1', 'vt', '10.1.0.0/24'), networkOf('vnet-2', 'vt', '10.2.0.0/24')].join('---\n')), settled: async (ctx) => (await readyOrRefused409('Network', 'vnet-1')(ctx)) && (await readyOrRefused409('Network', 'vnet-2')(ctx)) },
    { name: 'delete vnet-1, create vnet-3', act: async (ctx) => { await remove('Network', 'vnet-1')(ctx); await apply(networkOf('vnet-3', 'vt', '10.3.0.0/24'))(ctx); }, settled: async (ctx) => (await gone('Network', 'vnet-1')(ctx)) && (await readyOrRefused409('Network', 'vnet-3')(ctx)) },
    { name: 'delete vnet-2, vnet-3', act: async (ctx) => { await remove('Network', 'vnet-2')(ctx); await remove('Network', 'vnet-3')(ctx); }, settled: async (ctx) => (await gone('Network', 'vnet-2')(ctx)) && (await gone('Network', 'vnet-3')(ctx)) },
  ],
};

/** The scenarios against the simulator alone (the quick form's CI stage runs these before any sandbox is up). */
export const SCENARIOS: readonly Scenario[] = [serverScenario, volumeScenario, attachmentScenario, loadBalancerScenario, securityGroupScenario, identityScenario, vlanScenario];
/** Every scenario: the Nova upgrade's also needs a MariaDB (./nova.ts); its quick form runs in the real suite. */
export const ALL_SCENARIOS: readonly Scenario[] = [...SCENARIOS, novaScenario];

export const scenarioNamed = (machine: string): Scenario => {
  const found = ALL_SCENARIOS.find((s) => s.machine === machine);
  if (!found) throw new Error(`no chaos scenario ${machine} (known: ${ALL_SCENARIOS.map((s) => s.machine).join(', ')})`);
  return found;
};
