/**
 * The VLAN allocator (openstack-provider.md: "Provider networks that require VLAN segmentation use the
 * local VLAN allocator because OpenStack does not allocate those IDs for us"; issue 16, "VLAN allocation").
 *
 * The decisions are the machine's (machines/vlan-allocation.ts, rules V1–V7); this module is the shell
 * around it: it reads the Region's `openstack.network.providerNetworks`, asks the Engine to decide on the
 * stream `vlan-allocation-<region uid>-<physnet>` (an expected-revision append, so concurrent creates in
 * any number of processes sharing the store never share an id, and the allocation survives a crash: a
 * restarted process replays the stream and the same network gets the same id back), and turns the
 * outcomes into what a Network controller needs: the segmentation fields of the Neutron create body, or
 * a typed error.
 *
 * What the Network controller calls (src/controllers/network/reconcile.ts, docs/network.md):
 *   before the Neutron create: `allocate(regionUid, settings, networkUid)` → put `neutronSegmentation(a)`
 *     (provider:network_type vlan, provider:physical_network, provider:segmentation_id) in the create body;
 *     `VlanExhausted` → park with its message (user action: widen the range or delete networks);
 *   when Neutron refuses the create: `createFailed(...)` (the id stays with the network, V4);
 *   after the Neutron network is confirmed absent on delete: `release(...)` (V5).
 *
 * Caveats: the allocator trusts its ledger, not Neutron: an id taken on the physical network outside Regent
 * is only discovered when Neutron refuses the create (409), which keeps the id on that network (V4) and
 * needs an operator. `vlanLeaks` finds the opposite drift (a held id whose network is gone).
 */
import { contextOf, type Engine } from '../../engine/engine.js';
import { ConcurrencyExhausted } from '../../engine/errors.js';
import type { RegionSpec } from '../../resources/region.js';
import { VLAN_ALLOCATION_PREFIX, vlanAllocationDefinition, vlanAllocationStream, type VlanAllocationStimulus, type VlanHolding } from '../../../machines/vlan-allocation.js';

export { vlanAllocationStream } from '../../../machines/vlan-allocation.js';

/** `spec.openstack.network.providerNetworks` (src/resources/region.ts ProviderNetworks). */
export interface ProviderNetworkSettings {
  readonly physicalNetwork: string;
  readonly vlan: { readonly minID: number; readonly maxID: number };
}

/** The Region's provider-network settings; undefined when the Region configures none (no segmentation). */
export const providerNetworkSettingsOf = (openstack: RegionSpec['openstack']): ProviderNetworkSettings | undefined => openstack.network?.providerNetworks;

export interface VlanAllocation {
  readonly network: string;
  readonly physicalNetwork: string;
  readonly segmentationId: number;
  /** True when this call decided it; false when the network already held it (V2: retry, replay). */
  readonly fresh: boolean;
}

/** V3: every id of the range is held. User-safe: names the physical network and the range. */
export class VlanExhausted extends Error {
  override readonly name = 'VlanExhausted';
  readonly reason = 'VlanRangeExhausted';
  constructor(
    readonly physicalNetwork: string,
    readonly range: { readonly minID: number; readonly maxID: number },
    readonly held: number,
  ) {
    super(`no free VLAN id on physical network ${physicalNetwork}: the range ${range.minID}-${range.maxID} is exhausted (${held} of ${range.maxID - range.minID + 1} ids held)`);
  }
}

/** V7: the ledger keys another physical network than the call named (a stream-naming bug, never a user error). */
export class VlanLedgerMismatch extends Error {
  override readonly name = 'VlanLedgerMismatch';
}

/** The Neutron create-body fields of a VLAN provider network. */
export const neutronSegmentation = (a: Pick<VlanAllocation, 'physicalNetwork' | 'segmentationId'>) =>
  ({ 'provider:network_type': 'vlan', 'provider:physical_network': a.physicalNetwork, 'provider:segmentation_id': a.segmentationId }) as const;

export interface VlanAllocatorOptions {
  /** Recorded as each event's actor. */
  readonly actor?: string;
  /**
   * Whole decide attempts when the engine gives up on a contended stream (ConcurrencyExhausted after its own
   * reloads): re-deciding is always safe, the machine decides from the reloaded ledger.
   */
  readonly attempts?: number;
}

export class VlanAllocator {
  private readonly actor: string;
  private readonly attempts: number;

  constructor(
    private readonly engine: Engine,
    options: VlanAllocatorOptions = {},
  ) {
    this.actor = options.actor ?? 'reconciler/network';
    this.attempts = options.attempts ?? 20;
  }

