/**
 * Plain Nova records (flavors, keypairs, server groups, services, hypervisors, aggregates). Nothing decides on a
 * tagged field of these, so they are typed views of the wire shape (OpenStack's own field names): the listed
 * keys are checked, extra keys are ignored, and a listed key of the wrong type makes the answer unreadable.
 */
import * as t from 'io-ts';
import { nullable, stringMap } from './field.js';

/** Flavor (microversion ≥ 2.61 embeds extra_specs in the detail view). */
export const flavorCodec = t.intersection([
  t.type({ id: t.string, name: t.string, vcpus: t.number, ram: t.number, disk: t.number }),
  t.partial({
    'OS-FLV-EXT-DATA:ephemeral': t.number,
    swap: t.union([t.number, t.string]),
    'os-flavor-access:is_public': t.boolean,
    description: nullable(t.string),
    extra_specs: stringMap,
  }),
]);
export type Flavor = t.TypeOf<typeof flavorCodec>;

/** Keypair (the list wraps each as `{"keypair": …}`). `private_key` is never requested: Regent imports keys only. */
export const keypairCodec = t.intersection([
  t.type({ name: t.string }),
  t.partial({ public_key: t.string, fingerprint: t.string, type: t.string, user_id: t.string }),
]);
export type Keypair = t.TypeOf<typeof keypairCodec>;

/** Server group (2.64+: single `policy` plus `rules`). */
export const serverGroupCodec = t.intersection([
  t.type({ id: t.string, name: t.string }),
  t.partial({ policy: t.string, policies: t.array(t.string), rules: t.UnknownRecord, members: t.array(t.string), project_id: t.string }),
]);
export type ServerGroup = t.TypeOf<typeof serverGroupCodec>;

/** Compute service (os-services; 2.53+ ids are UUID strings). */
export const computeServiceCodec = t.intersection([
  t.type({ id: t.union([t.string, t.number]), binary: t.string, host: t.string, status: t.string, state: t.string }),
  t.partial({ zone: t.string, updated_at: nullable(t.string), disabled_reason: nullable(t.string), forced_down: t.boolean }),
]);
export type ComputeService = t.TypeOf<typeof computeServiceCodec>;

/**
 * A nova-compute service of a cell that did not answer (2.69+): Nova builds only this minimal construct, with
 * status UNKNOWN and no id or state. Below 2.69 such services are left out of the list.
 */
export const downCellServiceCodec = t.type({ binary: t.string, host: t.string, status: t.literal('UNKNOWN') });
export type DownCellService = t.TypeOf<typeof downCellServiceCodec>;

/** Hypervisor (2.88 dropped the usage counters from this view; they live in Placement). */
export const hypervisorCodec = t.intersection([
  t.type({ id: t.union([t.string, t.number]), hypervisor_hostname: t.string }),
  t.partial({
    state: t.string, status: t.string, hypervisor_type: t.string, host_ip: nullable(t.string), servers: t.array(t.UnknownRecord),
    /** The detail view's compute service of the node: `service.host` is the host Nova maps it to. */
    service: t.intersection([t.type({ host: t.string }), t.partial({ id: nullable(t.union([t.string, t.number])), disabled_reason: nullable(t.string) })]),
  }),
]);
export type Hypervisor = t.TypeOf<typeof hypervisorCodec>;

/** Host aggregate. */
export const aggregateCodec = t.intersection([
  t.type({ id: t.number, name: t.string }),
  t.partial({ availability_zone: nullable(t.string), hosts: nullable(t.array(t.string)), metadata: nullable(t.UnknownRecord), uuid: t.string }),
]);
export type Aggregate = t.TypeOf<typeof aggregateCodec>;

/** A remote console (2.6+). */
export const remoteConsoleCodec = t.type({ protocol: t.string, type: t.string, url: t.string });
export type RemoteConsole = t.TypeOf<typeof remoteConsoleCodec>;
