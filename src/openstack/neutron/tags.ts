/** Neutron standard-attribute tags (`/v2.0/{resource_type}/{resource_id}/tags`). */
import * as t from 'io-ts';
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import { decodeOrThrow } from '../decoders/field.js';

export type TaggableResource = 'networks' | 'subnets' | 'ports' | 'security-groups' | 'floatingips' | 'routers' | 'subnetpools' | 'trunks' | 'policies';

const tagsPath = (resource: TaggableResource, id: string): string => `/${resource}/${encodeURIComponent(id)}/tags`;

// Networking API v2.0: Obtain Tag List — GET /v2.0/{resource_type}/{resource_id}/tags
export const listTags = async (http: HttpSession, resource: TaggableResource, id: string): Promise<string[]> => {
  const response = await http.get(tagsPath(resource, id));
  return decodeOrThrow(t.type({ tags: t.array(t.string) }), response.data, 'tags', contextOf(http, response)).tags;
};

// Networking API v2.0: Replace All Tags — PUT /v2.0/{resource_type}/{resource_id}/tags
export const replaceTags = async (http: HttpSession, resource: TaggableResource, id: string, tags: readonly string[]): Promise<string[]> => {
  const response = await http.put(tagsPath(resource, id), { tags });
  return decodeOrThrow(t.type({ tags: t.array(t.string) }), response.data, 'tags', contextOf(http, response)).tags;
};

// Networking API v2.0: Add A Tag — PUT /v2.0/{resource_type}/{resource_id}/tags/{tag}
export const addTag = async (http: HttpSession, resource: TaggableResource, id: string, tag: string): Promise<void> => {
  await http.put(`${tagsPath(resource, id)}/${encodeURIComponent(tag)}`);
};

// Networking API v2.0: Remove A Tag — DELETE /v2.0/{resource_type}/{resource_id}/tags/{tag}
export const removeTag = async (http: HttpSession, resource: TaggableResource, id: string, tag: string): Promise<void> => {
  await http.delete(`${tagsPath(resource, id)}/${encodeURIComponent(tag)}`);
};
