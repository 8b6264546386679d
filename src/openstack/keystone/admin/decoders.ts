/**
 * Keystone v3 administration records: domains, projects, users, roles, role assignments and application
 * credentials, as the managed-domain scaffolding needs them (camelCase, the fields Regent uses). The listed
 * keys are checked; extra keys are ignored; a listed key of the wrong type makes the answer unreadable, never
 * a guessed value. Keystone omits `default_project_id` and `description` when unset and prints `null` for an
 * unset description in some views, so those two read as `null`/`''` — every other field is required.
 */
import * as t from 'io-ts';
import type { RequestContext } from '../../errors.js';
import { decodeOrThrow, nullable, timestamp } from '../../decoders/field.js';

export interface Domain {
  readonly id: string;
  readonly name: string;
  readonly enabled: boolean;
  /** `''` when Keystone has none. */
  readonly description: string;
}

export interface Project {
  readonly id: string;
  readonly name: string;
  readonly domainId: string;
  readonly enabled: boolean;
  readonly description: string;
  /** Keystone project tags (each 1–255 characters without `,` or `/`, at most 80, unique), sorted by code unit. */
  readonly tags: readonly string[];
}

export interface User {
  readonly id: string;
  readonly name: string;
  readonly domainId: string;
  readonly enabled: boolean;
  readonly defaultProjectId: string | null;
}

export interface Role {
  readonly id: string;
  readonly name: string;
  /** null for a global role (the only kind `findRoleByName` returns). */
  readonly domainId: string | null;
}

export interface ApplicationCredential {
  readonly id: string;
  readonly name: string;
  /** The project of the token that created it: every token it issues is scoped there. */
  readonly projectId: string;
  /** As Keystone printed it (`2030-01-01T00:00:00.000000`, UTC without a zone); null when it never expires. */
  readonly expiresAt: string | null;
  readonly roles: ReadonlyArray<{ readonly id: string; readonly name: string }>;
}

/** The answer of a create: the only time Keystone ever returns the secret. */
export type IssuedApplicationCredential = ApplicationCredential & { readonly secret: string };

/** One row of `GET /v3/role_assignments` (direct assignments; `inherited` marks OS-INHERIT ones). */
export interface RoleAssignment {
  readonly roleId: string;
  /** Present because the list is read with `include_names`; null if Keystone left it out. */
  readonly roleName: string | null;
  readonly userId: string | null;
  readonly groupId: string | null;
  readonly projectId: string | null;
  readonly domainId: string | null;
  readonly system: boolean;
  readonly inherited: boolean;
}

const domainCodec = t.intersection([
  t.type({ id: t.string, name: t.string, enabled: t.boolean }),
  t.partial({ description: nullable(t.string) }),
]);

const projectCodec = t.intersection([
  t.type({ id: t.string, name: t.string, domain_id: t.string, enabled: t.boolean }),
  t.partial({ description: nullable(t.string), tags: t.array(t.string) }),
]);

const userCodec = t.intersection([
  t.type({ id: t.string, name: t.string, domain_id: t.string, enabled: t.boolean }),
  t.partial({ default_project_id: nullable(t.string) }),
]);

const roleCodec = t.intersection([t.type({ id: t.string, name: t.string }), t.partial({ domain_id: nullable(t.string) })]);

const appCredCodec = t.type({
  id: t.string,
  name: t.string,
  project_id: t.string,
  expires_at: nullable(timestamp),
  roles: t.array(t.type({ id: t.string, name: t.string })),
});

const issuedCodec = t.intersection([appCredCodec, t.type({ secret: t.string })]);

const ref = t.intersection([t.type({ id: t.string }), t.partial({ name: t.string })]);
const assignmentCodec = t.intersection([
  t.type({
    role: ref,
    scope: t.intersection([
      t.partial({ project: ref, domain: ref, system: t.unknown }),
      t.partial({ 'OS-INHERIT:inherited_to': t.string }),
    ]),
  }),
  t.partial({ user: ref, group: ref }),
]);

export const decodeDomain = (raw: unknown, context: RequestContext = {}): Domain => {
  const d = decodeOrThrow(domainCodec, raw, 'domain', context);
  return { id: d.id, name: d.name, enabled: d.enabled, description: d.description ?? '' };
};

export const decodeProject = (raw: unknown, context: RequestContext = {}): Project => {
  const p = decodeOrThrow(projectCodec, raw, 'project', context);
  // Sorted: Keystone keeps no order (measured on Zed: the create answer sorted, a later list in the order sent),
  // so two reads of one project compare equal only if the client fixes one.
  return { id: p.id, name: p.name, domainId: p.domain_id, enabled: p.enabled, description: p.description ?? '', tags: [...(p.tags ?? [])].sort() };
};

export const decodeUser = (raw: unknown, context: RequestContext = {}): User => {
  const u = decodeOrThrow(userCodec, raw, 'user', context);
  return { id: u.id, name: u.name, domainId: u.domain_id, enabled: u.enabled, defaultProjectId: u.default_project_id ?? null };
};

export const decodeRole = (raw: unknown, context: RequestContext = {}): Role => {
  const r = decodeOrThrow(roleCodec, raw, 'role', context);
  return { id: r.id, name: r.name, domainId: r.domain_id ?? null };
};

const appCredOf = (c: t.TypeOf<typeof appCredCodec>): ApplicationCredential => ({
  id: c.id, name: c.name, projectId: c.project_id, expiresAt: c.expires_at, roles: c.roles.map((r) => ({ id: r.id, name: r.name })),
});

export const decodeApplicationCredential = (raw: unknown, context: RequestContext = {}): ApplicationCredential =>
  appCredOf(decodeOrThrow(appCredCodec, raw, 'application credential', context));

/** The create answer. A missing secret is unreadable (the path is named, never a value). */
export const decodeIssuedApplicationCredential = (raw: unknown, context: RequestContext = {}): IssuedApplicationCredential => {
  const c = decodeOrThrow(issuedCodec, raw, 'application credential', context);
  return { ...appCredOf(c), secret: c.secret };
};

export const decodeRoleAssignment = (raw: unknown, context: RequestContext = {}): RoleAssignment => {
  const a = decodeOrThrow(assignmentCodec, raw, 'role assignment', context);
  return {
    roleId: a.role.id,
    roleName: a.role.name ?? null,
    userId: a.user?.id ?? null,
    groupId: a.group?.id ?? null,
    projectId: a.scope.project?.id ?? null,
    domainId: a.scope.domain?.id ?? null,
    system: a.scope.system !== undefined,
    inherited: a.scope['OS-INHERIT:inherited_to'] !== undefined,
  };
};
