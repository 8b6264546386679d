/**
 * The projection runner: the writer of resource status (except a Server's per-gate records,
 * status.providerCreateGates, which only the API's POST …/provider-create-gates writes; the runner keeps the
 * derived status.remainingProviderCreateGates: renderServerGates). It follows the event store (a
 * subscription from a stored checkpoint), works out which resource an event belongs to, renders that
 * resource's status with the pure functions in projections/, and patches the status subresource only
 * when the rendered status differs from what is stored (unchanged conditions keep their
 * lastTransitionTime, because rendering starts from the stored status).
 */
import type { EventStore, Subscription } from '../store/port.js';
import type { RecordedEvent } from '../events/envelope.js';
import type { Engine } from '../engine/engine.js';
import type { ResourceSource } from '../kube/port.js';
import { NotFound } from '../kube/errors.js';
import type { KindName } from '../resources/index.js';
import type { Logger } from '../log/logger.js';
import { describeError } from '../log/logger.js';
import type { LifecycleContext } from '../../machines/lifecycle.js';
import type { ServerRebuildContext } from '../../machines/server-rebuild.js';
import { serverLifecycleStream } from '../../machines/server-lifecycle.js';
import { networkLifecycleStream } from '../../machines/network-lifecycle.js';
import { securityGroupLifecycleStream } from '../../machines/security-group-lifecycle.js';
import { renderSecurityGroupResource } from '../../projections/security-group-status.js';
import { serverRebuildStream } from '../../machines/server-rebuild.js';
import { renderServerResource } from '../../projections/server-resource-status.js';
import { unrealizedServerFields } from '../../projections/server-unrealized.js';
import type { Server, ServerSpec } from '../resources/server.js';
import { renderRemainingCreateGates } from '../../projections/server-create-gates.js';
import { patchStatusWithRetry } from '../kube/retry.js';
import { networkVlanIdOf, renderNetworkResource } from '../../projections/network-status.js';
import { renderUnserved } from '../../projections/unserved-status.js';
import { renderSshCertificateAuthority } from '../../projections/ssh-certificate-authority-status.js';
import { readPublicKey } from '../provider/ssh-public-key.js';
import { renderRegionResource } from '../../projections/region-status.js';
import { renderIdentityResource } from '../../projections/identity-status.js';
import { regionConnectionStream, type RegionContext } from '../../machines/region-connection.js';
import { identityLifecycleStream, type IdentityContext } from '../../machines/identity-lifecycle.js';
import type { Region } from '../resources/region.js';
import { renderVolumeResource } from '../../projections/volume-status.js';
import { renderLoadBalancerResource } from '../../projections/load-balancer-status.js';
import { loadBalancerStream, type LoadBalancerContext } from '../../machines/load-balancer.js';
import { renderServerVolumes, type ServerVolumePair, type ServerVolumesView } from '../../projections/server-volumes.js';
import { volumeAttachmentStatus, volumeAttachmentStream } from '../../machines/volume-attachment.js';
import { volumeLifecycleStream, type VolumeContext } from '../../machines/volume-lifecycle.js';
import type { Checkpoint } from './checkpoint.js';
import { renderNovaResource } from '../../projections/nova-status.js';
import { novaDatabaseStream, type NovaUpgradeContext } from '../../machines/nova-upgrade.js';
import { novaDBArchiveStream, type NovaDBArchiveContext } from '../../machines/nova-db-archive.js';
import { scopeReachabilityStream, SCOPE_REACHABILITY_PREFIX, type ScopeReachabilityContext } from '../../machines/scope-reachability.js';
import { withReachability, type ReachabilityView } from '../../projections/scope-reachability-status.js';
import type { Condition } from '../../projections/conditions.js';

interface ResourceRef {
  kind: KindName;
  namespace: string;
  name: string;
}

