/**
 * Which Identity's clients a piece of work runs with (issue 11: "Server and Network controllers move
 * onto per-identity credentials: a Server names its Identity … through its Network"). The control plane
 * resolves the scope of a pass (a Network → its Identity; a Server → its Network → its Identity), of an
 * effect (from its stream: the lifecycle streams carry the resource uid, a rebuild stream the Nova
 * server id), and of the monitor (one Nova per project Regent works in).
 */
import type { ObjectOf, KindName } from '../resources/index.js';
import type { NovaClient } from '../openstack/nova/index.js';
import type { OpenStackSession } from '../openstack/session.js';
import { IdentityNotReady, type IdentityScope, type IdentitySessions } from '../provider/identity/sessions.js';
import type { RegionConnections } from '../provider/regions/connections.js';
import { providerNetworkSettingsOf, type ProviderNetworkSettings } from '../provider/inventory/vlan.js';
import type { NeutronTarget } from '../provider/networks.js';
import { verdictOf } from './scope-reachability.js';

/** An error that says the cloud could not be seen (not an answer about the request). */
const unreachable = (error: unknown): boolean => verdictOf(error)?.kind === 'unreachable';

/**
 * A Network's Region, for VLAN provider networks (issue 16, docs/network.md): the Region's own (admin)
 * session — Neutron keeps provider attributes to admins — working in the Network's Identity's project.
 */
export interface NetworkRegion {
  /** The Region resource's uid: the VLAN ledger is keyed by it. */
  uid: string;
  session: OpenStackSession;
  /** The Identity's project, where the network is created. */
  intoProject: string;
  /** The Region's `providerNetworks`; undefined: Networks of this Region get no VLAN segment. */
  settings: ProviderNetworkSettings | undefined;
}

export interface ScopeLookups {
  /** The informer caches: objects of a kind. */
  list: (kind: KindName) => ReadonlyArray<ObjectOf<KindName>>;
  /** Which resource a stream belongs to (src/controllers/stream-owners.ts): an effect's scope is its resource's. */
  ownerOf: (stream: string) => { kind: KindName; uid: string } | undefined;
}

const ns = (o: { metadata: { namespace?: string } }): string => o.metadata.namespace ?? 'default';

export class Scopes {
  constructor(
    private readonly sessions: IdentitySessions,
    private readonly lookups: ScopeLookups,
    /** The Regions' own connections (VLAN provider networks); without them every Network is a plain one. */
    private readonly connections?: Pick<RegionConnections, 'region'>,
  ) {}

  /** The Network's Region (its Identity's `regionRef`) with its own session; undefined without connections or Region. */
  async networkRegion(network: ObjectOf<KindName>): Promise<NetworkRegion | undefined> {
    if (!this.connections) return undefined;
    const scope = await this.network(network);
    const connection = await this.connections.region(scope.identity.metadata.namespace ?? ns(network), scope.identity.spec.regionRef.name);
    if (!connection) return undefined;
    return { uid: connection.region.metadata.uid, session: connection.session, intoProject: scope.projectId, settings: providerNetworkSettingsOf(connection.region.spec.openstack) };
  }

  /**
   * The Neutron a network effect of `stream` (network-lifecycle-<uid>) works with: for a VLAN provider
   * network the Region's session into the Identity's project, else the Identity's own session. `vlan`: the
   * effect's request carries a segment (a create: decided from the event); undefined: the Region configures
   * `providerNetworks` now (a delete, an observation).
   */
  async networkNeutron(stream: string, vlan?: boolean): Promise<NeutronTarget> {
    const owner = this.lookups.ownerOf(stream);
    const network = owner?.kind === 'Network' ? this.lookups.list('Network').find((o) => o.metadata.uid === owner.uid) : undefined;
    if (!network) throw new IdentityNotReady('?', `no Network of this control plane owns the stream ${stream}`);
    const scope = await this.network(network);
    const region = await this.networkRegion(network);
    if (region && (vlan ?? region.settings !== undefined)) return { neutron: region.session.neutron, intoProject: region.intoProject };
    if (vlan) throw new IdentityNotReady(`${ns(scope.identity)}/${scope.identity.metadata.name}`, `the Region of Network ${network.metadata.name} cannot be reached to create its VLAN provider network`);
    return { neutron: scope.session.neutron };
  }

