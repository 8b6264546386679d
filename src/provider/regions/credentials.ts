/**
 * A Region's credentials Secret → the CloudConfig Regent connects with (issue 11: "A Region resource
 * names its Keystone endpoint, region name and a credentials Secret (clouds.yaml entry or application
 * credential)"). Pure: the Secret's data and the Region's spec in, a CloudConfig or a typed problem out.
 *
 * Two forms of Secret data:
 * - `clouds.yaml` (a clouds.yaml document) and optionally `cloud` (the entry; default: the only one);
 * - the keys of a clouds.yaml `auth` map directly: `application_credential_id` +
 *   `application_credential_secret`, or `username` + `password` + `project_name` (+ domains) …; their
 *   `auth_url` defaults to the Region's endpoint.
 * The Region's endpoint and region name are the truth: a Secret naming another Keystone or another
 * region is refused (EndpointMismatch), never silently preferred.
 */
import { parse, stringify } from 'yaml';
import { cloudFromYaml, normalizeAuthUrl, type CloudConfig } from '../../openstack/keystone/clouds-config.js';
import { InvalidConfig } from '../../openstack/errors.js';
import type { ConnectionProblem } from '../../../machines/region-connection.js';

/** Why a Region cannot be connected: a problem of the closed set, and a user-safe message (never a credential). */
export class RegionUnusable extends Error {
  override readonly name = 'RegionUnusable';
  constructor(
    readonly problem: ConnectionProblem,
    message: string,
  ) {
    super(message);
  }
}

export interface RegionEndpoint {
  /** The Keystone v3 endpoint of the Region's spec. */
  endpoint: string;
  /** The OpenStack region name of the Region's spec. */
  region: string;
  /** `<namespace>/<name>` of the Secret, for messages. */
  secretName: string;
}

const AUTH_KEYS = new Set([
  'auth_url', 'username', 'user_id', 'password', 'project_name', 'project_id', 'user_domain_name', 'user_domain_id',
  'project_domain_name', 'project_domain_id', 'domain_name', 'domain_id', 'default_domain',
  'application_credential_id', 'application_credential_name', 'application_credential_secret',
]);

export const regionCloudConfig = (spec: RegionEndpoint, data: Readonly<Record<string, string>> | undefined): CloudConfig => {
  if (!data) throw new RegionUnusable('SecretMissing', `the credentials Secret ${spec.secretName} does not exist`);
  let cloud: CloudConfig;
  try {
    cloud = data['clouds.yaml'] !== undefined ? fromCloudsYaml(spec, data) : fromAuthKeys(spec, data);
  } catch (error) {
    if (error instanceof RegionUnusable) throw error;
    // InvalidConfig messages name keys and entries, never values (src/openstack/keystone/clouds-config.ts)
    throw new RegionUnusable('SecretInvalid', `the credentials Secret ${spec.secretName} is not usable: ${error instanceof InvalidConfig ? error.message : 'unreadable'}`);
  }
  const wanted = normalizeAuthUrl(spec.endpoint);
  if (cloud.authUrl !== wanted) {
    throw new RegionUnusable('EndpointMismatch', `the credentials Secret ${spec.secretName} is for Keystone ${cloud.authUrl}, but the Region's endpoint is ${wanted}`);
  }
  if (cloud.regionName !== undefined && cloud.regionName !== spec.region) {
    throw new RegionUnusable('EndpointMismatch', `the credentials Secret ${spec.secretName} is for region ${cloud.regionName}, but the Region names ${spec.region}`);
  }
  return { ...cloud, regionName: spec.region };
};

const fromCloudsYaml = (spec: RegionEndpoint, data: Readonly<Record<string, string>>): CloudConfig => {
  const contents = data['clouds.yaml'] as string;
  let name = data.cloud;
  if (name === undefined) {
    const names = cloudNames(contents);
    if (names.length !== 1) throw new RegionUnusable('SecretInvalid', `the credentials Secret ${spec.secretName} has a clouds.yaml with ${names.length} clouds; name one in its 'cloud' key`);
    name = names[0] as string;
  }
  return cloudFromYaml(contents, name, `Secret ${spec.secretName} clouds.yaml`);
};

/** The entry names of a clouds.yaml document (none when it does not parse: cloudFromYaml then says why). */
const cloudNames = (contents: string): string[] => {
  try {
    const doc = parse(contents) as { clouds?: unknown } | null;
    return doc && typeof doc.clouds === 'object' && doc.clouds !== null ? Object.keys(doc.clouds) : [];
  } catch {
    return [];
  }
};

const fromAuthKeys = (spec: RegionEndpoint, data: Readonly<Record<string, string>>): CloudConfig => {
  const auth: Record<string, string> = { auth_url: spec.endpoint };
  for (const [key, value] of Object.entries(data)) if (AUTH_KEYS.has(key)) auth[key] = value;
  if (Object.keys(auth).length === 1) {
    throw new RegionUnusable('SecretInvalid', `the credentials Secret ${spec.secretName} has neither a clouds.yaml nor clouds.yaml auth keys (application_credential_id and application_credential_secret, or username and password)`);
  }
  const top: Record<string, unknown> = { auth, region_name: spec.region };
  for (const key of ['interface', 'cacert', 'verify', 'insecure']) if (data[key] !== undefined) top[key] = data[key];
  return cloudFromYaml(stringify({ clouds: { region: top } }), 'region', `Secret ${spec.secretName}`);
};
