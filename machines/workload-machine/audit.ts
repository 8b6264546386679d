/**
 * The audit alphabet of the workload-machine machine (machines/workload-machine.ts): a finite set of stimuli that
 * reaches every state and takes every rule's transition — one machine `m1` (uid `u1`, port `wm-u1`), a worker and a
 * control plane of two API pools, two servers of Regent's (`s1`, `s2`) and a foreign one, three pass clocks (T1 past
 * the create grace and the first delete backoff after T0, T2 past both after T1), and each effect's four answers.
 * `regent check` explores it; test/machines/workload-machine.test.ts judges every edge of the graph it spans.
 */
import type { Stimulus } from '../definition.js';
import { WORKLOAD_MACHINE_EFFECTS as E, type DesiredMachine, type MachineObservation } from './observation.js';

export const T0 = '2026-12-04T10:00:00Z';
export const T1 = '2026-12-04T10:02:00Z';
export const T2 = '2026-12-04T10:10:00Z';

export const POOLS = [
  { name: 'kube_apiserver', poolId: 'pool-a', port: 6443 },
  { name: 'rke2_supervisor', poolId: 'pool-b', port: 9345 },
];

export const desiredMachine = (o: Partial<DesiredMachine> = {}): DesiredMachine => ({
  name: 'm1',
  portName: 'wm-u1',
  uid: 'u1',
  role: 'worker',
  networkId: 'net-1',
  subnetId: 'subnet-1',
  securityGroupIds: ['sg-node'],
  allowedAddressCIDRs: ['10.244.0.0/16'],
  imageId: 'img-1',
  flavorId: 'flavor-1',
  userDataDigest: 'a'.repeat(64),
  availabilityZone: 'az1',
  serverGroupId: null,
  tags: ['captf.io:cluster=demo'],
  metadata: { 'captf.io:cluster': 'demo', 'regent.dev:uid': 'u1' },
  pools: [],
  ...o,
});
export const controlPlane = (o: Partial<DesiredMachine> = {}): DesiredMachine =>
  desiredMachine({ role: 'controlPlane', securityGroupIds: ['sg-cp', 'sg-node'], serverGroupId: 'sg-group', pools: POOLS, ...o });

type Port = MachineObservation['port'];
type Server = MachineObservation['server'];
export const port = {
  absent: { kind: 'absent' } as Port,
  noAddress: { kind: 'present', id: 'p1', address: null, status: 'DOWN', deviceId: null, securityGroupIds: ['sg-node'] } as Port,
  free: { kind: 'present', id: 'p1', address: '10.0.0.5', status: 'DOWN', deviceId: null, securityGroupIds: ['sg-node'] } as Port,
  bound: (deviceId: string): Port => ({ kind: 'present', id: 'p1', address: '10.0.0.5', status: 'ACTIVE', deviceId, securityGroupIds: ['sg-node'] }),
  duplicate: { kind: 'duplicate', ids: ['p1', 'p9'] } as Port,
};
export const server = {
  absent: { kind: 'absent' } as Server,
  of: (id: string, status: string, imageId = 'img-1'): Server => ({ kind: 'present', id, status, imageId, taskState: null, foreign: false }),
  foreign: { kind: 'present', id: 'f1', status: 'ACTIVE', imageId: 'img-x', taskState: null, foreign: true } as Server,
  duplicate: { kind: 'duplicate', ids: ['s1', 's9'] } as Server,
};
export const members = (a: boolean | null, b: boolean | null): MachineObservation['membership'] =>
  [
    a === null ? null : { name: 'kube_apiserver', poolId: 'pool-a', member: a, provisioningStatus: 'ACTIVE' },
    b === null ? null : { name: 'rke2_supervisor', poolId: 'pool-b', member: b, provisioningStatus: 'ACTIVE' },
  ].filter((m) => m !== null);

