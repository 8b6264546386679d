/**
 * The NetworkPolicy member of the parallel group (nova-operator.md, "Pipeline" NetworkPolicy, "Conditions"; issue
 * 27): the Nova's NetworkPolicy `{name}` with an egress derived from what the roles talk to, and while the console
 * proxy is enabled the `{name}-novncproxy` policy opening the proxy's VNC egress to the compute hosts.
 *
 * Derived egress (`egressOf`): DNS (53 UDP and TCP); the MariaDB port of each database block (where the runtime
 * says the cluster listens: 3306 on Kubernetes); the broker port the TransportURLSecret step resolved
 * (values.brokerPort); the OpenStack APIs the roles call (Keystone 5000 and 443, Placement 8778, Neutron 9696,
 * Glance 9292, Cinder 8776). Ingress: from each of spec.networkPolicy.ingressNamespaces to the API (8774) and the
 * metadata API (8775); the console policy admits 6080 and opens TCP 5900-5999 (the VNC ports libvirt hands out).
 *
 *   spec.networkPolicy unset or enabled false → both policies deleted where they can exist  True  NetworkPolicyNotRequired
 *   enabled with an empty ingress list → refused, nothing applied (fail-closed: a policy that admits no one would cut
 *   the API off; the codec refuses it too, this is the second lock)                          False NetworkPolicyRefused, error
 *   enabled, nothing enforces policies here (the embedded default)                            False NetworkPolicyNotInstalled
 *   enabled, applied (the console policy too while the proxy is enabled, deleted when not)   True  NetworkPolicyReady
 *   a failed call                                                                             False NetworkPolicyError, error
 *
 * The spec's table says the False side is "errors propagate": the pass fails (backoff) and the condition says why.
 */
import type { EgressPort, NetworkPolicySpec } from '../../../nova/group/port.js';
import { continueLane, type NovaStep, type StepReport } from '../lane.js';
import type { NovaLanePass } from '../pass.js';
import { groupObjectsOf } from './routes.js';

const CONDITION = 'NetworkPolicyReady';

/** The OpenStack APIs the roles call (Keystone, Placement, Neutron, Glance, Cinder). */
export const OPENSTACK_API_EGRESS: readonly EgressPort[] = [
  { port: 443, protocol: 'TCP', why: 'OpenStack APIs behind TLS' },
  { port: 5000, protocol: 'TCP', why: 'Keystone' },
  { port: 8778, protocol: 'TCP', why: 'Placement' },
  { port: 9696, protocol: 'TCP', why: 'Neutron' },
  { port: 9292, protocol: 'TCP', why: 'Glance' },
  { port: 8776, protocol: 'TCP', why: 'Cinder' },
];
export const DNS_EGRESS: readonly EgressPort[] = [
  { port: 53, protocol: 'UDP', why: 'DNS' },
  { port: 53, protocol: 'TCP', why: 'DNS' },
];
export const VNC_EGRESS: EgressPort = { port: 5900, endPort: 5999, protocol: 'TCP', why: 'VNC consoles on the compute hosts' };

/** The main policy's egress: DNS, each database port, the broker port, the OpenStack APIs (deduplicated by port and protocol). */
export const egressOf = (databasePorts: readonly number[], brokerPort: number): EgressPort[] => {
  const all: EgressPort[] = [...DNS_EGRESS, ...databasePorts.map((port): EgressPort => ({ port, protocol: 'TCP', why: 'MariaDB' })), { port: brokerPort, protocol: 'TCP', why: 'the message broker' }, ...OPENSTACK_API_EGRESS];
  const seen = new Set<string>();
  return all.filter((e) => {
    const key = `${e.protocol}/${e.port}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

const report = (status: 'True' | 'False', reason: string, message: string): StepReport => ({ conditions: [{ type: CONDITION, status, reason, message }], outcome: continueLane });
const failed = (reason: string, message: string, error: unknown): StepReport => ({ conditions: [{ type: CONDITION, status: 'False', reason, message }], outcome: { kind: 'error', error } });

export const networkPolicyStep: NovaStep<NovaLanePass> = {
  name: 'NetworkPolicy',
  conditions: [CONDITION],
  async run(pass) {
    const objects = groupObjectsOf(pass);
    const { ref, nova, deps, values } = pass;
    const block = nova.spec.networkPolicy;
    const capability = await objects.networkPolicyAPI();
    if (!block?.enabled) {
      const why = block ? 'spec.networkPolicy.enabled is false' : 'spec.networkPolicy is not set';
      try {
        const removed = capability.kind === 'installed' ? [await objects.removeNetworkPolicy(ref.namespace, ref.name), await objects.removeConsoleNetworkPolicy(ref.namespace, ref.name)].filter((r) => r === 'removed').length : 0;
        return report('True', 'NetworkPolicyNotRequired', `${why}: no NetworkPolicy${removed ? ` (deleted ${removed})` : ''}`);
      } catch (error) {
        return failed('NetworkPolicyError', `${why}, but deleting a NetworkPolicy failed: ${(error as Error).message}`, error);
      }
    }
    const ingress = block.ingressNamespaces ?? [];
    if (ingress.length === 0) return failed('NetworkPolicyRefused', 'spec.networkPolicy is enabled with no ingress namespace: a policy admitting no one would cut the API off, so nothing is applied (fail-closed)', new Error('an enabled NetworkPolicy with an empty ingress list is refused'));
    if (capability.kind !== 'installed') return report('False', 'NetworkPolicyNotInstalled', `spec.networkPolicy is enabled, but ${capability.message}`);
    if (values.brokerPort === undefined) return failed('NetworkPolicyError', 'the broker port is not known in this pass (the TransportURLSecret step resolves it)', new Error('no broker port'));
    const databasePorts: number[] = [];
    for (const block of [nova.spec.database.api, nova.spec.database.cell]) {
      const endpoint = await deps.databaseEndpoint(ref.namespace, block.clusterRef.name);
      databasePorts.push(endpoint?.port ?? 3306);
    }
    const owner = { name: ref.name, uid: ref.uid };
    const main: NetworkPolicySpec = { ingressNamespaces: ingress, ingressPorts: [8774, 8775], egress: egressOf(databasePorts, values.brokerPort) };
    const proxy = nova.spec.consoleProxy?.enabled === true;
    try {
      await objects.ensureNetworkPolicy(ref.namespace, owner, main);
      if (proxy) await objects.ensureConsoleNetworkPolicy(ref.namespace, owner, { ingressNamespaces: ingress, ingressPorts: [6080], egress: [...DNS_EGRESS, VNC_EGRESS] });
      else await objects.removeConsoleNetworkPolicy(ref.namespace, ref.name);
    } catch (error) {
      return failed('NetworkPolicyError', `applying the NetworkPolicy failed: ${(error as Error).message}`, error);
    }
    return report('True', 'NetworkPolicyReady', `ingress from ${ingress.join(', ')}; egress to ${main.egress.map((e) => `${e.port}/${e.protocol}`).join(', ')}${proxy ? `; ${ref.name}-novncproxy opens VNC ${VNC_EGRESS.port}-${VNC_EGRESS.endPort}` : ''}`);
  },
};
