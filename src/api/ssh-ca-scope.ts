/**
 * The SSH certificate authority scope rule (server-api.md: "the RBAC read of a reference is not enough
 * … a referenced SSH certificate authority (which is not network-scoped) must share the server's
 * organization and project"). Checked on create, where the CA is bound; an update keeps the CA chosen
 * at create. A CA that does not exist and one of another tenancy get the same 422, so the answer never
 * hints that an object exists in another organization or project.
 */
import type { ResourceSource } from '../kube/port.js';
import { resolveSshInjection, type ServerSpec } from '../resources/server.js';
import type { SshCertificateAuthority } from '../resources/ssh-certificate-authority.js';
import { unprocessable } from './errors.js';
import type { Tenancy } from './model.js';

/** The CA a `ca` server binds, when it is in the server's organization and project; else 422. */
export const checkSshCertificateAuthorityScope = async (source: ResourceSource, namespace: string, spec: ServerSpec, tenancy: Tenancy): Promise<SshCertificateAuthority | undefined> => {
  if (resolveSshInjection(spec) !== 'ca' || spec.sshCertificateAuthorityId === undefined) return undefined;
  const id = spec.sshCertificateAuthorityId;
  const ca = (await source.get('SSHCertificateAuthority', namespace, id)) as SshCertificateAuthority | undefined;
  if (!ca || ca.spec.organizationID !== tenancy.organizationId || ca.spec.projectID !== tenancy.projectId) {
    throw unprocessable(`spec.sshCertificateAuthorityId: no SSH certificate authority "${id}" in the server's organization and project (${tenancy.organizationId}/${tenancy.projectId})`);
  }
  return ca;
};
