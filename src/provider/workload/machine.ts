/**
 * The WorkloadMachine's provider (issue 29; openstack-cluster-modules.md, the machine role): the Neutron, Nova and
 * Octavia side of machines/workload-machine.ts, in the shapes of its contract (machines/workload-machine/observation.ts).
 *
 * Observation (`observeMachine`), fresh on every pass, by exact names only:
 * - the port `wm-<uid>` (`GET /v2.0/ports?name=`, post-filtered): its fixed IP on the cluster's subnet (the first
 *   fixed IP when no subnet is given), status, device id (Neutron's empty string is null) and security groups;
 * - the server by its name (Nova's `name=` is an unanchored regex: sent anchored and escaped, then post-filtered to
 *   the exact name): status verbatim, image id (null for boot from volume), `OS-EXT-STS:task_state`, and `foreign`
 *   when its metadata `regent.dev:uid` is not this machine's uid (or missing): never adopted or deleted;
 * - per desired API pool, once the port has an address: the pool's members (`GET /lbaas/pools/{id}/members`); a
 *   member is the port's address on the pool's port, with that member's provisioning status. A pool Octavia no
 *   longer has (404) has no members. Without a port address no member can be named: each pool is `member: false`.
 * Any other error is thrown (the pass observes nothing and backs off).
 *
 * Effect handlers (`workloadMachineHandlers`), one per `WORKLOAD_MACHINE_EFFECTS` type, answer with `EffectAnswer`
 * (answers.ts). The port is created, then tagged with `PUT …/tags` (Neutron Zed drops `tags` from a port's create
 * body without a word: docs/simulator-differences.md §22). The server's user data is never in an event: the handler
 * reads it by uid (`userDataOf`) and sends it only when its sha256 still equals the digest the decision carried.
 */
import { createHash } from 'node:crypto';
import type { EffectHandler } from '../../engine/engine.js';
import { NotFound } from '../../openstack/errors.js';
import type { Field } from '../../openstack/decoders/field.js';
import type { Port } from '../../openstack/decoders/network.js';
import type { ServerObservation } from '../../openstack/decoders/server.js';
import { novaExactNameFilter } from '../../openstack/names.js';
import type { NeutronClient } from '../../openstack/neutron/index.js';
import type { NovaClient } from '../../openstack/nova/index.js';
import type { OctaviaClient } from '../../openstack/octavia/index.js';
import { WORKLOAD_MACHINE_EFFECTS, type MachineObservation, type ObservedPort, type ObservedServer } from '../../../machines/workload-machine/observation.js';
import { answering, lookupOf, str, strOrNull, stringRecord, strings, RegentRefusal } from './answers.js';
import { tagCreated } from './cluster.js';

/** The Nova metadata key that ties a server to the WorkloadMachine that created it. */
export const UID_METADATA_KEY = 'regent.dev:uid';

// ─── observation ────────────────────────────────────────────────────────────────────────────────────

export interface MachineObservationSession {
  neutron: Pick<NeutronClient, 'listPorts'>;
  nova: Pick<NovaClient, 'listServers'>;
  octavia: Pick<OctaviaClient, 'listMembers'>;
}

export interface MachineLookup {
  /** `wm-<uid>`. */
  portName: string;
  /** The WorkloadMachine's name (the Node name). */
  serverName: string;
  uid: string;
  /** The API pools this machine must be a member of (empty for a worker). */
  pools: ReadonlyArray<{ name: string; poolId: string; port: number }>;
  /** The cluster's subnet: the port's address is its fixed IP there. Without it, the port's first fixed IP. */
  subnetId?: string;
}

const valueOr = <T, D>(field: Field<T>, fallback: D): T | D => (field.kind === 'value' ? field.value : fallback);
const rawStatus = (field: Field<string>): string => {
  if (field.kind === 'value') return field.value;
  if (field.kind === 'unreadable') return typeof field.raw === 'string' ? field.raw : JSON.stringify(field.raw) ?? 'null';
  return 'absent';
};

const portFacts = (subnetId: string | undefined) => (p: Port) => {
  const ips = p.fixed_ips ?? [];
  const fixed = subnetId !== undefined ? ips.find((f) => f.subnet_id === subnetId) : ips[0];
  return {
    id: p.id,
    address: fixed?.ip_address ?? null,
    status: p.status ?? 'UNKNOWN',
    deviceId: p.device_id !== undefined && p.device_id !== '' ? p.device_id : null,
    securityGroupIds: [...(p.security_groups ?? [])],
  };
};

const serverFacts = (uid: string) => (s: ServerObservation) => {
  const image = valueOr(s.imageRef, null);
  const metadata = valueOr(s.metadata, {} as Readonly<Record<string, string>>);
  return {
    id: s.id,
    status: rawStatus(s.status),
    imageId: image !== null && image.source === 'image' ? image.id : null,
    taskState: valueOr(s.taskState, null),
    foreign: metadata[UID_METADATA_KEY] !== uid,
  };
};

