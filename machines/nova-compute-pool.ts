/**
 * A NovaCompute's node pool (nova-operator.md, "NovaCompute" to the end; issue 28): which nodes the pool holds and
 * in which phase, the nova-compute services it disables and deletes as nodes leave, and the ledger of the custom
 * Placement traits Regent created for the pool's hosts. One stream per pool (`nova-compute-pool-<uid>`); each event
 * is a decision of a pass or the answer of an effect.
 *
 * A node's phase: Pending (held, its service not registered or its host not mapped yet) → Active → Draining (leaving:
 * its service is disabled and its servers counted) → Releasing (its pod is going: the service is deleted once no pod
 * of the pool runs there) → dropped (the entry leaves the pool). Every pass applies the rules to each node once, from
 * the phase it had before the pass: a node moved by a pass is acted on by a later one, so a service is only deleted
 * after a stored decision put its node in Releasing (write-ahead).
 *
 * The Nodes step (`nodesObserved`):
 *   NP1 a selected node the pool does not hold, while the pool is not being deleted and no rival (another pool of the
 *       same Nova) selects or holds it, is taken as Pending with its zone. A node a rival selects or holds is not
 *       taken: the controller reports NodeConflict.
 *   NP2 a held node that is leaving (not selected any more, gone from the cluster, or the pool is being deleted):
 *       Pending → Releasing, Active → Draining; Draining and Releasing stay. A leaving node a rival selects is a
 *       handover: from Pending, Active or Draining it goes straight to Releasing with `handover` (its service is
 *       neither drained nor deleted: the other pool takes it over). A node already Releasing finishes its release the
 *       way it began.
 *   NP3 a held node still selected keeps its phase; a Pending or Active node's zone follows the observation. A
 *       Draining or Releasing node selected again stays in its phase: a node leaves the pool completely (its entry is
 *       dropped) before NP1 can take it again, so a service being drained or deleted is never re-adopted mid-way.
 *
 * The Services step (`servicesObserved`; only held nodes are observed, an absent node is nothing observed):
 *   NS1 phases follow the registration: a Pending node whose service is registered and whose host is mapped turns
 *       Active; an Active node is not checked for its mapping again; an Active node whose service is not registered
 *       goes back to Pending.
 *   NS2 a Draining node whose registered service is enabled has it disabled once (`novaCompute.disableService`,
 *       `disableDecided`); the servers counted on the host are recorded on the node.
 *   NS3 a Draining node whose service is not registered, or is disabled with no server left, turns Releasing.
 *   NS4 a Releasing node on which no pod of the pool runs: under a handover, or when its service is not registered,
 *       the entry is dropped with no call; otherwise its service is deleted once (`novaCompute.deleteService`,
 *       `deleteDecided`). A Releasing node whose delete was decided and whose service is observed unregistered is
 *       dropped (the answer may have been lost).
 *   NS5 the answers: a deleted service drops the entry; a failed delete or disable is decided again by a later pass.
 *
 * The traits ledger (write-ahead like NF1 in nova-finalizer.ts):
 *   TR1 a trait observed absent in Placement is claimed before the pool creates it (never twice).
 *   TR2 a create's answer: created (201) moves the claim to `createdTraits`; already there (204) only drops the claim,
 *       since Regent did not create it and so never deletes it. An answer for an unclaimed trait records nothing.
 *   TR3 a node's trait record (status.nodes[].traits) is what the pass wrote for a held node.
 *   TR4 only a trait Regent created (or claimed and may have created) is ever deleted (`placement.deleteTrait`).
 *   TR5 a delete's answer: deleted, absent, or in use (409: TraitKept) removes it from the ledger; a failure keeps it.
 *   TR6 a deleting pool drops a trait another pool still declares from the ledger (TraitKept), without a call.
 *
 *   RL  released: once the pool holds no node and the ledger is empty, final; nothing more is decided.
 *
 * Only the reconciler takes the pool's decisions and only an effect answers one: the codec pins each stimulus to its
 * source, and the machine refuses the others too (a monitor's or the API's observation changes nothing). Nothing here
 * reads a clock.
 */