  /** V1/V2/V3: the network's VLAN id on the Region's physical network (the one it holds, or the lowest free). */
  async allocate(regionUid: string, settings: ProviderNetworkSettings, network: string, networkName?: string): Promise<VlanAllocation> {
    const stimulus: VlanAllocationStimulus = { type: 'allocate', source: 'reconciler', network, physicalNetwork: settings.physicalNetwork, range: { minID: settings.vlan.minID, maxID: settings.vlan.maxID }, ...(networkName !== undefined ? { networkName } : {}) };
    const decision = await this.decide(vlanAllocationStream(regionUid, settings.physicalNetwork), stimulus);
    const context = contextOf(vlanAllocationDefinition, decision.snapshot);
    if (decision.outcome === 'exhausted') throw new VlanExhausted(settings.physicalNetwork, settings.vlan, context.holdings.filter((h) => h.id >= settings.vlan.minID && h.id <= settings.vlan.maxID).length);
    if (decision.outcome === 'wrongPhysicalNetwork') throw new VlanLedgerMismatch(`the VLAN ledger ${decision.stream} keys physical network ${context.physicalNetwork}, not ${settings.physicalNetwork}`);
    const holding = context.holdings.find((h) => h.network === network);
    if (!holding) throw new Error(`VLAN allocation for ${network} on ${settings.physicalNetwork}: the machine decided ${decision.outcome ?? 'nothing'} and holds no id for it`);
    return { network, physicalNetwork: settings.physicalNetwork, segmentationId: holding.id, fresh: decision.outcome === 'allocated' };
  }

  /** V4: Neutron refused the create; the id stays with the network (recorded, for the operator). */
  async createFailed(regionUid: string, physicalNetwork: string, network: string, reason: string): Promise<void> {
    await this.decide(vlanAllocationStream(regionUid, physicalNetwork), { type: 'createFailed', source: 'effect', network, physicalNetwork, reason });
  }

  /** V5/V6: the network is gone; its id (if any) is free again. Returns the id released, or null. */
  async release(regionUid: string, physicalNetwork: string, network: string): Promise<number | null> {
    const stream = vlanAllocationStream(regionUid, physicalNetwork);
    const before = (await this.engine.load(vlanAllocationDefinition, stream)).context;
    const held = before.holdings.find((h) => h.network === network)?.id ?? null;
    const decision = await this.decide(stream, { type: 'release', source: 'reconciler', network, physicalNetwork });
    return decision.outcome === 'released' ? held : null;
  }

  /** The ids held on one Region's physical network, by id. */
  async holdings(regionUid: string, physicalNetwork: string): Promise<readonly VlanHolding[]> {
    return (await this.engine.load(vlanAllocationDefinition, vlanAllocationStream(regionUid, physicalNetwork))).context.holdings;
  }

  /** Every ledger in the store (all Regions, all physical networks): for `regent vlan leaks`. */
  async ledgers(): Promise<VlanLedger[]> {
    const streams = await this.engine.store.listStreams({ streamPrefixes: [VLAN_ALLOCATION_PREFIX] });
    const ledgers: VlanLedger[] = [];
    for (const { stream } of streams) {
      const context = (await this.engine.load(vlanAllocationDefinition, stream)).context;
      ledgers.push({ stream, physicalNetwork: context.physicalNetwork, holdings: context.holdings });
    }
    return ledgers;
  }

  private async decide(stream: string, stimulus: VlanAllocationStimulus) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.engine.decide(stream, { stimulus, actor: this.actor });
      } catch (error) {
        if (!(error instanceof ConcurrencyExhausted) || attempt >= this.attempts) throw error;
      }
    }
  }
}

export interface VlanLedger {
  readonly stream: string;
  readonly physicalNetwork: string | null;
  readonly holdings: readonly VlanHolding[];
}

export interface VlanLeak {
  readonly stream: string;
  readonly physicalNetwork: string | null;
  readonly segmentationId: number;
  /** The Network resource uid the id is held for. */
  readonly network: string;
  readonly networkName: string | null;
}

/**
 * `regent vlan leaks`: the held ids whose network no longer exists, given the networks that do (Network
 * resource uids). A leak is never released here: the operator (or the Network controller's delete) does. Pure.
 */
export const vlanLeaks = (ledgers: readonly VlanLedger[], existingNetworks: Iterable<string>): VlanLeak[] => {
  const existing = new Set(existingNetworks);
  return ledgers.flatMap((l) =>
    l.holdings.filter((h) => !existing.has(h.network)).map((h) => ({ stream: l.stream, physicalNetwork: l.physicalNetwork, segmentationId: h.id, network: h.network, networkName: h.networkName })),
  );
};
