/**
 * A small region's history for the incident timeline tests (test/audit/incident-*.test.ts, test/cli/timeline.test.ts):
 * resource streams (`resource-<uid>`, synthesized as src/resource-history/stream.ts describes them) and machine
 * streams, with times from T0 = 2026-12-01T10:00:00Z (minutes after it in brackets):
 *
 *   Region region-1 ─ Identity ident-a ─ Network net-a ─┬─ Server web-2 (volumes: data-1, groups: sg-web; 10.0.0.12)
 *                                                        ├─ Volume data-1, SecurityGroup sg-web
 *                                                        ├─ LoadBalancer lb-1 (member 10.0.0.12:80, web-2's address)
 *                                                        └─ Server web-9 (volumes: data-9; 10.0.0.19), Volume data-9 (unrelated to web-2)
 *
 *   web-2: spec gen 1 by alice via the CLI [10] (a password planted in the spec, as a writer that forgot to digest
 *          it would record it), lifecycle create submitted [11] (an adminPass in the effect) and accepted [12],
 *          status with its address [13] (a JWT in a condition message), attach data-1 requested [14] / accepted [15],
 *          spec gen 2 (image) by bob via the API [20], the rebuild on server-rebuild-<nova id> [21..26] (engine,
 *          product machine: armed, submitted ⚠ nova.rebuild, accepted, observed, succeeded, cleared), an old
 *          scope-reachability event without a subject [27] (named by the uid in its stream name)
 *   web-9: spec [7], lifecycle [16], status [16]; lb-1: spec [6], its machine [30]; net-a: lifecycle [3]
 */
import { v7 as uuidv7 } from 'uuid';
import type { EventMetadata, NewEvent, Source } from '../../../src/events/envelope.js';
import type { EventStore } from '../../../src/store/port.js';
import { resourceStream, type ChangeAuthor, type FieldChange } from '../../../src/resource-history/stream.js';
import { recordCleanRebuild } from './rebuild-history.js';

export const T0 = Date.parse('2026-12-01T10:00:00Z');
export const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

export const UID = {
  region: '00000000-0000-4000-8000-0000000000a1',
  identity: '00000000-0000-4000-8000-0000000000b1',
  network: '00000000-0000-4000-8000-0000000000c1',
  group: '00000000-0000-4000-8000-0000000000d1',
  volume: '00000000-0000-4000-8000-0000000000e1',
  volume9: '00000000-0000-4000-8000-0000000000e9',
  lb: '00000000-0000-4000-8000-0000000000f1',
  web2: '00000000-0000-4000-8000-000000000002',
  web9: '00000000-0000-4000-8000-000000000009',
} as const;
export const NOVA_WEB2 = '11111111-2222-4333-8444-555555555502';

export const PASSWORD = 'hunter2-planted';
export const ADMIN_PASS = 'adm1n-p@ss-planted';
export const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXZhbHVlLXBsYW50ZWQ';

export const STREAMS = {
  web2: resourceStream(UID.web2),
  web2Lifecycle: `server-lifecycle-${UID.web2}`,
  web2Rebuild: `server-rebuild-${NOVA_WEB2}`,
  web2Attachment: `volume-attachment-${UID.web2}-${UID.volume}`,
  web2Scope: `scope-reachability-${UID.web2}`,
  web9: resourceStream(UID.web9),
  web9Lifecycle: `server-lifecycle-${UID.web9}`,
  network: resourceStream(UID.network),
  networkLifecycle: `network-lifecycle-${UID.network}`,
  lb: resourceStream(UID.lb),
  lbMachine: `load-balancer-${UID.lb}`,
} as const;

type Subject = { kind: string; namespace: string; name: string };
const subject = (kind: string, name: string): Subject => ({ kind, namespace: 'default', name });

const meta = (overrides: Partial<EventMetadata> & Pick<EventMetadata, 'machine' | 'source' | 'recordedAt' | 'to'>): EventMetadata => ({
  machineVersion: 1,
  schemaVersion: 1,
  actor: 'regent',
  correlationId: uuidv7(),
  causationId: null,
  from: null,
  effects: [],
  ...overrides,
});

