/**
 * The options Regent owns that never enter a file: every credential reaches the roles and the Jobs as an
 * oslo.config environment override (`OS_<GROUP>__<OPTION>`, read before any config file: checked against Zed's
 * oslo.config 9), from a Secret. So a rendered config, its hash and its ConfigMap name carry no credential, and a
 * rotated credential changes no config (the rotation digests roll the pods instead: nova-operator.md, "Rotation and
 * deletion").
 *
 * A user's spec.extraConfig naming one of these keys is reported by ExtraConfigHealthy: its value is written to
 * nova.conf as asked, and has no effect, because the environment wins.
 */
import type { NovaSpec } from '../../resources/nova.js';
import type { JobEnv } from '../jobs/port.js';

/** The service user's password key (spec.serviceUser.secretRef). */
export const SERVICE_USER_PASSWORD_KEY = 'password';

/** oslo.config's environment name of an option. */
export const optionEnv = (section: string, key: string): string => `OS_${section.toUpperCase()}__${key.toUpperCase()}`;

/** The keystoneauth sections whose password is the service user's. */
export const SERVICE_USER_PASSWORD_SECTIONS = ['keystone_authtoken', 'placement', 'service_user', 'neutron', 'cinder'] as const;

export interface EnvDeliveredOption {
  section: string;
  key: string;
  /** Where the value comes from, in words (names, never a value). */
  from: string;
}

export const ENV_DELIVERED: readonly EnvDeliveredOption[] = [
  { section: 'DEFAULT', key: 'transport_url', from: 'Secret {name}-transport-url' },
  { section: 'api_database', key: 'connection', from: 'Secret {name}-api-db-connection' },
  { section: 'database', key: 'connection', from: 'Secret {name}-db-connection' },
  ...SERVICE_USER_PASSWORD_SECTIONS.map((section) => ({ section, key: 'password', from: 'spec.serviceUser.secretRef' })),
  { section: 'neutron', key: 'metadata_proxy_shared_secret', from: 'spec.metadata.sharedSecretRef' },
];

/** The service user's password as each keystoneauth section's env override (every role needs them). */
export const serviceUserPasswordEnv = (spec: NovaSpec): JobEnv[] =>
  SERVICE_USER_PASSWORD_SECTIONS.map((section) => ({ name: optionEnv(section, 'password'), secretKeyRef: { name: spec.serviceUser.secretRef.name, key: SERVICE_USER_PASSWORD_KEY } }));
