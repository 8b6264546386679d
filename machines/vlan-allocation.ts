/**
 * VLAN allocation for provider networks — openstack-provider.md: "Provider networks that require VLAN
 * segmentation use the local VLAN allocator because OpenStack does not allocate those IDs for us"; the
 * Region's `openstack.network.providerNetworks: {physicalNetwork, vlan: {minID, maxID}}`; issue 16,
 * "VLAN allocation".
 *
 * One stream per Region and physical network (`vlan-allocation-<region uid>-<physnet>`): the stream IS the
 * ledger of which network holds which VLAN id on that physical network. Every allocation is decided here
 * and appended with the expected revision (src/engine), so two creates racing on one physical network —
 * in one process or in several sharing a store — can never both win one id: the loser's append fails with
 * WrongExpectedVersion, the engine reloads (now seeing the winner's id taken) and decides again.
 *
 * Rules (labels used in the test titles):
 *   V1 allocate: a network without an id gets the lowest id of the configured range no network holds.
 *   V2 the same network asking again (a retried pass, a restarted process replaying the stream) keeps the
 *      id it holds: nothing is decided, nothing stored. Even when the range changed since: an id is never
 *      moved under a network.
 *   V3 exhausted: every id of the range is held → no allocation, the outcome `exhausted` (not stored: it
 *      changes nothing; the caller gets the outcome and turns it into a typed error naming the range).
 *   V4 a failed Neutron create keeps the id on the network (returning an id that just failed would hand the
 *      same problem to the next network); the failure is recorded on the allocation for the operator.
 *   V5 release: the network was deleted → its id is free again.
 *   V6 releasing a network that holds no id (already released, never allocated) decides nothing.
 *   V7 a stimulus for another physical network than the one this ledger records is refused (`wrongPhysicalNetwork`):
 *      the stream name says which physical network it keys, and one ledger must never mix two.
 * Only the reconciler allocates or releases; a create failure comes back as an effect result (or a pass).
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import { outcome, declaredAction, type MachineAudit, type MachineDefinition } from './definition.js';

const VlanRange = t.type({ minID: t.number, maxID: t.number });

export const VlanAllocationStimulus = t.union([
  t.intersection([
    t.type({
      type: t.literal('allocate'),
      source: t.literal('reconciler'),
      /** The Network resource's uid: the key an allocation is held under. */
      network: t.string,
      physicalNetwork: t.string,
      /** The Region's configured range at the time of the pass. */
      range: VlanRange,
    }),
    t.partial({ /** `namespace/name`, for the operator. */ networkName: t.string }),
  ]),
  t.type({ type: t.literal('createFailed'), source: t.union([t.literal('effect'), t.literal('reconciler')]), network: t.string, physicalNetwork: t.string, reason: t.string }),
  t.type({ type: t.literal('release'), source: t.literal('reconciler'), network: t.string, physicalNetwork: t.string }),
]);
export type VlanAllocationStimulus = t.TypeOf<typeof VlanAllocationStimulus>;

export interface VlanHolding {
  readonly network: string;
  readonly networkName: string | null;
  readonly id: number;
  /** Neutron creates that failed while the network held this id (V4). */
  readonly createFailures: number;
  readonly lastFailure: string | null;
}

export interface VlanAllocationContext {
  /** The physical network this ledger keys (recorded by the first allocation). */
  physicalNetwork: string | null;
  /** The ids held, sorted by id. */
  holdings: VlanHolding[];
}

type Args = { context: VlanAllocationContext; event: VlanAllocationStimulus };
type Allocate = Extract<VlanAllocationStimulus, { type: 'allocate' }>;

const holdingOf = (context: VlanAllocationContext, network: string): VlanHolding | undefined => context.holdings.find((h) => h.network === network);

/** The lowest id of the range no network holds; undefined when the range is exhausted. Pure. */
export const lowestFreeId = (holdings: readonly Pick<VlanHolding, 'id'>[], range: { minID: number; maxID: number }): number | undefined => {
  const held = new Set(holdings.map((h) => h.id));
  for (let id = range.minID; id <= range.maxID; id++) if (!held.has(id)) return id;
  return undefined;
};

const guards = {
  // V7: one ledger, one physical network.
  otherPhysicalNetwork: ({ context, event }: Args) => context.physicalNetwork !== null && context.physicalNetwork !== event.physicalNetwork,
  // V2: "the same network keeps its id".
  networkHoldsAnId: ({ context, event }: Args) => holdingOf(context, event.network) !== undefined,
  // V3: "exhaustion is a clear condition".
  rangeExhausted: ({ context, event }: Args) => lowestFreeId(context.holdings, (event as Allocate).range) === undefined,
};

