/**
 * What Regent writes into nova.conf and the role overlays before spec.extraConfig is merged over them (pure).
 *
 * nova.conf holds what every role shares. Credentials are not in it (./env.ts): no transport_url, no connection,
 * no password, no metadata proxy secret. The keystoneauth sections ([keystone_authtoken], [placement],
 * [service_user], [neutron], [cinder]) authenticate as the service user; [glance] and [cinder] find their
 * endpoints in the catalog on the configured interface. Each role loads `nova.conf` then its overlay
 * (`nova-<role>.conf`, one per role of src/nova/workloads/port.ts: the spec's four and the console proxy's, so every
 * role is started alike), so an overlay says only what differs per role: which API a process serves, where it
 * listens, how many workers it starts (one: a role scales by replicas, and a pod's CPU count is the node's).
 */
import type { NovaSpec } from '../../resources/nova.js';
import { OSLO_DB_MAX_OVERFLOW, OSLO_DB_MAX_POOL_SIZE } from '../database/plan.js';
import { UPGRADE_ROLE_ORDER, type NovaRole } from '../workloads/port.js';
import type { IniDocument, IniSection } from './ini.js';
import type { NovaConfigSettings } from './settings.js';

/** The roles with an overlay (every role), and its file name. */
export const OVERLAY_ROLES: readonly NovaRole[] = UPGRADE_ROLE_ORDER;
export const overlayFile = (role: NovaRole): string => `nova-${role}.conf`;

type Entries = Array<readonly [string, string]>;
const present = (entries: ReadonlyArray<readonly [string, string | undefined]>): Entries => entries.filter((e): e is readonly [string, string] => e[1] !== undefined);

/** auth_type … project_domain_name of a keystoneauth section, as the service user. */
export const serviceAuth = (settings: NovaConfigSettings): Entries =>
  present([
    ['auth_type', 'password'],
    ['auth_url', settings.keystoneURL],
    ['username', settings.serviceUser.username],
    ['user_domain_name', settings.serviceUser.userDomainName],
    ['project_name', settings.serviceUser.projectName],
    ['project_domain_name', settings.serviceUser.projectDomainName],
  ]);

/** A catalog client: region and interface. */
export const catalog = (settings: NovaConfigSettings): Entries => present([['region_name', settings.regionName], ['valid_interfaces', settings.endpointInterface]]);

/** nova.conf before extraConfig. */
export const novaConfSections = (spec: NovaSpec, settings: NovaConfigSettings): IniDocument => {
  const pool: Entries = [
    ['max_pool_size', String(OSLO_DB_MAX_POOL_SIZE)],
    ['max_overflow', String(OSLO_DB_MAX_OVERFLOW)],
  ];
  const tlsBus = spec.messaging.tls?.enabled === true;
  const gateway = spec.consoleProxy?.gateway?.hostname;
  const sections: IniSection[] = [
    ['DEFAULT', [['state_path', settings.statePath]]],
    ['api', [['auth_strategy', 'keystone']]],
    ['wsgi', [['api_paste_config', 'api-paste.ini']]],
    ['api_database', pool],
    ['database', pool],
    [
      'keystone_authtoken',
      present([
        ['www_authenticate_uri', settings.keystoneURL],
        ...serviceAuth(settings),
        ['region_name', settings.regionName],
        ['interface', settings.endpointInterface],
        ['service_token_roles_required', 'true'],
      ]),
    ],
    ['service_user', [['send_service_user_token', 'true'], ...serviceAuth(settings)]],
    ['placement', [...serviceAuth(settings), ...catalog(settings)]],
    ['neutron', [...serviceAuth(settings), ...catalog(settings), ...(spec.metadata?.sharedSecretRef ? [['service_metadata_proxy', 'true'] as const] : [])]],
    ['glance', catalog(settings)],
    ['cinder', present([...serviceAuth(settings), ['catalog_info', `volumev3::${settings.endpointInterface}URL`], ['os_region_name', settings.regionName]])],
    ['oslo_messaging_rabbit', tlsBus ? [['ssl', 'true'], ['ssl_ca_file', settings.messagingCAFile]] : []],
    ['oslo_concurrency', [['lock_path', settings.lockPath]]],
    [
      'vnc',
      present([
        ['enabled', String(spec.consoleProxy?.enabled === true)],
        ['novncproxy_base_url', gateway === undefined ? undefined : `https://${gateway}/vnc_lite.html`],
      ]),
    ],
  ];
  return sections;
};

/** A role's overlay before extraConfig. */
export const overlaySections = (role: NovaRole, settings: NovaConfigSettings): IniDocument => {
  switch (role) {
    case 'api':
      return [['DEFAULT', [['enabled_apis', 'osapi_compute'], ['osapi_compute_listen', settings.listenHost], ['osapi_compute_listen_port', String(settings.ports.api)], ['osapi_compute_workers', '1']]]];
    case 'metadata':
      return [['DEFAULT', [['enabled_apis', 'metadata'], ['metadata_listen', settings.listenHost], ['metadata_listen_port', String(settings.ports.metadata)], ['metadata_workers', '1']]]];
    case 'conductor':
      return [['conductor', [['workers', '1']]]];
    case 'scheduler':
      return [['scheduler', [['workers', '1']]]];
    case 'novncproxy':
      return [['vnc', [['novncproxy_host', settings.listenHost], ['novncproxy_port', String(settings.ports.novncproxy)]]]];
  }
};
