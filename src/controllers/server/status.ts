/**
 * A Server's status, as the status runner writes it (docs/server.md "Status"): the lifecycle stream (create,
 * delete, refused spec), the rebuild stream of its Nova server (health, marker, latches), its volume pairs, the
 * spec fields not realized, whether it can be observed at all, and — written by itself, with the read's
 * resourceVersion — the derived list of provider-create gates still pending.
 */
import { serverLifecycleDefinition, serverLifecycleStream } from '../../../machines/server-lifecycle.js';
import { serverRebuildDefinition, serverRebuildStream } from '../../../machines/server-rebuild.js';
import { volumeAttachmentStatus, volumeAttachmentStream } from '../../../machines/volume-attachment.js';
import { renderServerResource } from '../../../projections/server-resource-status.js';
import { unrealizedServerFields } from '../../../projections/server-unrealized.js';
import { renderRemainingCreateGates } from '../../../projections/server-create-gates.js';
import { renderServerVolumes, type ServerVolumePair, type ServerVolumesView } from '../../../projections/server-volumes.js';
import type { Server, ServerSpec } from '../../resources/server.js';
import { patchStatusWithRetry } from '../../kube/retry.js';
import { latest, withScopeReachability, type StatusEnv, type StatusRenderer } from '../../status/renderer.js';

/**
 * What the create request that made the server carried (its SecurityGroup names, its keypair): the last (re)create
 * decision of its lifecycle stream, read backwards page by page (a lifecycle stream is short: creates, deletes, passes).
 */
const createdWith = async (env: StatusEnv, stream: string): Promise<{ securityGroups?: string[]; keyName?: string }> => {
  let before: number | undefined;
  for (;;) {
    const page = await env.store.readStream(stream, { direction: 'backwards', maxCount: 200, ...(before !== undefined ? { fromRevision: before } : {}) });
    const made = page.find((e) => e.type === 'serverLifecycle.createSubmitted' || e.type === 'serverLifecycle.recreateSubmitted');
    if (made) {
      const desired = (made.data as { desired?: { securityGroups?: unknown; keyName?: unknown } }).desired;
      return { ...(Array.isArray(desired?.securityGroups) ? { securityGroups: desired.securityGroups.map(String) } : {}), ...(typeof desired?.keyName === 'string' ? { keyName: desired.keyName } : {}) };
    }
    const last = page.at(-1);
    if (page.length < 200 || !last || last.revision === 0) return {};
    before = last.revision - 1;
  }
};

/** The Server's (server, volume) pairs: those its spec lists and those it has a stream for. */
const serverVolumes = async (env: StatusEnv, namespace: string, serverUid: string, spec: Partial<ServerSpec>): Promise<ServerVolumesView> => {
  const prefix = `volume-attachment-${serverUid}-`;
  const streams = new Set((await env.store.listStreams({ streamPrefixes: [prefix] })).map((s) => s.stream));
  // most servers have no volumes: then there is nothing to read (a render follows every server event)
  if (streams.size === 0 && (spec.volumes ?? []).length === 0) return renderServerVolumes([]);
  const volumes = (await env.source.list('Volume', namespace)).items;
  const pairs: ServerVolumePair[] = [];
  const load = async (volumeUid: string) => {
    const stream = volumeAttachmentStream(serverUid, volumeUid);
    if (!streams.has(stream)) return undefined;
    return volumeAttachmentStatus((await env.engine.load(stream)).snapshot);
  };
  const listed = new Set<string>();
  for (const entry of spec.volumes ?? []) {
    const volume = volumes.find((v) => v.metadata.name === entry.volumeID);
    listed.add(volume?.metadata.uid ?? '');
    pairs.push({ name: entry.volumeID, listed: true, ...(entry.device ? { requestedDevice: entry.device } : {}), exists: volume !== undefined, attachment: volume ? await load(volume.metadata.uid) : undefined });
  }
  for (const stream of streams) {
    const volumeUid = stream.slice(prefix.length);
    if (listed.has(volumeUid)) continue;
    const volume = volumes.find((v) => v.metadata.uid === volumeUid);
    // a Volume resource already gone is named by its Cinder name (volume-<uid>): the only name left
    pairs.push({ name: volume?.metadata.name ?? `volume-${volumeUid}`, listed: false, exists: volume !== undefined, attachment: await load(volumeUid) });
  }
  return renderServerVolumes(pairs);
};

export const serverStatus: StatusRenderer = {
  ownedKeys: ['rebuild', 'provisionedAt', 'macAddress', 'ipAddresses', 'serverID', 'volumes'],
  render: async (env, object) => {
    const uid = object.metadata.uid;
    const lifecycle = await env.engine.load(serverLifecycleDefinition, serverLifecycleStream(uid));
    const lifecycleContext = lifecycle.context;
    const serverId = lifecycleContext.resourceId;
    const rebuild = serverId ? await env.engine.load(serverRebuildDefinition, serverRebuildStream(serverId)) : undefined;
    const at = latest(lifecycle.last?.metadata.recordedAt, rebuild?.last?.metadata.recordedAt) ?? env.now();
    const spec = object.spec as Partial<ServerSpec>;
    const status = renderServerResource({
      lifecycle: lifecycle.revision === undefined ? undefined : { state: lifecycle.state, context: lifecycleContext },
      rebuild: rebuild?.revision === undefined ? undefined : rebuild.context,
      generation: object.metadata.generation ?? 1,
      unrealized: unrealizedServerFields(spec, serverId ? { created: true, ...(await createdWith(env, serverLifecycleStream(uid))) } : { created: false }),
      volumes: await serverVolumes(env, object.metadata.namespace ?? 'default', uid, spec),
      at,
      previous: object.status as never,
    });
    return (await withScopeReachability(env, uid, status, { what: 'Nova server', at, previous: object.status })) as unknown as Record<string, unknown>;
  },
  /**
   * status.remainingProviderCreateGates, derived from the spec and the per-gate records (projections/
   * server-create-gates.ts). The records are the API's (POST …/provider-create-gates): never written here, and the
   * list is patched with the read's resourceVersion (re-read and re-derived on Conflict), so a gate satisfied
   * between this read and the write is never clobbered by a list derived before it.
   */
  afterPatch: async (env, object) => {
    const server = object as Server;
    if (renderRemainingCreateGates(server.spec, server.status) === undefined) return;
    await patchStatusWithRetry(env.source, 'Server', server.metadata.namespace ?? 'default', server.metadata.name, (current) => {
      const remaining = renderRemainingCreateGates(current.spec, current.status);
      if (remaining === undefined || JSON.stringify(remaining) === JSON.stringify(current.status?.remainingProviderCreateGates)) return undefined;
      return { remainingProviderCreateGates: remaining };
    });
  },
};