  /** A Network works in its Identity's project. */
  network(network: ObjectOf<KindName>): Promise<IdentityScope> {
    const identity = (network.spec as { identityRef?: { name?: string } }).identityRef?.name;
    if (!identity) return Promise.reject(new IdentityNotReady(`${ns(network)}/?`, `Network ${network.metadata.name} names no Identity`, { kind: 'Network', name: `${ns(network)}/${network.metadata.name}`, why: 'names no Identity' }));
    return this.sessions.forIdentity(ns(network), identity);
  }

  /**
   * A Server, Volume or LoadBalancer works in its Network's (`spec.networkID`) Identity's project: the
   * members, the volumes and the VIP's subnet are where the servers are.
   */
  onNetwork(object: ObjectOf<KindName>): Promise<IdentityScope> {
    const networkName = (object.spec as { networkID?: string }).networkID ?? '';
    const network = this.lookups.list('Network').find((n) => ns(n) === ns(object) && n.metadata.name === networkName);
    if (!network) return Promise.reject(new IdentityNotReady(`${ns(object)}/?`, `the Network ${networkName} of ${object.kind} ${object.metadata.name} does not exist`, { kind: 'Network', name: `${ns(object)}/${networkName}`, why: 'does not exist' }));
    return this.network(network);
  }

  /**
   * The scope of an effect, from the stream it was decided in: its resource's (a Network works in its Identity's
   * project; everything on a Network — Servers, their volume attachments and rebuilds, Volumes, LoadBalancers,
   * SecurityGroups — in that Network's Identity's).
   */
  async forStream(stream: string): Promise<IdentityScope> {
    const owner = this.lookups.ownerOf(stream);
    const object = owner ? this.lookups.list(owner.kind).find((o) => o.metadata.uid === owner.uid) : undefined;
    if (!owner || !object) throw new IdentityNotReady('?', `no resource of this control plane owns the stream ${stream}`);
    if (owner.kind === 'WorkloadCluster' || owner.kind === 'WorkloadMachine') return this.workload(object);
    return owner.kind === 'Network' ? this.network(object) : this.onNetwork(object);
  }

  /**
   * A WorkloadCluster works in its Identity's project (`spec.identityRef`: it brings its own network, so there is no
   * Network to go through), and a WorkloadMachine in its cluster's (issue 29).
   */
  async workload(object: ObjectOf<KindName>): Promise<IdentityScope> {
    let cluster = object;
    if (object.kind === 'WorkloadMachine') {
      const clusterName = (object.spec as { clusterRef: { name: string } }).clusterRef.name;
      const found = this.lookups.list('WorkloadCluster').find((c) => ns(c) === ns(object) && c.metadata.name === clusterName);
      if (!found) throw new IdentityNotReady(`${ns(object)}/?`, `the WorkloadCluster ${clusterName} of WorkloadMachine ${object.metadata.name} does not exist`);
      cluster = found;
    }
    return this.sessions.forIdentity(ns(cluster), (cluster.spec as { identityRef: { name: string } }).identityRef.name);
  }

  /**
   * One Nova client per project Regent works in (the Identities its Networks name), for the monitor.
   *
   * `seen` hears, for every Network, whether this poll could look into its project: its scope resolved and its
   * project's list answered (issue 24, item 2: a Region whose credentials broke, or a cloud gone silent, must show
   * on the resources in it within one poll). A project whose list fails with such an error lists nothing this poll
   * instead of failing the whole poll: one silent project must not blind the monitor to every other.
   */
  async novas(seen?: (network: ObjectOf<KindName>, error?: unknown) => void): Promise<Array<Pick<NovaClient, 'listServers'>>> {
    const projects = new Map<string, { nova: Pick<NovaClient, 'listServers'>; networks: Array<ObjectOf<KindName>> }>();
    for (const network of this.lookups.list('Network')) {
      try {
        const scope = await this.network(network);
        const project = projects.get(scope.projectId) ?? { nova: scope.session.nova, networks: [] };
        project.networks.push(network);
        projects.set(scope.projectId, project);
      } catch (error) {
        if (!(error instanceof IdentityNotReady)) throw error;
        seen?.(network, error);
      }
    }
    if (!seen) return [...projects.values()].map((p) => p.nova);
    return [...projects.values()].map(({ nova, networks }) => ({
      listServers: async (...args: Parameters<NovaClient['listServers']>) => {
        try {
          const servers = await nova.listServers(...args);
          for (const network of networks) seen(network);
          return servers;
        } catch (error) {
          if (!unreachable(error)) throw error;
          for (const network of networks) seen(network, error);
          return [];
        }
      },
    }));
  }
}
