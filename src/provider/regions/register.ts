/**
 * `regent region register` as a library (issue 11; openstack-provider.md, "OpenStack Region
 * Registration": an operator never hand-creates the Keystone domain, project, user, Secret and Region
 * manifest). From a cloud with admin powers it finds, or creates, in this order:
 *
 *   1. the managed domain `regent-<name>`, where every Identity of the Region is realized;
 *   2. the managed roles an Identity's user is granted (default DEFAULT_IDENTITY_ROLES) — Zed has no
 *      `manager` role out of the box (measured on the sandbox), so a missing one is created;
 *   3. the service project `regent-<name>-service` and 4. the service user `regent-<name>` in that domain;
 *   5. the service user's role assignments on the service project (REGION_SERVICE_ROLES, below);
 *   6. an application credential of the service user, `regent-<name>-<n>`, created AS that user (Keystone
 *      lets only the owner create one) and therefore scoped to the service project;
 *   7. the Secret `<name>-credentials` (`application_credential_id`, `application_credential_secret`: the
 *      form src/provider/regions/credentials.ts reads, on the Region's endpoint);
 *   8. the Region resource (spec.provider, spec.openstack.endpoint/region/credentialsSecretRef/domainID;
 *      every other spec field an existing Region has is kept).
 *
 * Every step is "find by exact name, else create" and is reported as created / existing (or, with
 * `dryRun`, would-create: nothing is written, neither to the cloud nor to the resource source). A second
 * run reports everything existing and sends no mutating call.
 *
 * Policy assumption (Keystone's default Zed policy, measured on the sandbox, see docs/region.md): what the
 * Region's credentials do (src/controllers/region/reconcile.ts, src/controllers/identity/reconcile.ts,
 * src/provider/identity/handlers.ts) — read the managed domain, list and create projects and users in it,
 * list roles, grant and check role assignments, list and delete another user's application credentials,
 * delete users and projects — is `admin` only: a token with member (and reader) on the service project is
 * refused every one of them with 403 (identity:list_projects, create_project, list_users, create_user,
 * list_roles, …). With Zed's defaults (enforce_scope and enforce_new_defaults off) `admin` on ANY project
 * is admin of the whole Keystone, so the Region's credential is as powerful as the admin cloud that
 * registered it; a cloud with stricter, domain-scoped policies can narrow REGION_SERVICE_ROLES.
 *
 * The credential is created `unrestricted`. Measured: Keystone refuses a token issued from a restricted
 * application credential every application-credential create AND delete, even of another user's and
 * even for admin (403 "Using method 'application_credential' is not allowed for managing additional
 * application credentials"). The Identity controller deletes an identity's credential with the Region's
 * credentials (on rotation and deletion), so a restricted one would wedge every Identity deletion. Given
 * the admin role above, unrestricted adds little: such a token may already create users and grant roles.
 *
 * The service user's password: random, sent once to Keystone and never printed, logged or stored. It is
 * needed only to create the application credential AS the user, and an admin can set a new one, so it is
 * not kept: when a later run must issue a new credential (the Secret lost it, or Keystone refuses the one
 * it holds) it sets a fresh password first. Measured: that revokes the user's outstanding tokens (also
 * those issued from its application credentials, and any issued in the same second); the credentials
 * themselves keep working.
 *
 * Secrets (the password, the credential's secret) never appear in the report, an error or a log line.
 */
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { ResourceSource } from '../../kube/port.js';
import { sameRecord } from '../../kube/secrets.js';
import { Conflict, Forbidden, NotFound, Unauthorized } from '../../openstack/errors.js';
import type { HttpSession } from '../../openstack/http.js';
import { contextOf } from '../../openstack/http.js';
import { unwrap } from '../../openstack/decoders/field.js';
import { normalizeAuthUrl, type CloudConfig } from '../../openstack/keystone/clouds-config.js';
import type { CatalogEntry } from '../../openstack/keystone/catalog.js';
import type { ApplicationCredential, Domain, IssuedApplicationCredential, Project, Role, User, UserLogin } from '../../openstack/keystone/admin/index.js';
import { decodeIssuedApplicationCredential, decodeRole } from '../../openstack/keystone/admin/index.js';
import { enc, rememberSecret, withSecrets } from '../../openstack/keystone/admin/common.js';
import type { OpenStackSession } from '../../openstack/session.js';
import { API_VERSION } from '../../resources/kind.js';
import type { Region, RegionSpec } from '../../resources/region.js';
import { DEFAULT_IDENTITY_ROLES } from '../identity/names.js';
import { regionCloudConfig, RegionUnusable } from './credentials.js';