const ALICE: ChangeAuthor = { name: 'alice', channel: 'regent-cli', verified: false };
const BOB: ChangeAuthor = { name: 'bob@acme', channel: 'api', verified: true, requestId: 'req-77' };

/** Appends `events` to `stream` whatever it holds. */
const put = (store: EventStore, stream: string, ...events: NewEvent[]) => store.append(stream, events, { expectedRevision: 'any' });

const specChanged = (kind: string, name: string, uid: string, minutes: number, spec: Record<string, unknown>, options: { generation?: number; previous?: number | null; changes?: FieldChange[]; author?: ChangeAuthor } = {}): NewEvent => {
  const generation = options.generation ?? 1;
  const author = options.author ?? ALICE;
  const changes = options.changes ?? Object.entries(spec).map(([key, value]) => ({ path: `spec.${key}`, to: value }));
  return {
    id: uuidv7(),
    type: 'resource.specChanged',
    data: { type: 'resource.specChanged', kind, namespace: 'default', name, uid, generation, previousGeneration: options.previous ?? null, spec, changes, author },
    metadata: meta({ machine: 'resource', source: author.channel === 'api' ? 'api' : 'operator', actor: author.name ?? 'unknown', recordedAt: at(minutes), from: options.previous ? `generation ${options.previous}` : null, to: `generation ${generation}`, subject: subject(kind, name) }),
  };
};

const statusChanged = (kind: string, name: string, uid: string, minutes: number, status: Record<string, unknown>): NewEvent => ({
  id: uuidv7(),
  type: 'resource.statusChanged',
  data: { type: 'resource.statusChanged', kind, namespace: 'default', name, uid, generation: 1, status, changes: Object.entries(status).map(([key, value]) => ({ path: `status.${key}`, to: value })) },
  metadata: meta({ machine: 'resource', source: 'reconciler', actor: 'regent status runner', recordedAt: at(minutes), to: 'status written', subject: subject(kind, name) }),
});

const machineEvent = (machine: string, type: string, source: Source, minutes: number, who: Subject | undefined, extra: Partial<EventMetadata> = {}, data: Record<string, unknown> = {}): NewEvent => ({
  id: uuidv7(),
  type: `${machine}.${type}`,
  data: { type, ...data },
  metadata: meta({ machine, source, actor: `${source}/test`, recordedAt: at(minutes), to: type, ...(who ? { subject: who } : {}), ...extra }),
});

