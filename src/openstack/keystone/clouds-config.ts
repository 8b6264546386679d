/**
 * clouds.yaml and OS_* environment → CloudConfig, as a pure function of (env, file contents). The thin reader in
 * clouds-reader.ts finds and reads the file; everything that can be wrong is decided here, so it is unit-tested
 * without a filesystem.
 *
 * Selection: an explicit cloud name, else OS_CLOUD, picks a cloud from clouds.yaml; otherwise the plain
 * environment form (OS_AUTH_URL …) is used. The two are not merged (a half-overridden cloud is how credentials of
 * one project end up scoped to another).
 */
import { parse as parseYaml } from 'yaml';
import { InvalidConfig } from '../errors.js';

export type DomainRef = { readonly id: string } | { readonly name: string };
export type UserRef = { readonly id: string } | { readonly name: string; readonly domain: DomainRef };

export type AuthMethod =
  | { readonly type: 'password'; readonly user: UserRef; readonly password: string }
  | {
      readonly type: 'application-credential';
      readonly credential: { readonly id: string } | { readonly name: string; readonly user: UserRef };
      readonly secret: string;
    };

export type Scope =
  | { readonly kind: 'project'; readonly project: { readonly id: string } | { readonly name: string; readonly domain: DomainRef } }
  | { readonly kind: 'domain'; readonly domain: DomainRef }
  /** Application credentials carry their own project; Keystone refuses an explicit scope with them. */
  | { readonly kind: 'unscoped' };

export type EndpointInterface = 'public' | 'internal' | 'admin';

export interface CloudConfig {
  /** The clouds.yaml entry this came from; undefined for the environment form. */
  readonly cloudName?: string;
  /** Keystone v3 base, always ending in `/v3`. */
  readonly authUrl: string;
  readonly auth: AuthMethod;
  readonly scope: Scope;
  readonly regionName?: string;
  readonly interface: EndpointInterface;
  /** Path of a PEM CA bundle to trust (clouds.yaml `cacert`, OS_CACERT). */
  readonly cacertPath?: string;
  /** false disables TLS verification (clouds.yaml `verify: false`, `insecure: true`, OS_INSECURE). */
  readonly verify: boolean;
}

export type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_DOMAIN: DomainRef = { name: 'Default' };

/** The clouds.yaml locations in search order (OS_CLIENT_CONFIG_FILE alone when set). */
export const cloudsYamlCandidates = (env: Env, cwd: string, home: string | undefined): string[] => {
  const explicit = env.OS_CLIENT_CONFIG_FILE;
  if (explicit !== undefined && explicit !== '') return [explicit];
  const out = [`${cwd.replace(/\/+$/, '')}/clouds.yaml`];
  if (home !== undefined && home !== '') out.push(`${home.replace(/\/+$/, '')}/.config/openstack/clouds.yaml`);
  out.push('/etc/openstack/clouds.yaml');
  return out;
};

/** `http://h:5000`, `http://h:5000/`, `http://h:5000/v3/` → `http://h:5000/v3`. */
export const normalizeAuthUrl = (url: string): string => {
  const trimmed = url.trim().replace(/\/+$/, '');
  if (/\/v3$/.test(trimmed)) return trimmed;
  if (/\/v2\.0$/.test(trimmed)) return trimmed.replace(/\/v2\.0$/, '/v3');
  return `${trimmed}/v3`;
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A flat string view of an options map: strings kept, numbers and booleans stringified, others dropped. */
type Opts = Readonly<Record<string, string | undefined>>;

const str = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v === '' ? undefined : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
};

const boolOf = (v: string | undefined): boolean | undefined => {
  if (v === undefined) return undefined;
  const lower = v.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
  if (['0', 'false', 'no', 'off'].includes(lower)) return false;
  return undefined;
};

const domainOf = (o: Opts, prefix: string): DomainRef | undefined => {
  const id = o[`${prefix}_domain_id`];
  if (id !== undefined) return { id };
  const name = o[`${prefix}_domain_name`];
  if (name !== undefined) return { name };
  return undefined;
};

