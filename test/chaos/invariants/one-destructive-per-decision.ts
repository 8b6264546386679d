/**
 * At most one accepted destructive action per decision, read from the simulator's call log: one rebuild per
 * standing target (server, image), one create per exact name (Nova, Cinder, Octavia, Neutron, Keystone), one
 * accepted delete per target path.
 */
import { accepted, repeated, type Invariant } from './types.js';
import type { CallRecord } from '../harness/simulator-process.js';

const COLLECTIONS: Array<[RegExp, string]> = [
  [/\/compute\/v2\.1\/servers$/, 'server'],
  [/\/volume\/v3\/[^/]+\/volumes$/, 'volume'],
  [/\/lbaas\/loadbalancers$/, 'loadbalancer'],
  [/\/lbaas\/listeners$/, 'listener'],
  [/\/lbaas\/pools$/, 'pool'],
  [/\/lbaas\/healthmonitors$/, 'healthmonitor'],
  [/\/network\/v2\.0\/networks$/, 'network'],
  [/\/network\/v2\.0\/subnets$/, 'subnet'],
  [/\/network\/v2\.0\/security-groups$/, 'security_group'],
  [/\/identity\/v3\/projects$/, 'project'],
  [/\/identity\/v3\/users$/, 'user'],
];

/** `<kind> <name>` of a create call, when it is one. */
export const createdName = (call: CallRecord): string | undefined => {
  if (call.method !== 'POST') return undefined;
  const kind = COLLECTIONS.find(([re]) => re.test(call.path))?.[1];
  if (!kind) return undefined;
  const name = ((call.body as Record<string, Record<string, unknown> | undefined> | undefined)?.[kind])?.name;
  return typeof name === 'string' && name !== '' ? `${kind} ${name}` : undefined;
};

const rebuildKey = (call: CallRecord): string | undefined => {
  if (call.method !== 'POST' || call.action !== 'rebuild') return undefined;
  const image = ((call.body as { rebuild?: { imageRef?: string } } | undefined)?.rebuild)?.imageRef;
  return `${call.path.replace(/\/action$/, '')} → ${image}`;
};

const deleteKey = (call: CallRecord): string | undefined => (call.method === 'DELETE' && !call.path.includes('/auth/tokens') ? call.path : undefined);

export const oneDestructivePerDecision: Invariant = ({ calls, madeUpIds }) => {
  const ok = calls.filter(accepted).filter((c) => !madeUpIds.some((id) => c.path.includes(id)));
  return [
    ...repeated(ok, rebuildKey).map(([k, n]) => ({ invariant: 'one-destructive-per-decision' as const, detail: `${n} accepted rebuilds of ${k}` })),
    ...repeated(ok, createdName).map(([k, n]) => ({ invariant: 'one-destructive-per-decision' as const, detail: `${n} accepted creates of ${k}` })),
    ...repeated(ok, deleteKey).map(([k, n]) => ({ invariant: 'one-destructive-per-decision' as const, detail: `${n} accepted deletes of ${k}` })),
  ];
};
