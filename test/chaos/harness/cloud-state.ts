/**
 * The cloud as the simulator holds it, read over its public APIs with an admin token (all projects): servers
 * (status, task, image), volumes, load balancers, networks, security groups and projects. The invariants compare
 * Regent's claims against this view and the call log, never against Regent's own records.
 */
export interface CloudServer { id: string; name: string; status: string; taskState: string | null; imageId: string; projectId: string }
export interface CloudNamed { id: string; name: string; status?: string; projectId?: string }

export interface CloudState {
  servers: CloudServer[];
  volumes: CloudNamed[];
  loadBalancers: CloudNamed[];
  networks: CloudNamed[];
  securityGroups: CloudNamed[];
  projects: CloudNamed[];
}

export interface Auth { token: string; projectId: string }

export const adminToken = async (url: string, password: string): Promise<Auth> => {
  const response = await fetch(`${url}/identity/v3/auth/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: { identity: { methods: ['password'], password: { user: { name: 'admin', domain: { name: 'Default' }, password } } }, scope: { project: { name: 'admin', domain: { name: 'Default' } } } } }),
  });
  if (response.status !== 201) throw new Error(`admin token: ${response.status}`);
  const body = (await response.json()) as { token: { project: { id: string } } };
  return { token: response.headers.get('x-subject-token') as string, projectId: body.token.project.id };
};

const get = async <T>(url: string, auth: Auth, headers: Record<string, string> = {}): Promise<T> => {
  const response = await fetch(url, { headers: { 'x-auth-token': auth.token, ...headers } });
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
  return (await response.json()) as T;
};

type Raw = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Reads the whole cloud with the admin's password (the seed's). */
export const readCloud = async (url: string, adminPassword: string): Promise<CloudState> => {
  const auth = await adminToken(url, adminPassword);
  const [servers, volumes, lbs, networks, groups, projects] = await Promise.all([
    get<{ servers: Raw[] }>(`${url}/compute/v2.1/servers/detail?all_tenants=1&limit=1000`, auth, { 'OpenStack-API-Version': 'compute 2.96' }),
    get<{ volumes: Raw[] }>(`${url}/volume/v3/${auth.projectId}/volumes/detail?all_tenants=1&limit=1000`, auth),
    get<{ loadbalancers: Raw[] }>(`${url}/load-balancer/v2/lbaas/loadbalancers`, auth),
    get<{ networks: Raw[] }>(`${url}/network/v2.0/networks`, auth),
    get<{ security_groups: Raw[] }>(`${url}/network/v2.0/security-groups`, auth),
    get<{ projects: Raw[] }>(`${url}/identity/v3/projects`, auth),
  ]);
  return {
    servers: servers.servers.map((s) => ({
      id: str(s.id), name: str(s.name), status: str(s.status), taskState: (s['OS-EXT-STS:task_state'] as string | null | undefined) ?? null,
      imageId: str((s.image as Raw | undefined)?.id), projectId: str(s.tenant_id),
    })),
    volumes: volumes.volumes.map((v) => ({ id: str(v.id), name: str(v.name), status: str(v.status), projectId: str(v['os-vol-tenant-attr:tenant_id']) })),
    loadBalancers: lbs.loadbalancers.map((l) => ({ id: str(l.id), name: str(l.name), status: str(l.provisioning_status), projectId: str(l.project_id) })),
    networks: networks.networks.map((n) => ({ id: str(n.id), name: str(n.name), projectId: str(n.project_id) })),
    securityGroups: groups.security_groups.map((g) => ({ id: str(g.id), name: str(g.name), projectId: str(g.project_id) })),
    projects: projects.projects.map((p) => ({ id: str(p.id), name: str(p.name) })),
  };
};

/** Creates a Keystone domain as the admin (a managed domain for a Region's Identities); answers its id. */
export const createDomain = async (url: string, adminPassword: string, name: string): Promise<string> => {
  const auth = await adminToken(url, adminPassword);
  const response = await fetch(`${url}/identity/v3/domains`, { method: 'POST', headers: { 'x-auth-token': auth.token, 'content-type': 'application/json' }, body: JSON.stringify({ domain: { name } }) });
  if (response.status !== 201) throw new Error(`create domain ${name}: ${response.status}`);
  return ((await response.json()) as { domain: { id: string } }).domain.id;
};