/** One pass's observation of the machine's port, server and (control plane) API pool membership. */
export const observeMachine = async (s: MachineObservationSession, lookup: MachineLookup): Promise<MachineObservation> => {
  const ports = (await s.neutron.listPorts({ name: lookup.portName })).filter((p) => p.name === lookup.portName);
  const port: ObservedPort = lookupOf(ports, portFacts(lookup.subnetId));
  const servers = (await s.nova.listServers({ name: novaExactNameFilter(lookup.serverName) })).filter((x) => x.name === lookup.serverName);
  const server: ObservedServer = lookupOf(servers, serverFacts(lookup.uid));
  const address = port.kind === 'present' ? port.address : null;
  const membership: MachineObservation['membership'] = [];
  for (const pool of lookup.pools) {
    if (address === null) {
      membership.push({ name: pool.name, poolId: pool.poolId, member: false, provisioningStatus: null });
      continue;
    }
    const members = await s.octavia.listMembers(pool.poolId).catch((error: unknown) => {
      if (error instanceof NotFound) return [];
      throw error;
    });
    const mine = members.find((m) => valueOr(m.address, null) === address && valueOr(m.protocolPort, null) === pool.port);
    membership.push({ name: pool.name, poolId: pool.poolId, member: mine !== undefined, provisioningStatus: mine ? rawStatus(mine.provisioningStatus) : null });
  }
  return { port, server, membership };
};

// ─── effect handlers ────────────────────────────────────────────────────────────────────────────────

export interface MachineEffectSession {
  neutron: Pick<NeutronClient, 'createPort' | 'replaceTags' | 'deletePort'>;
  nova: Pick<NovaClient, 'createServer' | 'deleteServer'>;
}

/** The sha256 (hex) of user data as the decision's `userDataDigest` carries it. */
export const userDataDigest = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');

/** `workloadMachine.createPort {subject, name, networkId, subnetId, securityGroupIds, allowedAddressCIDRs, tags}`: the port, then its tags. */
export const createPortHandler = (s: MachineEffectSession): EffectHandler =>
  answering({
    service: 'Neutron', del: false, what: 'the port create',
    run: async (effect, context) => {
      const tags = strings(effect, 'tags');
      const created = await s.neutron.createPort({
        name: str(effect, 'name'),
        network_id: str(effect, 'networkId'),
        fixed_ips: [{ subnet_id: str(effect, 'subnetId') }],
        security_groups: strings(effect, 'securityGroupIds'),
        allowed_address_pairs: strings(effect, 'allowedAddressCIDRs').map((cidr) => ({ ip_address: cidr })),
      });
      await tagCreated(s.neutron, 'ports', created.id, tags, effect, context);
      return { ids: { id: created.id } };
    },
  });

/**
 * `workloadMachine.createServer {subject, uid, name, imageId, flavorId, portId, userDataDigest, availabilityZone,
 * serverGroupId, metadata}`: one POST /servers on the port. The user data is `userDataOf(uid)`, sent (base64, by the
 * client) only when its sha256 equals `userDataDigest`; a changed, missing or unexpected one is refused by Regent
 * (`rejected`, `userDataChanged`): the next decision carries the new digest.
 */
export const createServerHandler = (s: MachineEffectSession, userDataOf: (uid: string) => string | undefined): EffectHandler =>
  answering({
    service: 'Nova', del: false, what: 'the server create',
    run: async (effect) => {
      const uid = str(effect, 'uid');
      const digest = strOrNull(effect, 'userDataDigest');
      const data = userDataOf(uid);
      const now = data === undefined ? null : userDataDigest(data);
      if (now !== digest) {
        const was = digest === null ? 'none' : 'a digest';
        const is = now === null ? 'none' : now === digest ? 'the same' : 'another digest';
        throw new RegentRefusal('userDataChanged', `the user data changed since the decision (decided with ${was}, now ${is})`);
      }
      const availabilityZone = strOrNull(effect, 'availabilityZone');
      const serverGroupId = strOrNull(effect, 'serverGroupId');
      const created = await s.nova.createServer({
        name: str(effect, 'name'),
        imageRef: str(effect, 'imageId'),
        flavorRef: str(effect, 'flavorId'),
        networks: [{ port: str(effect, 'portId') }],
        metadata: stringRecord(effect, 'metadata'),
        ...(data !== undefined ? { userData: data } : {}),
        ...(availabilityZone !== null ? { availabilityZone } : {}),
        ...(serverGroupId !== null ? { schedulerHints: { group: serverGroupId } } : {}),
      });
      return { ids: { id: created.id } };
    },
  });

/** `workloadMachine.deleteServer {subject, id}`: 404 is done. */
export const deleteServerHandler = (s: MachineEffectSession): EffectHandler =>
  answering({ service: 'Nova', del: true, what: 'the server delete', run: async (effect) => (await s.nova.deleteServer(str(effect, 'id')), undefined) });

/** `workloadMachine.deletePort {subject, id}`: 404 is done, 409 `conflict`. */
export const deletePortHandler = (s: MachineEffectSession): EffectHandler =>
  answering({ service: 'Neutron', del: true, what: 'the port delete', run: async (effect) => (await s.neutron.deletePort(str(effect, 'id')), undefined) });

/** Every WORKLOAD_MACHINE_EFFECTS entry's handler, keyed by effect type. `userDataOf` reads a machine's user data by uid. */
export const workloadMachineHandlers = (session: MachineEffectSession, userDataOf: (uid: string) => string | undefined): Record<string, EffectHandler> => ({
  [WORKLOAD_MACHINE_EFFECTS.createPort]: createPortHandler(session),
  [WORKLOAD_MACHINE_EFFECTS.createServer]: createServerHandler(session, userDataOf),
  [WORKLOAD_MACHINE_EFFECTS.deleteServer]: deleteServerHandler(session),
  [WORKLOAD_MACHINE_EFFECTS.deletePort]: deletePortHandler(session),
});