const defaultDomain = (o: Opts): DomainRef => {
  if (o.default_domain !== undefined) return { id: o.default_domain };
  if (o.default_domain_id !== undefined) return { id: o.default_domain_id };
  if (o.default_domain_name !== undefined) return { name: o.default_domain_name };
  return DEFAULT_DOMAIN;
};

const userOf = (o: Opts): UserRef | undefined => {
  if (o.user_id !== undefined) return { id: o.user_id };
  if (o.username !== undefined) return { name: o.username, domain: domainOf(o, 'user') ?? defaultDomain(o) };
  return undefined;
};

function fail(where: string, message: string): never {
  throw new InvalidConfig(`${where}: ${message}`);
}

/** Build a CloudConfig from the flat auth/options map used by both forms (clouds.yaml keys). */
const fromOptions = (o: Opts, top: Opts, where: string, cloudName?: string): CloudConfig => {
  const authUrl = o.auth_url ?? fail(where, 'auth_url is missing');
  const authType = (top.auth_type ?? 'password').toLowerCase().replace(/^v3/, '').replace(/[-_]/g, '');
  const hasAppCred = o.application_credential_id !== undefined || o.application_credential_name !== undefined;

  let auth: AuthMethod;
  let scope: Scope;
  if (authType === 'applicationcredential' || (top.auth_type === undefined && hasAppCred)) {
    const secret = o.application_credential_secret ?? fail(where, 'application_credential_secret is missing');
    if (o.application_credential_id !== undefined) {
      auth = { type: 'application-credential', credential: { id: o.application_credential_id }, secret };
    } else {
      const name = o.application_credential_name ?? fail(where, 'application_credential_id or application_credential_name is required');
      const user = userOf(o) ?? fail(where, 'an application credential by name needs user_id or username');
      auth = { type: 'application-credential', credential: { name, user }, secret };
    }
    scope = { kind: 'unscoped' };
  } else if (authType === 'password') {
    const user = userOf(o) ?? fail(where, 'username or user_id is missing');
    const password = o.password ?? fail(where, 'password is missing');
    auth = { type: 'password', user, password };
    const projectId = o.project_id ?? o.tenant_id;
    const projectName = o.project_name ?? o.tenant_name;
    if (projectId !== undefined) scope = { kind: 'project', project: { id: projectId } };
    else if (projectName !== undefined) {
      const domain = domainOf(o, 'project') ?? domainOf(o, 'user') ?? defaultDomain(o);
      scope = { kind: 'project', project: { name: projectName, domain } };
    } else if (o.domain_id !== undefined) scope = { kind: 'domain', domain: { id: o.domain_id } };
    else if (o.domain_name !== undefined) scope = { kind: 'domain', domain: { name: o.domain_name } };
    else fail(where, 'no project or domain to scope the token to (project_name/project_id or domain_name/domain_id)');
  } else {
    fail(where, `auth_type '${top.auth_type ?? ''}' is not supported (password, v3applicationcredential)`);
  }

  const iface = (top.interface ?? 'public').toLowerCase().replace(/url$/, '');
  if (iface !== 'public' && iface !== 'internal' && iface !== 'admin') fail(where, `interface '${iface}' is not public, internal or admin`);
  const insecure = boolOf(top.insecure);
  const verify = boolOf(top.verify) ?? (insecure !== undefined ? !insecure : true);
  return {
    ...(cloudName !== undefined ? { cloudName } : {}),
    authUrl: normalizeAuthUrl(authUrl),
    auth,
    scope,
    ...(top.region_name !== undefined ? { regionName: top.region_name } : {}),
    interface: iface as EndpointInterface,
    ...(top.cacert !== undefined ? { cacertPath: top.cacert } : {}),
    verify,
  };
};

const flatten = (value: unknown): Record<string, string | undefined> => {
  const out: Record<string, string | undefined> = {};
  if (!isRecord(value)) return out;
  for (const [key, v] of Object.entries(value)) out[key] = str(v);
  return out;
};