export const pass = (o: {
  desired?: DesiredMachine | null;
  port?: Port;
  server?: Server;
  membership?: MachineObservation['membership'];
  deletionRequested?: boolean;
  at?: string;
  generation?: number;
}): Stimulus => ({
  type: 'reconcile',
  source: 'reconciler',
  generation: o.generation ?? 1,
  deletionRequested: o.deletionRequested ?? false,
  at: o.at ?? T0,
  desired: o.desired === undefined ? desiredMachine() : o.desired,
  observed: { port: o.port ?? port.absent, server: o.server ?? server.absent, membership: o.membership ?? [] },
});

export const answer = (effect: string, subject: string, type: 'accepted' | 'conflict' | 'rejected' | 'outcomeUnknown', id?: string): Stimulus => {
  const base = { source: 'effect' as const, effect, subject };
  switch (type) {
    case 'accepted':
      return id === undefined ? { type, ...base } : { type, ...base, ids: { id } };
    case 'conflict':
      return { type, ...base };
    case 'rejected':
      return { type, ...base, status: 400, reason: 'BadRequest' };
    case 'outcomeUnknown':
      return { type, ...base, reason: 'timeout' };
  }
};

const answers = (effect: string, subject: string, id?: string): Stimulus[] => [
  answer(effect, subject, 'accepted', id),
  answer(effect, subject, 'conflict'),
  answer(effect, subject, 'rejected'),
  answer(effect, subject, 'outcomeUnknown'),
];

export const workloadMachineAlphabet = (): Stimulus[] => {
  const s1 = (status: string, imageId?: string) => server.of('s1', status, imageId);
  const del = (o: Parameters<typeof pass>[0]) => pass({ desired: null, deletionRequested: true, ...o });
  return [
    // live (WM2–WM9)
    pass({ desired: null }),
    pass({}),
    pass({ at: T1 }),
    pass({ desired: desiredMachine({ imageId: null }) }),
    pass({ desired: desiredMachine({ flavorId: null }) }),
    pass({ port: port.noAddress }),
    pass({ port: port.free }),
    pass({ port: port.free, at: T1 }),
    pass({ port: port.free, generation: 2 }),
    pass({ port: port.bound('s1'), server: s1('BUILD') }),
    pass({ port: port.bound('s1'), server: s1('ACTIVE') }),
    pass({ port: port.bound('s1'), server: s1('ACTIVE', 'img-0'), desired: desiredMachine({ imageId: 'img-2' }) }),
    pass({ port: port.bound('s1'), server: s1('ERROR') }),
    pass({ port: port.duplicate }),
    pass({ port: port.free, server: server.duplicate }),
    pass({ port: port.free, server: server.foreign }),
    pass({ desired: controlPlane(), port: port.free, membership: members(null, null) }),
    pass({ desired: controlPlane(), port: port.free, membership: members(true, false) }),
    pass({ desired: controlPlane(), port: port.free, membership: members(true, true) }),
    { type: 'specRejected', source: 'reconciler', generation: 1, problems: ['spec.flavor: required'] },
    // deletion (WM10–WM17)
    del({}),
    del({ desired: desiredMachine() }),
    del({ port: port.bound('s1'), server: s1('ACTIVE'), membership: members(true, false) }),
    del({ port: port.bound('s1'), server: s1('ACTIVE'), membership: members(false, false) }),
    del({ port: port.bound('s1'), server: s1('ACTIVE'), at: T1 }),
    del({ port: port.bound('s1'), server: s1('ACTIVE'), at: T2 }),
    del({ port: port.bound('s2'), server: server.of('s2', 'ACTIVE') }),
    del({ port: port.bound('s1') }),
    del({ port: port.bound('s1'), at: T2 }),
    del({ port: port.free }),
    del({ port: port.bound('other') }),
    del({ server: server.foreign }),
    del({ port: port.duplicate }),
    // the answers (WM1, WM8, WM12, WM13)
    ...answers(E.createPort, 'wm-u1', 'p1'),
    ...answers(E.createServer, 'm1', 's1'),
    ...answers(E.deleteServer, 'm1'),
    answer(E.deleteServer, 's1', 'accepted'),
    ...answers(E.deletePort, 'wm-u1'),
  ];
};