/** Status keys a projection owns: absent from a render means "remove" (merge patch null). */
const OWNED_OPTIONAL_KEYS: Record<string, readonly string[]> = {
  Server: ['rebuild', 'provisionedAt', 'macAddress', 'serverID', 'volumes'],
  Network: ['networkID', 'vlanID'],
  SecurityGroup: ['securityGroupID'],
  SSHCertificateAuthority: ['fingerprint'],
  Identity: ['openstack', 'credentialsSecretRef'],
  Volume: ['volumeID', 'size', 'state', 'volumeClassID'],
  LoadBalancer: ['loadBalancerID', 'vipAddress', 'publicIP', 'provisioningStatus', 'listeners'],
  Nova: ['installedRelease', 'upgradePhase', 'cells'],
};

export interface StatusRunnerOptions {
  store: EventStore;
  engine: Engine;
  source: ResourceSource;
  checkpoint: Checkpoint;
  logger: Logger;
  /** Kinds with a controller; every other kind gets the "no controller yet" status. */
  servedKinds: readonly KindName[];
  now?: () => Date;
  onLag?: (events: number) => void;
  /**
   * The audit pages' base URL: every status written gets `auditURL`, the resource's audit page
   * (`<base>/resources/<Kind>/<namespace>/<name>`; issue 18). Absent: no link is written.
   */
  auditBaseUrl?: string;
}

/** The audit page of a resource (src/audit/web/routes.ts serves /resources/<Kind>/<namespace>/<name>). */
export const auditUrlOf = (base: string, ref: { kind: string; namespace: string; name: string }): string =>
  `${base.replace(/\/$/, '')}/resources/${encodeURIComponent(ref.kind)}/${encodeURIComponent(ref.namespace)}/${encodeURIComponent(ref.name)}`;

export class StatusRunner {
  private readonly byUid = new Map<string, ResourceRef>();
  private readonly serverByNovaId = new Map<string, string>();
  private subscription: Subscription | undefined;
  private position = 0;
  private lastSaved = 0;

  constructor(private readonly options: StatusRunnerOptions) {}

  get checkpointPosition(): number {
    return this.position;
  }

  /** Remembers which resource a uid is (informers call this for every object they see). */
  noteResource(kind: KindName, object: { metadata: { uid: string; namespace?: string; name: string } }): void {
    this.byUid.set(object.metadata.uid, { kind, namespace: object.metadata.namespace ?? 'default', name: object.metadata.name });
  }

  forgetResource(uid: string): void {
    this.byUid.delete(uid);
  }

  /** Maps a Nova server id to the Server resource that owns it (the server controller learns it first). */
  noteServerId(serverId: string, uid: string): void {
    this.serverByNovaId.set(serverId, uid);
  }

  async start(): Promise<void> {
    this.position = await this.options.checkpoint.load();
    this.lastSaved = this.position;
    this.subscription = this.options.store.subscribe({ after: this.position }, (event) => this.onEvent(event));
    this.subscription.done.catch((error: unknown) => this.options.logger.error('status runner stopped', describeError(error)));
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
    await this.options.checkpoint.save(this.position);
  }

  /** Renders one resource now (informer events and startup). */
  async render(ref: ResourceRef): Promise<void> {
    try {
      if (ref.kind === 'Server') await this.renderServer(ref);
      else if (ref.kind === 'Network') await this.renderNetwork(ref);
      else if (ref.kind === 'Region' && this.options.servedKinds.includes('Region')) await this.renderRegion(ref);
      else if (ref.kind === 'Identity' && this.options.servedKinds.includes('Identity')) await this.renderIdentity(ref);
      else if (ref.kind === 'Volume' && this.options.servedKinds.includes('Volume')) await this.renderVolume(ref);
      else if (ref.kind === 'LoadBalancer' && this.options.servedKinds.includes('LoadBalancer')) await this.renderLoadBalancer(ref);
      else if (ref.kind === 'Nova' && this.options.servedKinds.includes('Nova')) await this.renderNova(ref);
      else if (ref.kind === 'SecurityGroup' && this.options.servedKinds.includes('SecurityGroup')) await this.renderSecurityGroup(ref);
      else if (ref.kind === 'SSHCertificateAuthority') await this.renderSshCertificateAuthority(ref); // no controller needed: nothing to decide
      else if (!this.options.servedKinds.includes(ref.kind)) await this.renderUnserved(ref);
    } catch (error) {
      // The resource was deleted between the read and the patch: nothing left to render.
      if (error instanceof NotFound) return void this.options.logger.debug('resource gone before its status was written', { ...ref });
      this.options.logger.warn('could not render status', { ...ref, ...describeError(error) });
    }
  }

