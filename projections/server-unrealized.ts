/**
 * Spec fields of a Server that Regent validates and stores but does not act on yet (issue 10, item
 * 14: "No success over fields Regent does not realize"). Each one is named in the SpecRealized
 * condition with what does not happen, and Available does not claim success while any stands. Remove
 * an entry in the commit whose issue makes the field real.
 *
 * Pure: from the spec as stored.
 */
import { resolveSshInjection, type ServerSpec } from '../src/resources/server.js';
import { sameUnordered } from '../src/resources/codec/transitions.js';

export interface UnrealizedField {
  /** The field path, e.g. `spec.volumes`. */
  field: string;
  /** What does not happen, in the user's words. */
  why: string;
}

/**
 * What the server's Nova create was sent with, when it matters: `securityGroups` are the SecurityGroup
 * names of the create request that made the server (undefined: the server exists, but no create request of
 * Regent's named any — adopted, or created before groups were sent); `created` false while no server exists.
 */
export interface CreatedWith {
  created: boolean;
  securityGroups?: readonly string[];
  /** The Nova keypair name the create request carried (identityKeypair only); undefined: none was sent. */
  keyName?: string;
}

export const unrealizedServerFields = (spec: Partial<ServerSpec> | undefined, createdWith: CreatedWith = { created: false }): UnrealizedField[] => {
  if (!spec) return [];
  const out: UnrealizedField[] = [];
  // identityKeypair: realized when the create named the identity's keypair; a server created without one (the
  // Identity has no user of its own in a Region without a managed domain, or had not imported its keypair yet) has no key
  const ssh = spec.name !== undefined ? resolveSshInjection(spec as ServerSpec) : spec.sshInjection;
  if (createdWith.created && ssh === 'identityKeypair' && createdWith.keyName === undefined) {
    out.push({ field: 'spec.sshInjection', why: "identityKeypair: the server was created without a key, which is not implemented yet for it: its Identity had no Nova keypair (a Region without a managed domain gives the identity no user of its own)" });
  }
  // security groups are sent with the create only (Nova's add/removeSecurityGroup actions are not driven yet):
  // a list changed since, or a server Regent adopted, is not realized
  const wanted = spec.securityGroups ?? [];
  const had = createdWith.securityGroups ?? [];
  if (createdWith.created && !sameUnordered(wanted, had)) {
    out.push({ field: 'spec.securityGroups', why: `changed after the create, which is not implemented yet: the server keeps the groups it was created with (${had.length > 0 ? had.join(', ') : 'the project default'})` });
  }
  // sshInjection identityKeypair is acted on: the create sends the identity keypair's key_name (src/provider/identity/keypair.ts, issue 17)
  // sshInjection ca is acted on: the create merges the CA into the user data (src/provider/ssh-ca-user-data.ts, issue 17)
  // spec.securityGroups is acted on at create: the groups' Neutron ids go to Nova (src/controllers/security-group/for-server.ts, issue 17)
  // spec.infrastructureRef is acted on: the pinned create (src/controllers/server/pinned-create.ts, issue 16)
  // spec.providerCreateGates is acted on: the create waits for every gate (src/controllers/server/create-gates.ts, issue 17)
  return out;
};
