/**
 * NovaCompute: nova-compute on one node pool (nova-operator.md, "NovaCompute"; issue 28). The pool is the Nodes
 * `spec.nodeSelector` selects, joined to the Nova `spec.novaRef` names in the same namespace; the pipeline's eight
 * steps each own one condition and the aggregate Ready is True only when all of NOVA_COMPUTE_READY_SUBCONDITIONS are.
 */
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { AuditURL, Conditions, Generation, LocalObjectReference, ObjectName, Phase } from './codec/common.js';
import { bool, enumOf, int, str } from './codec/primitives.js';
import { list, record, ruleFailure, struct, type ObjectRule } from './codec/structure.js';
import { ruleError } from './codec/transitions.js';
import { defineKind, type PrinterColumn, type ResourceObject, type TransitionRule } from './kind.js';

/** The one list of the sub-conditions that make up Ready (nova-operator.md, "NovaCompute pipeline"), in step order. */
export const NOVA_COMPUTE_READY_SUBCONDITIONS = ['NovaReady', 'NodesReady', 'ConfigReady', 'DaemonSetReady', 'VPAReady', 'AggregatesReady', 'ServicesReady', 'TraitsReady'] as const;

/** A custom Placement trait: CUSTOM_ and at most 248 more of A-Z, 0-9 and _ (255 in all, Placement's limit). */
export const CUSTOM_TRAIT = '^CUSTOM_[A-Z0-9_]{1,248}$';
/** Any Placement trait name (status: a node's traits as Placement reports them). */
export const TRAIT_NAME = '^[A-Z0-9_]{1,255}$';
/**
 * A label key, as the CEL rule of the CRD checks it: an optional DNS subdomain prefix and '/', then a name of 1 to 63
 * alphanumerics, '-', '_' or '.', beginning and ending alphanumeric; at most 317 characters (253 + '/' + 63).
 */
export const LABEL_KEY = '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$';
export const LABEL_KEY_MAX_LENGTH = 317;
export const LABEL_VALUE = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';
export const NODE_SELECTOR_MAX_ENTRIES = 32;

export const NODE_SELECTOR_EMPTY_MESSAGE = 'nodeSelector must name at least one label: an empty selector would select every node';
export const NODE_SELECTOR_KEY_MESSAGE = "every nodeSelector key must be a label key: an optional DNS subdomain prefix and '/', then a name of at most 63 alphanumerics, '-', '_' or '.'";

export const CustomTrait = str('CustomTrait', { pattern: CUSTOM_TRAIT });
export const CustomTraits = list('CustomTraits', CustomTrait, { maxItems: 64, listType: 'set' });

const labelKey = new RegExp(LABEL_KEY, 'u');

/** A record with object rules (the CEL rules on a map node): run once every entry is valid, reported at the map. */
const recordWithRules = <A>(inner: t.Type<A, A, unknown>, rules: readonly ObjectRule<A>[]): t.Type<A, A, unknown> => {
  const type: t.Type<A, A, unknown> = new t.Type<A, A, unknown>(
    inner.name,
    (u): u is A => inner.is(u) && rules.every((rule) => rule.check(u)),
    (u, c) => {
      const result = inner.validate(u, c);
      if (isLeft(result)) return result;
      const errors = rules.filter((rule) => !rule.check(result.right)).map((rule) => ruleFailure(result.right, c, rule as ObjectRule<never>, type));
      return errors.length > 0 ? t.failures(errors) : result;
    },
    t.identity,
  );
  return type;
};

/** spec.nodeSelector: label key → value, 1 to 32 entries. */
export const NodeSelector = recordWithRules(record('NodeSelector', str('LabelValue', { maxLength: 63, pattern: LABEL_VALUE }), { maxProperties: NODE_SELECTOR_MAX_ENTRIES }), [
  { message: NODE_SELECTOR_EMPTY_MESSAGE, check: (selector) => Object.keys(selector).length > 0 },
  { message: NODE_SELECTOR_KEY_MESSAGE, check: (selector) => Object.keys(selector).every((key) => [...key].length <= LABEL_KEY_MAX_LENGTH && labelKey.test(key)) },
]);