  private async onEvent(event: RecordedEvent): Promise<void> {
    const ref = this.resourceOf(event.stream);
    if (ref) await this.render(ref);
    this.position = event.position;
    if (this.position - this.lastSaved >= 50) {
      // A checkpoint that cannot be written costs a re-render after a restart, never a lost status.
      await this.options.checkpoint.save(this.position).then(
        () => (this.lastSaved = this.position),
        (error: unknown) => this.options.logger.warn('could not save the status checkpoint', { checkpoint: this.options.checkpoint.description, ...describeError(error) }),
      );
    }
  }

  private resourceOf(stream: string): ResourceRef | undefined {
    for (const prefix of ['server-lifecycle-', 'network-lifecycle-', 'identity-lifecycle-', 'region-connection-', 'volume-lifecycle-', 'load-balancer-', 'nova-database-', 'nova-db-archive-', 'security-group-lifecycle-', SCOPE_REACHABILITY_PREFIX]) {
      if (stream.startsWith(prefix)) return this.byUid.get(stream.slice(prefix.length));
    }
    // volume-attachment-<serverUid>-<volumeUid>: the Server's status.volumes
    if (stream.startsWith('volume-attachment-')) return this.byUid.get(stream.slice('volume-attachment-'.length, 'volume-attachment-'.length + 36));
    if (stream.startsWith('server-rebuild-')) {
      const uid = this.serverByNovaId.get(stream.slice('server-rebuild-'.length));
      return uid ? this.byUid.get(uid) : undefined;
    }
    return undefined;
  }

  private now(): string {
    return (this.options.now ?? (() => new Date()))().toISOString();
  }

  /**
   * What the create request that made the server carried (its SecurityGroup names, its keypair): the last (re)create decision of its
   * lifecycle stream, read backwards page by page (a lifecycle stream is short: creates, deletes, passes).
   */
  private async createdWith(stream: string): Promise<{ securityGroups?: string[]; keyName?: string }> {
    let before: number | undefined;
    for (;;) {
      const page = await this.options.store.readStream(stream, { direction: 'backwards', maxCount: 200, ...(before !== undefined ? { fromRevision: before } : {}) });
      const made = page.find((e) => e.type === 'serverLifecycle.createSubmitted' || e.type === 'serverLifecycle.recreateSubmitted');
      if (made) {
        const desired = (made.data as { desired?: { securityGroups?: unknown; keyName?: unknown } }).desired;
        return { ...(Array.isArray(desired?.securityGroups) ? { securityGroups: desired.securityGroups.map(String) } : {}), ...(typeof desired?.keyName === 'string' ? { keyName: desired.keyName } : {}) };
      }
      const last = page.at(-1);
      if (page.length < 200 || !last || last.revision === 0) return {};
      before = last.revision - 1;
    }
  }

  /** Whether the last passes could see the resource in its cloud (machines/scope-reachability.ts), and when that was recorded. */
  private async reachabilityOf(uid: string): Promise<{ view: ReachabilityView | undefined; at: string | undefined }> {
    const loaded = await this.options.engine.load(scopeReachabilityStream(uid));
    if (loaded.revision === undefined) return { view: undefined, at: undefined };
    return { view: { state: String(loaded.snapshot.value) as ReachabilityView['state'], context: loaded.snapshot.context as ScopeReachabilityContext }, at: loaded.last?.metadata.recordedAt };
  }

  /**
   * The kind's status with DependenciesReady, and its success claim withdrawn while the resource cannot be
   * observed (projections/scope-reachability-status.ts): the last step of every render of a kind worked with
   * through a Network's Identity.
   */
  private async reachable<S extends { conditions: Condition[]; observedGeneration: number }>(uid: string, status: S, what: string, at: string, previous: unknown): Promise<S> {
    const reach = await this.reachabilityOf(uid);
    return withReachability(status, reach.view, { what, at: latest(at, reach.at) ?? at, previous: (previous as { conditions?: Condition[] } | undefined)?.conditions });
  }

