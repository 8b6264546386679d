/**
 * The cloud config of a session authenticated AS a managed user, scoped to one of its projects: what
 * `createApplicationCredential` needs (Keystone lets only the owner create one, and scopes it to the creating
 * token's project). Pure: `connectAsUser` (src/openstack/session.ts) connects with it.
 *
 * Only the endpoint settings of the base cloud are kept (auth URL, region, interface, CA bundle, TLS
 * verification); its credentials and scope are replaced, so nothing of the admin's identity carries over. The
 * password is the config's auth secret, so the session's redaction covers it.
 */
import type { CloudConfig } from '../clouds-config.js';

export type UserLogin =
  | { readonly userId: string; readonly domainId?: string; readonly password: string; readonly projectId: string }
  | { readonly userName: string; readonly domainId: string; readonly password: string; readonly projectId: string };

export const userCloudConfig = (cloud: CloudConfig, login: UserLogin): CloudConfig => ({
  authUrl: cloud.authUrl,
  auth: {
    type: 'password',
    user: 'userId' in login ? { id: login.userId } : { name: login.userName, domain: { id: login.domainId } },
    password: login.password,
  },
  scope: { kind: 'project', project: { id: login.projectId } },
  ...(cloud.regionName !== undefined ? { regionName: cloud.regionName } : {}),
  interface: cloud.interface,
  ...(cloud.cacertPath !== undefined ? { cacertPath: cloud.cacertPath } : {}),
  verify: cloud.verify,
});