/**
 * The service user's roles on the service project: what the Region's credentials need under Keystone's
 * default Zed policy (see the file comment; measured: member and reader alone are refused everything).
 */
export const REGION_SERVICE_ROLES: readonly string[] = ['admin'];

/** Keystone's limit for domain and project names (users: 255). */
const KEYSTONE_NAME_MAX = 64;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The deterministic names of a Region's scaffolding: re-finding them is how a second run adopts the first's. */
export const registrationNames = (name: string) => ({
  domain: `regent-${name}`,
  project: `regent-${name}-service`,
  user: `regent-${name}`,
  /** The n-th application credential (a new one takes the next number: names are unique per user). */
  credential: (n: number): string => `regent-${name}-${n}`,
  credentialPattern: new RegExp(`^regent-${name.replace(/[.]/g, '\\.')}-(\\d+)$`),
  secret: `${name}-credentials`,
});

/** The longest Region name whose service project name still fits Keystone's 64 characters. */
export const MAX_REGION_NAME = KEYSTONE_NAME_MAX - registrationNames('').project.length;

export interface RegistrationInput {
  /** The Region resource's name. */
  name: string;
  /** The Region resource's namespace (default `default`). */
  namespace?: string;
  /** A cloud with admin powers (a clouds.yaml entry). */
  cloud: CloudConfig;
  /** The OpenStack region; default the cloud's region_name, else the only region of its catalog. */
  regionName?: string;
  /** The Keystone v3 endpoint the Region names (the cloud's auth URL). */
  endpoint: string;
  /**
   * The managed roles an Identity's user is granted, written to the Region as `managedRoles` (default:
   * those the existing Region names, else DEFAULT_IDENTITY_ROLES).
   */
  roles?: readonly string[];
  /** Where the credentials Secret goes (default the Region's namespace). */
  secretNamespace?: string;
  /** Find only: report what would be created, create nothing. */
  dryRun: boolean;
}

/** How long to wait after setting the service user's password before authenticating with it (see its use). */
export const PASSWORD_REVOCATION_WAIT_MS = 1_100;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface RegistrationDeps {
  /** The resource source: its secret store gets the credential, and the Region is applied to it. */
  source: ResourceSource;
  connect: (cloud: CloudConfig) => Promise<OpenStackSession>;
  connectAsUser: (cloud: CloudConfig, login: UserLogin) => Promise<OpenStackSession>;
  /** Called with each step as it is decided (the CLI prints them as they happen). */
  onStep?: (step: RegistrationStep) => void;
  /** The wait after a password change (default a timer). */
  sleep?: (ms: number) => Promise<void>;
}

export type StepOutcome = 'created' | 'existing' | 'updated' | 'deleted' | 'would-create' | 'would-update' | 'would-delete';

export interface RegistrationStep {
  readonly what: 'domain' | 'role' | 'project' | 'user' | 'role assignment' | 'application credential' | 'Secret' | 'Region';
  readonly name: string;
  readonly outcome: StepOutcome;
  /** Keystone's id (never a secret). */
  readonly id?: string;
  /** Why, for an update or a replacement. */
  readonly note?: string;
}

export interface RegistrationReport {
  readonly dryRun: boolean;
  readonly region: { readonly namespace: string; readonly name: string };
  readonly endpoint: string;
  readonly regionName: string;
  readonly domain: { readonly name: string; readonly id?: string };
  readonly secret: { readonly namespace: string; readonly name: string };
  readonly steps: readonly RegistrationStep[];
  /** True when anything was (or, dry, would be) created, updated or deleted. */
  readonly changed: boolean;
}