import * as t from 'io-ts';
import { assign, enqueueActions, setup } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';

export const NodePhase = t.keyof({ Pending: null, Active: null, Draining: null, Releasing: null });
export type NodePhase = t.TypeOf<typeof NodePhase>;

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/** What the Services step read for one held node (null: not read). */
export const ServiceObservation = t.type({
  registered: t.boolean,
  serviceId: nullable(t.string),
  enabled: nullable(t.boolean),
  mapped: nullable(t.boolean),
  servers: nullable(t.number),
  podRunning: nullable(t.boolean),
});
export type ServiceObservation = t.TypeOf<typeof ServiceObservation>;

export const TraitDeleteOutcome = t.keyof({ deleted: null, absent: null, inUse: null, failed: null });

export const NovaComputePoolStimulus = t.union([
  /** NP1–NP3: the nodes the pool's selector returns (a deleting pool lists none), and those a rival pool of the same Nova selects or holds. */
  t.type({
    type: t.literal('nodesObserved'),
    source: t.literal('reconciler'),
    generation: t.number,
    deleting: t.boolean,
    selected: t.array(t.type({ name: t.string, zone: nullable(t.string) })),
    rivalSelected: t.array(t.string),
  }),
  /** NS1–NS4: by held node; a node absent from the record was not observed. */
  t.type({ type: t.literal('servicesObserved'), source: t.literal('reconciler'), nodes: t.record(t.string, ServiceObservation) }),
  /** NS5: the answer to novaCompute.disableService. */
  t.type({ type: t.literal('serviceDisabled'), source: t.literal('effect'), node: t.string, ok: t.boolean, message: t.string }),
  /** NS5: the answer to novaCompute.deleteService. */
  t.type({ type: t.literal('serviceDeleted'), source: t.literal('effect'), node: t.string, ok: t.boolean, message: t.string }),
  /** TR1: observed absent in Placement, about to be created by Regent. */
  t.type({ type: t.literal('traitsClaimed'), source: t.literal('reconciler'), traits: t.array(t.string) }),
  /** TR2: PUT /traits/{name} answered 201 (created) or 204 (it already existed). */
  t.type({ type: t.literal('traitCreated'), source: t.literal('effect'), trait: t.string, created: t.boolean }),
  /** TR3: the node's record after the pass wrote its Hypervisor. */
  t.type({ type: t.literal('nodeTraitsRecorded'), source: t.literal('reconciler'), node: t.string, traits: t.array(t.string) }),
  /** TR4: no NovaCompute of the Nova declares the trait nor records it on a node. */
  t.type({ type: t.literal('traitDeleteDecided'), source: t.literal('reconciler'), trait: t.string }),
  /** TR5: the answer to placement.deleteTrait. */
  t.type({ type: t.literal('traitDeleted'), source: t.literal('effect'), trait: t.string, outcome: TraitDeleteOutcome, message: t.string }),
  /** TR6: a deleting pool lets go of a trait another pool still declares. */
  t.type({ type: t.literal('traitDropped'), source: t.literal('reconciler'), trait: t.string, reason: t.string }),
  /** RL: the pool's finalizer is about to be released. */
  t.type({ type: t.literal('released'), source: t.literal('reconciler') }),
]);
export type NovaComputePoolStimulus = t.TypeOf<typeof NovaComputePoolStimulus>;

export interface NodeRecord {
  phase: NodePhase;
  zone: string | null;
  /** The node's trait record (TR3): status.nodes[].traits. */
  traits: string[];
  /** The servers on the host last counted while Draining (NS2); null before any count. */
  servers: number | null;
  /** NP2: the node leaves for a rival pool: its service is neither disabled nor deleted. */
  handover: boolean;
  /** NS2: the disable of its service is decided and not answered as failed. */
  disableDecided: boolean;
  /** NS4: the delete of its service is decided and not answered as failed. */
  deleteDecided: boolean;
}

