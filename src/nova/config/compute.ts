/**
 * The compute contract (nova-operator.md, "ComputeConfig"; pure): the Secret `{name}-compute-config` a compute node
 * pool joins the Nova on, and with spec.remoteCompute its twin `{name}-remote-compute-config` for nodes that reach the
 * bus through an external address. A NovaCompute waits for the Secret and for its three keys
 * ("reconcileNovaComputeConfig: waits … for its three keys"), renders its compute-pool.conf over the fragment, and
 * hashes the key/value pairs for its pod template:
 *
 *   transport_url  the rabbit:// URL nova-compute joins the bus with (the TransportURLSecret step's; the remote
 *                  contract: the Secret spec.remoteCompute.transportURLSecretRef names). A credential: hence a Secret
 *   auth_url       Keystone's v3 URL: the pool's steps call Keystone, Nova and Placement from it
 *   compute.conf   the nova.conf fragment every compute node shares: the service user's keystoneauth sections
 *                  ([service_user], [placement], [neutron], [cinder]; its password is the pool's to read, never here),
 *                  [glance], [vnc] (enabled with the console proxy, and its public URL with a gateway),
 *                  [oslo_messaging_rabbit] ssl on a TLS bus
 *   ca.crt         only on a TLS bus: the broker's CA bundle (the Secrets step's), for ssl_ca_file
 *
 * A fragment that cannot be written (./ini.ts: a control character in a section, key or value) or a URL carrying a
 * control character renders nothing: the caller leaves the published Secret as it was.
 */
import type { NovaSpec } from '../../resources/nova.js';
import { hasControlCharacter, iniProblems, writeIni, type IniDocument } from './ini.js';
import { novaConfSections } from './sections.js';
import type { NovaConfigSettings } from './settings.js';

export const COMPUTE_CONTRACT_KEYS = { transportURL: 'transport_url', authURL: 'auth_url', fragment: 'compute.conf', ca: 'ca.crt' } as const;
/** The keys a pool waits for (ComputeConfigIncomplete until all three are there). */
export const REQUIRED_CONTRACT_KEYS = [COMPUTE_CONTRACT_KEYS.transportURL, COMPUTE_CONTRACT_KEYS.authURL, COMPUTE_CONTRACT_KEYS.fragment] as const;

export const computeConfigSecretName = (nova: string): string => `${nova}-compute-config`;
export const remoteComputeConfigSecretName = (nova: string): string => `${nova}-remote-compute-config`;

/** The sections of nova.conf a compute node shares with the control plane. */
const SHARED_SECTIONS = ['service_user', 'placement', 'neutron', 'glance', 'cinder', 'vnc'];

export const computeFragment = (spec: NovaSpec, settings: NovaConfigSettings): IniDocument => [
  ...novaConfSections(spec, settings).filter(([section]) => SHARED_SECTIONS.includes(section)),
  // the path of the CA is the pool's (it mounts ca.crt where its image wants it): only that the bus is TLS
  ['oslo_messaging_rabbit', spec.messaging.tls?.enabled === true ? [['ssl', 'true']] : []],
];

export interface ComputeContractInput {
  spec: NovaSpec;
  settings: NovaConfigSettings;
  transportURL: string;
  /** The broker CA bundle, on a TLS bus. */
  messagingCA?: string;
}

export type ComputeContract = { ok: true; data: Record<string, string> } | { ok: false; problems: string[] };

export const renderComputeContract = (input: ComputeContractInput): ComputeContract => {
  const fragment = computeFragment(input.spec, input.settings);
  const problems = iniProblems(fragment).map((p) => p.message);
  // values never shown: a URL may carry a password
  if (hasControlCharacter(input.transportURL)) problems.push(`${COMPUTE_CONTRACT_KEYS.transportURL}: the transport URL carries a control character`);
  const authURL = input.settings.keystoneURL;
  if (authURL === undefined) problems.push(`${COMPUTE_CONTRACT_KEYS.authURL}: no Keystone URL is configured for Regent's Nova roles, so a compute node could not authenticate`);
  else if (hasControlCharacter(authURL)) problems.push(`${COMPUTE_CONTRACT_KEYS.authURL}: the Keystone URL carries a control character`);
  if (problems.length > 0 || authURL === undefined) return { ok: false, problems };
  return {
    ok: true,
    data: {
      [COMPUTE_CONTRACT_KEYS.transportURL]: input.transportURL,
      [COMPUTE_CONTRACT_KEYS.authURL]: authURL,
      [COMPUTE_CONTRACT_KEYS.fragment]: writeIni(fragment),
      ...(input.spec.messaging.tls?.enabled === true && input.messagingCA !== undefined ? { [COMPUTE_CONTRACT_KEYS.ca]: input.messagingCA } : {}),
    },
  };
};