export type RegistrationProblem =
  /** The Region name, namespace or a role name cannot be used. */
  | 'InvalidInput'
  /** The catalog offers several regions and none was named, or not the one named. */
  | 'RegionAmbiguous'
  | 'RegionNotInCatalog'
  /** The admin cloud's credentials may not do a step (HTTP 403): not an admin cloud. */
  | 'Forbidden'
  /** Keystone has a name that differs only in case (its names are case-insensitive), or lacks the admin role. */
  | 'NameClash'
  | 'RoleMissing'
  /** The managed domain, service project or service user exists but is disabled. */
  | 'Disabled'
  /** An existing Region of that name is for another Keystone or region, or is being deleted. */
  | 'RegionMismatch';

/** Why a registration cannot go on: a closed problem and a user-safe message (names and ids, never a secret). */
export class RegistrationRefused extends Error {
  override readonly name = 'RegistrationRefused';
  constructor(
    readonly problem: RegistrationProblem,
    message: string,
  ) {
    super(message);
  }
}

/** One report line: `domain regent-x: created (id …)`, `Secret default/x-credentials: would create`. */
export const describeStep = (step: RegistrationStep): string => {
  const detail = [step.id !== undefined ? `id ${step.id}` : undefined, step.note].filter((x) => x !== undefined).join('; ');
  return `${step.what} ${step.name}: ${step.outcome.replace('-', ' ')}${detail ? ` (${detail})` : ''}`;
};

/** The regions a catalog's endpoints name, sorted. */
export const catalogRegions = (catalog: readonly CatalogEntry[]): string[] =>
  [...new Set(catalog.flatMap((entry) => entry.endpoints.map((e) => e.region_id ?? e.region ?? undefined)).filter((r): r is string => typeof r === 'string' && r !== ''))].sort();

const chooseRegion = (cloudLabel: string, wanted: string | undefined, catalog: readonly CatalogEntry[]): string => {
  const regions = catalogRegions(catalog);
  if (wanted !== undefined) {
    if (!regions.includes(wanted)) throw new RegistrationRefused('RegionNotInCatalog', `the catalog of ${cloudLabel} has no region ${wanted} (it has: ${regions.join(', ') || 'none'})`);
    return wanted;
  }
  if (regions.length === 1) return regions[0] as string;
  if (regions.length === 0) throw new RegistrationRefused('RegionNotInCatalog', `the catalog of ${cloudLabel} names no region; name one`);
  throw new RegistrationRefused('RegionAmbiguous', `the catalog of ${cloudLabel} has regions ${regions.join(', ')}: name the one to register (region_name in clouds.yaml, or --region-name)`);
};

const checkInput = (input: RegistrationInput, namespace: string, roles: readonly string[]): void => {
  const bad = (message: string): never => {
    throw new RegistrationRefused('InvalidInput', message);
  };
  if (!DNS_SUBDOMAIN.test(input.name) || input.name.length > MAX_REGION_NAME) {
    bad(`Region name ${JSON.stringify(input.name)}: expected a lowercase DNS name (a-z, 0-9, '-', '.') of at most ${MAX_REGION_NAME} characters (its service project regent-<name>-service must fit Keystone's ${KEYSTONE_NAME_MAX})`);
  }
  for (const [what, ns] of [['namespace', namespace], ['secret namespace', input.secretNamespace]] as const) {
    if (ns !== undefined && (!DNS_LABEL.test(ns) || ns.length > 63)) bad(`${what} ${JSON.stringify(ns)}: expected a DNS label (a-z, 0-9, '-', at most 63 characters)`);
  }
  if (roles.length === 0) bad('no managed roles given');
  for (const role of roles) if (role.trim() === '' || role.length > 255) bad(`role name ${JSON.stringify(role)}: expected 1 to 255 characters`);
  if (new Set(roles).size !== roles.length) bad(`role names repeat: ${roles.join(', ')}`);
};

/** Keys besides the credential that the Region needs to reach its endpoint as the admin cloud does (credentials.ts reads them). */
const endpointKeys = (cloud: CloudConfig): Record<string, string> => ({
  ...(cloud.interface !== 'public' ? { interface: cloud.interface } : {}),
  ...(cloud.cacertPath !== undefined ? { cacert: cloud.cacertPath } : {}),
  ...(cloud.verify ? {} : { verify: 'false' }),
});

// Identity API v3: Create role — POST /v3/roles (not in the administration client, which only finds roles)
const createRole = async (http: HttpSession, name: string): Promise<Role> => {
  const response = await http.post('/roles', { role: { name } });
  const context = contextOf(http, response);
  return decodeRole(unwrap(response.data, 'role', context), context);
};