export interface NovaComputePoolContext {
  /** By node name. */
  nodes: Record<string, NodeRecord>;
  /** TR1: claimed before creation, not answered yet. */
  claimedTraits: string[];
  /** TR2: created by Regent (201): the only traits it deletes (TR4). */
  createdTraits: string[];
  /** The spec generation the last Nodes step decided from. */
  generation: number;
}

type Event = NovaComputePoolStimulus;
type Of<K extends Event['type']> = Extract<Event, { type: K }>;
type Args = { context: NovaComputePoolContext; event: Event };

export type ServiceEffect = { node: string; serviceId: string };

const pendingNode = (zone: string | null): NodeRecord => ({ phase: 'Pending', zone, traits: [], servers: null, handover: false, disableDecided: false, deleteDecided: false });

/** The rule a node followed in a pass (the outcome names the most significant one). */
export type NodeRule = 'NP1' | 'NP2' | 'NP2handover' | 'NP3' | 'NS1' | 'NS2' | 'NS2servers' | 'NS3' | 'NS4' | 'NS4dropped';

export interface NodesPlan {
  nodes: Record<string, NodeRecord>;
  /** The rules that changed something, by node. */
  applied: Array<{ node: string; rule: NodeRule }>;
}

/** NP1–NP3: the held nodes after a Nodes step (pure). */
export const planNodes = (held: Readonly<Record<string, NodeRecord>>, event: Of<'nodesObserved'>): NodesPlan => {
  const selected = new Map(event.deleting ? [] : event.selected.map((n) => [n.name, n.zone] as const));
  const rivals = new Set(event.rivalSelected);
  const nodes: Record<string, NodeRecord> = {};
  const applied: NodesPlan['applied'] = [];
  for (const [name, node] of Object.entries(held)) {
    if (!selected.has(name)) {
      // NP2: leaving
      if (node.phase === 'Releasing') nodes[name] = node;
      else if (rivals.has(name)) {
        nodes[name] = { ...node, phase: 'Releasing', handover: true };
        applied.push({ node: name, rule: 'NP2handover' });
      } else if (node.phase === 'Pending' || node.phase === 'Active') {
        nodes[name] = { ...node, phase: node.phase === 'Pending' ? 'Releasing' : 'Draining' };
        applied.push({ node: name, rule: 'NP2' });
      } else nodes[name] = node;
      continue;
    }
    // NP3: still selected; only a Pending or Active node's zone follows (a leaving node leaves completely first)
    const zone = selected.get(name) ?? null;
    if ((node.phase === 'Pending' || node.phase === 'Active') && node.zone !== zone) {
      nodes[name] = { ...node, zone };
      applied.push({ node: name, rule: 'NP3' });
    } else nodes[name] = node;
  }
  for (const [name, zone] of selected) {
    if (name in held || rivals.has(name)) continue; // NP1: a rival's node is not taken (NodeConflict)
    nodes[name] = pendingNode(zone);
    applied.push({ node: name, rule: 'NP1' });
  }
  return { nodes, applied };
};

export interface ServicesPlan extends NodesPlan {
  disable: ServiceEffect[];
  delete: ServiceEffect[];
}

