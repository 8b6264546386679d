import { condition, objectOf, variant, type AgreementCase, type Json } from './case.js';

const base = objectOf('NovaCompute', {
  novaRef: { name: 'nova' },
  nodeSelector: { 'node-role.kubernetes.io/compute': 'true', 'topology.kubernetes.io/zone': 'az1' },
  traits: ['CUSTOM_GPU', 'CUSTOM_NUMA_2'],
  hostTraits: [{ node: 'compute-1', traits: ['CUSTOM_FPGA'] }],
  image: 'ghcr.io/c5c3/nova-compute:2025.1',
  extraConfig: { libvirt: { cpu_mode: 'host-passthrough' } },
  vpa: { enabled: true },
});
const s = (edit: (spec: Json) => void): Json => variant(base, (o) => edit(o.spec as Json));

export const novaComputeCases: AgreementCase[] = [
  { title: 'a pool of a Nova, selected by labels, with traits, host traits, an image, extra config and a VPA is valid', object: base, expect: 'valid' },
  { title: 'only novaRef and nodeSelector are required', object: objectOf('NovaCompute', { novaRef: { name: 'nova' }, nodeSelector: { pool: 'a' } }), expect: 'valid' },
  { title: 'novaRef is required', object: s((x) => delete x.novaRef), expect: ['spec.novaRef'] },
  { title: 'the nodeSelector is required', object: s((x) => delete x.nodeSelector), expect: ['spec.nodeSelector'] },
  { title: 'an empty nodeSelector would select every node: refused', object: s((x) => (x.nodeSelector = {})), expect: ['spec.nodeSelector'] },
  { title: 'a nodeSelector key is a label key', object: s((x) => (x.nodeSelector = { 'not a key': 'x' })), expect: ['spec.nodeSelector'] },
  { title: 'a label key name part is at most 63 characters', object: s((x) => (x.nodeSelector = { [`example.com/${'k'.repeat(64)}`]: 'x' })), expect: ['spec.nodeSelector'] },
  { title: 'a nodeSelector value is a label value', object: s((x) => (x.nodeSelector = { pool: 'not a value' })), expect: ['spec.nodeSelector[pool]'] },
  { title: 'a nodeSelector holds at most 32 labels', object: s((x) => (x.nodeSelector = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`label-${i}`, 'x'])))), expect: ['spec.nodeSelector'] },
  { title: 'a trait is a custom trait: CUSTOM_ and upper-case', object: s((x) => (x.traits = ['HW_CPU_X86_AVX2'])), expect: ['spec.traits[0]'] },
  { title: 'a lower-case custom trait is refused', object: s((x) => (x.traits = ['CUSTOM_gpu'])), expect: ['spec.traits[0]'] },
  { title: 'a custom trait is at most 255 characters', object: s((x) => (x.traits = [`CUSTOM_${'A'.repeat(249)}`])), expect: ['spec.traits[0]'] },
  { title: 'traits are a set', object: s((x) => (x.traits = ['CUSTOM_GPU', 'CUSTOM_GPU'])), expect: ['spec.traits[1]'] },
  { title: 'host traits name a node once', object: s((x) => (x.hostTraits = [{ node: 'compute-1', traits: ['CUSTOM_A'] }, { node: 'compute-1', traits: ['CUSTOM_B'] }])), expect: ['spec.hostTraits[1]'] },
  { title: 'a host trait is a custom trait too', object: s((x) => (x.hostTraits = [{ node: 'compute-1', traits: ['FPGA'] }])), expect: ['spec.hostTraits[0].traits[0]'] },
  { title: 'a host traits entry names its node', object: s((x) => (x.hostTraits = [{ traits: ['CUSTOM_A'] }])), expect: ['spec.hostTraits[0].node'] },
  { title: 'extraConfig values are strings', object: s((x) => (x.extraConfig = { DEFAULT: { debug: true } })), expect: ['spec.extraConfig[DEFAULT][debug]'] },
  { title: 'the VPA block says whether it is enabled', object: s((x) => (x.vpa = {})), expect: ['spec.vpa.enabled'] },
  { title: 'the selector, traits and image may change', object: s((x) => ((x.nodeSelector = { pool: 'b' }), (x.traits = []), (x.image = 'ghcr.io/c5c3/nova-compute:2025.2'))), old: base, expect: 'valid' },
  { title: 'novaRef.name is immutable', object: s((x) => (x.novaRef = { name: 'other-nova' })), old: base, expect: ['spec.novaRef.name'] },
  {
    title: 'a status with nodes, created traits, the installed image and the DaemonSet counts is valid',
    object: {
      ...base,
      status: {
        observedGeneration: 2,
        phase: 'Ready',
        conditions: [condition('Ready', 'False', 'NotAllReady'), condition('NodesReady')],
        nodes: [
          { name: 'compute-1', phase: 'Active', zone: 'az1', traits: ['CUSTOM_GPU', 'HW_CPU_X86_AVX2'], servers: 3 },
          { name: 'compute-2', phase: 'Draining', servers: 0 },
        ],
        createdTraits: ['CUSTOM_GPU'],
        installedImage: 'ghcr.io/c5c3/nova-compute:2025.1',
        desiredNumberScheduled: 2,
        numberReady: 1,
      },
    },
    expect: 'valid',
  },
  { title: "a node's phase is one of the four", object: { ...base, status: { nodes: [{ name: 'compute-1', phase: 'Gone' }] } }, expect: ['status.nodes[0].phase'] },
  { title: 'status nodes are unique by name', object: { ...base, status: { nodes: [{ name: 'compute-1', phase: 'Active' }, { name: 'compute-1', phase: 'Pending' }] } }, expect: ['status.nodes[1]'] },
  { title: 'the DaemonSet counts are not negative', object: { ...base, status: { numberReady: -1 } }, expect: ['status.numberReady'] },
];