/** Parse clouds.yaml contents and pick one cloud. */
export const cloudFromYaml = (contents: string, cloudName: string, where = 'clouds.yaml'): CloudConfig => {
  let doc: unknown;
  try {
    doc = parseYaml(contents);
  } catch {
    // The YAML error message quotes the offending line, which may be a password: keep only the fact.
    throw new InvalidConfig(`${where}: not valid YAML`);
  }
  const clouds = isRecord(doc) ? doc.clouds : undefined;
  if (!isRecord(clouds)) throw new InvalidConfig(`${where}: no 'clouds' map`);
  const cloud = clouds[cloudName];
  if (!isRecord(cloud)) throw new InvalidConfig(`${where}: cloud '${cloudName}' not found (have: ${Object.keys(clouds).join(', ')})`);
  const top = flatten(cloud);
  if (top.region_name === undefined && Array.isArray(cloud.regions) && cloud.regions.length > 0) {
    const first: unknown = cloud.regions[0];
    top.region_name = typeof first === 'string' ? first : isRecord(first) ? str(first.name) : undefined;
  }
  return fromOptions(flatten(cloud.auth), top, `${where} cloud '${cloudName}'`, cloudName);
};

/** The plain environment form (OS_AUTH_URL, OS_USERNAME, …). */
export const cloudFromEnv = (env: Env): CloudConfig => {
  const e = (name: string): string | undefined => str(env[name]);
  const auth: Record<string, string | undefined> = {
    auth_url: e('OS_AUTH_URL'),
    username: e('OS_USERNAME'),
    user_id: e('OS_USER_ID'),
    password: e('OS_PASSWORD'),
    project_name: e('OS_PROJECT_NAME') ?? e('OS_TENANT_NAME'),
    project_id: e('OS_PROJECT_ID') ?? e('OS_TENANT_ID'),
    user_domain_name: e('OS_USER_DOMAIN_NAME'),
    user_domain_id: e('OS_USER_DOMAIN_ID'),
    project_domain_name: e('OS_PROJECT_DOMAIN_NAME'),
    project_domain_id: e('OS_PROJECT_DOMAIN_ID'),
    domain_name: e('OS_DOMAIN_NAME'),
    domain_id: e('OS_DOMAIN_ID'),
    default_domain: e('OS_DEFAULT_DOMAIN'),
    application_credential_id: e('OS_APPLICATION_CREDENTIAL_ID'),
    application_credential_name: e('OS_APPLICATION_CREDENTIAL_NAME'),
    application_credential_secret: e('OS_APPLICATION_CREDENTIAL_SECRET'),
  };
  const top: Record<string, string | undefined> = {
    auth_type: e('OS_AUTH_TYPE'),
    region_name: e('OS_REGION_NAME'),
    interface: e('OS_INTERFACE') ?? e('OS_ENDPOINT_TYPE'),
    cacert: e('OS_CACERT'),
    insecure: e('OS_INSECURE'),
  };
  return fromOptions(auth, top, 'OS_* environment');
};

export interface ResolveInput {
  env: Env;
  /** Contents of the clouds.yaml found by the reader, if any. */
  cloudsYaml?: { path: string; contents: string };
  /** Overrides OS_CLOUD. */
  cloudName?: string;
}

/** The one pure entry: which form applies, and its CloudConfig. */
export const resolveCloudConfig = (input: ResolveInput): CloudConfig => {
  const name = input.cloudName ?? str(input.env.OS_CLOUD);
  if (name !== undefined) {
    if (input.cloudsYaml === undefined) throw new InvalidConfig(`cloud '${name}' requested but no clouds.yaml was found`);
    return cloudFromYaml(input.cloudsYaml.contents, name, input.cloudsYaml.path);
  }
  if (str(input.env.OS_AUTH_URL) !== undefined) return cloudFromEnv(input.env);
  throw new InvalidConfig('no cloud selected: set OS_CLOUD (with a clouds.yaml) or OS_AUTH_URL and friends');
};
