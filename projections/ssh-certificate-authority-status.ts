/**
 * An SSHCertificateAuthority's status (docs/ssh-certificate-authority.md). The kind holds no cloud
 * resource, so there is nothing to decide and no event stream: its status is what its key is. The
 * public key's blob is read back by the caller (src/provider/ssh-public-key.ts: its embedded type must be
 * the declared one, the fields complete), so a key that passes admission's pattern but is not a key is
 * reported, and its SHA256 fingerprint is shown as `ssh-keygen -l` prints it.
 *
 * | type | reasons |
 * |---|---|
 * | Available | True/KeyValid: Servers of the CA's organization and project may bind it; False/KeyMalformed: the blob is not a key of its declared type |
 *
 * Pure: from the object as stored.
 */
import { mergeConditions, type Condition } from './conditions.js';

/** The key as the caller read it back (src/provider/ssh-public-key.ts readPublicKey). */
export type KeyReading = { ok: true; type: string; fingerprint: string } | { ok: false; why: string };

export const renderSshCertificateAuthority = (input: { spec: { organizationID: string; projectID: string }; key: KeyReading; generation: number; at: string; previous?: { conditions?: Condition[] } }) => {
  const key = input.key;
  const tenancy = `${input.spec.organizationID}/${input.spec.projectID}`;
  return {
    observedGeneration: input.generation,
    phase: key.ok ? 'Ready' : 'Failed',
    ...(key.ok ? { fingerprint: key.fingerprint } : {}),
    conditions: mergeConditions(
      input.previous?.conditions,
      [
        key.ok
          ? { type: 'Available', status: 'True', reason: 'KeyValid', message: `a ${key.type} user CA (${key.fingerprint}); Servers of ${tenancy} may bind it (sshInjection ca)` }
          : { type: 'Available', status: 'False', reason: 'KeyMalformed', message: `the public key is not a key: ${key.why}` },
      ],
      input.generation,
      input.at,
    ),
  };
};
