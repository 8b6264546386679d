/**
 * An SSHCertificateAuthority's status (docs/ssh-certificate-authority.md), rendered from the object itself: a CA has
 * no cloud resource and nothing to decide, so no machine and no stream — only its key, read back.
 */
import { renderSshCertificateAuthority } from '../../../projections/ssh-certificate-authority-status.js';
import { readPublicKey } from '../../provider/ssh-public-key.js';
import type { SshCertificateAuthority } from '../../resources/ssh-certificate-authority.js';
import type { StatusRenderer } from '../../status/renderer.js';

export const sshCertificateAuthorityStatus: StatusRenderer = {
  ownedKeys: ['fingerprint'],
  render: async (env, object) => {
    const ca = object as SshCertificateAuthority;
    return renderSshCertificateAuthority({ spec: ca.spec, key: readPublicKey(ca.spec.publicKey), generation: ca.metadata.generation ?? 1, at: env.now(), previous: ca.status as never }) as unknown as Record<string, unknown>;
  },
};
