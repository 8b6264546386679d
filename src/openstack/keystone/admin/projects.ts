/**
 * Keystone projects of a domain: one per realized Identity. Names are unique within a domain, compared
 * case-insensitively by Keystone's database. A project may be deleted while enabled; the delete removes its
 * role assignments and the application credentials scoped to it, and tokens scoped to it stop validating.
 */
import type { HttpSession } from '../../http.js';
import { contextOf } from '../../http.js';
import { unwrap } from '../../decoders/field.js';
import type { Project } from './decoders.js';
import { decodeProject } from './decoders.js';
import { enc, findExact } from './common.js';

export interface ProjectNameRef {
  domainId: string;
  name: string;
}

// Identity API v3: List projects (domain_id and name filters, post-filtered to the exact name) — GET /v3/projects
export const findProject = (http: HttpSession, ref: ProjectNameRef): Promise<Project | undefined> =>
  findExact(http, '/projects', 'projects', { domain_id: ref.domainId, name: ref.name }, 'project', decodeProject, (p) => p.domainId === ref.domainId);

// Identity API v3: Show project details — GET /v3/projects/{project_id}
export const getProject = async (http: HttpSession, id: string): Promise<Project> => {
  const response = await http.get(`/projects/${enc(id)}`);
  const context = contextOf(http, response);
  return decodeProject(unwrap(response.data, 'project', context), context);
};

export interface CreateProjectRequest {
  domainId: string;
  name: string;
  description?: string;
  /** Each 1–255 characters, no `,` or `/`, unique, at most 80 (Keystone's schema; otherwise 400). */
  tags?: readonly string[];
}

// Identity API v3: Create project — POST /v3/projects
export const createProject = async (http: HttpSession, req: CreateProjectRequest): Promise<Project> => {
  const project: Record<string, unknown> = { name: req.name, domain_id: req.domainId };
  if (req.description !== undefined) project.description = req.description;
  if (req.tags !== undefined) project.tags = [...req.tags];
  const response = await http.post('/projects', { project });
  const context = contextOf(http, response);
  return decodeProject(unwrap(response.data, 'project', context), context);
};

// Identity API v3: Delete project — DELETE /v3/projects/{project_id}
export const deleteProject = async (http: HttpSession, id: string): Promise<void> => {
  await http.delete(`/projects/${enc(id)}`);
};
