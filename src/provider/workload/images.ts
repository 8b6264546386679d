/**
 * What a WorkloadMachine's spec names, resolved each pass (openstack-cluster-modules.md: "No image lookup" — the
 * server takes `image_id` or `image_name` directly, and later image changes are not followed):
 * - the image by id (`GET /v2/images/{id}`) or by exact name (`GET /v2/images?name=`, post-filtered);
 * - the flavor by exact name (`GET /flavors/detail?is_public=None`, post-filtered; there is no default flavor).
 * Each resolves to its id, or null when the project sees none — or several, which is not one to pick from either
 * (`lookupImage`/`lookupFlavor` tell the two apart for a message). Every other error is thrown (the pass backs off).
 */
import { NotFound } from '../../openstack/errors.js';
import type { GlanceClient } from '../../openstack/glance.js';
import type { NovaClient } from '../../openstack/nova/index.js';

export type Resolved = { kind: 'absent' } | { kind: 'present'; id: string } | { kind: 'duplicate'; ids: string[] };

export type ImageRef = { id: string } | { name: string };

const ofMatches = (ids: readonly string[]): Resolved => {
  if (ids.length === 0) return { kind: 'absent' };
  if (ids.length > 1) return { kind: 'duplicate', ids: [...ids].sort() };
  return { kind: 'present', id: ids[0] as string };
};
const idOf = (r: Resolved): string | null => (r.kind === 'present' ? r.id : null);

export const lookupImage = async (s: { glance: Pick<GlanceClient, 'getImage' | 'listImages'> }, ref: ImageRef): Promise<Resolved> => {
  if ('id' in ref) {
    try {
      return { kind: 'present', id: (await s.glance.getImage(ref.id)).id };
    } catch (error) {
      if (error instanceof NotFound) return { kind: 'absent' };
      throw error;
    }
  }
  return ofMatches((await s.glance.listImages({ name: ref.name })).filter((i) => i.name === ref.name).map((i) => i.id));
};

export const lookupFlavor = async (s: { nova: Pick<NovaClient, 'listFlavors'> }, name: string): Promise<Resolved> =>
  ofMatches((await s.nova.listFlavors({ is_public: 'None' })).filter((f) => f.name === name).map((f) => f.id));

/** The image's id, or null (none, or several of that name). */
export const resolveImage = async (s: { glance: Pick<GlanceClient, 'getImage' | 'listImages'> }, ref: ImageRef): Promise<string | null> => idOf(await lookupImage(s, ref));

/** The flavor's id by exact name, or null (none, or several). */
export const resolveFlavor = async (s: { nova: Pick<NovaClient, 'listFlavors'> }, name: string): Promise<string | null> => idOf(await lookupFlavor(s, name));
