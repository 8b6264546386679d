/**
 * What the rendered config needs beyond the Nova's spec: the settings that depend on where the roles run (the
 * ConfigPort answers them: src/nova/config/port.ts) and on the cloud they join. No credential is a setting: every
 * password, DSN and URL with a password reaches the pods as env from a Secret (./env.ts).
 */

/** The identity the roles authenticate to Keystone, Placement, Neutron and Cinder as (its password: env). */
export interface ServiceIdentity {
  username: string;
  projectName: string;
  userDomainName: string;
  projectDomainName: string;
}

/** The ports of nova-operator.md ("Pipeline": Metadata :8775, ConsoleProxy :6080, Deployment :8774). */
export interface NovaPorts {
  api: number;
  metadata: number;
  novncproxy: number;
}

export interface NovaConfigSettings {
  /**
   * Keystone's v3 URL: auth_url of every keystoneauth section and [keystone_authtoken] www_authenticate_uri. Unset:
   * those keys are not rendered, and spec.extraConfig must supply them (as part 1 did).
   */
  keystoneURL?: string;
  /** region_name of the keystoneauth sections and [cinder] os_region_name; unset: not rendered. */
  regionName?: string;
  serviceUser: ServiceIdentity;
  /** The endpoint interface the roles use from the catalog (valid_interfaces). */
  endpointInterface: 'internal' | 'public' | 'admin';
  /** Where the API, metadata and console proxy listen. */
  listenHost: string;
  ports: NovaPorts;
  /** [DEFAULT] state_path and [oslo_concurrency] lock_path: writable by the roles. */
  statePath: string;
  lockPath: string;
  /** [oslo_messaging_rabbit] ssl_ca_file on a TLS bus: where the roles find the broker's CA bundle. */
  messagingCAFile: string;
}

export const DEFAULT_SERVICE_IDENTITY: ServiceIdentity = { username: 'nova', projectName: 'service', userDomainName: 'Default', projectDomainName: 'Default' };
export const NOVA_PORTS: NovaPorts = { api: 8774, metadata: 8775, novncproxy: 6080 };

/** Where a pod mounts the broker CA bundle (key `ca.crt` of spec.messaging.tls.caSecretRef): the workload steps' mount. */
export const MESSAGING_CA_DIR = '/etc/nova-messaging-tls';
export const MESSAGING_CA_KEY = 'ca.crt';

/** The settings of a pod (Kubernetes): the image's state directory, every address, the mounts above. */
export const podSettings = (overrides: Partial<NovaConfigSettings> = {}): NovaConfigSettings => ({
  serviceUser: DEFAULT_SERVICE_IDENTITY,
  endpointInterface: 'internal',
  listenHost: '0.0.0.0',
  ports: NOVA_PORTS,
  statePath: '/var/lib/nova',
  lockPath: '/var/lib/nova/tmp',
  messagingCAFile: `${MESSAGING_CA_DIR}/${MESSAGING_CA_KEY}`,
  ...overrides,
});
