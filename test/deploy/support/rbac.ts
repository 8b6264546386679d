/**
 * RBAC as the API server evaluates it, for the subset Regent's manifests use: ClusterRoles bound with
 * ClusterRoleBindings (every namespace) and Roles bound with RoleBindings (their namespace); a rule
 * matches when its apiGroups, resources (or resource/subresource), verbs and resourceNames (empty =
 * any) match. Grants are compared as "triples": `group/resource:verb` or `group/resource#name:verb`.
 */
import type { KubeObject, Loaded } from './files.js';

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** What the API server authorizes: one request's attributes. */
export interface Access {
  readonly verb: string;
  readonly group: string;
  /** The resource, with `/subresource` when there is one (`servers/status`). */
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
}

export const triple = (group: string, resource: string, verb: string, name?: string): string => `${group}/${resource}${name ? `#${name}` : ''}:${verb}`;

export const rulesOf = (object: KubeObject): PolicyRule[] => (object.rules as PolicyRule[] | undefined) ?? [];

/** Every (group, resource, verb, resourceName) a set of rules grants, as triples. */
export const grantsOf = (rules: readonly PolicyRule[]): string[] =>
  rules.flatMap((rule) =>
    (rule.apiGroups ?? []).flatMap((group) =>
      (rule.resources ?? []).flatMap((resource) => (rule.verbs ?? []).flatMap((verb) => (rule.resourceNames?.length ? rule.resourceNames.map((n) => triple(group, resource, verb, n)) : [triple(group, resource, verb)]))),
    ),
  );

/** Wildcards and non-resource URLs anywhere in the rules. */
export const wildcardsIn = (rules: readonly PolicyRule[]): string[] =>
  rules.flatMap((rule) => [
    ...[...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...(rule.verbs ?? []), ...(rule.resourceNames ?? [])].filter((v) => v.includes('*')),
    ...(rule.nonResourceURLs ?? []).map((u) => `nonResourceURL ${u}`),
  ]);

const ruleAllows = (rule: PolicyRule, access: Access): boolean =>
  (rule.apiGroups ?? []).includes(access.group) &&
  (rule.resources ?? []).includes(access.resource) &&
  (rule.verbs ?? []).includes(access.verb) &&
  (!rule.resourceNames?.length || (access.name !== undefined && rule.resourceNames.includes(access.name)));

/** The rules bound to a ServiceAccount, with the namespace they apply in (undefined: every namespace). */
export const rulesFor = (objects: readonly Loaded[], serviceAccount: { name: string; namespace: string }): Array<{ namespace?: string; rule: PolicyRule; from: string }> => {
  const bound = (binding: KubeObject) =>
    ((binding.subjects as Array<{ kind: string; name: string; namespace?: string }> | undefined) ?? []).some((s) => s.kind === 'ServiceAccount' && s.name === serviceAccount.name && s.namespace === serviceAccount.namespace);
  const find = (kind: string, name: string, namespace?: string) => objects.find((o) => o.object.kind === kind && o.object.metadata.name === name && o.object.metadata.namespace === namespace)?.object;
  const result: Array<{ namespace?: string; rule: PolicyRule; from: string }> = [];
  for (const { object: binding } of objects) {
    if (!bound(binding)) continue;
    const ref = binding.roleRef as { kind: string; name: string };
    if (binding.kind === 'ClusterRoleBinding' && ref.kind === 'ClusterRole') {
      for (const rule of rulesOf(find('ClusterRole', ref.name) ?? ({} as KubeObject))) result.push({ rule, from: `ClusterRole ${ref.name}` });
    } else if (binding.kind === 'RoleBinding') {
      const role = ref.kind === 'Role' ? find('Role', ref.name, binding.metadata.namespace) : find('ClusterRole', ref.name);
      for (const rule of rulesOf(role ?? ({} as KubeObject))) result.push({ namespace: binding.metadata.namespace, rule, from: `${ref.kind} ${ref.name}` });
    }
  }
  return result;
};

export const allows = (bound: ReturnType<typeof rulesFor>, access: Access): boolean =>
  bound.some(({ namespace, rule }) => (namespace === undefined || namespace === access.namespace) && ruleAllows(rule, access));

/** The RBAC attributes of an HTTP request to the API server (resource requests only). */
export const accessOf = (method: string, path: string, query: Record<string, string>): Access => {
  const m = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)(?:\/namespaces\/([^/]+))?\/([^/]+)(?:\/([^/]+))?(?:\/([^/]+))?$/.exec(path);
  if (!m) throw new Error(`not a resource path: ${path}`);
  const [, group = '', namespace, resource, name, subresource] = m;
  const verb =
    method === 'GET' ? (query.watch === 'true' || query.watch === '1' ? 'watch' : name === undefined ? 'list' : 'get')
    : method === 'POST' ? 'create'
    : method === 'PUT' ? 'update'
    : method === 'PATCH' ? 'patch'
    : method === 'DELETE' ? (name === undefined ? 'deletecollection' : 'delete')
    : method.toLowerCase();
  return { verb, group, resource: subresource ? `${resource!}/${subresource}` : resource!, ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) };
};
