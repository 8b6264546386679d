/**
 * The SSH certificate authority a `ca` Server binds, resolved before its create (server-api.md: "a
 * referenced SSH certificate authority … must share the server's organization and project"). The API
 * checks this at create (src/api/ssh-ca-scope.ts); a Server applied as a custom resource never passed
 * the API, so the pass checks again: the CA must exist in the Server's namespace and belong to the
 * organization and project of the Server's Identity (through its Network), and the user data must be
 * augmentable (no gzip). Otherwise SshCertificateAuthorityUnusable (L9): nothing is sent to Nova, and
 * the pass re-checks (a CA created afterwards is picked up).
 *
 * The CA's public key rides on the create request (it is not a secret), so the event that decided the
 * create says which key the guest was given.
 */
import type { ResourceSource } from '../../kube/port.js';
import { resolveSshInjection, type Server } from '../../resources/server.js';
import type { SshCertificateAuthority } from '../../resources/ssh-certificate-authority.js';
import type { Identity } from '../../resources/identity.js';
import type { Network } from '../../resources/network.js';
import { DesiredUnresolvable } from '../../provider/errors.js';
import { readPublicKey } from '../../provider/ssh-public-key.js';

const unusable = (message: string) => new DesiredUnresolvable('SshCertificateAuthorityUnusable', message);

/** The CA for the create request, or undefined when the server does not use one. */
export const sshCertificateAuthorityForCreate = async (source: ResourceSource, server: Server): Promise<{ name: string; publicKey: string } | undefined> => {
  if (resolveSshInjection(server.spec) !== 'ca' || server.spec.sshCertificateAuthorityId === undefined) return undefined;
  const namespace = server.metadata.namespace ?? 'default';
  const name = server.spec.sshCertificateAuthorityId;
  const userData = server.spec.userData === undefined ? undefined : Buffer.from(server.spec.userData, 'base64');
  if (userData && userData[0] === 0x1f && userData[1] === 0x8b) throw unusable('spec.userData is gzip: it cannot carry the SSH certificate authority (managed cloud-init augmentation needs an uncompressed payload)');
  const network = (await source.get('Network', namespace, server.spec.networkID)) as Network | undefined;
  const identity = network ? ((await source.get('Identity', namespace, network.spec.identityRef.name)) as Identity | undefined) : undefined;
  const ca = (await source.get('SSHCertificateAuthority', namespace, name)) as SshCertificateAuthority | undefined;
  if (!identity || !ca || ca.spec.organizationID !== identity.spec.organizationID || ca.spec.projectID !== identity.spec.projectID) {
    const tenancy = identity ? ` (${identity.spec.organizationID}/${identity.spec.projectID})` : '';
    throw unusable(`no SSH certificate authority "${name}" in the server's organization and project${tenancy}; re-checked every 30 s`);
  }
  const key = readPublicKey(ca.spec.publicKey);
  if (!key.ok) throw unusable(`the SSH certificate authority "${name}" holds no usable key: ${key.why}`);
  return { name, publicKey: ca.spec.publicKey };
};