  private async renderServer(ref: ResourceRef): Promise<void> {
    const object = await this.options.source.get('Server', ref.namespace, ref.name);
    if (!object) return;
    const lifecycle = await this.options.engine.load(serverLifecycleStream(object.metadata.uid));
    const lifecycleContext = lifecycle.snapshot.context as LifecycleContext;
    const serverId = lifecycleContext.resourceId;
    if (serverId) this.noteServerId(serverId, object.metadata.uid);
    const rebuild = serverId ? await this.options.engine.load(serverRebuildStream(serverId)) : undefined;
    const at = latest(lifecycle.last?.metadata.recordedAt, rebuild?.last?.metadata.recordedAt) ?? this.now();
    const status = await this.reachable(object.metadata.uid, renderServerResource({
      lifecycle: lifecycle.revision === undefined ? undefined : { state: String(lifecycle.snapshot.value), context: lifecycleContext },
      rebuild: rebuild?.revision === undefined ? undefined : (rebuild.snapshot.context as ServerRebuildContext),
      generation: object.metadata.generation ?? 1,
      unrealized: unrealizedServerFields(object.spec as Partial<ServerSpec>, serverId ? { created: true, ...(await this.createdWith(serverLifecycleStream(object.metadata.uid))) } : { created: false }),
      volumes: await this.serverVolumes(object.metadata.namespace ?? ref.namespace, object.metadata.uid, object.spec as Partial<ServerSpec>),
      at,
      previous: object.status as never,
    }), 'Nova server', at, object.status);
    await this.patchIfChanged(ref, object.status as Record<string, unknown> | undefined, status as unknown as Record<string, unknown>);
    await this.renderServerGates(ref, object as Server);
  }

  /**
   * status.remainingProviderCreateGates, derived from the spec and the per-gate records (projections/
   * server-create-gates.ts). The records are the API's (POST …/provider-create-gates): never written here, and
   * the list is patched with the read's resourceVersion (re-read and re-derived on Conflict), so a gate
   * satisfied between this read and the write is never clobbered by a list derived before it.
   */
  private async renderServerGates(ref: ResourceRef, object: Server): Promise<void> {
    if (renderRemainingCreateGates(object.spec, object.status) === undefined) return;
    await patchStatusWithRetry(this.options.source, 'Server', ref.namespace, ref.name, (current) => {
      const remaining = renderRemainingCreateGates(current.spec, current.status);
      if (remaining === undefined || JSON.stringify(remaining) === JSON.stringify(current.status?.remainingProviderCreateGates)) return undefined;
      return { remainingProviderCreateGates: remaining };
    });
  }