// Identity API v3: Update user (password only) — PATCH /v3/users/{user_id}
const setPassword = (http: HttpSession, userId: string, password: string): Promise<void> =>
  withSecrets(http, [password], async () => {
    await http.patch(`/users/${enc(userId)}`, { user: { password } });
  });

// Identity API v3: Create application credential (unrestricted) — POST /v3/users/{user_id}/application_credentials.
// The administration client only asks for restricted ones; why the Region's is not, see the file comment.
const createRegionCredential = async (http: HttpSession, userId: string, name: string, description: string): Promise<IssuedApplicationCredential> => {
  const response = await http.post(`/users/${enc(userId)}/application_credentials`, { application_credential: { name, description, unrestricted: true } });
  const context = contextOf(http, response);
  const issued = decodeIssuedApplicationCredential(unwrap(response.data, 'application_credential', context), context);
  rememberSecret(http, issued.secret);
  return issued;
};

const randomPassword = (): string => randomBytes(24).toString('base64url');

/** What the Secret's credential is, as the Region would use it. */
type StoredCredential =
  | { kind: 'none' }
  | { kind: 'ours'; id: string }
  /** Keystone refuses it (revoked, expired, deleted, wrong secret), or it is restricted. */
  | { kind: 'unusable'; id: string; why: string }
  /** Keystone accepts it, but it is not the service user's in the service project: never deleted. */
  | { kind: 'foreign'; id: string };

