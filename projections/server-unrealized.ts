/**
 * Spec fields of a Server that Regent validates and stores but does not act on yet (issue 10, item
 * 14: "No success over fields Regent does not realize"). Each one is named in the SpecRealized
 * condition with what does not happen, and Available does not claim success while any stands. Remove
 * an entry in the commit whose issue makes the field real.
 *
 * Pure: from the spec as stored.
 */
import type { ServerSpec } from '../src/resources/server.js';

export interface UnrealizedField {
  /** The field path, e.g. `spec.volumes`. */
  field: string;
  /** What does not happen, in the user's words. */
  why: string;
}

export const unrealizedServerFields = (spec: Partial<ServerSpec> | undefined): UnrealizedField[] => {
  if (!spec) return [];
  const out: UnrealizedField[] = [];
  // sshInjection identityKeypair is acted on: the create sends the identity keypair's key_name (src/provider/identity/keypair.ts, issue 17)
  // sshInjection ca is acted on: the create merges the CA into the user data (src/provider/ssh-ca-user-data.ts, issue 17)
  // spec.securityGroups is acted on at create: the groups' Neutron ids go to Nova (src/controllers/security-group/for-server.ts, issue 17)
  // spec.infrastructureRef is acted on: the pinned create (src/controllers/server/pinned-create.ts, issue 16)
  // spec.providerCreateGates is acted on: the create waits for every gate (src/controllers/server/create-gates.ts, issue 17)
  return out;
};