export const HostTraits = struct('HostTraits', { node: ObjectName, traits: CustomTraits }, {});

const ConfigValue = str('ConfigValue', { maxLength: 4096 });

export const NovaComputeSpec = struct(
  'NovaComputeSpec',
  { novaRef: LocalObjectReference, nodeSelector: NodeSelector },
  {
    /** Custom Placement traits every node of the pool carries. */
    traits: CustomTraits,
    /** Per-node additions to `traits`, one entry per node. */
    hostTraits: list('HostTraitsList', HostTraits, { maxItems: 256, listType: 'map', mapKeys: ['node'] }),
    /** Default: ghcr.io/c5c3/nova-compute:<the Nova's status.installedRelease>. */
    image: str('Image', { minLength: 1, maxLength: 512, pattern: '^[^\\s]+$' }),
    /** compute-pool.conf overlay: section → key → value, merged over the Nova's published contract. */
    extraConfig: record('ExtraConfig', record('ExtraConfigSection', ConfigValue, { maxProperties: 128 }), { maxProperties: 64 }),
    /** The opt-in VerticalPodAutoscaler of the DaemonSet. */
    vpa: struct('Vpa', { enabled: bool }, {}),
  },
);
export type NovaComputeSpec = t.TypeOf<typeof NovaComputeSpec>;

export const NODE_PHASES = ['Pending', 'Active', 'Draining', 'Releasing'] as const;
export type NodePhase = (typeof NODE_PHASES)[number];

export const PoolNode = struct(
  'PoolNode',
  { name: ObjectName, phase: enumOf('NodePhase', NODE_PHASES) },
  {
    zone: str('Zone', { maxLength: 255 }),
    traits: list('NodeTraits', str('TraitName', { pattern: TRAIT_NAME }), { maxItems: 256, listType: 'set' }),
    servers: int('Servers', { minimum: 0 }),
  },
);
export type PoolNode = t.TypeOf<typeof PoolNode>;

export const NovaComputeStatus = struct(
  'NovaComputeStatus',
  {},
  {
    observedGeneration: Generation,
    auditURL: AuditURL,
    phase: Phase,
    conditions: Conditions,
    nodes: list('PoolNodes', PoolNode, { maxItems: 1024, listType: 'map', mapKeys: ['name'] }),
    createdTraits: list('CreatedTraits', CustomTrait, { maxItems: 1024, listType: 'set' }),
    installedImage: str('Image', { minLength: 1, maxLength: 512, pattern: '^[^\\s]+$' }),
    desiredNumberScheduled: int('Count', { minimum: 0 }),
    numberReady: int('Count', { minimum: 0 }),
  },
);
export type NovaComputeStatus = t.TypeOf<typeof NovaComputeStatus>;

/** The pool joins one Nova for its life: moving it would strand its services, aggregates and traits in the old one. */
const novaRefImmutable: TransitionRule<NovaComputeSpec, NovaComputeStatus> = (self, old) =>
  self.spec.novaRef.name === old.spec.novaRef.name ? [] : [ruleError('spec.novaRef.name', self.spec.novaRef.name, 'novaRef.name is immutable')];

export const NOVA_COMPUTE_COLUMNS: readonly PrinterColumn[] = [
  { name: 'Nova', type: 'string', jsonPath: '.spec.novaRef.name' },
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: 'Nodes', type: 'integer', jsonPath: '.status.numberReady' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

export const NovaComputeKind = defineKind({
  kind: 'NovaCompute',
  plural: 'novacomputes',
  shortNames: ['nc'],
  spec: NovaComputeSpec,
  status: NovaComputeStatus,
  columns: NOVA_COMPUTE_COLUMNS,
  transitions: [novaRefImmutable],
});
export type NovaCompute = ResourceObject<'NovaCompute', NovaComputeSpec, NovaComputeStatus>;
export const validateNovaCompute = NovaComputeKind.validate;