export const registerRegion = async (input: RegistrationInput, deps: RegistrationDeps): Promise<RegistrationReport> => {
  const namespace = input.namespace ?? 'default';
  // The roles given, else those an existing Region already names, else the defaults.
  const named = input.roles === undefined ? ((await deps.source.get('Region', namespace, input.name)) as Region | undefined)?.spec.openstack.managedRoles : undefined;
  const roles = input.roles ?? named ?? DEFAULT_IDENTITY_ROLES;
  checkInput(input, namespace, roles);
  const dry = input.dryRun;
  const names = registrationNames(input.name);
  const secretNamespace = input.secretNamespace ?? namespace;
  const secretLabel = `${secretNamespace}/${names.secret}`;
  const cloudLabel = input.cloud.cloudName !== undefined ? `cloud ${input.cloud.cloudName}` : `the cloud at ${input.cloud.authUrl}`;
  const endpoint = normalizeAuthUrl(input.endpoint);
  const steps: RegistrationStep[] = [];
  const report = (step: RegistrationStep): void => {
    steps.push(step);
    deps.onStep?.(step);
  };

  /** A Keystone call of the admin cloud: a 403 says which policy the cloud lacks, a 409 which name clashes. */
  const keystone = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof Forbidden) {
        const policy = /identity:[a-z_]+/.exec(error.fault ?? '')?.[0];
        throw new RegistrationRefused('Forbidden', `the credentials of ${cloudLabel} may not ${what} (HTTP 403${policy ? `, ${policy}` : ''}): regent region register needs a cloud with admin powers (the admin role)`);
      }
      if (error instanceof Conflict) {
        throw new RegistrationRefused('NameClash', `Keystone refused to ${what} (HTTP 409): a name that differs only in case exists (Keystone compares names case-insensitively)${error.fault ? `: ${error.fault}` : ''}`);
      }
      throw error;
    }
  };

  let admin = await deps.connect(input.cloud);
  const regionName = chooseRegion(cloudLabel, input.regionName ?? input.cloud.regionName, admin.initialToken.catalog);
  // the identity endpoint is picked from the catalog by region: connect in the one being registered
  const cloud: CloudConfig = { ...input.cloud, regionName };
  if (input.cloud.regionName !== regionName) admin = await deps.connect(cloud);
  const ks = admin.identityAdmin;
  const identityHttp = admin.http('identity');

  const enabledOrRefuse = <T extends { id: string; enabled: boolean }>(what: string, name: string, found: T): T => {
    if (!found.enabled) throw new RegistrationRefused('Disabled', `the ${what} ${name} (${found.id}) exists but is disabled: enable it, or delete it to start over`);
    return found;
  };

  // 1. the managed domain
  let domain: Domain | undefined = await keystone('list domains', () => ks.findDomainByName(names.domain));
  if (domain) report({ what: 'domain', name: names.domain, outcome: 'existing', id: enabledOrRefuse('domain', names.domain, domain).id });
  else if (dry) report({ what: 'domain', name: names.domain, outcome: 'would-create' });
  else {
    domain = await keystone(`create the domain ${names.domain}`, () => ks.createDomain({ name: names.domain, description: `Regent: the managed domain of Region ${namespace}/${input.name}` }));
    report({ what: 'domain', name: names.domain, outcome: 'created', id: domain.id });
  }

  // 2. the managed roles (global roles: Identities of every Region share them)
  for (const name of roles) {
    const role = await keystone('list roles', () => ks.findRoleByName(name));
    if (role) report({ what: 'role', name, outcome: 'existing', id: role.id });
    else if (dry) report({ what: 'role', name, outcome: 'would-create' });
    else {
      const created = await keystone(`create the role ${name}`, () => createRole(identityHttp, name));
      report({ what: 'role', name, outcome: 'created', id: created.id });
    }
  }
  const serviceRoles: Role[] = [];
  for (const name of REGION_SERVICE_ROLES) {
    const role = await keystone('list roles', () => ks.findRoleByName(name));
    if (!role) throw new RegistrationRefused('RoleMissing', `Keystone has no role named ${name}, which the Region's service user needs on its project`);
    serviceRoles.push(role);
  }

  // 3. the service project and 4. the service user, in the managed domain
  let project: Project | undefined;
  if (domain) project = await keystone('list projects', () => ks.findProject({ domainId: (domain as Domain).id, name: names.project }));
  if (project) report({ what: 'project', name: names.project, outcome: 'existing', id: enabledOrRefuse('project', names.project, project).id });
  else if (dry) report({ what: 'project', name: names.project, outcome: 'would-create' });
  else {
    const domainId = (domain as Domain).id;
    project = await keystone(`create the project ${names.project}`, () => ks.createProject({ domainId, name: names.project, description: `Regent: the service project of Region ${namespace}/${input.name}`, tags: ['regent'] }));
    report({ what: 'project', name: names.project, outcome: 'created', id: project.id });
  }

  let user: User | undefined;
  /** Set only when this run created the user: the one password it ever had, used for step 6 and dropped. */
  let password: string | undefined;
  if (domain) user = await keystone('list users', () => ks.findUser({ domainId: (domain as Domain).id, name: names.user }));
  if (user) report({ what: 'user', name: names.user, outcome: 'existing', id: enabledOrRefuse('user', names.user, user).id });
  else if (dry) report({ what: 'user', name: names.user, outcome: 'would-create' });
  else {
    const domainId = (domain as Domain).id;
    const projectId = (project as Project).id;
    const fresh = randomPassword();
    user = await keystone(`create the user ${names.user}`, () => ks.createUser({ domainId, name: names.user, password: fresh, defaultProjectId: projectId, description: `Regent: the service user of Region ${namespace}/${input.name}` }));
    password = fresh;
    report({ what: 'user', name: names.user, outcome: 'created', id: user.id });
  }

  // 5. the service user's roles on the service project
  for (const role of serviceRoles) {
    const name = `${role.name} on project ${names.project} for user ${names.user}`;
    const grant = project && user ? { projectId: project.id, userId: user.id, roleId: role.id } : undefined;
    if (grant && (await keystone('check role assignments', () => ks.hasProjectRole(grant)))) report({ what: 'role assignment', name, outcome: 'existing' });
    else if (dry) report({ what: 'role assignment', name, outcome: 'would-create' });
    else {
      await keystone(`grant ${role.name} on ${names.project}`, () => ks.grantProjectRole(grant as NonNullable<typeof grant>));
      report({ what: 'role assignment', name, outcome: 'created' });
    }
  }

  // 6. the application credential: the Secret's, when Keystone accepts it as the service user's; else a new one
  const current = await deps.source.secrets.get(secretNamespace, names.secret);
  const stored = project && user ? await storedCredential(deps, admin, { endpoint, regionName, secretLabel, cloud, userId: user.id, projectId: project.id }, current?.data) : ({ kind: 'none' } as StoredCredential);
  let credential: { id: string; secret: string } | undefined;
  let retired: ApplicationCredential[] = [];
  let asUser: OpenStackSession | undefined;
  if (stored.kind === 'ours') {
    credential = { id: stored.id, secret: current?.data.application_credential_secret as string };
    const found = user ? await keystone('list application credentials', () => ks.listApplicationCredentials((user as User).id)) : [];
    report({ what: 'application credential', name: found.find((c) => c.id === stored.id)?.name ?? stored.id, outcome: 'existing', id: stored.id });
  } else {
    const why = stored.kind === 'unusable' ? stored.why : stored.kind === 'foreign' ? `the Secret ${secretLabel} holds a credential that is not the service user's (${stored.id}): replaced, and left alone in Keystone` : undefined;
    const userId = user?.id;
    const previous = userId !== undefined ? await keystone('list application credentials', () => ks.listApplicationCredentials(userId)) : [];
    const ours = previous.filter((c) => names.credentialPattern.test(c.name));
    const next = Math.max(0, ...ours.map((c) => Number(names.credentialPattern.exec(c.name)?.[1] ?? 0))) + 1;
    const name = names.credential(next);
    if (dry) report({ what: 'application credential', name, outcome: 'would-create', ...(why ? { note: why } : {}) });
    else {
      const u = user as User;
      const p = project as Project;
      if (password === undefined) {
        // the password was never kept (file comment): set a new one to act as the user once
        password = randomPassword();
        const fresh = password;
        await keystone(`set the password of the user ${names.user}`, () => setPassword(identityHttp, u.id, fresh));
        // The change revokes the user's tokens issued up to that second, and Keystone compares in whole
        // seconds: a token issued in the same second is refused on its first use (measured: a 401 on the
        // credential create right after). Wait until Keystone's clock is in the next second.
        await (deps.sleep ?? sleep)(PASSWORD_REVOCATION_WAIT_MS);
      }
      asUser = await deps.connectAsUser(cloud, { userId: u.id, password, projectId: p.id });
      const session = asUser;
      const issued = await keystone(`create an application credential as the user ${names.user}`, () =>
        createRegionCredential(session.http('identity'), u.id, name, `Regent: the credentials of Region ${namespace}/${input.name}`));
      credential = { id: issued.id, secret: issued.secret };
      report({ what: 'application credential', name, outcome: 'created', id: issued.id, ...(why ? { note: why } : {}) });
      // after the Secret holds the new one: the refused one and any left by a run that stopped before its Secret
      retired = ours.filter((c) => c.id !== issued.id);
    }
  }

  // 7. the Secret
  const secretData = credential ? { application_credential_id: credential.id, application_credential_secret: credential.secret, ...endpointKeys(cloud) } : undefined;
  const labels = { 'regent.dev/region': input.name };
  const labelsMatch = current !== undefined && Object.entries(labels).every(([k, v]) => current.labels[k] === v);
  if (current && secretData && sameRecord(current.data, secretData) && labelsMatch) report({ what: 'Secret', name: secretLabel, outcome: 'existing' });
  else if (dry) report({ what: 'Secret', name: secretLabel, outcome: current ? 'would-update' : 'would-create' });
  else {
    const put = await deps.source.secrets.put(secretNamespace, names.secret, secretData as Record<string, string>, { labels });
    report({ what: 'Secret', name: secretLabel, outcome: put.created ? 'created' : 'updated' });
  }
  for (const old of retired) {
    const session = asUser as OpenStackSession;
    const userId = (user as User).id;
    // as the owner (a password token): also when the admin cloud is itself an application credential
    await keystone(`delete the application credential ${old.name}`, async () => {
      try {
        await session.identityAdmin.deleteApplicationCredential({ userId, id: old.id });
      } catch (error) {
        if (!(error instanceof NotFound)) throw error;
      }
    });
    report({ what: 'application credential', name: old.name, outcome: 'deleted', id: old.id, note: `replaced by ${credential ? (steps.find((s) => s.id === credential?.id)?.name ?? credential.id) : 'a new one'}` });
  }

  // 8. the Region
  const existing = (await deps.source.get('Region', namespace, input.name)) as Region | undefined;
  const regionLabel = `${namespace}/${input.name}`;
  if (existing?.metadata.deletionTimestamp !== undefined) throw new RegistrationRefused('RegionMismatch', `the Region ${regionLabel} is being deleted: wait until it is gone, or choose another name`);
  if (existing && normalizeAuthUrl(existing.spec.openstack.endpoint) !== endpoint) {
    throw new RegistrationRefused('RegionMismatch', `the Region ${regionLabel} is for Keystone ${existing.spec.openstack.endpoint}, not ${endpoint}: delete it first, or choose another name`);
  }
  if (existing && existing.spec.openstack.region !== regionName) {
    throw new RegistrationRefused('RegionMismatch', `the Region ${regionLabel} is for region ${existing.spec.openstack.region}, not ${regionName}: delete it first, or choose another name`);
  }
  const spec: RegionSpec | undefined = domain
    ? {
        ...(existing?.spec ?? {}),
        provider: 'openstack',
        openstack: {
          ...(existing?.spec.openstack ?? {}),
          endpoint: existing?.spec.openstack.endpoint ?? endpoint,
          region: regionName,
          credentialsSecretRef: { name: names.secret, namespace: secretNamespace },
          domainID: domain.id,
          // written only when asked for: a Region without it grants the defaults
          ...(input.roles !== undefined ? { managedRoles: [...input.roles] } : {}),
        },
      }
    : undefined;
  const note = existing && existing.spec.openstack.domainID !== undefined && domain && existing.spec.openstack.domainID !== domain.id ? `its domainID was ${existing.spec.openstack.domainID}` : undefined;
  if (existing && spec && isDeepStrictEqual(existing.spec, spec)) report({ what: 'Region', name: regionLabel, outcome: 'existing' });
  else if (dry) report({ what: 'Region', name: regionLabel, outcome: existing ? 'would-update' : 'would-create', ...(note ? { note } : {}) });
  else {
    const applied = await deps.source.apply({ apiVersion: API_VERSION, kind: 'Region', metadata: { name: input.name, namespace }, spec: spec as RegionSpec });
    report({ what: 'Region', name: regionLabel, outcome: applied.action === 'created' ? 'created' : 'updated', ...(note ? { note } : {}) });
  }

  return {
    dryRun: dry,
    region: { namespace, name: input.name },
    endpoint,
    regionName,
    domain: { name: names.domain, ...(domain ? { id: domain.id } : {}) },
    secret: { namespace: secretNamespace, name: names.secret },
    steps,
    changed: steps.some((s) => s.outcome !== 'existing'),
  };
};