export const recordIncidentHistory = async (store: EventStore): Promise<void> => {
  const web2 = subject('Server', 'web-2');
  const web9 = subject('Server', 'web-9');
  await put(store, resourceStream(UID.region), specChanged('Region', 'region-1', UID.region, 0, { credentialsSecretRef: { name: 'region-1-credentials' }, domain: 'default' }));
  await put(store, resourceStream(UID.identity), specChanged('Identity', 'ident-a', UID.identity, 1, { regionRef: { name: 'region-1' }, organizationID: 'acme', projectID: 'web' }));
  await put(store, STREAMS.network, specChanged('Network', 'net-a', UID.network, 2, { identityRef: { name: 'ident-a' }, prefix: '10.0.0.0/24' }));
  await put(store, STREAMS.networkLifecycle, machineEvent('networkLifecycle', 'created', 'effect', 3, subject('Network', 'net-a')));
  await put(store, resourceStream(UID.group), specChanged('SecurityGroup', 'sg-web', UID.group, 4, { networkID: 'net-a', rules: [{ direction: 'ingress', protocol: 'tcp', portRangeMin: 80, portRangeMax: 80 }] }));
  await put(store, resourceStream(UID.volume), specChanged('Volume', 'data-1', UID.volume, 5, { networkID: 'net-a', size: 10, volumeClassID: '99999999-0000-4000-8000-000000000001' }));
  await put(store, STREAMS.lb, specChanged('LoadBalancer', 'lb-1', UID.lb, 6, { networkID: 'net-a', listeners: [{ name: 'http', protocol: 'TCP', port: 80, pool: { members: [{ address: '10.0.0.12', port: 80 }] } }] }));
  await put(store, STREAMS.web9, specChanged('Server', 'web-9', UID.web9, 7, { name: 'web-9', image: { name: 'img-a' }, flavor: { name: 'm1.small' }, networkID: 'net-a', volumes: [{ volumeID: 'data-9' }] }));
  await put(store, resourceStream(UID.volume9), specChanged('Volume', 'data-9', UID.volume9, 8, { networkID: 'net-a', size: 5, volumeClassID: '99999999-0000-4000-8000-000000000001' }));

  await put(store, STREAMS.web2, specChanged('Server', 'web-2', UID.web2, 10, { name: 'web-2', image: { name: 'img-a' }, flavor: { name: 'm1.small' }, networkID: 'net-a', volumes: [{ volumeID: 'data-1' }], securityGroups: ['sg-web'], rootPassword: PASSWORD }));
  const create = machineEvent('serverLifecycle', 'createSubmitted', 'reconciler', 11, web2, { machineVersion: 3, from: 'absent', to: 'creating', effects: [{ type: 'nova.createServer', name: 'web-2', adminPass: ADMIN_PASS }] });
  await put(store, STREAMS.web2Lifecycle, create);
  await put(store, STREAMS.web2Lifecycle, machineEvent('serverLifecycle', 'createAccepted', 'effect', 12, web2, { machineVersion: 3, from: 'creating', to: 'present', causationId: create.id, correlationId: create.metadata.correlationId }, { id: NOVA_WEB2 }));
  await put(store, STREAMS.web2, statusChanged('Server', 'web-2', UID.web2, 13, { serverID: NOVA_WEB2, ipAddresses: ['10.0.0.12'], conditions: [{ type: 'Available', status: 'True', message: `console token ${JWT}` }] }));
  await put(store, STREAMS.web2Attachment, machineEvent('volumeAttachment', 'attachRequested', 'reconciler', 14, web2, { from: 'detached', to: 'attaching', effects: [{ type: 'nova.attachVolume', serverId: NOVA_WEB2, volumeId: 'cinder-1' }] }));
  await put(store, STREAMS.web2Attachment, machineEvent('volumeAttachment', 'attachAccepted', 'effect', 15, web2, { from: 'attaching', to: 'attached' }));
  await put(store, STREAMS.web9Lifecycle, machineEvent('serverLifecycle', 'createSubmitted', 'reconciler', 16, web9, { machineVersion: 3, from: 'absent', to: 'creating', effects: [{ type: 'nova.createServer', name: 'web-9' }] }));
  await put(store, STREAMS.web9, statusChanged('Server', 'web-9', UID.web9, 16, { ipAddresses: ['10.0.0.19'] }));
  await put(
    store,
    STREAMS.web2,
    specChanged('Server', 'web-2', UID.web2, 20, { name: 'web-2', image: { name: 'img-c' }, flavor: { name: 'm1.small' }, networkID: 'net-a', volumes: [{ volumeID: 'data-1' }], securityGroups: ['sg-web'], rootPassword: PASSWORD }, { generation: 2, previous: 1, author: BOB, changes: [{ path: 'spec.image.name', from: 'img-a', to: 'img-c' }, { path: 'spec.rootPassword', from: PASSWORD, to: PASSWORD }] }),
  );
  // the engine's own rebuild (product machine), events one minute apart from [21]
  await recordCleanRebuild(store, STREAMS.web2Rebuild, web2, T0 + 20 * 60_000);
  // an event recorded before events named their resource: no metadata.subject, only the uid in the stream name
  await put(store, STREAMS.web2Scope, machineEvent('scopeReachability', 'observed', 'monitor', 27, undefined));
  await put(store, STREAMS.lbMachine, machineEvent('loadBalancer', 'memberAdded', 'reconciler', 30, subject('LoadBalancer', 'lb-1'), { from: 'active', to: 'active' }));
};

/** The streams of web-2 (its own) and of every resource related to it; web-9's and data-9's are not. */
export const WEB2_STREAMS = [STREAMS.web2, STREAMS.web2Lifecycle, STREAMS.web2Rebuild, STREAMS.web2Attachment, STREAMS.web2Scope];