  /** The Server's (server, volume) pairs: those its spec lists and those it has a stream for. */
  private async serverVolumes(namespace: string, serverUid: string, spec: Partial<ServerSpec>): Promise<ServerVolumesView> {
    const prefix = `volume-attachment-${serverUid}-`;
    const streams = new Set((await this.options.store.listStreams({ streamPrefixes: [prefix] })).map((s) => s.stream));
    // most servers have no volumes: then there is nothing to read (a render follows every server event)
    if (streams.size === 0 && (spec.volumes ?? []).length === 0) return renderServerVolumes([]);
    const volumes = (await this.options.source.list('Volume', namespace)).items;
    const pairs: ServerVolumePair[] = [];
    const load = async (volumeUid: string) => {
      const stream = volumeAttachmentStream(serverUid, volumeUid);
      if (!streams.has(stream)) return undefined;
      return volumeAttachmentStatus((await this.options.engine.load(stream)).snapshot);
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
  }

  private async renderNetwork(ref: ResourceRef): Promise<void> {
    const object = await this.options.source.get('Network', ref.namespace, ref.name);
    if (!object) return;
    const stream = networkLifecycleStream(object.metadata.uid);
    const lifecycle = await this.options.engine.load(stream);
    // status.vlanID: the segment the last decided request carried (a few events: a network's stream is short)
    const vlanID = lifecycle.revision === undefined ? undefined : networkVlanIdOf(await this.options.store.readStream(stream, { direction: 'backwards' }));
    const at = lifecycle.last?.metadata.recordedAt ?? this.now();
    const status = await this.reachable(object.metadata.uid, renderNetworkResource({
      lifecycle: lifecycle.revision === undefined ? undefined : { state: String(lifecycle.snapshot.value), context: lifecycle.snapshot.context as LifecycleContext },
      vlanID,
      generation: object.metadata.generation ?? 1,
      at,
      previous: object.status as never,
    }), 'Neutron network', at, object.status);
    await this.patchIfChanged(ref, object.status as Record<string, unknown> | undefined, status as unknown as Record<string, unknown>);
  }

  private async renderSecurityGroup(ref: ResourceRef): Promise<void> {
    const object = await this.options.source.get('SecurityGroup', ref.namespace, ref.name);
    if (!object) return;
    const lifecycle = await this.options.engine.load(securityGroupLifecycleStream(object.metadata.uid));
    const at = lifecycle.last?.metadata.recordedAt ?? this.now();
    const status = await this.reachable(object.metadata.uid, renderSecurityGroupResource({
      lifecycle: lifecycle.revision === undefined ? undefined : { state: String(lifecycle.snapshot.value), context: lifecycle.snapshot.context as LifecycleContext },
      generation: object.metadata.generation ?? 1,
      at,
      previous: object.status as never,
    }), 'Neutron security group', at, object.status);
    await this.patchIfChanged(ref, object.status as Record<string, unknown> | undefined, status as unknown as Record<string, unknown>);
  }

  private async renderRegion(ref: ResourceRef): Promise<void> {
    const object = (await this.options.source.get('Region', ref.namespace, ref.name)) as Region | undefined;
    if (!object) return;
    const record = await this.options.engine.load(regionConnectionStream(object.metadata.uid));
    const status = renderRegionResource({
      context: record.revision === undefined ? undefined : (record.snapshot.context as RegionContext),
      endpoint: object.spec?.openstack?.endpoint ?? '?',
      openstack: object.spec?.openstack as Readonly<Record<string, unknown>> | undefined,
      at: record.last?.metadata.recordedAt ?? this.now(),
      previous: object.status as never,
    });
    await this.patchIfChanged(ref, object.status as Record<string, unknown> | undefined, status as unknown as Record<string, unknown>);
  }

  private async renderIdentity(ref: ResourceRef): Promise<void> {
    const object = await this.options.source.get('Identity', ref.namespace, ref.name);
    if (!object) return;
    const lifecycle = await this.options.engine.load(identityLifecycleStream(object.metadata.uid));
    const status = renderIdentityResource({
      lifecycle: lifecycle.revision === undefined ? undefined : { state: lifecycle.snapshot.value, context: lifecycle.snapshot.context as IdentityContext },
      tags: (object.spec as { tags?: Record<string, string> }).tags,
      at: lifecycle.last?.metadata.recordedAt ?? this.now(),
      previous: object.status as never,
    });
    await this.patchIfChanged(ref, object.status as Record<string, unknown> | undefined, status as unknown as Record<string, unknown>);
  }

  private async renderVolume(ref: ResourceRef): Promise<void> {
    const object = await this.options.source.get('Volume', ref.namespace, ref.name);
    if (!object) return;
    const lifecycle = await this.options.engine.load(volumeLifecycleStream(object.metadata.uid));
    const at = lifecycle.last?.metadata.recordedAt ?? this.now();
    const status = await this.reachable(object.metadata.uid, renderVolumeResource({
      lifecycle: lifecycle.revision === undefined ? undefined : { state: lifecycle.snapshot.value, context: lifecycle.snapshot.context as VolumeContext },
      generation: object.metadata.generation ?? 1,
      spec: object.spec as { size?: number; volumeClassID?: string },
      at,
      previous: object.status as never,
    }), 'Cinder volume', at, object.status);
    await this.patchIfChanged(ref, object.status as Record<string, unknown> | undefined, status as unknown as Record<string, unknown>);
  }

  private async renderLoadBalancer(ref: ResourceRef): Promise<void> {
    const object = await this.options.source.get('LoadBalancer', ref.namespace, ref.name);
    if (!object) return;
    const record = await this.options.engine.load(loadBalancerStream(object.metadata.uid));
    const at = record.last?.metadata.recordedAt ?? this.now();
    const status = await this.reachable(object.metadata.uid, renderLoadBalancerResource({
      lifecycle: record.revision === undefined ? undefined : { state: record.snapshot.value, context: record.snapshot.context as LoadBalancerContext },
      generation: object.metadata.generation ?? 1,
      at,
      previous: object.status as never,
    }), 'Octavia load balancer', at, object.status);
    await this.patchIfChanged(ref, object.status as Record<string, unknown> | undefined, status as unknown as Record<string, unknown>);
  }

  private async renderNova(ref: ResourceRef): Promise<void> {
    const object = await this.options.source.get('Nova', ref.namespace, ref.name);
    if (!object) return;
    const database = await this.options.engine.load(novaDatabaseStream(object.metadata.uid));
    const archive = await this.options.engine.load(novaDBArchiveStream(object.metadata.uid));
    const last = [database.last, archive.last].filter((e) => e !== undefined).sort((a, b) => a.position - b.position).at(-1);
    const status = renderNovaResource({
      database: database.revision === undefined ? undefined : { state: database.snapshot.value, context: database.snapshot.context as NovaUpgradeContext },
      archive: archive.revision === undefined ? undefined : (archive.snapshot.context as NovaDBArchiveContext),
      at: last?.metadata.recordedAt ?? this.now(),
      previous: object.status as never,
    });
    await this.patchIfChanged(ref, object.status as Record<string, unknown> | undefined, status as unknown as Record<string, unknown>);
  }

  private async renderSshCertificateAuthority(ref: ResourceRef): Promise<void> {
    const object = await this.options.source.get('SSHCertificateAuthority', ref.namespace, ref.name);
    if (!object) return;
    const status = renderSshCertificateAuthority({ spec: object.spec, key: readPublicKey(object.spec.publicKey), generation: object.metadata.generation ?? 1, at: this.now(), previous: object.status as never });
    await this.patchIfChanged(ref, object.status as Record<string, unknown> | undefined, status as unknown as Record<string, unknown>);
  }

  private async renderUnserved(ref: ResourceRef): Promise<void> {
    const object = await this.options.source.get(ref.kind, ref.namespace, ref.name);
    if (!object) return;
    const status = renderUnserved({ kind: ref.kind, generation: object.metadata.generation ?? 1, at: this.now(), previous: object.status as never });
    await this.patchIfChanged(ref, object.status as Record<string, unknown> | undefined, status as unknown as Record<string, unknown>);
  }

  /** Patches only the keys whose rendered value differs; owned keys missing from the render are removed. */
  private async patchIfChanged(ref: ResourceRef, current: Record<string, unknown> | undefined, rendered: Record<string, unknown>): Promise<void> {
    if (this.options.auditBaseUrl !== undefined) rendered = { ...rendered, auditURL: auditUrlOf(this.options.auditBaseUrl, ref) };
    const patch: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(rendered)) {
      if (JSON.stringify(current?.[key]) !== JSON.stringify(value)) patch[key] = value;
    }
    for (const key of OWNED_OPTIONAL_KEYS[ref.kind] ?? []) {
      if (!(key in rendered) && current?.[key] !== undefined) patch[key] = null;
    }
    if (Object.keys(patch).length === 0) return;
    await this.options.source.patchStatus(ref.kind, ref.namespace, ref.name, patch as never);
    this.options.logger.debug('status written', { ...ref, keys: Object.keys(patch) });
  }
}

const latest = (...times: Array<string | undefined>): string | undefined =>
  times.filter((t): t is string => t !== undefined).sort().at(-1);
