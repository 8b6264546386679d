/**
 * The SSHCertificateAuthority kind (docs/ssh-certificate-authority.md): no cloud resource and nothing to decide, so no
 * machine, no stream and no controller — its status is its key read back, rendered whenever it changes.
 */
import type { KindWiring } from '../kind.js';
import { sshCertificateAuthorityStatus } from './status.js';

export const sshCertificateAuthorityWiring: KindWiring = {
  kind: 'SSHCertificateAuthority',
  streams: [],
  wakes: [],
  status: sshCertificateAuthorityStatus,
};