/** NS1–NS4: the held nodes after a Services step, and the calls it decides (pure). */
export const planServices = (held: Readonly<Record<string, NodeRecord>>, event: Of<'servicesObserved'>): ServicesPlan => {
  const nodes: Record<string, NodeRecord> = {};
  const applied: NodesPlan['applied'] = [];
  const disable: ServiceEffect[] = [];
  const remove: ServiceEffect[] = [];
  for (const [name, node] of Object.entries(held)) {
    const o = Object.prototype.hasOwnProperty.call(event.nodes, name) ? event.nodes[name] : undefined;
    if (!o) {
      nodes[name] = node;
      continue;
    }
    switch (node.phase) {
      case 'Pending':
        // NS1: registered and mapped → Active
        if (o.registered && o.mapped === true) {
          nodes[name] = { ...node, phase: 'Active' };
          applied.push({ node: name, rule: 'NS1' });
        } else nodes[name] = node;
        break;
      case 'Active':
        // NS1: the registration is followed; the mapping is not checked again
        if (!o.registered) {
          nodes[name] = { ...node, phase: 'Pending' };
          applied.push({ node: name, rule: 'NS1' });
        } else nodes[name] = node;
        break;
      case 'Draining': {
        // NS2: the count is recorded
        const counted = o.servers !== null && o.servers !== node.servers ? { ...node, servers: o.servers } : node;
        if (counted !== node) applied.push({ node: name, rule: 'NS2servers' });
        if (!o.registered || (o.enabled === false && o.servers === 0)) {
          // NS3
          nodes[name] = { ...counted, phase: 'Releasing' };
          applied.push({ node: name, rule: 'NS3' });
        } else if (o.enabled === true && !node.disableDecided && o.serviceId !== null) {
          // NS2: disabled once
          nodes[name] = { ...counted, disableDecided: true };
          disable.push({ node: name, serviceId: o.serviceId });
          applied.push({ node: name, rule: 'NS2' });
        } else nodes[name] = counted;
        break;
      }
      case 'Releasing':
        if (node.deleteDecided && !o.registered) {
          // NS4: the decided delete took effect
          applied.push({ node: name, rule: 'NS4dropped' });
        } else if (o.podRunning !== false) {
          nodes[name] = node; // NS4: a pod of the pool still runs there (or the pods were not read)
        } else if (node.handover || !o.registered) {
          applied.push({ node: name, rule: 'NS4dropped' }); // NS4: no call
        } else if (!node.deleteDecided && o.serviceId !== null) {
          nodes[name] = { ...node, deleteDecided: true };
          remove.push({ node: name, serviceId: o.serviceId });
          applied.push({ node: name, rule: 'NS4' });
        } else nodes[name] = node;
        break;
    }
  }
  return { nodes, applied, disable, delete: remove };
};

/** TR1: the traits not in the ledger yet, each once (pure). */
export const newTraitClaims = (context: Pick<NovaComputePoolContext, 'claimedTraits' | 'createdTraits'>, traits: readonly string[]): string[] => {
  const seen = new Set([...context.claimedTraits, ...context.createdTraits]);
  const fresh: string[] = [];
  for (const trait of traits) {
    if (seen.has(trait)) continue;
    seen.add(trait);
    fresh.push(trait);
  }
  return fresh;
};

const without = (list: readonly string[], item: string): string[] => list.filter((x) => x !== item);
const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

const nodesPlanOf = ({ context, event }: Args): NodesPlan => (event.type === 'nodesObserved' ? planNodes(context.nodes, event) : { nodes: context.nodes, applied: [] });
const servicesPlanOf = ({ context, event }: Args): ServicesPlan =>
  event.type === 'servicesObserved' ? planServices(context.nodes, event) : { nodes: context.nodes, applied: [], disable: [], delete: [] };
const applies = (plan: NodesPlan, ...rules: NodeRule[]): boolean => plan.applied.some((a) => rules.includes(a.rule));
const nodeOf = ({ context, event }: Args): NodeRecord | undefined =>
  'node' in event && Object.prototype.hasOwnProperty.call(context.nodes, event.node) ? context.nodes[event.node] : undefined;
const traitOf = (event: Event): string => ('trait' in event ? event.trait : '');
const inLedger = (context: NovaComputePoolContext, trait: string): boolean => context.createdTraits.includes(trait) || context.claimedTraits.includes(trait);
const dropNode = (nodes: Readonly<Record<string, NodeRecord>>, name: string): Record<string, NodeRecord> => {
  const rest = { ...nodes };
  delete rest[name];
  return rest;
};
const patchNode = (nodes: Readonly<Record<string, NodeRecord>>, name: string, patch: Partial<NodeRecord>): Record<string, NodeRecord> => {
  const node = nodes[name];
  return node ? { ...nodes, [name]: { ...node, ...patch } } : { ...nodes };
};

