/**
 * The baselines of the mass-change parts: the same cloud work done by a bare client (OpenStack sessions of its own on
 * the same simulator, no control plane, no store), as fast as the simulator lets it — rebuild, create-and-attach a volume, build a load
 * balancer with two listeners — each with a bounded number of objects in flight and polling until settled.
 */
import type { OpenStackSession } from '../../src/openstack/session.js';
import { now } from './measure.js';

type Json = Record<string, unknown>;

/** Runs `work` over `items` with at most `width` in flight. */
export const inParallel = async <T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> => {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `read` until `done` holds for its answer; throws after `timeoutMs`. */
const pollUntil = async <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, everyMs = 100): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`raw client: timed out waiting for ${what}`);
    await sleep(everyMs);
  }
};

/** Every server of the session's project, by the raw paged detail list. */
const allServers = async (session: OpenStackSession): Promise<Json[]> => {
  const http = session.http('compute');
  const servers: Json[] = [];
  let marker: string | undefined;
  for (;;) {
    const page = ((await http.get<{ servers: Json[] }>('/servers/detail', { limit: '1000', ...(marker ? { marker } : {}) })).data.servers);
    servers.push(...page);
    if (page.length < 1000) return servers;
    marker = page[page.length - 1]?.id as string;
  }
};

const settledOn = (server: Json, image: string): boolean =>
  server.status === 'ACTIVE' && server['OS-EXT-STS:task_state'] === null && (server.image as { id?: string } | undefined)?.id === image;

/** Rebuilds `ids` to `image` (one POST each) and lists until every one is ACTIVE on it: ms. */
export const rawRebuild = async (session: OpenStackSession, ids: readonly string[], image: string, timeoutMs: number): Promise<number> => {
  const start = now();
  const http = session.http('compute');
  await inParallel(ids, 32, async (id) => void (await http.post(`/servers/${id}/action`, { rebuild: { imageRef: image } })));
  const wanted = new Set(ids);
  await pollUntil('the raw rebuilds', () => allServers(session), (servers) => servers.filter((s) => wanted.has(s.id as string) && settledOn(s, image)).length === wanted.size, timeoutMs, 250);
  return now() - start;
};

/** Creates a volume for each server, waits until available, attaches it and waits until in-use: ms. */
export const rawVolumes = async (session: OpenStackSession, serverIds: readonly string[], volumeType: string, timeoutMs: number): Promise<number> => {
  const start = now();
  const cinder = session.http('block-storage');
  const nova = session.http('compute');
  await inParallel(serverIds, 32, async (serverId) => {
    const created = (await cinder.post('/volumes', { volume: { name: `raw-${serverId}`, size: 1, volume_type: volumeType } })).data as { volume: { id: string } };
    const id = created.volume.id;
    const status = async () => ((await cinder.get<{ volume: { status: string } }>(`/volumes/${id}`)).data.volume.status);
    await pollUntil(`raw volume ${id} available`, status, (s) => s === 'available', timeoutMs);
    await nova.post(`/servers/${serverId}/os-volume_attachments`, { volumeAttachment: { volumeId: id } });
    await pollUntil(`raw volume ${id} in-use`, status, (s) => s === 'in-use', timeoutMs);
  });
  return now() - start;
};

/** Builds `count` load balancers on `subnetId`, each with two listeners and their pools, one mutation at a time: ms. */
export const rawLoadBalancers = async (session: OpenStackSession, subnetId: string, count: number, timeoutMs: number): Promise<number> => {
  const start = now();
  const octavia = session.http('load-balancer');
  const names = Array.from({ length: count }, (_, i) => `raw-lb-${i + 1}`);
  await inParallel(names, 32, async (name) => {
    const lb = ((await octavia.post('/lbaas/loadbalancers', { loadbalancer: { name, vip_subnet_id: subnetId } })).data as { loadbalancer: { id: string } }).loadbalancer.id;
    const active = () => pollUntil(`raw ${name} ACTIVE`, async () => (await octavia.get<{ loadbalancer: { provisioning_status: string } }>(`/lbaas/loadbalancers/${lb}`)).data.loadbalancer.provisioning_status, (s) => s === 'ACTIVE', timeoutMs);
    await active();
    for (const [listener, protocol, port] of [['https', 'TCP', 443], ['dns', 'UDP', 53]] as const) {
      const created = (await octavia.post('/lbaas/listeners', { listener: { name: `${name}-${listener}`, loadbalancer_id: lb, protocol, protocol_port: port } })).data as { listener: { id: string } };
      await active();
      await octavia.post('/lbaas/pools', { pool: { name: `${name}-${listener}-pool`, listener_id: created.listener.id, protocol, lb_algorithm: 'ROUND_ROBIN' } });
      await active();
    }
  });
  return now() - start;
};