/**
 * The Secret's credential as the Region would use it (the same reading, credentials.ts), checked with
 * Keystone: a token issue (a read), then the credential's record (it must be unrestricted, file comment).
 */
const storedCredential = async (
  deps: RegistrationDeps,
  admin: OpenStackSession,
  target: { endpoint: string; regionName: string; secretLabel: string; cloud: CloudConfig; userId: string; projectId: string },
  data: Readonly<Record<string, string>> | undefined,
): Promise<StoredCredential> => {
  const id = data?.application_credential_id;
  const secret = data?.application_credential_secret;
  if (!id || !secret) return { kind: 'none' };
  let cloud: CloudConfig;
  try {
    cloud = regionCloudConfig({ endpoint: target.endpoint, region: target.regionName, secretName: target.secretLabel }, { application_credential_id: id, application_credential_secret: secret, ...endpointKeys(target.cloud) });
  } catch (error) {
    if (error instanceof RegionUnusable) return { kind: 'unusable', id, why: error.message };
    throw error;
  }
  let session: OpenStackSession;
  try {
    session = await deps.connect(cloud);
  } catch (error) {
    if (error instanceof Unauthorized) return { kind: 'unusable', id, why: `Keystone refuses the credential ${id} in the Secret ${target.secretLabel} (revoked, expired or deleted): replaced` };
    throw error;
  }
  if (session.initialToken.user.id !== target.userId || session.projectId !== target.projectId) return { kind: 'foreign', id };
  const record = await admin.http('identity').get(`/users/${enc(target.userId)}/application_credentials/${enc(id)}`);
  const unrestricted = (record.data as { application_credential?: { unrestricted?: unknown } }).application_credential?.unrestricted === true;
  if (!unrestricted) return { kind: 'unusable', id, why: `the credential ${id} in the Secret ${target.secretLabel} is restricted, so the Region could not delete its Identities' credentials: replaced` };
  return { kind: 'ours', id };
};