/** Only the reconciler decides: a stimulus of a reconciler type from elsewhere changes nothing. */
const notByReconciler = { guard: 'notByReconciler', actions: [] } as const;
/** Only an effect answers. */
const notByEffect = { guard: 'notByEffect', actions: [] } as const;

export const buildNovaComputePoolMachine = () =>
  setup({
    types: {} as { context: NovaComputePoolContext; events: Event },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      'novaCompute.disableService': declaredAction<ServiceEffect>(),
      'novaCompute.deleteService': declaredAction<ServiceEffect>(),
      'placement.deleteTrait': declaredAction<{ trait: string }>(),
      followNodes: assign((args) => ({ nodes: nodesPlanOf(args).nodes, generation: args.event.type === 'nodesObserved' ? args.event.generation : args.context.generation })),
      noteGeneration: assign(({ context, event }) => ({ generation: event.type === 'nodesObserved' ? event.generation : context.generation })),
      followServices: assign((args) => ({ nodes: servicesPlanOf(args).nodes })),
      // NS2, NS4: one call per node, from the nodes as they were before the pass (the plan is pure: the same here and in followServices)
      decideServiceCalls: enqueueActions(({ context, event, enqueue }) => {
        const plan = servicesPlanOf({ context, event });
        for (const params of plan.disable) enqueue({ type: 'novaCompute.disableService', params });
        for (const params of plan.delete) enqueue({ type: 'novaCompute.deleteService', params });
      }),
      allowDisableAgain: assign(({ context, event }) => ({ nodes: 'node' in event ? patchNode(context.nodes, event.node, { disableDecided: false }) : context.nodes })),
      allowDeleteAgain: assign(({ context, event }) => ({ nodes: 'node' in event ? patchNode(context.nodes, event.node, { deleteDecided: false }) : context.nodes })),
      dropNode: assign(({ context, event }) => ({ nodes: 'node' in event ? dropNode(context.nodes, event.node) : context.nodes })),
      claimTraits: assign(({ context, event }) => ({ claimedTraits: [...context.claimedTraits, ...newTraitClaims(context, event.type === 'traitsClaimed' ? event.traits : [])] })),
      recordCreated: assign(({ context, event }) => ({
        claimedTraits: without(context.claimedTraits, traitOf(event)),
        createdTraits: context.createdTraits.includes(traitOf(event)) ? context.createdTraits : [...context.createdTraits, traitOf(event)],
      })),
      dropClaim: assign(({ context, event }) => ({ claimedTraits: without(context.claimedTraits, traitOf(event)) })),
      recordNodeTraits: assign(({ context, event }) => ({ nodes: event.type === 'nodeTraitsRecorded' ? patchNode(context.nodes, event.node, { traits: [...event.traits] }) : context.nodes })),
      forgetTrait: assign(({ context, event }) => ({ claimedTraits: without(context.claimedTraits, traitOf(event)), createdTraits: without(context.createdTraits, traitOf(event)) })),
    },
    guards: {
      notByReconciler: ({ event }) => event.source !== 'reconciler',
      notByEffect: ({ event }) => event.source !== 'effect',
      // NP2: "a rival selects it: the node is a handover and goes straight to Releasing"
      nodeHandedOver: (args) => applies(nodesPlanOf(args), 'NP2handover'),
      // NP2: "a held node that is leaving: Pending → Releasing; Active → Draining"
      nodeLeaving: (args) => applies(nodesPlanOf(args), 'NP2'),
      // NP1: "a selected node the pool does not hold, that no rival selects/holds, and while not deleting"
      nodeSelectedFree: (args) => applies(nodesPlanOf(args), 'NP1'),
      // NP3: "a Pending/Active node's zone follows the observation"
      zoneMoved: (args) => applies(nodesPlanOf(args), 'NP3'),
      newGeneration: ({ context, event }) => event.type === 'nodesObserved' && event.generation !== context.generation,
      // NS4: "Releasing & no pod running & registered & not decided yet → decide the delete"
      releasingWithoutPod: (args) => servicesPlanOf(args).delete.length > 0,
      // NS2: "Draining & registered & enabled & not decided yet → disable once"
      drainingServiceEnabled: (args) => servicesPlanOf(args).disable.length > 0,
      // NS4: "under a handover or when the service is already gone: dropped with no call"
      releasedWithoutCall: (args) => applies(servicesPlanOf(args), 'NS4dropped'),
      // NS3: "Draining & (not registered, or disabled with no server left) → Releasing"
      drained: (args) => applies(servicesPlanOf(args), 'NS3'),
      // NS1: "phases follow the registration"
      registrationChanged: (args) => applies(servicesPlanOf(args), 'NS1'),
      // NS2: "servers is recorded on the node"
      serversCounted: (args) => applies(servicesPlanOf(args), 'NS2servers'),
      // NS5: answers about a decided call only
      disableFailed: (args) => nodeOf(args)?.disableDecided === true && 'ok' in args.event && !args.event.ok,
      deleteSucceeded: (args) => nodeOf(args)?.deleteDecided === true && 'ok' in args.event && args.event.ok,
      deleteFailed: (args) => nodeOf(args)?.deleteDecided === true && 'ok' in args.event && !args.event.ok,
      // TR1
      traitsUnclaimed: ({ context, event }) => event.type === 'traitsClaimed' && newTraitClaims(context, event.traits).length > 0,
      // TR2: only a claimed trait's answer is recorded; 201 is Regent's creation
      claimedTraitCreated: ({ context, event }) => event.type === 'traitCreated' && event.created && context.claimedTraits.includes(event.trait),
      claimedTraitExisted: ({ context, event }) => event.type === 'traitCreated' && !event.created && context.claimedTraits.includes(event.trait),
      // TR3: held nodes only
      nodeTraitsDiffer: (args) => {
        const node = nodeOf(args);
        return args.event.type === 'nodeTraitsRecorded' && node !== undefined && !sameList(node.traits, args.event.traits);
      },
      // TR4: "a trait Regent did not create is never deleted"
      traitCreatedByRegent: ({ context, event }) => event.type === 'traitDeleteDecided' && inLedger(context, event.trait),
      // TR5: "deleted/absent/inUse → removed; failed → kept"
      traitGone: ({ context, event }) => event.type === 'traitDeleted' && event.outcome !== 'failed' && inLedger(context, event.trait),
      // TR6
      traitInLedger: ({ context, event }) => inLedger(context, traitOf(event)),
      // RL: "only when no node is held and createdTraits and claimedTraits are empty"
      nothingHeld: ({ context }) => Object.keys(context.nodes).length === 0 && context.createdTraits.length === 0 && context.claimedTraits.length === 0,
    },
  }).createMachine({
    id: 'novaComputePool',
    context: { nodes: {}, claimedTraits: [], createdTraits: [], generation: 0 },
    initial: 'tracking',
    states: {
      tracking: {
        on: {
          nodesObserved: [
            notByReconciler,
            { guard: 'nodeHandedOver', actions: ['followNodes', outcome('nodeHandedOver')] }, // NP2 (handover; the other rules of the pass apply too)
            { guard: 'nodeLeaving', actions: ['followNodes', outcome('nodeLeaving')] }, // NP2
            { guard: 'nodeSelectedFree', actions: ['followNodes', outcome('nodeTaken')] }, // NP1
            { guard: 'zoneMoved', actions: ['followNodes', outcome('zoneFollowed')] }, // NP3
            { guard: 'newGeneration', actions: ['noteGeneration', outcome('generationNoted')] },
            // NP3: nothing moved: nothing stored
          ],
          servicesObserved: [
            notByReconciler,
            { guard: 'releasingWithoutPod', actions: ['decideServiceCalls', 'followServices', outcome('serviceDeleteDecided')] }, // NS4 (and NS1–NS3 for the other nodes)
            { guard: 'drainingServiceEnabled', actions: ['decideServiceCalls', 'followServices', outcome('serviceDisableDecided')] }, // NS2
            { guard: 'releasedWithoutCall', actions: ['followServices', outcome('nodeReleased')] }, // NS4: dropped, no call
            { guard: 'drained', actions: ['followServices', outcome('nodeDrained')] }, // NS3
            { guard: 'registrationChanged', actions: ['followServices', outcome('registrationFollowed')] }, // NS1
            { guard: 'serversCounted', actions: ['followServices', outcome('serversCounted')] }, // NS2: the count
          ],
          // NS5: a disable that succeeded changes nothing (the next pass reads the service disabled)
          serviceDisabled: [notByEffect, { guard: 'disableFailed', actions: ['allowDisableAgain', outcome('serviceDisableFailed')] }],
          serviceDeleted: [
            notByEffect,
            { guard: 'deleteSucceeded', actions: ['dropNode', outcome('serviceDeleted')] }, // NS5: the entry is dropped
            { guard: 'deleteFailed', actions: ['allowDeleteAgain', outcome('serviceDeleteFailed')] }, // NS5: a later pass decides again
          ],
          traitsClaimed: [notByReconciler, { guard: 'traitsUnclaimed', actions: ['claimTraits', outcome('traitsClaimed')] }], // TR1
          traitCreated: [
            notByEffect,
            { guard: 'claimedTraitCreated', actions: ['recordCreated', outcome('traitCreated')] }, // TR2: 201
            { guard: 'claimedTraitExisted', actions: ['dropClaim', outcome('traitExisted')] }, // TR2: 204, never Regent's
          ],
          nodeTraitsRecorded: [notByReconciler, { guard: 'nodeTraitsDiffer', actions: ['recordNodeTraits', outcome('nodeTraitsRecorded')] }], // TR3
          traitDeleteDecided: [
            notByReconciler,
            { guard: 'traitCreatedByRegent', actions: [{ type: 'placement.deleteTrait', params: ({ event }: Args) => ({ trait: traitOf(event) }) }, outcome('traitDeleteDecided')] }, // TR4
          ],
          traitDeleted: [notByEffect, { guard: 'traitGone', actions: ['forgetTrait', outcome('traitDeleted')] }], // TR5 (failed: kept)
          traitDropped: [notByReconciler, { guard: 'traitInLedger', actions: ['forgetTrait', outcome('traitKept')] }], // TR6
          released: [notByReconciler, { guard: 'nothingHeld', target: 'released', actions: [outcome('released')] }], // RL
        },
      },
      released: { type: 'final' }, // RL
    },
  });