export const buildVlanAllocationMachine = () =>
  setup({
    types: {} as { context: VlanAllocationContext; events: VlanAllocationStimulus },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      allocateLowestFree: assign(({ context, event }) => {
        const e = event as Allocate;
        const id = lowestFreeId(context.holdings, e.range) as number;
        const holding: VlanHolding = { network: e.network, networkName: e.networkName ?? null, id, createFailures: 0, lastFailure: null };
        return { physicalNetwork: e.physicalNetwork, holdings: [...context.holdings, holding].sort((a, b) => a.id - b.id) };
      }),
      recordCreateFailure: assign(({ context, event }) => ({
        holdings: context.holdings.map((h) => (h.network === event.network ? { ...h, createFailures: h.createFailures + 1, lastFailure: event.type === 'createFailed' ? event.reason : h.lastFailure } : h)),
      })),
      releaseHolding: assign(({ context, event }) => ({ holdings: context.holdings.filter((h) => h.network !== event.network) })),
    },
    guards,
  }).createMachine({
    id: 'vlanAllocation',
    context: { physicalNetwork: null, holdings: [] },
    initial: 'ledger',
    states: {
      ledger: {
        on: {
          allocate: [
            { guard: 'otherPhysicalNetwork', actions: outcome('wrongPhysicalNetwork') }, // V7
            { guard: 'networkHoldsAnId', actions: outcome('alreadyAllocated') }, // V2
            { guard: 'rangeExhausted', actions: outcome('exhausted') }, // V3
            { actions: ['allocateLowestFree', outcome('allocated')] }, // V1
          ],
          createFailed: [
            { guard: 'otherPhysicalNetwork', actions: outcome('wrongPhysicalNetwork') }, // V7
            { guard: 'networkHoldsAnId', actions: ['recordCreateFailure', outcome('keptAfterFailedCreate')] }, // V4
          ],
          release: [
            { guard: 'otherPhysicalNetwork', actions: outcome('wrongPhysicalNetwork') }, // V7
            { guard: 'networkHoldsAnId', actions: ['releaseHolding', outcome('released')] }, // V5
            // V6: nothing held, nothing to release
          ],
        },
      },
    },
  });

/** The stream of one Region's allocations on one physical network. */
export const vlanAllocationStream = (regionUid: string, physicalNetwork: string): string => `vlan-allocation-${regionUid}-${physicalNetwork}`;
export const VLAN_ALLOCATION_PREFIX = 'vlan-allocation-';

const audit = (): MachineAudit => ({
  // A range of two ids and three networks reaches every decision: allocate, keep, exhaust, fail, release.
  alphabet: (): VlanAllocationStimulus[] => {
    const physicalNetwork = 'physnet1';
    const range = { minID: 100, maxID: 101 };
    const networks = ['n1', 'n2', 'n3'];
    return [
      ...networks.map((network) => ({ type: 'allocate' as const, source: 'reconciler' as const, network, physicalNetwork, range })),
      { type: 'allocate', source: 'reconciler', network: 'n1', physicalNetwork, range: { minID: 101, maxID: 101 } },
      { type: 'allocate', source: 'reconciler', network: 'n1', physicalNetwork: 'physnet2', range },
      ...networks.map((network) => ({ type: 'release' as const, source: 'reconciler' as const, network, physicalNetwork })),
      { type: 'createFailed', source: 'effect', network: 'n1', physicalNetwork, reason: 'Neutron 409: segmentation id in use' },
    ];
  },
  stateKey: (snapshot) => JSON.stringify((snapshot.context as VlanAllocationContext).holdings.map((h) => [h.network, h.id, Math.min(h.createFailures, 1)])),
  // a ledger of held ids, not a write-ahead intent: an id is released by the Network's delete, which is the
  // Network lifecycle's intent; nothing here destroys anything in the cloud
  intentOf: () => null,
  rank: () => 0,
});

export const vlanAllocationDefinition: MachineDefinition<VlanAllocationContext> = {
  id: 'vlanAllocation',
  version: 1,
  schemaVersion: 1,
  streamPrefix: VLAN_ALLOCATION_PREFIX,
  machine: buildVlanAllocationMachine(),
  stimulus: VlanAllocationStimulus,
  effects: [],
  input: () => ({}),
  description:
    'The VLAN ids a Region hands to provider networks on one physical network (openstack-provider.md, "the local VLAN allocator"; issue 16): the lowest free id of the configured range, kept on the network through failed creates, released on delete; exhaustion is an outcome naming nothing allocated.',
  audit: audit(),
};
