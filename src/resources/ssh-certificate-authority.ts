/**
 * SSHCertificateAuthority: the public key of an SSH user certificate authority, owned by one
 * organization and project (server-api.md: "create/update can validate and bind an SSH certificate
 * authority"; "a referenced SSH certificate authority (which is not network-scoped) must share the
 * server's organization and project"). A Server with `sshInjection: ca` names one; Regent merges it into
 * the server's cloud-init as sshd's TrustedUserCAKeys (src/provider/ssh-ca-user-data.ts), so users log
 * in with certificates the CA signs. It holds no cloud resource and no secret: only the public key.
 * The organization and project are fixed at creation (a server bound to the CA must not change tenancy).
 */
import type * as t from 'io-ts';
import { AuditURL, Conditions, DnsLabel, Generation, Phase } from './codec/common.js';
import { str } from './codec/primitives.js';
import { struct } from './codec/structure.js';
import { deepEqual, ruleError } from './codec/transitions.js';
import { defineKind, standardColumns, type ResourceObject, type TransitionRule } from './kind.js';

/** One OpenSSH public key line: a key type, its base64 blob and an optional comment. */
export const SSH_PUBLIC_KEY_PATTERN = '^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256|ecdsa-sha2-nistp384|ecdsa-sha2-nistp521) [A-Za-z0-9+/]+={0,3}( [^\\r\\n]*)?$';
export const SshPublicKey = str('SshPublicKey', { minLength: 16, maxLength: 16384, pattern: SSH_PUBLIC_KEY_PATTERN });

export const SshCertificateAuthoritySpec = struct(
  'SSHCertificateAuthoritySpec',
  { organizationID: DnsLabel, projectID: DnsLabel, publicKey: SshPublicKey },
  { description: str('CaDescription', { maxLength: 256 }) },
);
export type SshCertificateAuthoritySpec = t.TypeOf<typeof SshCertificateAuthoritySpec>;

export const SshCertificateAuthorityStatus = struct(
  'SSHCertificateAuthorityStatus',
  {},
  { observedGeneration: Generation, auditURL: AuditURL, phase: Phase, conditions: Conditions, fingerprint: str('KeyFingerprint', { maxLength: 128 }) },
);
export type SshCertificateAuthorityStatus = t.TypeOf<typeof SshCertificateAuthorityStatus>;

const immutable = (key: 'organizationID' | 'projectID'): TransitionRule<SshCertificateAuthoritySpec, SshCertificateAuthorityStatus> => (self, old) =>
  deepEqual(self.spec[key], old.spec[key]) ? [] : [ruleError(`spec.${key}`, self.spec[key], `${key} is immutable`)];

export const SshCertificateAuthorityKind = defineKind({
  kind: 'SSHCertificateAuthority',
  plural: 'sshcertificateauthorities',
  shortNames: ['sshca'],
  spec: SshCertificateAuthoritySpec,
  status: SshCertificateAuthorityStatus,
  columns: standardColumns('Available'),
  transitions: [immutable('organizationID'), immutable('projectID')],
});
export type SshCertificateAuthority = ResourceObject<'SSHCertificateAuthority', SshCertificateAuthoritySpec, SshCertificateAuthorityStatus>;
export const validateSshCertificateAuthority = SshCertificateAuthorityKind.validate;