export const novaComputePoolStream = (poolUid: string): string => `nova-compute-pool-${poolUid}`;

const NODE = 'node-a';
const TRAIT = 'CUSTOM_A';

const audit = (): MachineAudit => ({
  alphabet: (): Stimulus[] => {
    const nodes = (selected: Array<{ name: string; zone: string | null }>, rivalSelected: string[] = [], deleting = false): Stimulus => ({
      type: 'nodesObserved', source: 'reconciler', generation: 1, deleting, selected, rivalSelected,
    });
    const service = (o: Partial<ServiceObservation>): Stimulus => ({
      type: 'servicesObserved', source: 'reconciler',
      nodes: { [NODE]: { registered: true, serviceId: 'svc-a', enabled: true, mapped: null, servers: null, podRunning: null, ...o } },
    });
    return [
      nodes([{ name: NODE, zone: 'az1' }]),
      nodes([{ name: NODE, zone: 'az2' }]),
      nodes([]),
      nodes([], [NODE]),
      nodes([{ name: NODE, zone: 'az1' }], [NODE]),
      nodes([], [], true),
      service({ mapped: true }),
      service({ mapped: false }),
      service({ registered: false, serviceId: null, enabled: null, podRunning: false }),
      service({ enabled: true, servers: 2, podRunning: true }),
      service({ enabled: false, servers: 0, podRunning: true }),
      service({ enabled: false, servers: 2, podRunning: true }),
      service({ registered: false, serviceId: null, enabled: null, podRunning: true }),
      service({ enabled: false, servers: 0, podRunning: false }),
      { type: 'servicesObserved', source: 'reconciler', nodes: {} },
      { type: 'serviceDisabled', source: 'effect', node: NODE, ok: true, message: '' },
      { type: 'serviceDisabled', source: 'effect', node: NODE, ok: false, message: 'HTTP 503' },
      { type: 'serviceDeleted', source: 'effect', node: NODE, ok: true, message: '' },
      { type: 'serviceDeleted', source: 'effect', node: NODE, ok: false, message: 'HTTP 409' },
      { type: 'traitsClaimed', source: 'reconciler', traits: [TRAIT, TRAIT] },
      { type: 'traitCreated', source: 'effect', trait: TRAIT, created: true },
      { type: 'traitCreated', source: 'effect', trait: TRAIT, created: false },
      { type: 'nodeTraitsRecorded', source: 'reconciler', node: NODE, traits: [TRAIT] },
      { type: 'nodeTraitsRecorded', source: 'reconciler', node: NODE, traits: [] },
      { type: 'traitDeleteDecided', source: 'reconciler', trait: TRAIT },
      { type: 'traitDeleteDecided', source: 'reconciler', trait: 'CUSTOM_NOT_OURS' },
      { type: 'traitDeleted', source: 'effect', trait: TRAIT, outcome: 'deleted', message: '' },
      { type: 'traitDeleted', source: 'effect', trait: TRAIT, outcome: 'inUse', message: 'HTTP 409' },
      { type: 'traitDeleted', source: 'effect', trait: TRAIT, outcome: 'failed', message: 'HTTP 503' },
      { type: 'traitDropped', source: 'reconciler', trait: TRAIT, reason: 'declared by another pool' },
      { type: 'released', source: 'reconciler' },
    ];
  },
  stateKey: (snapshot) => JSON.stringify([snapshot.value, snapshot.context]),
  // The intents the two destructive effects need: a node put in Releasing (NS4 reads it back) and a trait in the
  // ledger (TR4 reads it back). Both are only ever recorded by the reconciler (NP2, NS3, TR1), so one standing
  // target, "release", says whether anything of the pool awaits its release; the per-node and per-trait write-ahead
  // is proven on every path by test/machines/nova-compute-pool.test.ts.
  intentOf: (snapshot) => {
    const c = snapshot.context as NovaComputePoolContext;
    if (snapshot.value === 'released') return null;
    const releasing = Object.values(c.nodes).some((n) => n.phase === 'Releasing');
    const ledger = c.createdTraits.length + c.claimedTraits.length > 0;
    return releasing || ledger ? { target: 'release', state: [releasing ? 'nodeReleasing' : '', ledger ? 'traitsOwned' : ''].filter(Boolean).join('+') } : null;
  },
  rank: () => 0,
  parked: () => false,
});

export const novaComputePoolDefinition: MachineDefinition<NovaComputePoolContext> = {
  id: 'novaComputePool',
  version: 1,
  schemaVersion: 1,
  streamPrefix: 'nova-compute-pool-',
  machine: buildNovaComputePoolMachine(),
  stimulus: NovaComputePoolStimulus,
  effects: ['novaCompute.disableService', 'novaCompute.deleteService', 'placement.deleteTrait'],
  destructiveEffects: ['novaCompute.deleteService', 'placement.deleteTrait'],
  input: () => ({}),
  description:
    "A NovaCompute's node pool (nova-operator.md, \"NovaCompute\"; issue 28): the nodes it holds and their phases (Pending, Active, Draining, Releasing), the nova-compute services it disables and deletes as nodes leave (a handover to a rival pool deletes nothing), and the ledger of the Placement traits Regent created, the only ones it deletes.",
  audit: audit(),
};
